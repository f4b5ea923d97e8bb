"""nvfp4_testing: the project's test tooling, kept apart from the user API.

``nvfp4`` is what a user imports (the reference numerics and the compiler
API); this package holds what the test suites and the benchmarks use:

* ``selfcheck``  -- every op against the reference on fresh random data
  (``python3 -m nvfp4_testing.selfcheck``; the lit suites run it);
* ``ptx_decode`` -- an independent decoder of the tcgen05 descriptors and
  TMEM addresses in PTX, written from the PTX ISA tables;
* ``gpu_binary`` -- the PTX / cubin out of MLIR ``gpu.binary`` ops;
* ``sass``       -- cuobjdump SASS of the sm_100a kernels and the check of
  which instructions must be in it.
* ``producers``  -- quantized checkpoints made by compressed-tensors,
  ModelOpt and in gpt-oss's MXFP4 layout, with the producers' own
  dequantization and forward (python/tests/test_models.py);
* ``find_runner`` -- the nvfp4-runner binary the command-line tests run.
"""

import os
import shutil
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]


def find_runner() -> str:
    """$NVFP4_RUNNER, the repository's build/bin, or nvfp4-runner on PATH."""
    for candidate in (os.environ.get("NVFP4_RUNNER"),
                      _REPO / "build" / "bin" / "nvfp4-runner",
                      shutil.which("nvfp4-runner")):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    raise FileNotFoundError("nvfp4-runner not found: build it (scripts/setup.sh) "
                            "or set NVFP4_RUNNER")
