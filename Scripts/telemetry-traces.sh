#!/usr/bin/env bash
# The measured traces through the telemetry fit (docs/telemetry.md, "Measured traces"):
# trace-stats --telemetry-out → fit (30% of devices held out) → trace-stats --against the fitted
# profile, printing the round trips' p50/p90/p99/p99.9 and the 0.1 s and 1 s lag correlations of
# the trace and of the fit, side by side, with the fit's time constant τ and (family
# outage-nugget, the default here) correlated share w. Base delays as docs/links.md calibrates
# the presets. FAMILY=ar1 gives the two-part mixture with one AR(1).
#   TRACES=../shared/traces OUT=/tmp/synclab-telemetry-traces Scripts/telemetry-traces.sh
set -euo pipefail
SYNCLAB=${SYNCLAB:-.build/release/synclab}
TRACES=${TRACES:-../shared/traces}
OUT=${OUT:-/tmp/synclab-telemetry-traces}
FAMILY=${FAMILY:-outage-nugget}
mkdir -p "$OUT"
echo "| trace | source | p50 | p90 | p99 | p99.9 | ρ 0.1 s | ρ 1 s | τ | w |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for entry in Verizon-LTE-short:25ms TMobile-LTE-short:25ms TMobile-UMTS-driving:65ms Verizon-EVDO-driving:50ms; do
  name=${entry%%:*}; base=${entry##*:}
  [ -f "$TRACES/$name.up" ] || { echo "skipped $name: $TRACES/$name.up not found" >&2; continue; }
  "$SYNCLAB" trace-stats "$TRACES/$name.up" "$TRACES/$name.down" --base-delay "$base" \
    --telemetry-out "$OUT/$name.csv" --link-label "$name" > /dev/null
  "$SYNCLAB" fit "$OUT/$name.csv" --out "$OUT/fit-$name" --holdout 0.3 --family "$FAMILY" > /dev/null
  "$SYNCLAB" trace-stats "$TRACES/$name.up" "$TRACES/$name.down" --base-delay "$base" \
    --against "$OUT/fit-$name/fitted.json" > "$OUT/$name.against.md"
  tau=$(grep -o 'time constant τ | [^|]*' "$OUT/fit-$name/fit.md" | sed 's/time constant τ | //; s/ *$//')
  w=$(grep -o 'correlated share w | [^|]*' "$OUT/fit-$name/fit.md" | sed 's/correlated share w | //; s/ *$//' || true)
  awk -v name="$name" -v tau="$tau" -v w="$w" -F'|' '
    /^\| round trip, 1 \+ 1 packets \|/ { trace = $3 "|" $4 "|" $5 "|" $6 }
    /^\| preset .*round trip, 1 \+ 1 packets \|/ { fit = $3 "|" $4 "|" $5 "|" $6 }
    /^\| 100ms \|/ { r1t = $4; r1f = $7 }
    /^\| 1s \|/ { r2t = $4; r2f = $7 }
    END {
      printf "| %s | trace |%s| %s | %s | | |\n", name, trace, r1t, r2t
      printf "| | fitted |%s| %s | %s | %s | %s |\n", fit, r1f, r2f, tau, w
    }' "$OUT/$name.against.md" | sed 's/  */ /g'
done
