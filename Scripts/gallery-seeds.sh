#!/usr/bin/env bash
# The gallery's verdicts across seeds (docs/gallery.md, "How many seeds each verdict stands
# on"): each reported scenario and the search's winner (Reports/search/best.json, when the
# search has one) judged by `synclab check --seeds N`, one scenario after another. Per-seed lines go to OUT.log, the
# Markdown table (failing seeds, the failure rate's 95% Wilson interval) to OUT.md.
#   SEEDS=20 OUT=/tmp/synclab-gallery-seeds Scripts/gallery-seeds.sh [SCENARIO.json ...]
# About 20 s a seed per scenario on a 2-core machine: the gallery's 14 designs on 20 seeds
# take about 1 h 30 min.
set -uo pipefail
SYNCLAB=${SYNCLAB:-.build/release/synclab}
SEEDS=${SEEDS:-20}
OUT=${OUT:-/tmp/synclab-gallery-seeds}
if [ $# -eq 0 ]; then
  reported=$(sed -n '/^REPORTED :=/,/[^\\]$/p' Makefile | sed 's/^REPORTED :=//; s/\\//g')
  set -- $(for s in $reported; do echo "Scenarios/$s.json"; done)
  [ -f Reports/search/best.json ] && set -- "$@" Reports/search/best.json
fi
: > "$OUT.log"; : > "$OUT.md"
for scenario in "$@"; do
  GITHUB_STEP_SUMMARY="$OUT.md" "$SYNCLAB" check "$scenario" --seeds "$SEEDS" --quiet >> "$OUT.log"
  status=$?
  # 0 pass, 1 a budget fails: both are verdicts. Anything else is an error.
  [ $status -le 1 ] || { echo "gallery-seeds: synclab check $scenario exited $status" >&2; exit $status; }
  grep -E "seeds? fails?" "$OUT.log" | tail -1
done
