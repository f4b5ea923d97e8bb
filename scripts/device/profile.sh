#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh): Nsight Compute on the sm_90a GEMM of
# one benchmark case. Usage: profile.sh CASE FORM [runner args...]
# Leaves $OUT/profile.ncu-rep, the SASS source page with stall samples
# ($OUT/source.csv) and the details page ($OUT/details.txt).
set -u
source "$(dirname "$0")/env.sh"
case=$1 form=$2; shift 2
args=$(python3 benchmarks/dump_case.py "$case" "$form" /tmp/nvfp4/case) || exit 1
ncu --target-processes all -k regex:nvfp4_sm90_gemm -c 1 --set full \
    --import-source no -f -o "$OUT/profile" "$NVFP4_RUNNER" $args "$@" > "$OUT/ncu.log" 2>&1
tail -5 "$OUT/ncu.log"
ncu -i "$OUT/profile.ncu-rep" --page details > "$OUT/details.txt" 2>&1
ncu -i "$OUT/profile.ncu-rep" --page source --csv --print-source sass > "$OUT/source.csv" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|One or More Eligible|Warp Cycles Per Issued" "$OUT/details.txt" | head -30
