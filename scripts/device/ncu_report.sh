#!/usr/bin/env bash
# Sourced by profile.sh and decode.sh on the GPU machine: ncu_report NAME
# turns $OUT/profile_NAME.ncu-rep into the details page
# ($OUT/details_NAME.txt), the stall breakdown ($OUT/stalls_NAME.txt: cycles
# per issued instruction by stall reason) and the SASS source page with stall
# samples ($OUT/source_NAME.csv), then deletes the report and prints the
# headline metrics.
ncu_report() {
  local name=$1 rep="$OUT/profile_$1.ncu-rep"
  ncu -i "$rep" --page details > "$OUT/details_$name.txt" 2>&1
  ncu -i "$rep" --page raw --csv 2> /dev/null | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
if len(rows) >= 3:
    for name, unit, value in sorted(zip(rows[0], rows[1], rows[2])):
        if "issue_stalled" in name and name.endswith("per_issue_active.ratio"):
            print(f"{value:>10} {name}")' > "$OUT/stalls_$name.txt"
  ncu -i "$rep" --page source --csv --print-source sass \
      > "$OUT/source_$name.csv" 2> "$OUT/source_$name.err" || true
  rm -f "$rep"
  grep -E "^  [a-z_0-9]+|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|One or More Eligible|Warp Cycles Per Issued" \
      "$OUT/details_$name.txt" | head -40
}
