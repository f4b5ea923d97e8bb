#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh): compiles the sm_100a kernels of
# test/Integration/GPUCompile/lower-to-sm100.mlir with the runner and
# disassembles them with the machine's cuobjdump (python/nvfp4_testing/sass.py);
# summary and excerpts in $OUT/sass. CI runs the same check
# (test/Integration/GPUCompile/sm100-sass.test, cuobjdump from the wheel).
set -u
source "$(dirname "$0")/env.sh"
python3 -m nvfp4_testing.sass test/Integration/GPUCompile/lower-to-sm100.mlir \
  --entry variants --out "$OUT/sass" --require-gemm
