#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh): Nsight Compute on the sm_90a GEMM of
# one benchmark case. Usage: [KERNEL=regex] profile.sh CASE FORM [runner args...]
# (KERNEL defaults to the sm_90a GEMM; e.g. KERNEL=quantize for quantize_8k).
# Leaves the details page ($OUT/details_CASE.txt), the stall breakdown
# ($OUT/stalls_CASE.txt) and the SASS source page with stall samples
# ($OUT/source_CASE.csv).
set -u
source "$(dirname "$0")/env.sh"
source "$(dirname "$0")/ncu_report.sh"
case=$1 form=$2; shift 2
args=$(python3 benchmarks/dump_case.py "$case" "$form" /tmp/nvfp4/case) || exit 1
ncu --target-processes all -k "regex:${KERNEL:-nvfp4_sm90_gemm}" -c "${COUNT:-1}" --set full \
    --import-source no -f -o "$OUT/profile_${case}" "$NVFP4_RUNNER" $args "$@" > "$OUT/ncu_${case}.log" 2>&1
tail -3 "$OUT/ncu_${case}.log"
ncu_report "$case"
