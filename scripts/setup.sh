#!/usr/bin/env bash
# Installs what nvfp4-mlir needs on a fresh Debian 12 machine and builds it.
#   scripts/setup.sh [build-dir]     (default: build)
# Idempotent: installs only what is missing, reconfigures only when needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"

# clang-22 and libclang-rt-22-dev (libFuzzer, AddressSanitizer) build the
# fuzz targets of scripts/fuzz.sh.
pkgs=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
      ninja-build cmake g++ libzstd-dev zlib1g-dev clang-22 libclang-rt-22-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python3 -c "import numpy, pytest, ml_dtypes, nanobind, scikit_build_core" 2>/dev/null || {
  echo "== installing numpy pytest ml_dtypes nanobind scikit-build-core"
  deps="numpy pytest ml_dtypes nanobind scikit-build-core"
  # shellcheck disable=SC2086
  python3 -m pip install -q $deps || python3 -m pip install -q --break-system-packages $deps
}

# cuobjdump for the CI SASS check of the sm_100a kernels
# (test/Integration/GPUCompile/sm100-sass.test): the nvidia-cuda-cuobjdump
# wheel installs site-packages/nvidia/cu13/bin/cuobjdump, and `cuobjdump
# -sass` runs the nvdisasm that nvidia-cuda-nvdisasm installs next to it;
# python/nvfp4_testing/sass.py finds them (`python3 -m nvfp4_testing.sass
# --where`).
if ! command -v cuobjdump >/dev/null 2>&1 &&
   ! PYTHONPATH="$root/python" python3 -m nvfp4_testing.sass --where >/dev/null 2>&1; then
  echo "== installing nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm"
  python3 -m pip install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm ||
    python3 -m pip install -q --break-system-packages nvidia-cuda-cuobjdump \
      nvidia-cuda-nvdisasm
fi

if [ ! -f "$build/build.ninja" ]; then
  echo "== configuring $build"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
echo "== building"
ninja -C "$build" ${NVFP4_NINJA_TARGETS:-all}

# The Python package as users install it (pyproject.toml): nvfp4 with its
# native runtime, and nvfp4_testing; the main job and the python tests import
# the installed packages. Its own build tree under $build/pip (scikit-build-
# core's settings differ from the tree above), kept between runs.
echo "== pip install . (nvfp4, nvfp4_testing)"
python3 -m pip install -q --no-build-isolation -C build-dir="$build/pip" "$root" ||
  python3 -m pip install -q --break-system-packages --no-build-isolation \
    -C build-dir="$build/pip" "$root"
