#!/usr/bin/env bash
# Compiles the CuTe DSL kernels of test/CuTeDSL with NVIDIA's CuTe DSL and
# imports them (test/CuTeDSL/generate.py, docs/design/cutedsl.md):
#   scripts/cutedsl.sh [build-dir]   -> <build-dir>/cutedsl-kernels
# nvidia-cutlass-dsl is a large wheel (~300 MB installed) that only these
# tests need: it goes into a virtual environment of its own under the build
# directory, made once and reused. No GPU is needed; the GPU tests
# (test/Integration/GPU/cutedsl.test) run the imported kernels, carried to
# the GPU machine by scripts/device/pack.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
venv="$build/cutedsl-venv"
dsl_req="nvidia-cutlass-dsl==4.8.1"
if ! "$venv/bin/python" -c "import cutlass.cute" 2>/dev/null; then
  echo "== installing $dsl_req into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q "$dsl_req"
fi
out="$build/cutedsl-kernels"
"$venv/bin/python" "$root/test/CuTeDSL/generate.py" "$out"
# The cluster emulation's mutation test: the CTA-pair kernels with one
# tcgen05 field corrupted each (nvfp4-opt's test pass), for
# test/Integration/GPU/cutedsl-mutations.test.
PYTHONPATH="$root/python" python3 -m nvfp4_testing.cutedsl mutants "$out" \
  --opt "$build/bin/nvfp4-opt"
