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

python3 -c "import numpy, pytest, ml_dtypes" 2>/dev/null || {
  echo "== installing numpy pytest ml_dtypes"
  python3 -m pip install -q numpy pytest ml_dtypes ||
    python3 -m pip install -q --break-system-packages numpy pytest ml_dtypes
}

if [ ! -f "$build/build.ninja" ]; then
  echo "== configuring $build"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
echo "== building"
ninja -C "$build" ${NVFP4_NINJA_TARGETS:-all}
