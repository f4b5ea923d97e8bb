#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh): the GPU lit suite, or the tests
# named in $NVFP4_GPU_TESTS; logs in $OUT.
set -u
source "$(dirname "$0")/env.sh"
export NVFP4_GPU_TEST_EXEC_ROOT=/tmp/nvfp4/lit
tests=${NVFP4_GPU_TESTS:-test/Integration/GPU}
python3 -c "import lit.main; lit.main.main()" -sv $tests 2>&1 | tee "$OUT/lit_gpu.log"
status=${PIPESTATUS[0]}
tar -C /tmp/nvfp4/lit -czf "$OUT/lit_logs.tgz" . 2>/dev/null || true
exit $status
