"""Put python/ on sys.path so `python3 -m pytest python/tests` works uninstalled."""

import os
import sys

_PY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PY_DIR not in sys.path:
    sys.path.insert(0, _PY_DIR)
