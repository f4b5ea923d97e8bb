#!/usr/bin/env bash
# Packs what the GPU machine needs into .device/ (ignored by git, carried
# with `carry: [".device"]`): the stripped runner and libnvfp4_runtime.so,
# xz-compressed, and the lit wheel. env.sh there builds the Python bindings
# (nanobind is in the machine's image) against the library.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
mkdir -p "$root/.device"
strip -o "$root/.device/nvfp4-runner" "$build/bin/nvfp4-runner"
xz -T2 -6 -f "$root/.device/nvfp4-runner"
strip -o "$root/.device/libnvfp4_runtime.so" \
  "$build/python/nvfp4/libnvfp4_runtime.so"
xz -T2 -6 -f "$root/.device/libnvfp4_runtime.so"
if ! ls "$root"/.device/lit-*.whl > /dev/null 2>&1; then
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$root/.device" lit
fi
# NVIDIA's CuTe DSL kernels, imported here (scripts/cutedsl.sh) when they
# were, without the DSL's own output (.dsl.mlir, for reading only), and
# their mutants: test/Integration/GPU/cutedsl*.test run them (env.sh points
# NVFP4_CUTEDSL_KERNELS at them).
rm -rf "$root/.device/cutedsl"
if [ -f "$build/cutedsl-kernels/manifest.json" ]; then
  mkdir -p "$root/.device/cutedsl"
  cp "$build"/cutedsl-kernels/manifest.json "$root/.device/cutedsl/"
  for f in "$build"/cutedsl-kernels/*.mlir; do
    case "$f" in *.dsl.mlir) ;; *) cp "$f" "$root/.device/cutedsl/" ;; esac
  done
  cp -r "$build"/cutedsl-kernels/mutants "$root/.device/cutedsl/"
fi
ls -la "$root/.device"
