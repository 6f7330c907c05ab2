#!/usr/bin/env bash
# Runs every gallery scenario at several thread counts with progress on and stderr off a terminal
# (as in a CI log), ROUNDS times each, and compares each report with one run with --quiet. Then
# `check` over 14 seeds and the gallery's search, likewise. Every run has a time bound: a run that
# exceeds it (a hang) or writes other bytes fails the script.
#
#   Scripts/soak-threads.sh                  # every gallery scenario, threads 1 2 3 7, 5 rounds
#   ROUNDS=1 THREADS="2 7" SCENARIOS="outage-fixed-retry v115-uptime" Scripts/soak-threads.sh
#   CHECK_ROUNDS=0 SEARCH_ROUNDS=0 ...     # the scenarios only
#
# The original plan runs one shard whatever --threads says (its database couples every player),
# so it is left out unless named.
# Not part of `make test` (about an hour on two cores); docs/ci.md says when to run it.
set -uo pipefail
cd "$(dirname "$0")/.."
SYNCLAB=${SYNCLAB:-.build/release/synclab}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-"1 2 3 7"}
BOUND=${BOUND:-600}
SCENARIOS=${SCENARIOS:-$(sed -n 's/^REPORTED := //p; s/^            \([a-z].*\)$/\1/p' Makefile | tr -d '\\' | sed 's/original-plan//')}
CHECK_ROUNDS=${CHECK_ROUNDS:-$ROUNDS}
SEARCH_ROUNDS=${SEARCH_ROUNDS:-$ROUNDS}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
failures=0 runs=0

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

same() {  # report folders, the lab's marker aside
  diff -r -x .synclab-report "$1" "$2" > /dev/null
}

for s in $SCENARIOS; do
  for t in $THREADS; do
    timeout "$BOUND" "$SYNCLAB" run "Scenarios/$s.json" --threads "$t" --quiet --out "$work/quiet" > /dev/null 2>&1
    status=$?
    if [ $status -ne 0 ]; then echo "FAIL $s threads $t --quiet: exit $status"; failures=$((failures + 1)); continue; fi
    for r in $(seq 1 "$ROUNDS"); do
      start=$(date +%s.%N)
      timeout "$BOUND" "$SYNCLAB" run "Scenarios/$s.json" --threads "$t" --out "$work/shown" > /dev/null 2> "$work/err.txt"
      status=$?
      runs=$((runs + 1))
      took=$(elapsed "$start")
      if [ $status -ne 0 ]; then echo "FAIL $s threads $t round $r: exit $status after ${took} s"; failures=$((failures + 1))
      elif ! same "$work/quiet" "$work/shown"; then echo "FAIL $s threads $t round $r: bytes differ from --quiet"; failures=$((failures + 1))
      else echo "ok   $s threads $t round $r: ${took} s"; fi
    done
  done
done

for r in $(seq 1 "$CHECK_ROUNDS"); do
  start=$(date +%s.%N)
  timeout "$BOUND" "$SYNCLAB" check Scenarios/recommended.json --seeds 14 > "$work/check.out" 2> "$work/check.err"
  status=$?
  runs=$((runs + 1))
  took=$(elapsed "$start")
  if [ $status -gt 1 ]; then echo "FAIL check --seeds 14 round $r: exit $status after ${took} s"; failures=$((failures + 1))
  else echo "ok   check --seeds 14 round $r: exit $status, ${took} s"; fi
done

[ "$SEARCH_ROUNDS" -gt 0 ] && timeout "$BOUND" "$SYNCLAB" search Scenarios/search/gallery.json --quiet --out "$work/search-quiet" > /dev/null 2>&1
for r in $(seq 1 "$SEARCH_ROUNDS"); do
  start=$(date +%s.%N)
  timeout "$BOUND" "$SYNCLAB" search Scenarios/search/gallery.json --out "$work/search-shown" > /dev/null 2> "$work/search.err"
  status=$?
  runs=$((runs + 1))
  took=$(elapsed "$start")
  if [ $status -gt 1 ]; then echo "FAIL search round $r: exit $status after ${took} s"; failures=$((failures + 1))
  elif ! same "$work/search-quiet" "$work/search-shown"; then echo "FAIL search round $r: bytes differ from --quiet"; failures=$((failures + 1))
  else echo "ok   search round $r: exit $status, ${took} s"; fi
done

echo "$((runs - failures)) passed, $failures failed"
[ $failures -eq 0 ]
