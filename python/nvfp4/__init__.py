"""nvfp4: NumPy reference numerics for the nvfp4-mlir compiler.

``nvfp4.reference`` is the bit-exact oracle for docs/spec.md section 2; its public
names are re-exported here.
"""

from . import reference
from .reference import *  # noqa: F401,F403
from .reference import __all__  # noqa: F401
