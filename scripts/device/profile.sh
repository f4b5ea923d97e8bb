#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh): Nsight Compute on the sm_90a GEMM of
# one benchmark case. Usage: [KERNEL=regex] profile.sh CASE FORM [runner args...]
# (KERNEL defaults to the sm_90a GEMM; e.g. KERNEL=quantize for quantize_8k).
# Leaves the details page ($OUT/details_CASE.txt), the stall breakdown
# ($OUT/stalls_CASE.txt) and the SASS source page with stall samples
# ($OUT/source_CASE.csv).
set -u
source "$(dirname "$0")/env.sh"
case=$1 form=$2; shift 2
args=$(python3 benchmarks/dump_case.py "$case" "$form" /tmp/nvfp4/case) || exit 1
ncu --target-processes all -k "regex:${KERNEL:-nvfp4_sm90_gemm}" -c "${COUNT:-1}" --set full \
    --import-source no -f -o "$OUT/profile_${case}" "$NVFP4_RUNNER" $args "$@" > "$OUT/ncu_${case}.log" 2>&1
tail -3 "$OUT/ncu_${case}.log"
ncu -i "$OUT/profile_${case}.ncu-rep" --page details > "$OUT/details_${case}.txt" 2>&1
# Why warps wait: the warp-state breakdown (cycles per issued instruction
# by stall reason), and the SASS lines with the most stall samples.
ncu -i "$OUT/profile_${case}.ncu-rep" --page raw --csv 2> /dev/null | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
if len(rows) >= 3:
    for name, unit, value in sorted(zip(rows[0], rows[1], rows[2])):
        if "issue_stalled" in name and name.endswith("per_issue_active.ratio"):
            print(f"{value:>10} {name}")' > "$OUT/stalls_${case}.txt"
ncu -i "$OUT/profile_${case}.ncu-rep" --page source --csv --print-source sass \
    > "$OUT/source_${case}.csv" 2> "$OUT/source_${case}.err" || true
rm -f "$OUT/profile_${case}.ncu-rep"
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|One or More Eligible|Warp Cycles Per Issued" "$OUT/details_${case}.txt" | head -30
