#!/usr/bin/env bash
# `make bench`: fixed workloads, each run BENCH_RUNS times (default 3), the median reported.
#
# Timings go to stdout and to bench/results.csv (one row per workload and label), never into a
# report: every run writes its report to a temporary folder that is deleted. Peak memory is the
# process's maximum resident set (/usr/bin/time -v), wall time the in-process simulation time
# from `synclab run`'s stderr line (the process's own wall time is in the CSV too).
#
#   BENCH_LABEL=spin-lock make bench              # label the rows by what they measure (default: the git commit)
#   BENCH_RUNS=1 BENCH_WORKLOADS="r1-100k v115-10k" make bench
#   BENCH_RUNS=5 BENCH_WORKLOADS="r1-100k r1-100k-pre-realism" BENCH_PRE_REALISM_DIR=/tmp/pre make bench
#
# Not part of `make test` or CI: it measures the machine as much as the code. The 1-minute load
# average before each workload is recorded so a busy machine shows in the results, and the
# workload `r1-100k-c` times the design's yardstick, a plain single-threaded C event loop with a
# binary heap (bench/reference/r1.c, built here with $CC, default cc), in the same hour: the
# machine's speed swings by up to half from hour to hour, and that loop's time says which hour it was.
# Machines of the same kind are not all the same processor either, so each row names the one it
# ran on (vendor, family and model numbers, last-level cache): compare rows of the same processor.
set -euo pipefail
cd "$(dirname "$0")/.."

SYNCLAB=${SYNCLAB:-.build/release/synclab}
RUNS=${BENCH_RUNS:-3}
LABEL=${BENCH_LABEL:-$(git rev-parse --short HEAD 2>/dev/null || echo unlabelled)}
WORKLOADS=${BENCH_WORKLOADS:-"r1-100k r1-100k-c v115-10k v115-100k v115-1m v115-1m-sampled"}
CSV=bench/results.csv
# The last commit before the realism models: R1's cost then is the yardstick for what the
# models cost a run that uses none of them.
PRE_REALISM=7f5170a
TIME=/usr/bin/time

# name -> players, simulated hours, arguments to `synclab run` (or, for the C reference loop, to it)
workload() {
    case "$1" in
        r1-100k)   echo "100000 24 Scenarios/r1.json" ;;
        r1-100k-c) echo "100000 24 100000" ;;
        # R1 on the sources before the realism models (commit 7f5170a, built here the way `make
        # build` builds, its own Scenarios/r1.json): what R1 costs for the models it does not use.
        # Not in the default list (the build takes a few minutes): BENCH_WORKLOADS="r1-100k r1-100k-pre-realism".
        r1-100k-pre-realism) echo "100000 24 Scenarios/r1.json" ;;
        r1-1m)     echo "1000000 24 Scenarios/r1.json --clients 1000000" ;;
        v115-10k)  echo "10000 24 bench/v115-scaled.json --clients 10000 --duration 24h" ;;
        v115-100k) echo "100000 24 bench/v115-scaled.json --clients 100000 --duration 24h" ;;
        v115-1m)   echo "1000000 24 bench/v115-scaled.json --clients 1000000 --duration 24h" ;;
        # Ten million players: the design's target is under 4 minutes and 8 GiB, and a cost per
        # player-hour within 1.25x of 1M's in the same run. Not in the default list (12 to 16
        # minutes a run): BENCH_WORKLOADS="v115-1m v115-10m" make bench.
        v115-10m)  echo "10000000 24 bench/v115-scaled.json --clients 10000000 --duration 24h" ;;
        # The same with errors sampled from 100,000 of the players (the report says so).
        v115-1m-sampled) echo "1000000 24 bench/v115-sampled.json --clients 1000000 --duration 24h" ;;
        # The floor: errors sampled from one player, so the time is that of everything else.
        v115-1m-floor)  echo "1000000 24 bench/v115-floor.json --clients 1000000 --duration 24h" ;;
        v115-10m-floor) echo "10000000 24 bench/v115-floor.json --clients 10000000 --duration 24h" ;;
        # The realistic day with players sharing the fleet: v115-pausing as shipped
        # at 170,000 players for 6 hours on one thread and on two (the same summary.json), and
        # a day with the round-robin fleet of stock pools scaled with the players, 30 servers a
        # million. Not in the default list: BENCH_WORKLOADS="v115-pausing-t1 v115-pausing-t2" (run in
        # pairs, one of each in turn).
        v115-pausing-t1) echo "170000 6 Scenarios/v115-pausing.json --duration 6h --threads 1" ;;
        v115-pausing-t2) echo "170000 6 Scenarios/v115-pausing.json --duration 6h --threads 2" ;;
        v115-fleet-100k) echo "100000 24 bench/v115-fleet-100k.json" ;;
        v115-fleet-1m)   echo "1000000 24 bench/v115-fleet-1m.json" ;;
        v115-fleet-10m)  echo "10000000 24 bench/v115-fleet-10m.json" ;;
        *) echo "unknown workload '$1'" >&2; exit 2 ;;
    esac
}

[ -x "$SYNCLAB" ] || { echo "bench: $SYNCLAB not built; run 'make build'" >&2; exit 2; }
[ -x "$TIME" ] || { echo "bench: needs GNU time at $TIME" >&2; exit 2; }
mkdir -p bench
[ -f "$CSV" ] || echo "label,date_utc,workload,players,simulated_hours,runs,sim_wall_s,process_wall_s,fetches,events,fetches_per_s,events_per_s,peak_rss_mib,threads,load1,cost_us_per_player_hour,cpu" > "$CSV"

# "AuthenticAMD family 26 model 2; L3 32768K": what a virtual machine shows of its processor
# (the model name alone is often just "AMD EPYC"). No commas, so it stays one CSV field.
cpu_of_machine() {
    [ -r /proc/cpuinfo ] || { uname -m; return; }
    local cache
    cache=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo "?")
    awk -F': *' -v l3="$cache" '
        /^vendor_id/ && !v { v = $2 } /^cpu family/ && !f { f = $2 } /^model[ \t]*:/ && !m { m = $2 }
        END { if (v == "") print "unknown"; else printf "%s family %s model %s; L3 %s\n", v, f, m, l3 }' /proc/cpuinfo
}
CPU=$(cpu_of_machine | tr -d ',')

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=()

# Sets `command`, `out` and `args` for workload $1; fails (status 1, a line on stderr) when the
# workload cannot be built here.
prepare() {
    local w=$1
    read -r players hours args <<<"$(workload "$w")"
    command=("$SYNCLAB" run)
    out=(--out "$tmp/report")
    if [ "$w" = r1-100k-pre-realism ]; then
        pre=${BENCH_PRE_REALISM_DIR:-$tmp/pre-realism}   # a folder holding that build already is reused
        if [ ! -x "$pre/.build/release/synclab" ]; then
            mkdir -p "$pre"
            git archive "$PRE_REALISM" | tar -x -C "$pre" 2> "$tmp/err" \
                || { echo "  $w skipped: commit $PRE_REALISM not in this clone: $(head -1 "$tmp/err")" >&2; return 1; }
            echo "  $w: building $PRE_REALISM (a few minutes)" >&2
            swift build -c release -Xswiftc -enable-testing --product synclab --package-path "$pre" > "$tmp/err" 2>&1 \
                || { echo "  $w skipped: $PRE_REALISM did not build: $(tail -1 "$tmp/err")" >&2; return 1; }
        fi
        command=("$pre/.build/release/synclab" run)
        args="$pre/$args"
    fi
    if [ "$w" = r1-100k-c ]; then
        # The baseline x86-64 target at -O2, as the Swift release build is compiled.
        "${CC:-cc}" -O2 -o "$tmp/r1-reference" bench/reference/r1.c -lm 2> "$tmp/err" \
            || { echo "  $w skipped: no C compiler (${CC:-cc}): $(head -1 "$tmp/err")" >&2; return 1; }
        command=("$tmp/r1-reference")
        out=()
    fi
    return 0
}

# Runs workload $1 once (its run number $2; `prepare` set its command), appending "sim wall rss
# events fetches threads" to $tmp/runs.$1.
measure() {
    local w=$1 i=$2
    # shellcheck disable=SC2086
    "$TIME" -v "${command[@]}" $args "${out[@]}" > "$tmp/stdout" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    # The reference loop's outputs, to set beside SyncLab's R1 report (once per workload).
    [ "$w" != r1-100k-c ] || [ "$i" -gt 1 ] || sed 's/^/  /' "$tmp/stdout" >&2
    local line sim events fetches threads rss wall
    line=$(grep '^simulated in' "$tmp/err")
    sim=$(echo "$line" | awk '{ print $3 }')
    events=$(echo "$line" | awk '{ print $6 }')
    fetches=$(echo "$line" | awk '{ print $8 }')
    threads=$(echo "$line" | awk '{ print $10 }')
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/err")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (k = 1; k <= n; k++) s = s * 60 + p[k]; print s }' "$tmp/err")
    echo "$sim $wall $rss $events $fetches $threads" >> "$tmp/runs.$w"
    rm -rf "$tmp/report"
    echo "  $w run $i: ${sim} s simulated, ${wall} s process, $((rss / 1024)) MiB peak" >&2
}

# The row of workload $1 from its runs (medians), into the CSV and `rows`.
emit() {
    local w=$1 sim wall rss events fetches threads row
    [ -s "$tmp/runs.$w" ] || return 0
    read -r players hours _ <<<"$(workload "$w")"
    sim=$(awk '{ print $1 }' "$tmp/runs.$w" | median)
    wall=$(awk '{ print $2 }' "$tmp/runs.$w" | median)
    rss=$(awk '{ print $3 }' "$tmp/runs.$w" | median)
    read -r _ _ _ events fetches threads < <(tail -1 "$tmp/runs.$w")
    row=$(awk -v l="$LABEL" -v d="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -v w="$w" -v p="$players" -v h="$hours" -v r="$RUNS" \
              -v s="$sim" -v pw="$wall" -v f="$fetches" -v e="$events" -v m="$rss" -v t="$threads" -v ld="$load" -v c="$CPU" 'BEGIN {
        printf "%s,%s,%s,%d,%d,%d,%.2f,%.2f,%d,%d,%.0f,%.0f,%.0f,%d,%s,%.3f,%s\n", l, d, w, p, h, r, s, pw, f, e,
               f / s, e / s, m / 1024, t, ld, s * 1e6 / (p * h), c }')
    echo "$row" >> "$CSV"
    rows+=("$row")
}

# The workloads compared with each other are measured in pairs, one run of each in turn, when
# both are asked for: one thread against two, and R1 against R1 before the realism models. The
# machine's speed drifts within minutes, and a pair's two runs see the same minute.
PAIRS="v115-pausing-t1:v115-pausing-t2 r1-100k:r1-100k-pre-realism"
asked() { case " $WORKLOADS " in *" $1 "*) return 0 ;; esac; return 1; }
partner() {   # the workload run in turn with $1 when both are asked for (none: empty)
    local pair first second
    for pair in $PAIRS; do
        first=${pair%%:*} second=${pair#*:}
        if asked "$first" && asked "$second"; then
            [ "$1" != "$first" ] || { echo "$second"; return; }
            [ "$1" != "$second" ] || { echo "$first"; return; }
        fi
    done
}
done_already=" "
for w in $WORKLOADS; do
    case "$done_already" in *" $w "*) continue ;; esac   # ran beside its partner
    load=$(cut -d' ' -f1 /proc/loadavg)
    : > "$tmp/runs.$w"
    prepare "$w" || continue
    other=$(partner "$w")
    if [ -n "$other" ] && prepare "$other"; then
        : > "$tmp/runs.$other"
        for i in $(seq 1 "$RUNS"); do
            prepare "$w" && measure "$w" "$i"
            prepare "$other" && measure "$other" "$i"
        done
        emit "$w"
        emit "$other"
        done_already="$done_already$other "
        continue
    fi
    prepare "$w"
    for i in $(seq 1 "$RUNS"); do measure "$w" "$i"; done
    emit "$w"
done
echo
echo "bench ($LABEL, median of $RUNS; written to $CSV; processor: $CPU)"
printf '%-20s %9s %9s %9s %12s %12s %9s %7s %6s\n' workload players "wall s" "proc s" "fetches/s" "events/s" "peak MiB" threads load
for row in "${rows[@]}"; do
    IFS=, read -r _ _ w p _ _ s pw _ _ fs es m t ld _ <<<"$row"
    printf '%-20s %9s %9s %9s %12s %12s %9s %7s %6s\n' "$w" "$p" "$s" "$pw" "$fs" "$es" "$m" "$t" "$ld"
done
echo
echo "scaling (v1.1.5 with the release spike; cost = simulated wall time per player-hour)"
printf '%-20s %9s %9s %16s\n' workload players "wall s" "µs/player·h"
for row in "${rows[@]}"; do
    IFS=, read -r _ _ w p _ _ s _ _ _ _ _ _ _ _ c _ <<<"$row"
    case "$w" in v115-*) printf '%-20s %9s %9s %16s\n' "$w" "$p" "$s" "$c" ;; esac
done
ratio() {   # ratio NAME A B TEXT: prints TEXT with A's time over B's when both ran
    local a b
    a=$(printf '%s\n' "${rows[@]}" | awk -F, -v w="$2" '$3 == w { print $'"$4"' }')
    b=$(printf '%s\n' "${rows[@]}" | awk -F, -v w="$3" '$3 == w { print $'"$4"' }')
    [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" -v t="$1" 'BEGIN { printf "%s: %.3g / %.3g = %.2f\n", t, a, b, a / b }'
    return 0
}
echo
ratio "v115-pausing 170k x 6 h, one thread over two (target at least 1.8)" v115-pausing-t1 v115-pausing-t2 7
ratio "  the same, whole process (load and reports too)" v115-pausing-t1 v115-pausing-t2 8
pair_ratios() {   # pair_ratios A B TEXT: the median of the pairs' own ratios, A's simulated time over B's
    [ -n "$(partner "$1")" ] && [ -s "$tmp/runs.$1" ] && [ -s "$tmp/runs.$2" ] || return 0
    paste -d' ' "$tmp/runs.$1" "$tmp/runs.$2" | awk '{ print $1 / $7 }' | median \
        | awk -v n="$RUNS" -v t="$3" '{ printf "  the median of the %s pairs'"'"' own ratios (%s, in turn): %.2f\n", n, t, $1 }'
}
pair_ratios v115-pausing-t1 v115-pausing-t2 "one thread then two"
ratio "fleet day, cost per player-hour at 1M over 100k (target at most 1.25)" v115-fleet-1m v115-fleet-100k 16
r1=$(printf '%s\n' "${rows[@]}" | awk -F, '$3 == "r1-100k" { print $7 }')
reference=$(printf '%s\n' "${rows[@]}" | awk -F, '$3 == "r1-100k-c" { print $7 }')
if [ -n "$r1" ] && [ -n "$reference" ]; then
    echo
    awk -v a="$r1" -v b="$reference" 'BEGIN { printf "R1 at 100k: %.2f s against the C reference loop'"'"'s %.2f s in the same run, %.2f times as fast\n", a, b, b / a }'
fi
ratio "R1 at 100k over the same on the sources before the realism models (target at most 1.10)" r1-100k r1-100k-pre-realism 7
pair_ratios r1-100k r1-100k-pre-realism "now then before the realism models"
