"""nvfp4: the Python side of the nvfp4-mlir compiler.

``import nvfp4`` gives the compiler's API, ``nvfp4.compiler``'s names
(``nvfp4.quantize``, ``nvfp4.matmul``, ``nvfp4.grouped_matmul``... on numpy
arrays and torch tensors, compiled once and run in process through
``nvfp4.runtime``); ``nvfp4.nn`` and ``nvfp4.ops`` are the torch layers and
ops, ``nvfp4.models`` the checkpoint loaders. ``nvfp4.reference`` is the
bit-exact NumPy oracle for docs/spec.md section 2, under that name only (one
name, one meaning: ``nvfp4.dequantize`` is the compiler's).

Installed (``pip install .``), the native part (``nvfp4._runtime`` and
libnvfp4_runtime.so) lies in this package. From a source tree it is what
scripts/setup.sh built into ``<build>/python/nvfp4``, which then joins this
package's path ($NVFP4_BUILD_DIR, default the repository's build/).
"""

import os as _os
from pathlib import Path as _Path

_build = _Path(_os.environ.get("NVFP4_BUILD_DIR") or
               _Path(__file__).resolve().parents[2] / "build")
if (_build / "python" / "nvfp4").is_dir():
    __path__.append(str(_build / "python" / "nvfp4"))

from . import compiler, reference, runtime  # noqa: E402
from .compiler import *  # noqa: F401,F403,E402

__all__ = list(compiler.__all__) + ["compiler", "reference", "runtime"]
