#!/usr/bin/env bash
# Sets up, builds and runs every test: the lit suite (check-nvfp4: dialect,
# conversion, compile-only ptxas tests, CPU integration; GPU tests run only
# where a GPU is found), a fuzz smoke run (scripts/fuzz.sh, under 2 minutes)
# and the python tests (torch, transformers and the checkpoint producers
# installed for them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
"$root/scripts/setup.sh" "$build"

# NVIDIA's CuTe DSL kernels, compiled and imported (their own virtual
# environment, made once): test/CuTeDSL, python/tests/test_cutedsl.py.
echo "== CuTe DSL kernels"
"$root/scripts/cutedsl.sh" "$build"
export NVFP4_CUTEDSL_KERNELS="$build/cutedsl-kernels"

echo "== lit: check-nvfp4"
ninja -C "$build" check-nvfp4

# The fuzz smoke run (fuzz/README.md): both libFuzzer targets on the seed
# corpus, 105 s in all (the compile target spends ~20 s of its 75 on the
# seeds), in their own clang build directory.
echo "== fuzz smoke run"
FUZZ_SECONDS_COMPILE="${FUZZ_SECONDS_COMPILE:-75}" \
FUZZ_SECONDS_INPUTS="${FUZZ_SECONDS_INPUTS:-30}" \
  "$root/scripts/fuzz.sh" "${build%/}-fuzz"

# torch for the torch API tests (python/tests/test_torch_api.py, the torch
# cases of test_runtime.py): PyPI's wheel, which runs on the CPU where there
# is no GPU (about a minute to fetch and install). An installed torch that
# does not import is repaired: the CUDA 12 and CUDA 13 wheels of NVIDIA's
# libraries (nccl, nvshmem, cudnn, cusparselt) share file paths, so a torch
# of one CUDA installed over the other's leaves it linked to the wrong
# library; reinstalling torch with its dependencies rewrites them.
torch_req="torch==2.15.0"
pip_install() {
  python3 -m pip install -q "$@" ||
    python3 -m pip install -q --break-system-packages "$@"
}
torch_imports() { python3 -c "import torch" 2>/dev/null; }
torch_imports || {
  echo "== installing torch"
  pip_install "$torch_req"
}
torch_imports || {
  echo "== torch is installed but does not import: reinstalling it"
  pip_install --force-reinstall "$torch_req"
}
python3 -c "import torch"

# The checkpoint formats' own tools for python/tests/test_models.py (the
# producers make the test checkpoints; docs/spec.md 2.9): transformers and
# safetensors (what users load models with), compressed-tensors and
# nvidia-modelopt (pure Python, their CPU paths), accelerate (transformers'
# quantized loading). Pinned to the versions the tests were written against.
python3 -c "import transformers, safetensors, compressed_tensors, accelerate, modelopt.torch" \
    2>/dev/null || {
  echo "== installing the checkpoint producers"
  deps="transformers==5.24.0 safetensors==0.8.0 compressed-tensors==0.20.0 accelerate==1.15.0 nvidia-modelopt==0.47.0"
  # shellcheck disable=SC2086
  pip_install $deps
}

# The installed packages (setup.sh: pip install .), the runner of this build.
echo "== pytest: python/tests"
export NVFP4_RUNNER="$build/bin/nvfp4-runner"
set +e
(cd "$build" && python3 -m pytest -q -p no:cacheprovider "$root/python/tests")
rc=$?
set -e
# pytest exits 5 when it collects no tests; that is not a failure here.
if [ $rc -ne 0 ] && [ $rc -ne 5 ]; then
  exit $rc
fi
echo "== all tests passed"
