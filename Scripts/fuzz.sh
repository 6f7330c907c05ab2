#!/usr/bin/env bash
# Builds the fuzz targets (Fuzz/, a package of its own) and runs each for a set time
# (docs/fuzzing.md). `make fuzz` and `make fuzz-smoke` call this.
#
#   Scripts/fuzz.sh [TARGET...]      every target (the binary lists them), or those named
#   Scripts/fuzz.sh --replay         each saved input (Fuzz/crashes, Fuzz/regressions) once
#   Scripts/fuzz.sh --triage         the findings of Fuzz/findings, grouped by where they stop
#   Scripts/fuzz.sh --list           the targets' names
#
# Settings (environment):
#   FUZZ_SECONDS    seconds per target (60)
#   FUZZ_JOBS       targets run at once (1; CI passes 2, one a core)
#   FUZZ_KEEP_GOING 1: go on after a finding until the time is up, for long runs; else the
#                   first crash, time-out or out-of-memory ends that target's run
#   FUZZ_TIMEOUT    seconds one input may take before it is a finding (20)
#   FUZZ_RSS_MB     memory one process may use before it is a finding (2048)
#   FUZZ_ARGS       more libFuzzer options, such as -max_len=20000 or -seed=1
#   FUZZ_BUILD      0: use the fuzzer built before, without building
#   FUZZ_SANITIZE   address: build and run with AddressSanitizer too (Fuzz/.build-address)
#   FUZZ_CONFIG     debug: a quicker build whose inputs run ten to thirty times slower
#   SYNCLAB_FUZZ_TEXT 1: a raw control character in a message is a finding too (docs/fuzzing.md)
#
# Inputs libFuzzer finds interesting are kept in Fuzz/.build/corpus/TARGET (not committed);
# findings (crash-…, timeout-…, oom-…) go to Fuzz/findings/TARGET/ with the run's log. Exit 1
# when any target found something, 2 when the build fails.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
TIMEOUT=${FUZZ_TIMEOUT:-20}
RSS_MB=${FUZZ_RSS_MB:-2048}
# FUZZ_SANITIZE=address adds AddressSanitizer (out-of-bounds reads and writes through unsafe
# pointers, which no Swift check catches in a release build): its own build folder, about 2× slower.
# Leak checking stays off: it reports the lab's lazily built globals (schemas, tables) as leaks.
SANITIZE=${FUZZ_SANITIZE:-}
SCRATCH=$PWD/Fuzz/.build${SANITIZE:+-$SANITIZE}
# FUZZ_CONFIG=debug builds in a third of the time (31 s against 110 s) and runs its inputs ten to
# thirty times slower.
CONFIG=${FUZZ_CONFIG:-release}
BIN=$SCRATCH/$CONFIG/SyncLabFuzz
if [ "$SANITIZE" = address ]; then export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}; fi

# -sanitize=fuzzer reaches every module, so the lab itself is instrumented for coverage; the
# flags differ from the main package's build, which is why the fuzzer has a build folder of its own.
build() {
  local started=$SECONDS
  mkdir -p "$SCRATCH"
  echo "fuzz: building (swift build --package-path Fuzz -c $CONFIG -Xswiftc -sanitize=fuzzer${SANITIZE:+,$SANITIZE})"
  "$SWIFT" build --package-path Fuzz --scratch-path "$SCRATCH" -c "$CONFIG" -Xswiftc -sanitize=fuzzer${SANITIZE:+,$SANITIZE} \
    --product SyncLabFuzz > "$SCRATCH/build.log" 2>&1 || { cat "$SCRATCH/build.log"; echo "fuzz: the build failed"; exit 2; }
  echo "fuzz: built in $((SECONDS - started)) s"
}

targets() { SYNCLAB_FUZZ_TARGET=list "$BIN"; }

# The findings saved in a folder: crash-, timeout-, oom- and leak- files (libFuzzer's slow-unit-
# files, inputs slower than 10 s, are kept but not counted).
findings() { find "$1" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l; }

# One target for SECONDS_EACH seconds; prints one summary line. Seeds: Fuzz/corpus/TARGET and
# the fixed findings of Fuzz/regressions/TARGET (a crash that comes back fails here too). With
# FUZZ_KEEP_GOING=1 a run that stops on a finding is started again on the corpus so far until
# the time is up (libFuzzer's own -fork mode restarts a process every few seconds, and each
# start pays for the lab's link tables again).
run_target() {
  local t=$1 work=Fuzz/.build/corpus/$1 out=Fuzz/findings/$1
  mkdir -p "$work" "$out"
  local seeds=() args=()
  for d in "Fuzz/corpus/$t" "Fuzz/regressions/$t"; do [ -d "$d" ] && seeds+=("$d/"); done
  [ -f "Fuzz/dictionaries/$t.dict" ] && args+=("-dict=Fuzz/dictionaries/$t.dict")
  local before; before=$(findings "$out")
  local started=$SECONDS execs=0 runs=0 status=0 left=$SECONDS_EACH
  : > "$out/run.log"
  while [ "$left" -gt 0 ]; do
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    SYNCLAB_FUZZ_TARGET=$t "$BIN" "$work/" "${seeds[@]}" "${args[@]}" -max_total_time="$left" \
      -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" -artifact_prefix="$out/" -print_final_stats=1 ${FUZZ_ARGS:-} \
      > "$out/last.log" 2>&1
    status=$?
    cat "$out/last.log" >> "$out/run.log"
    local n; n=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$out/last.log" | tail -1 | grep -oE '[0-9]+$')
    execs=$((execs + ${n:-0}))
    [ "$status" -eq 0 ] || [ "${FUZZ_KEEP_GOING:-0}" != 1 ] && break
    left=$((SECONDS_EACH - (SECONDS - started)))
  done
  rm -f "$out/last.log"
  local after; after=$(findings "$out")
  local stats; stats=$(grep -E 'cov: [0-9]+' "$out/run.log" | tail -1 | grep -oE '(cov|ft|corp): [^ ]+' | tr '\n' ' ')
  local elapsed=$((SECONDS - started))
  printf 'fuzz: %-15s %4d s  %8d executions (%d/s)  %s  %d findings in %d runs\n' "$t" "$elapsed" "$execs" \
    "$((execs / (elapsed > 0 ? elapsed : 1)))" "$stats" "$((after - before))" "$runs"
  if [ "$after" -gt "$before" ] || [ "$status" -ne 0 ]; then
    grep -E 'Fatal error|ERROR: libFuzzer|Test unit written' "$out/run.log" | sort | uniq -c | sort -rn | head -8 | sed 's/^/    /'
    return 1
  fi
  return 0
}

# Each saved input once, through its target, with raw control characters in messages counted
# as findings too: a fixed finding must stay fixed.
replay() {
  local status=0
  for t in $(targets); do
    for d in "Fuzz/crashes/$t" "Fuzz/regressions/$t"; do
      [ -d "$d" ] || continue
      for f in "$d"/*; do
        case "$f" in *.md) continue ;; esac
        if SYNCLAB_FUZZ_TEXT=1 SYNCLAB_FUZZ_TARGET=$t "$BIN" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" "$f" > /tmp/synclab-fuzz-replay.log 2>&1; then
          echo "fuzz: ok     $f"
        else
          echo "fuzz: FAILS  $f: $(grep -E 'Fatal error|ERROR: libFuzzer' /tmp/synclab-fuzz-replay.log | head -1)"
          status=1
        fi
      done
    done
  done
  rm -f /tmp/synclab-fuzz-replay.log
  return $status
}

# Each finding of Fuzz/findings replayed and grouped by where it stops: the first frame in the
# lab's sources (file:line), else libFuzzer's verdict (out-of-memory, timeout).
triage() {
  for t in $(targets); do
    [ -d "Fuzz/findings/$t" ] || continue
    for f in "Fuzz/findings/$t"/crash-* "Fuzz/findings/$t"/oom-* "Fuzz/findings/$t"/timeout-* "Fuzz/findings/$t"/slow-unit-*; do
      [ -f "$f" ] || continue
      SYNCLAB_FUZZ_TARGET=$t "$BIN" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" "$f" > /tmp/synclab-fuzz-triage.log 2>&1
      local at; at=$(grep -oE '/Sources/[^ ]+\.swift:[0-9]+' /tmp/synclab-fuzz-triage.log | head -1)
      [ -z "$at" ] && at=$(grep -oE 'libFuzzer: [a-z-]+' /tmp/synclab-fuzz-triage.log | head -1)
      [ -z "$at" ] && at="does not reproduce alone"
      printf '%s\t%s\t%s\n' "$t" "$at" "$f"
    done
  done | sort | awk -F'\t' '{ key = $1 "  " $2; n[key]++; if (!(key in ex)) ex[key] = $3 } END { for (k in n) printf "%4d  %s  (e.g. %s)\n", n[k], k, ex[k] }' | sort -k2
  rm -f /tmp/synclab-fuzz-triage.log
}

[ "${FUZZ_BUILD:-1}" = 0 ] || build
case "${1:-}" in
  --list) targets; exit 0 ;;
  --replay) replay; exit $? ;;
  --triage) triage; exit 0 ;;
esac
chosen=("$@"); [ ${#chosen[@]} -eq 0 ] && mapfile -t chosen < <(targets)
echo "fuzz: ${#chosen[@]} targets, $SECONDS_EACH s each, $JOBS at a time"
status=0; running=0
for t in "${chosen[@]}"; do
  run_target "$t" & running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n || status=1; running=$((running - 1)); fi
done
while [ "$running" -gt 0 ]; do wait -n || status=1; running=$((running - 1)); done
[ $status -eq 0 ] && echo "fuzz: no findings" || echo "fuzz: findings in Fuzz/findings/ (docs/fuzzing.md: from a finding to a test)"
exit $status
