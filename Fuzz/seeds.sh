#!/usr/bin/env bash
# Regenerates the seed corpora (Fuzz/corpus/<target>/) from the shipped scenarios, search and
# traces, the cases of the hostile sweeps that do not crash, and sweep and search parts written
# by `synclab` itself. Inputs that crash go to Fuzz/crashes/<target>/ instead (by hand: see
# Fuzz/README.md). Run from the repository's root after `make build`:
#   bash Fuzz/seeds.sh                   (S=path/to/synclab for another binary)
# The traces of ../shared/traces are not copied (their licence is not the project's): the trace
# seeds are small synthetic ones written here.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
S=${S:-$REPO/.build/release/synclab}
C=Fuzz/corpus
rm -rf "$C"
mkdir -p $C/scenario $C/search $C/mahimahi-trace $C/latency-trace $C/merge-sweep $C/merge-search $C/telemetry-csv
W=$(mktemp -d "${TMPDIR:-/tmp}/synclab-seeds.XXXXXX"); trap 'rm -rf "$W"' EXIT
CUT='--8<--'

# Scenarios: the shipped ones, as the fuzz input `fuzz.json` in the shipped folder's root sees
# them (an example's "../recommended.json" is "recommended.json" from there).
for f in Scenarios/*.json Scenarios/examples/*.json; do
  case "$f" in *.schema.json) continue ;; esac
  name=$(basename "$f")
  case "$f" in Scenarios/examples/*) name="example-$name" ;; esac
  sed -e 's#"\.\./#"#g' -e 's#"extends": "devices-wall.json"#"extends": "examples/devices-wall.json"#' "$f" > "$C/scenario/$name"
done
# The hostile sweeps' scenario cases that load or are refused cleanly.
s() { printf '%s\n' "$2" > "$C/scenario/$1.json"; }
SMALL='"extends": "recommended.json", "duration": "30m", "warmup": "5m", "population": { "players": 500, "release": { "at": "10m", "multiplier": 5, "window": "1m" } }'
s small "{ $SMALL, \"name\": \"small\" }"
s loose "{ $SMALL, \"name\": \"loose\", \"budgets\": [ { \"name\": \"bare\", \"metric\": \"bareShare\", \"max\": 0.05 } ] }"
s link-trace "{ $SMALL, \"name\": \"lt\", \"network\": { \"profiles\": [ { \"name\": \"tr\", \"share\": 1, \"linkTrace\": { \"uplink\": { \"trace\": \"traces/synthetic-link.up\" }, \"downlink\": { \"trace\": \"traces/synthetic-link.down\" }, \"baseDelay\": \"20ms\" } } ] }, \"budgets\": [] }"
s link-trace-2h "{ $SMALL, \"name\": \"lt\", \"network\": { \"profiles\": [ { \"name\": \"tr\", \"share\": 1, \"linkTrace\": { \"uplink\": { \"trace\": \"traces/synthetic-link.up\" }, \"downlink\": { \"trace\": \"traces/synthetic-link.down\" }, \"baseDelay\": \"2h\" } } ] }, \"budgets\": [] }"
s floor-1h "{ $SMALL, \"name\": \"fl\", \"network\": { \"profiles\": [ { \"preset\": \"wifi\", \"share\": 1, \"floor\": \"1h\" } ] }, \"budgets\": [] }"
s latency-trace "{ $SMALL, \"name\": \"lat\", \"network\": { \"profiles\": [ { \"preset\": \"wifi\", \"share\": 1, \"uplink\": { \"trace\": \"traces/lte-sample.csv\", \"column\": \"uplink_ms\" }, \"downlink\": { \"trace\": \"traces/lte-sample.csv\", \"column\": \"downlink_ms\", \"unit\": \"ms\" } } ] } }"
s gilbert-elliott "{ $SMALL, \"name\": \"ge\", \"network\": { \"profiles\": [ { \"preset\": \"lte\", \"share\": 1, \"correlation\": { \"kind\": \"gilbert-elliott\", \"goodToBadPerSecond\": 0.01, \"badToGoodPerSecond\": 0.5, \"bad\": { \"uplink\": \"1s\", \"downlink\": \"1s\" } } } ] }, \"budgets\": [] }"
s shares-over "{ $SMALL, \"name\": \"sh\", \"network\": { \"profiles\": [ { \"preset\": \"wifi\", \"share\": 0.5 }, { \"preset\": \"lte\", \"share\": 0.500001 } ] } }"
s shares-under "{ $SMALL, \"name\": \"sh\", \"network\": { \"profiles\": [ { \"preset\": \"wifi\", \"share\": 0.5 }, { \"preset\": \"lte\", \"share\": 0.4999 } ] } }"
s budget-escape "{ $SMALL, \"name\": \"bn\", \"budgets\": [ { \"name\": \"x\\u001b]0;PWNED\\u0007\", \"metric\": \"bareShare\", \"max\": 0.5 } ] }"
s description-escape "{ $SMALL, \"name\": \"d1\", \"description\": \"hello \\u001b]0;PWNED\\u0007 world.\" }"
s extends-cycle '{ "extends": "fuzz.json", "name": "cycle" }'
s extends-missing '{ "extends": "no-such.json", "name": "missing" }'
s extends-outside '{ "extends": "../../outside.json" }'
s extends-not-json '{ "extends": "traces/lte-sample.csv" }'
printf '\xef\xbb\xbf\xef\xbb\xbf{ "extends": "r1.json" }\n' > $C/scenario/two-boms.json
# scenario-base reads the same seeds, and the same dictionary.
ln -sfn scenario $C/scenario-base

# Search files: the shipped one, and the sweeps' cases that are refused or run (as the fuzz input
# `search/fuzz.json` of the shipped folder sees them: the base is "../recommended.json").
cp Scenarios/search/gallery.json $C/search/
q() { printf '%s\n' "$2" > "$C/search/$1.json"; }
q small '{ "base": "../r1.json", "knobs": [ { "key": "client.probes", "values": [1, 2, 3] }, { "key": "server.fleet.servers", "values": [1, 2, 4, 8], "monotone": true } ], "objective": "peakRequestsPerSecond", "seeds": 2, "screen": { "players": 200, "slack": 0.02 }, "constraints": [ { "name": "err", "metric": "clientErrorMs.p99", "max": 500 } ] }'
q twice '{ "base": "../recommended.json", "knobs": [ { "key": "client.probes", "values": [1, 3] }, { "key": "client[\"probes\"]", "values": [2, 4] } ], "objective": "peakRequestsPerSecond" }'
q seed-knob '{ "base": "../recommended.json", "knobs": [ { "key": "[\"seed\"]", "values": [1, 2, 3] } ], "objective": "peakRequestsPerSecond" }'
q players-knob '{ "base": "../recommended.json", "knobs": [ { "key": "population.players", "values": [100, 5000] } ], "objective": "peakRequestsPerSecond", "screen": { "players": 400, "slack": 0 } }'
q repeats '{ "base": "../recommended.json", "knobs": [ { "key": "server.fleet.servers", "values": [1, 1.0, 1e0, 10e-1] } ], "objective": "servers" }'
q unmeasurable '{ "base": "../recommended.json", "knobs": [ { "key": "client.probes", "values": [1, 2] } ], "objective": "originalPlan.earlyShowShare" }'
q max-failing '{ "base": "../recommended.json", "knobs": [ { "key": "client.probes", "values": [1, 2] } ], "objective": "servers", "constraints": [ { "name": "impossible", "metric": "transitionBest500msShare.p1", "min": 1.0 }, { "name": "nobare", "metric": "bareShare", "max": 0 } ], "seeds": 1, "maxFailingSeeds": 1 }'
q base-not-json '{ "base": "../traces/lte-sample.csv", "knobs": [ { "key": "client.probes", "values": [1] } ], "objective": "servers" }'
q array-knob '{ "base": "../recommended.json", "knobs": [ { "key": "network.profiles[0].share", "values": [0.3, 0.5] } ], "objective": "servers" }'
printf '\xef\xbb\xbf\xef\xbb\xbf{ "base": "../recommended.json", "knobs": [ { "key": "client.probes", "values": [1] } ], "objective": "servers" }\n' > $C/search/two-boms.json

# Mahimahi traces: an uplink, "--8<--", a downlink; a first "#!" line holds trace-stats options.
t() { printf -- "$2" > "$C/mahimahi-trace/$1"; }
{ cat Scenarios/traces/synthetic-link.up; echo "$CUT"; cat Scenarios/traces/synthetic-link.down; } > $C/mahimahi-trace/synthetic-link
t fine "1\n2\n3\n4\n5\n"
t fine-pair "0\n5\n10\n$CUT\n1\n2\n3\n4\n5\n"
t options "#! --message-bytes 3000 --base-delay 20ms\n0\n5\n10\n$CUT\n1\n1\n2\n"
t crlf "1\r\n1\r\n\r\n7\r\n"
seq 1 300 > $C/mahimahi-trace/under-half-second
t decreasing "5\n3\n"
t zero "0\n0\n"
t negative "-1\n4\n"
t not-a-number "1\nx\n"
t empty ""

# Latency traces (CSV): the shipped sample and small cases.
cp Scenarios/traces/lte-sample.csv $C/latency-trace/
l() { printf -- "$2" > "$C/latency-trace/$1"; }
l one-column "12.5\n30\n7\n"
l header "uplink_ms,downlink_ms\n10,20\n11,22\n"
l comments "# a note\n\n5\n6\n"
l crlf "a,b\r\n1,2\r\n"
l negative "-3\n"
l not-a-number "x,y\n1,z\n"

# Telemetry CSV: small files of each column set, each drop reason, quoting, BOM and CRLF.
m() { printf -- "$2" > "$C/telemetry-csv/$1"; }
m rtt "device,sent,rtt_ms,link\nd1,1767225600000,12.5,wifi\nd2,1767225600100,80.25,lte\nd1,1767225601000,11,wifi\n"
m exchange "device,sent,t1,t2,t3,t4,outcome,bytes\na,2026-11-23T08:15:02Z,100,5000,5001,110,ok,300\nb,2026-11-23 08:15:02.123+01:00,100.25,5000.5,5001.125,110.75,,\nc,2024-02-29T23:59:59.5-0530,0,0,0,0,timeout,\n"
m dirty "device,sent,rtt_ms,link,outcome,bytes\nd1,1767225600000,12.5,wifi,ok,300\n\nd1,1\n,1,5,,,\nd2,,5,,,\nd2,x,5,,,\nd2,1,,,ok,\nd2,1,nan,,,\nd2,1,-3,,,\nd2,1,3600001,,,\nd2,1,5,,maybe,\nd2,1,5,,,-1\nd1,1767225600000,12.5,wifi,ok,300\nd3,1,,cell,Timed Out,\n"
m quoted "\xef\xbb\xbf\"device\",sent,rtt_ms,link\r\n\"a,b\",1,5,\"say \"\"hi\"\"\"\r\nc,2,6,\"two\r\nlines\"\r\n"
m mapped "uid,ts,latency\nu1,1767225600000,5\nu2,1767225600001,7.125\n"
m unterminated "device,sent,rtt_ms\na,1,\"5\n"
m header-only "device,sent,rtt_ms\n"

# Parts for merge, written by synclab: a sweep and a search, whole and in shards, of a small r1.
cp Scenarios/r1.json "$W/r1.json"
printf '{ "extends": "r1.json", "name": "r1-tiny", "duration": "10m", "population": { "players": 300 } }\n' > "$W/tiny.json"
(cd "$W" && "$S" sweep tiny.json --vary client.probes=1,2 --seeds 2 --shard 0/1 --out sw --quiet > /dev/null 2>&1 \
  && "$S" sweep tiny.json --vary client.probes=1,2 --vary server.timestampResolution=1s,1ms --shard 0/2 --out sw0 --quiet > /dev/null 2>&1 \
  && "$S" sweep tiny.json --vary client.probes=1,2 --vary server.timestampResolution=1s,1ms --shard 1/2 --out sw1 --quiet > /dev/null 2>&1)
cp "$W/sw/sweep-part.csv" $C/merge-sweep/whole
{ cat "$W/sw0/sweep-part.csv"; echo "$CUT"; cat "$W/sw1/sweep-part.csv"; } > $C/merge-sweep/two-shards
awk -F, 'BEGIN{OFS=","} NR==4{$5=7} {print}' "$W/sw/sweep-part.csv" > $C/merge-sweep/edited-share
printf '{ "extends": "recommended.json", "name": "rec-tiny", "duration": "100m", "warmup": "1m", "population": { "players": 300 }, "budgets": [] }\n' > "$W/rec-tiny.json"
cp Scenarios/recommended.json "$W/recommended.json"
printf '{ "base": "rec-tiny.json", "knobs": [ { "key": "client.probes", "values": [1, 2, 3] }, { "key": "server.fleet.servers", "values": [1, 2, 4], "monotone": true } ], "objective": "peakRequestsPerSecond", "seeds": 2, "screen": { "players": 100, "slack": 0.5 }, "constraints": [ { "name": "err", "metric": "clientErrorMs.p99", "max": 400 } ] }\n' > "$W/sm.json"
(cd "$W" && for i in 0 1; do "$S" search sm.json --shard $i/2 --out p$i --quiet > /dev/null 2>&1 || true; done \
  && { "$S" search sm.json --shard 0/1 --out p01 --quiet > /dev/null 2>&1 || true; })
# The parts name their base as written ("rec-tiny.json"); the fuzzer runs in the repository's
# root, where "Scenarios/recommended.json" is a base that loads.
for p in p0 p1 p01; do sed -i '2s#"base":"rec-tiny.json"#"base":"Scenarios/recommended.json"#' "$W/$p/search-part.csv"; done
cp "$W/p01/search-part.csv" $C/merge-search/whole
{ cat "$W/p0/search-part.csv"; echo "$CUT"; cat "$W/p1/search-part.csv"; } > $C/merge-search/two-shards
awk -F, 'BEGIN{OFS=","} NR==5{$NF=-5} {print}' "$W/p01/search-part.csv" > $C/merge-search/negative-share
sed '2s/"slack":"0.02"/"slack":"nan"/; 2s/"players":"300"/"players":"-5"/' "$W/p01/search-part.csv" > $C/merge-search/nan-slack

# Dictionaries: the words of each format, for libFuzzer to splice in (the scenario's from its
# schema: every key, kind and example).
mkdir -p Fuzz/dictionaries
python3 - <<'PY'
import json, os
def esc(t): return '"' + t.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\x0A').replace('\r', '\\x0D') + '"'
def write(name, words):
    with open('Fuzz/dictionaries/%s.dict' % name, 'w') as f:
        f.write('# libFuzzer dictionary for the %s target (written by Fuzz/seeds.sh)\n' % name)
        for w in sorted(set(words)): f.write(esc(w) + '\n')
schema = json.load(open('Scenarios/scenario.schema.json'))
keys, values = set(), set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == 'properties' and isinstance(v, dict): keys.update(v)
            if k == 'enum' and isinstance(v, list): values.update(x for x in v if isinstance(x, str))
            if k == 'const' and isinstance(v, str): values.add(v)
            if k == 'examples' and isinstance(v, list): values.update(x for x in v if isinstance(x, str) and len(x) < 60)
            walk(v)
    elif isinstance(o, list):
        for x in o: walk(x)
walk(schema)
numbers = ['0', '-0', '1e-10', '1e308', '-1', '0.5', '2147483648', '9223372036854775807', '18446744073709551616', '1e19']
units = ['ns', 'us', 'ms', 's', 'm', 'h', 'd', 'B', 'kB', 'MB', 'GB', 'B/s', 'kB/s', 'MB/s']
files = ['recommended.json', 'r1.json', 'v115-pausing.json', 'v115-uptime.json', 'fuzz.json', 'fuzz-base.json',
         'examples/devices-wall.json', 'traces/lte-sample.csv', 'traces/synthetic-link.up', 'traces/synthetic-link.down']
write('scenario', ['"%s":' % k for k in keys] + ['"%s"' % v for v in values] + numbers + units + ['"%s"' % f for f in files])
search_keys = ['$schema', 'description', 'base', 'knobs', 'key', 'values', 'monotone', 'constraints', 'name', 'metric', 'max', 'min',
               'objective', 'seeds', 'maxFailingSeeds', 'screen', 'players', 'slack']
paths = ['client.probes', 'client.estimator', 'client.tick', 'client.refetch', 'server.fleet.servers', 'population.players',
         'network.profiles[0].share', 'network.requestBytes', 'duration', 'seed', 'extends', 'budgets', '["seed"]', 'client["probes"]']
os.symlink('scenario.dict', 'Fuzz/dictionaries/scenario-base.dict') if not os.path.lexists('Fuzz/dictionaries/scenario-base.dict') else None
write('search', ['"%s":' % k for k in search_keys] + ['"%s"' % p for p in paths] + ['"servers"', '"../recommended.json"', '"../r1.json"']
      + ['"%s"' % v for v in values if '.' in v or v[:1].islower()] + numbers)
cut = '--8<--\n'
write('mahimahi-trace', [cut, '#! ', '--message-bytes ', '--base-delay ', '\r\n', '\n', '0\n', '9223372036854775807', '1000000000', '-1', '20ms', '1h'])
write('telemetry-csv', [',', '"', '""', '\r\n', '\n', 'device', 'sent', 'rtt_ms', 't1', 't2', 't3', 't4', 'link', 'outcome', 'bytes',
      'ok', 'success', '200', 'timeout', 'timed out', 'failed', 'error', '2026-11-23T08:15:02Z', '.123456789', '+01:00', '-0530', 'Z',
      '1767225600000', '3600000', '2147483648', '9223372036854775807', 'nan', 'inf', '-0', '1e3', '-2'])
write('latency-trace', [',', '#', '\r\n', 'uplink_ms', 'downlink_ms', '1e308', 'nan', 'inf', '-0', '0x10', '1_000'])
figures = [v for v in values if '.' in v or v.endswith('Share') or v.endswith('Ms')]
write('merge-sweep', [cut, '# synclab sweep part ', '/'] + ['"%s":' % k for k in ['scenario', 'fingerprint', 'seeds', 'vary', 'key', 'values', 'chart', 'figures']]
      + ['"%s"' % f for f in figures] + numbers)
write('merge-search', [cut, '# synclab search part ', '/', 'screen', 'full', '"Scenarios/recommended.json"']
      + ['"%s":' % k for k in ['name', 'scenario', 'base', 'fingerprint', 'players', 'constraintsGiven', 'knobs', 'key', 'values',
                               'monotone', 'constraints', 'metric', 'max', 'min', 'objective', 'seeds', 'maxFailingSeeds', 'screen', 'slack']]
      + ['"%s"' % f for f in figures] + numbers)
PY

du -sh Fuzz/corpus Fuzz/dictionaries; for d in $C/*; do echo "$(ls "$d" | wc -l) $d"; done
