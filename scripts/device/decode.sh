#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh): the decode checks and benchmark of
# the sm_90a kernel. First the GPU selfcheck families named in
# $CHECKS (default: decode), then benchmarks/bench_decode.py with the
# arguments given (e.g. --configs "default;tokens=prepass"); with
# PROFILE="case[,case]" Nsight Compute on ours (the whole layer) of each.
# Results and logs in $OUT.
set -u
source "$(dirname "$0")/env.sh"
source "$(dirname "$0")/ncu_report.sh"
status=0 hung=0
for family in ${CHECKS:-decode}; do
  timeout ${CHECK_TIMEOUT:-300} python3 -m nvfp4_testing.selfcheck "$family" --target=gpu \
      --size=full > "$OUT/selfcheck_$family.log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  [ $rc = 124 ] && hung=1 && echo "selfcheck $family: timed out (a hang?)"
  grep -E "^FAIL|SUMMARY|TOTAL" "$OUT/selfcheck_$family.log" | head -20
done
# A check that timed out (a hang) skips the benchmark.
if [ "${BENCH:-1}" = 1 ] && [ $hung = 0 ]; then
  timeout ${BENCH_TIMEOUT:-400} python3 benchmarks/bench_decode.py --out "$OUT" "$@" \
      > "$OUT/bench_decode.log" 2>&1 || status=1
  grep -vE "^\{" "$OUT/bench_decode.log" | tail -40
fi
for case in $(echo "${PROFILE:-}" | tr , " "); do
  timeout 200 ncu --target-processes all -k "regex:${KERNEL:-nvfp4}" -c "${COUNT:-4}" \
      --set full --import-source no -f -o "$OUT/profile_$case" \
      python3 benchmarks/bench_decode.py --out /tmp/nvfp4/prof --cases "$case" --no-peers \
      --reps 1 > "$OUT/ncu_$case.log" 2>&1
  ncu_report "$case"
done
exit $status
