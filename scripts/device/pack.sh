#!/usr/bin/env bash
# Packs what the GPU machine needs into .device/ (ignored by git, carried
# with `carry: [".device"]`): the stripped runner, xz-compressed, and the
# lit wheel.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
mkdir -p "$root/.device"
strip -o "$root/.device/nvfp4-runner" "$build/bin/nvfp4-runner"
xz -T2 -6 -f "$root/.device/nvfp4-runner"
if ! ls "$root"/.device/lit-*.whl > /dev/null 2>&1; then
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$root/.device" lit
fi
ls -la "$root/.device"
