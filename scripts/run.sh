#!/usr/bin/env bash
# Sets up, builds and runs the main job: the MoE example program
# (docs/examples/moe_grouped.mlir: quantize activations and expert weights,
# grouped block-scaled matmul) through nvfp4-runner -- on the GPU when there
# is one, otherwise on the CPU -- checked against the python reference.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
"$root/scripts/setup.sh" "$build"

export NVFP4_RUNNER="$build/bin/nvfp4-runner"
# The installed package (setup.sh: pip install .), not the source tree.
cd "$build"
python3 -m nvfp4.demo --program "$root/docs/examples/moe_grouped.mlir"
