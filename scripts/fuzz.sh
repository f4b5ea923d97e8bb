#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang-22 in their own build
# directory and runs each for a while on a copy of the in-tree seed corpus.
#
#   scripts/fuzz.sh [build-dir]            (default: build-fuzz)
#
#   FUZZ_SECONDS=50      seconds per target (fuzz/README.md gives the longer
#                        run); FUZZ_SECONDS_COMPILE / FUZZ_SECONDS_INPUTS
#                        override it for one target
#   FUZZ_TARGETS="compile inputs"
#   FUZZ_WORK=dir        where new corpus entries and crash artifacts go
#                        (default: a fresh temporary directory, removed
#                        when nothing was found)
#   FUZZ_JOBS=1          parallel fuzzing jobs per target
#
# Exits non-zero when a target crashes, aborts, leaks, times out or runs out
# of memory; the reproducer is left under $FUZZ_WORK/artifacts.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-fuzz}"
seconds="${FUZZ_SECONDS:-50}"
targets="${FUZZ_TARGETS:-compile inputs}"
jobs="${FUZZ_JOBS:-1}"

for tool in clang++-22 clang-22; do
  command -v "$tool" >/dev/null || {
    echo "scripts/fuzz.sh: $tool not found (scripts/setup.sh installs clang-22 and libclang-rt-22-dev)" >&2
    exit 1
  }
done

if [ ! -f "$build/build.ninja" ]; then
  echo "== configuring $build (clang-22, libFuzzer + AddressSanitizer)"
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release -DNVFP4_ENABLE_FUZZERS=ON >/dev/null
fi
echo "== building the fuzz targets"
ninja -C "$build" nvfp4-fuzzers

work="${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/nvfp4-fuzz.XXXXXX")}"
mkdir -p "$work/artifacts"
# Leaks of a whole MLIR context per input are not findings; LLVM's static
# registries are reported as leaks at exit otherwise.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"

status=0
for t in $targets; do
  case "$t" in
    compile) dict="$root/fuzz/mlir.dict"; maxlen=8192; timeout=120
             secs="${FUZZ_SECONDS_COMPILE:-$seconds}" ;;
    inputs)  dict="$root/fuzz/npy.dict";  maxlen=4096; timeout=30
             secs="${FUZZ_SECONDS_INPUTS:-$seconds}" ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  corpus="$work/corpus-$t"
  mkdir -p "$corpus"
  echo "== nvfp4-fuzz-$t: ${secs}s, corpus $corpus (seeds: fuzz/corpus/$t)"
  args=(-max_total_time="$secs" -timeout="$timeout" -rss_limit_mb=4096
        -max_len="$maxlen" -dict="$dict" -print_final_stats=1
        -artifact_prefix="$work/artifacts/$t-")
  if [ "$jobs" -gt 1 ]; then
    args+=(-fork="$jobs")
  fi
  set +e
  "$build/bin/nvfp4-fuzz-$t" "${args[@]}" "$corpus" "$root/fuzz/corpus/$t" \
    >"$work/$t.log" 2>&1
  rc=$?
  set -e
  grep -E "^(stat::|Done|INFO: seed corpus|==[0-9]+==ERROR|SUMMARY)" "$work/$t.log" || true
  tail -n 3 "$work/$t.log"
  if [ $rc -ne 0 ]; then
    echo "== nvfp4-fuzz-$t FAILED (exit $rc); log $work/$t.log, artifacts:" >&2
    ls -l "$work/artifacts" >&2 || true
    status=1
  else
    echo "== nvfp4-fuzz-$t: no crash, abort, leak or timeout"
  fi
done
# A temporary work directory is only worth keeping for its findings.
if [ $status -eq 0 ] && [ -z "${FUZZ_WORK:-}" ]; then
  rm -rf "$work"
fi
exit $status
