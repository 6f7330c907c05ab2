#!/usr/bin/env bash
# Times `synclab fit` on a telemetry file of ROWS rows (default ten million), written here by a
# deterministic generator: 200,000 devices on four links, a row a minute per device, round trips
# spread over 20–620 ms by a fixed arithmetic sequence. Prints wall time and peak memory
# (docs/performance.md, "Fitting telemetry"). The file is kept in DIR for reruns.
#   ROWS=10000000 DIR=/tmp/synclab-bench-fit Scripts/bench-fit.sh
set -euo pipefail
SYNCLAB=${SYNCLAB:-.build/release/synclab}
ROWS=${ROWS:-10000000}
DIR=${DIR:-/tmp/synclab-bench-fit}
mkdir -p "$DIR"
CSV="$DIR/telemetry-$ROWS.csv"
if [ ! -f "$CSV" ]; then
  awk -v rows="$ROWS" 'BEGIN {
    print "device,sent,rtt_ms,link"
    split("wifi lte 3g edge", links, " ")
    for (i = 0; i < rows; i++) {
      d = i % 200000; k = int(i / 200000)
      rtt = 20 + 600 * ((i * 7919) % 10007) / 10007
      printf "device-%06d,%d,%.3f,%s\n", d, 1767225600000 + k * 60000 + d % 1000, rtt, links[d % 4 + 1]
    }
  }' > "$CSV"
fi
echo "$CSV: $(wc -c < "$CSV") bytes"
/usr/bin/time -f "fit: %e s wall, %U s user, %M KB peak" "$SYNCLAB" fit "$CSV" --out "$DIR/fit" > /dev/null
