"""The tests import the installed packages (`pip install .` installs nvfp4
and nvfp4_testing; scripts/test.sh does), or the source tree with
PYTHONPATH=python (the lit suites, the GPU machine)."""
