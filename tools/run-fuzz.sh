#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets of tests/fuzz with clang in build-fuzz
# (ENGRAMSIM_FUZZ=ON: ASan + UBSan + coverage in every library) and runs each for FUZZ_SECONDS,
# FUZZ_PARALLEL at a time. Per target: a corpus in build-fuzz/fuzz/corpus/<t>/ (seeded once from
# tests/fuzz/regressions, tests/fuzz/seeds and the shipped files tests/fuzz/targets.txt lists, each
# cut to the target's max length; it grows across runs), the dictionary tests/fuzz/dict/<t>.dict,
# crash / leak / timeout / out-of-memory inputs in build-fuzz/fuzz/artifacts/<t>/, the log in
# build-fuzz/fuzz/logs/<t>.log, and one summary line in build-fuzz/fuzz/summary.txt.
# Limits per input: -max_len from targets.txt, -rss_limit_mb=FUZZ_RSS_MB (2048), -timeout=FUZZ_TIMEOUT
# (10 s). Exit 1 when any target found something. docs/fuzzing.md tells what to do with a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${FUZZ_BUILD:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
PARALLEL=${FUZZ_PARALLEL:-2}
RSS_MB=${FUZZ_RSS_MB:-2048}
TIMEOUT=${FUZZ_TIMEOUT:-10}
JOBS=${JOBS:-$(nproc)}
OUT=$BUILD/fuzz

# name max_len seeds..., one target per line, from targets.txt (FUZZ_TARGETS="a b" picks some).
target_lines() {
  grep -E '^[a-z]' tests/fuzz/targets.txt | while read -r name rest; do
    if [ -z "${FUZZ_TARGETS:-}" ] || [[ " $FUZZ_TARGETS " == *" $name "* ]]; then echo "$name $rest"; fi
  done
}

build() {
  local runtime
  runtime="$(clang++ -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-x86_64.a"
  if ! command -v clang++ > /dev/null || [ ! -f "$runtime" ]; then
    echo "make fuzz needs clang++ and libFuzzer ($runtime): apt-get install clang libclang-rt-14-dev" >&2
    exit 2
  fi
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENGRAMSIM_FUZZ=ON \
      -DENGRAMSIM_CUDA=OFF -DENGRAMSIM_BENCHMARKS=OFF > /dev/null
  fi
  nice cmake --build "$BUILD" -j "$JOBS" --target fuzz_all
}

# seed NAME MAX_LEN PATHS...: fills an empty corpus folder with the shipped files, cut to MAX_LEN.
seed() {
  local name=$1 max=$2 corpus=$OUT/corpus/$1 f
  shift 2
  mkdir -p "$corpus"
  [ -n "$(ls -A "$corpus")" ] && return 0
  for p in "$@"; do
    for f in $( [ -d "$p" ] && find "$p" -maxdepth 1 -type f | sort || echo "$p" ); do
      head -c "$max" "$f" > "$corpus/shipped-$(basename "$f")"
      case $f in *.gz) zcat "$f" | head -c "$max" > "$corpus/shipped-$(basename "$f" .gz)" || true ;; esac
    done
  done
  return 0
}

# last_number LABEL LOG: the number after the last "LABEL" in a libFuzzer log ("" when none).
last_number() {
  { grep -oE "$1[[:space:]]+[0-9]+" "$2" || true; } | tail -1 | awk '{print $NF}'
}

# run_one NAME MAX_LEN: one libFuzzer run, then its summary line.
run_one() {
  local name=$1 max=$2 extra=()
  local art=$OUT/artifacts/$name/ log=$OUT/logs/$name.log
  mkdir -p "$art" "$OUT/logs" "$OUT/corpus/$name"
  for d in tests/fuzz/regressions/$name tests/fuzz/seeds/$name; do [ -d "$d" ] && extra+=("$d"); done
  touch "$OUT/logs/$name.start"  # artifacts older than this come from earlier runs
  set +e
  ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ENGRAMSIM_DATA_ROOT=$PWD "$BUILD/bin/fuzz_$name" -max_len="$max" -rss_limit_mb="$RSS_MB" -timeout="$TIMEOUT" \
    -max_total_time="$SECONDS_EACH" -dict="tests/fuzz/dict/$name.dict" -artifact_prefix="$art" \
    -print_final_stats=1 "$OUT/corpus/$name" "${extra[@]}" > "$log" 2>&1
  local rc=$?
  set -e
  local runs cov ft rss found
  runs=$(last_number 'stat::number_of_executed_units:' "$log")
  rss=$(last_number 'stat::peak_rss_mb:' "$log")
  cov=$(last_number 'cov:' "$log")
  ft=$(last_number 'ft:' "$log")
  found=$(find "$art" -type f -newer "$OUT/logs/$name.start" | sort | tr '\n' ' ')
  printf '%-20s runs=%s cov=%s ft=%s corpus=%s peak_rss_mb=%s rc=%s %s\n' "$name" "${runs:-?}" "${cov:-?}" \
    "${ft:-?}" "$(find "$OUT/corpus/$name" -type f | wc -l)" "${rss:-?}" "$rc" \
    "$([ -z "$found" ] && [ "$rc" = 0 ] && echo ok || echo "FINDING ${found:-see $log}")"
}

main() {
  if [ "${1:-}" = run-one ]; then run_one "$2" "$3"; return; fi
  build
  mkdir -p "$OUT"
  target_lines | while read -r name max seeds; do
    # shellcheck disable=SC2086
    seed "$name" "$max" $seeds
  done
  echo "fuzzing $(target_lines | wc -l) targets, ${SECONDS_EACH}s each, $PARALLEL at a time; logs in $OUT/logs"
  target_lines | awk '{print $1, $2}' |
    xargs -P "$PARALLEL" -L 1 env FUZZ_BUILD="$BUILD" "$0" run-one > "$OUT/summary.tmp" || true
  sort "$OUT/summary.tmp" > "$OUT/summary.txt"
  rm -f "$OUT/summary.tmp"
  cat "$OUT/summary.txt"
  ! grep -q FINDING "$OUT/summary.txt"
}

main "$@"
