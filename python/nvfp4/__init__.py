"""nvfp4: the Python side of the nvfp4-mlir compiler.

``nvfp4.compiler`` is the API (quantize, matmul, grouped matmul... on numpy
arrays and torch tensors, in process through ``nvfp4.runtime``);
``nvfp4.reference`` is the bit-exact NumPy oracle for docs/spec.md section 2,
whose public names are re-exported here.

The native part (``nvfp4._runtime`` and libnvfp4_runtime.so) is built by
scripts/setup.sh into ``<build>/python/nvfp4``: that directory joins this
package's path ($NVFP4_BUILD_DIR, default the repository's build/).
"""

import os as _os
from pathlib import Path as _Path

_build = _Path(_os.environ.get("NVFP4_BUILD_DIR") or
               _Path(__file__).resolve().parents[2] / "build")
if (_build / "python" / "nvfp4").is_dir():
    __path__.append(str(_build / "python" / "nvfp4"))

from . import reference  # noqa: E402
from .reference import *  # noqa: F401,F403,E402
from .reference import __all__  # noqa: F401,E402
