#!/usr/bin/env bash
# Sets up, builds and runs the main example: an nvfp4 program through
# nvfp4-opt (parse, verify, canonicalize).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
"$root/scripts/setup.sh" "$build"

example="$root/docs/examples/moe_grouped.mlir"
echo "== nvfp4-opt --canonicalize $example"
"$build/bin/nvfp4-opt" --canonicalize "$example"
