#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh): benchmarks/sweep_sm90.py, results in
# $OUT. Arguments go to the script.
set -u
source "$(dirname "$0")/env.sh"
python3 benchmarks/sweep_sm90.py --out "$OUT" "$@" 2>&1 | tee "$OUT/sweep.log"
exit ${PIPESTATUS[0]}
