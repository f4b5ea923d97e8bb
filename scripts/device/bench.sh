#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh): benchmarks/bench_h200.py, peers
# (benchmarks/peers.py, torch) included, results in $OUT. Arguments go to the
# script (e.g. --check-shared, --cases gpumode1); NVFP4_COMMIT names the
# commit measured (the device copy has no .git).
set -u
source "$(dirname "$0")/env.sh"
python3 benchmarks/bench_h200.py --out "$OUT" "$@" 2>&1 | tee "$OUT/bench.log"
exit ${PIPESTATUS[0]}
