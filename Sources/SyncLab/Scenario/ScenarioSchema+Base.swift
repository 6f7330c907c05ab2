// The part of the scenario schema that is not a plug-in's: the top-level keys and the shared
// definitions (durations, rates, distributions, link profiles, figures, budgets). Plug-in kinds
// add their fragments to it (ScenarioSchema.swift). Edit the JSON here, then regenerate
// Scenarios/scenario.schema.json with `synclab schema --out Scenarios/scenario.schema.json`.

extension ScenarioSchema {
    static let base = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://synclab.example/scenario.schema.json",
  "title": "SyncLab scenario",
  "description": "A SyncLab scenario file. Durations and rates are strings with units; a distribution is a single value (a constant) or an object with a kind. The loader (synclab validate) also checks ranges and sums this schema cannot express, and names the file and key path of any problem.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "$schema": { "type": "string", "description": "The schema editors should check this file with; ignored by the loader." },
    "extends": { "type": "string", "minLength": 1, "description": "Path of a scenario this one overrides, relative to this file: objects merge key by key, other values replace." },
    "name": { "type": "string", "pattern": "^[\\p{L}\\p{N}_-][\\p{L}\\p{N}._-]*$", "minLength": 1, "maxLength": 100, "description": "Names the report folder: letters, digits, '-', '_' and '.', not starting with '.'." },
    "description": { "type": "string" },
    "seed": { "type": "integer", "minimum": 0, "maximum": 9223372036854775807, "examples": [1] },
    "epoch": { "type": "string", "pattern": "^((19[7-9][0-9]|2[01][0-9][0-9])-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))|(19(7[26]|8[048]|9[26])|20([02468][048]|[13579][26])|21(0[48]|[2468][048]|[13579][26]))-02-29)T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?Z$", "examples": ["2012-02-08T18:00:00.371Z"], "description": "True time zero as an ISO 8601 UTC instant from 1970 to 2199 (a day its month has); its fraction is the phase of whole-second truncation." },
    "duration": { "$ref": "#/$defs/positiveDuration", "description": "Measured simulated time: more than 0, at most 30d." },
    "warmup": { "$ref": "#/$defs/duration", "description": "Unmeasured run-in before the measured time: 0 to 30d (default 30m)." },
    "store": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "positions": { "type": "integer", "minimum": 1, "maximum": 1000, "examples": [12] },
        "shelfLife": { "$ref": "#/$defs/durationDistribution", "description": "Item shelf lives: every location parameter 1s to 30d, a finite mean." },
        "resolution": { "$ref": "#/$defs/positiveDuration", "description": "Item times are multiples of this in unix time: 1ns to 1h (default 1s)." },
        "file": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "overheadBytes": { "type": "integer", "minimum": 0, "maximum": 100000000, "examples": [120] },
            "bytesPerItem": { "type": "integer", "minimum": 1, "maximum": 1000000, "examples": [150] },
            "encrypted": { "type": "boolean" },
            "base64": { "type": "boolean" },
            "headerBytes": { "type": "integer", "minimum": 0, "maximum": 1000000, "examples": [300] },
            "fixedBytes": { "type": "integer", "minimum": 0, "maximum": 100000000, "examples": [20000], "description": "Every response has exactly this many bytes (replaces the item-based size)." }
          }
        }
      }
    },
    "server": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "cron": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "period": { "$ref": "#/$defs/positiveDuration", "description": "1s to 1d (default 1m)." },
            "jitter": { "$ref": "#/$defs/durationDistribution", "description": "Start delay after each period boundary, at most 1d." },
            "horizon": { "$ref": "#/$defs/positiveDuration", "description": "How far ahead items are known: 1s to 1d (default 10m)." }
          }
        },
        "publish": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "lag": { "$ref": "#/$defs/duration", "description": "0 to 1d (default 5s)." },
            "duration": { "$ref": "#/$defs/durationDistribution", "description": "The compile job's duration, at most 1d." }
          }
        },
        "timestampResolution": { "$ref": "#/$defs/positiveDuration", "description": "1s (REQUEST_TIME) or e.g. 1us (REQUEST_TIME_FLOAT): 1ns to 1d." },
        "serviceTime": { "$ref": "#/$defs/durationDistribution", "description": "Request start to response leaving, at most 1d." },
        "clockOffset": { "$ref": "#/$defs/signedDuration", "description": "Server clock minus true time: -1d to 1d." },
        "leapSecond": { "$ref": "#/$defs/leapSecond", "description": "A positive leap second on every server's clock (default: none)." },
        "timestampAt": { "enum": ["arrival", "request-start", "response-send"], "description": "When the server reads its clock for the timestamp: when the request arrives (before any wait for a worker), when a worker starts it (PHP-FPM's REQUEST_TIME, default: after the wait) or when the response leaves (after queueing and service)." },
        "fleet": {
          "type": ["object", "null"],
          "additionalProperties": false,
          "description": "API servers behind a load balancer, each with its own clock; the cron host keeps server.clockOffset. null drops a fleet inherited through extends (one server).",
          "properties": {
            "servers": { "type": "integer", "minimum": 1, "maximum": 1000, "examples": [4], "description": "Default 1." },
            "clockOffset": { "$ref": "#/$defs/offsetDistribution", "description": "Each server's clock minus true time, drawn once per run per server." },
            "balancing": { "enum": ["round-robin", "random"], "description": "Default round-robin (one counter shared by all players)." },
            "clockOffsets": { "type": "array", "items": { "oneOf": [{ "$ref": "#/$defs/signedDuration" }, { "type": "null" }] }, "examples": [["2s", null, null]], "description": "Each server's clock minus true time given outright, one entry per server (as many as servers); null for a server whose offset is drawn from clockOffset. Default: all drawn." },
            "faults": { "type": "array", "items": { "$ref": "#/$defs/serverClockFault" }, "description": "Faults in servers' clocks in time: a step, or a drift from an instant (default: none)." }
          }
        },
        "workers": { "oneOf": [{ "type": "integer", "minimum": 1, "maximum": 1000000 }, { "const": "unlimited" }, { "type": "null" }], "examples": [5, "unlimited"], "description": "Requests each server serves at once; the rest wait in FIFO order. Default 5, PHP-FPM's stock pm.max_children; \"unlimited\" answers every request at once (the idealised server); null drops an inherited value." },
        "queueLimit": { "oneOf": [{ "type": "integer", "minimum": 0, "maximum": 100000000 }, { "const": "unlimited" }, { "type": "null" }], "examples": [128], "description": "Requests that may wait for a worker; one more gets an error at once. Default 128, PHP-FPM's Linux listen backlog; only with a finite pool; null drops an inherited value." },
        "outages": { "type": "array", "items": { "$ref": "#/$defs/outage" }, "description": "Windows in which no server answers." },
        "design": { "$ref": "#/$defs/serverDesign" }
      }
    },
    "network": {
      "type": "object",
      "additionalProperties": false,
      "required": ["profiles"],
      "properties": {
        "requestBytes": { "type": "integer", "minimum": 0, "maximum": 100000000, "examples": [400] },
        "profiles": { "type": "array", "minItems": 1, "maxItems": 64, "items": { "$ref": "#/$defs/linkProfile" }, "description": "Link profiles; their shares sum to 1." }
      }
    },
    "devices": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "driftPpm": { "$ref": "#/$defs/numberDistribution", "description": "Oscillator drift in ppm; every draw within ±100000." },
        "wallClockOffset": { "$ref": "#/$defs/offsetDistribution", "description": "Wall clock minus true time; location and sd at most 1d." },
        "uptimeAtStart": { "$ref": "#/$defs/durationDistribution", "description": "How long each device has been up, at most 365d." }
      }
    },
    "client": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "clock": { "$ref": "#/$defs/clock" },
        "estimator": { "$ref": "#/$defs/estimator" },
        "tick": { "$ref": "#/$defs/tick" },
        "refetch": { "$ref": "#/$defs/refetch" },
        "retry": { "$ref": "#/$defs/retry" },
        "syncAt": { "enum": ["download-complete", "response-headers"], "description": "When the client reads its clock for the sync: after the whole response (default) or when the response headers carrying the server's stamps arrive." },
        "probes": { "type": "integer", "minimum": 1, "maximum": 16, "description": "Requests per sync, back to back; the sync uses the one with the smallest round trip, or all of them for an estimator that reads every probe (1 to 16, default 1)." },
        "probeTarget": {
          "description": "Where the sync's probes go: \"store\" (default: every probe fetches the store file) or a time endpoint of a few hundred bytes, probed client.probes times, then one store fetch after the last probe's answer.",
          "oneOf": [
            { "enum": ["store", "time-endpoint"] },
            { "type": "object", "additionalProperties": false, "required": ["kind"],
              "properties": {
                "kind": { "const": "store" }
              } },
            { "type": "object", "additionalProperties": false, "required": ["kind"],
              "properties": {
                "kind": { "const": "time-endpoint" },
                "responseBytes": { "type": "integer", "minimum": 1, "maximum": 100000000, "examples": [360], "description": "Bytes of each response, headers included (default 360: 300 header bytes and a 60-byte body with two stamps)." },
                "servedBy": { "enum": ["web-server", "worker-pool"], "description": "web-server (default): answered outside the worker pools, no queue; worker-pool: takes a worker and waits in the store's FIFO queue." },
                "serviceTime": { "$ref": "#/$defs/durationDistribution", "description": "Request start to response leaving, at most 1d (default 0.1ms on the web server, 1ms in the pool)." }
              } }
          ]
        },
        "showFirstAnswerWithin": { "$ref": "#/$defs/duration", "description": "A player with nothing current to show (no sync yet, or a file that no longer covers the time it would show) shows the store from the first probe of a round whose ± bound (half the round trip and the resolutions, for NTP's exchange) is within this, at most 1d, with that probe's own estimate, and takes the round's estimate when the last probe is answered. Absent: it waits for the round. Needs probeTarget \"store\"." },
        "maxSyncBound": { "$ref": "#/$defs/duration", "description": "A round whose estimate claims a ± bound wider than this (at most 1d) is not used, as RFC 5905 drops a server past its distance threshold: the player keeps what it had or stays bare, the estimator's memory is left as it was, and the retry policy sends the next round. Absent: every round is used." },
        "persistSync": { "type": "boolean", "description": "Keep the last sync (anchor, bound, the estimator's memory) across the app's termination, as Kronos stores it in the app's defaults; a cold start restores it when the device has not rebooted and its wall clock has not been set since, as Kronos checks (default false)." },
        "driftCorrection": {
          "description": "Frequency correction from two syncs at least minInterval apart: true (defaults 1h, 500 ppm), false, or an object.",
          "oneOf": [
            { "type": "boolean" },
            { "type": "object", "additionalProperties": false,
              "properties": {
                "minInterval": { "$ref": "#/$defs/longDuration", "description": "1m to 30d (default 1h)." },
                "maxPpm": { "type": "number", "minimum": 0, "maximum": 100000, "description": "Largest correction applied, ppm (default 500)." }
              } }
          ]
        },
        "maxDriftPpm": { "type": "number", "minimum": 0, "maximum": 100000, "description": "The drift the estimator's ± bound allows for, ppm (default 100)." }
      }
    },
    "population": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "players": { "type": "integer", "minimum": 1, "maximum": 20000000, "examples": [5000] },
        "visitGap": { "$ref": "#/$defs/durationDistribution", "description": "Offline time between visits, at most 365d." },
        "sessionsPerVisit": { "$ref": "#/$defs/numberDistribution", "description": "Store sessions per visit: mean 1 to 1000." },
        "viewing": { "$ref": "#/$defs/durationDistribution", "description": "Length of one Store session, at most 1d." },
        "break": { "$ref": "#/$defs/durationDistribution", "description": "Pause between sessions of a visit, at most 30d." },
        "lockShare": { "$ref": "#/$defs/probability" },
        "sleepDelay": { "$ref": "#/$defs/durationDistribution", "description": "Screen off to deep sleep, at most 1d." },
        "release": {
          "type": "object",
          "additionalProperties": false,
          "required": ["at", "multiplier"],
          "properties": {
            "at": { "$ref": "#/$defs/duration", "description": "Inside the measured duration." },
            "multiplier": { "type": "number", "minimum": 1, "maximum": 10000, "examples": [50] },
            "window": { "$ref": "#/$defs/positiveDuration", "description": "1ms to 1d (default 1m)." }
          }
        }
      }
    },
    "metrics": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "sampleEvery": { "$ref": "#/$defs/positiveDuration", "description": "Error-sampling interval: 100ms to 1d (default 5s)." },
        "bounds": { "type": "boolean", "description": "Show the estimator's ± bound coverage in summary.json and report.md (default true)." },
        "samplePlayers": { "type": "integer", "minimum": 1, "maximum": 20000000, "description": "Sample the errors of at most this many players: every k-th player by index (default: all). Reports say so." },
        "fetchSyncError": { "type": "boolean", "description": "Show the per-fetch sync error (estimate minus truth at each receive) in summary.json and the report (default false)." }
      }
    },
    "costs": { "type": "array", "items": { "$ref": "#/$defs/costModel" } },
    "budgets": { "type": "array", "items": { "$ref": "#/$defs/budget" } }
  },
  "if": { "not": { "required": ["extends"] } },
  "then": {
    "required": ["name", "duration", "store", "server", "network", "population"],
    "properties": { "population": { "required": ["players"] } }
  },
  "$defs": {
    "duration": {
      "type": "string",
      "pattern": "^[0-9]+(\\.[0-9]+)?(ns|us|µs|μs|ms|s|m|h|d)$",
      "examples": ["1s"],
      "description": "A duration with a unit, like \"250ms\", \"6m\" or \"24h\"."
    },
    "positiveDuration": { "type": "string", "pattern": "^([0-9]*[1-9][0-9]*(\\.[0-9]+)?|[0-9]+\\.[0-9]*[1-9][0-9]*)(ns|us|µs|μs|ms|s|m|h|d)$", "examples": ["1s"], "description": "A duration above zero, like \"250ms\"." },
    "longDuration": { "$ref": "#/$defs/duration", "examples": ["1h"] },
    "signedDuration": {
      "type": "string",
      "pattern": "^-?[0-9]+(\\.[0-9]+)?(ns|us|µs|μs|ms|s|m|h|d)$",
      "examples": ["-50ms"]
    },
    "rate": {
      "type": "string",
      "pattern": "^[0-9]+(\\.[0-9]+)?(B|kB|MB|GB|KiB|MiB|GiB|bit|kbit|Mbit|Gbit)/s$",
      "examples": ["1MB/s"],
      "description": "A data rate, like \"2MB/s\" or \"1Mbit/s\"; at least 1 B/s."
    },
    "size": {
      "type": "string",
      "pattern": "^[0-9]+(\\.[0-9]+)?(B|kB|MB|GB|KiB|MiB|GiB)$",
      "examples": ["1000GB"]
    },
    "probability": { "type": "number", "minimum": 0, "maximum": 1, "examples": [0.5] },
    "nonNegative": { "type": "number", "minimum": 0, "examples": [20] },
    "durationDistribution": {
      "description": "A duration (a constant) or a distribution of durations. Every draw the generator can produce must stay under 10000d.",
      "oneOf": [
        { "$ref": "#/$defs/duration" },
        { "type": "object", "additionalProperties": false, "required": ["kind", "value"],
          "properties": { "kind": { "const": "constant" }, "value": { "$ref": "#/$defs/duration" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "min", "max"],
          "properties": { "kind": { "const": "uniform" }, "min": { "$ref": "#/$defs/duration" }, "max": { "$ref": "#/$defs/duration" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean", "sd"],
          "properties": { "kind": { "const": "normal" }, "mean": { "$ref": "#/$defs/duration" }, "sd": { "$ref": "#/$defs/duration" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "median", "sigma"],
          "properties": { "kind": { "const": "lognormal" }, "median": { "$ref": "#/$defs/positiveDuration" }, "sigma": { "$ref": "#/$defs/sigma" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean"],
          "properties": { "kind": { "const": "exponential" }, "mean": { "$ref": "#/$defs/positiveDuration" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "scale", "shape"],
          "properties": { "kind": { "const": "pareto" }, "scale": { "$ref": "#/$defs/positiveDuration" }, "shape": { "$ref": "#/$defs/shape" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "samples"],
          "properties": { "kind": { "const": "empirical" }, "samples": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/duration" } } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "body", "tail"],
          "description": "A lognormal body with a slower lognormal tail that a share of draws come from: a median and a long tail at once (docs/links.md).",
          "properties": { "kind": { "const": "lognormal-mixture" },
            "body": { "type": "object", "additionalProperties": false, "required": ["median", "sigma"],
              "properties": { "median": { "$ref": "#/$defs/positiveDuration" }, "sigma": { "$ref": "#/$defs/sigma" } } },
            "tail": { "type": "object", "additionalProperties": false, "required": ["share", "median", "sigma"],
              "properties": { "share": { "type": "number", "minimum": 0, "maximum": 0.5, "examples": [0.02] },
                "median": { "$ref": "#/$defs/positiveDuration", "description": "At least the body's median." },
                "sigma": { "$ref": "#/$defs/sigma" } } },
            "outage": { "type": "object", "additionalProperties": false, "required": ["share", "median", "sigma"],
              "description": "An optional third, slowest part: a far cluster of outages (docs/links.md). Its share and the tail's add to at most 0.5.",
              "properties": { "share": { "type": "number", "minimum": 0, "maximum": 0.5, "examples": [0.01] },
                "median": { "$ref": "#/$defs/positiveDuration", "description": "At least the tail's median." },
                "sigma": { "$ref": "#/$defs/sigma" } } } } }
      ]
    },
    "rateDistribution": {
      "description": "A rate (a constant) or a distribution of rates, drawn per request.",
      "oneOf": [
        { "$ref": "#/$defs/rate" },
        { "type": "object", "additionalProperties": false, "required": ["kind", "value"],
          "properties": { "kind": { "const": "constant" }, "value": { "$ref": "#/$defs/rate" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "min", "max"],
          "properties": { "kind": { "const": "uniform" }, "min": { "$ref": "#/$defs/rate" }, "max": { "$ref": "#/$defs/rate" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean", "sd"],
          "properties": { "kind": { "const": "normal" }, "mean": { "$ref": "#/$defs/rate" }, "sd": { "$ref": "#/$defs/rate" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "median", "sigma"],
          "properties": { "kind": { "const": "lognormal" }, "median": { "$ref": "#/$defs/rate" }, "sigma": { "$ref": "#/$defs/sigma" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean"],
          "properties": { "kind": { "const": "exponential" }, "mean": { "$ref": "#/$defs/rate" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "scale", "shape"],
          "properties": { "kind": { "const": "pareto" }, "scale": { "$ref": "#/$defs/rate" }, "shape": { "$ref": "#/$defs/shape" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "samples"],
          "properties": { "kind": { "const": "empirical" }, "samples": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/rate" } } } }
      ]
    },
    "numberDistribution": {
      "description": "A number (a constant) or a distribution of plain numbers (ppm, counts).",
      "oneOf": [
        { "type": "number", "examples": [3] },
        { "type": "object", "additionalProperties": false, "required": ["kind", "value"],
          "properties": { "kind": { "const": "constant" }, "value": { "type": "number", "examples": [3] } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "min", "max"],
          "properties": { "kind": { "const": "uniform" }, "min": { "type": "number", "examples": [3] }, "max": { "type": "number", "examples": [3] } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean", "sd"],
          "properties": { "kind": { "const": "normal" }, "mean": { "type": "number", "examples": [3] }, "sd": { "$ref": "#/$defs/nonNegative" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "median", "sigma"],
          "properties": { "kind": { "const": "lognormal" }, "median": { "type": "number", "exclusiveMinimum": 0, "examples": [3] }, "sigma": { "$ref": "#/$defs/sigma" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean"],
          "properties": { "kind": { "const": "exponential" }, "mean": { "type": "number", "exclusiveMinimum": 0, "examples": [3] } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "scale", "shape"],
          "properties": { "kind": { "const": "pareto" }, "scale": { "type": "number", "exclusiveMinimum": 0, "examples": [3] }, "shape": { "$ref": "#/$defs/shape" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean"],
          "properties": { "kind": { "const": "geometric" }, "mean": { "type": "number", "minimum": 1, "examples": [3] } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "samples"],
          "properties": { "kind": { "const": "empirical" }, "samples": { "type": "array", "minItems": 1, "items": { "type": "number", "examples": [3] } } } }
      ]
    },
    "offsetDistribution": {
      "description": "A clock offset (may be negative): a constant, uniform or normal.",
      "oneOf": [
        { "$ref": "#/$defs/signedDuration" },
        { "type": "object", "additionalProperties": false, "required": ["kind", "value"],
          "properties": { "kind": { "const": "constant" }, "value": { "$ref": "#/$defs/signedDuration" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "min", "max"],
          "properties": { "kind": { "const": "uniform" }, "min": { "$ref": "#/$defs/signedDuration" }, "max": { "$ref": "#/$defs/signedDuration" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean", "sd"],
          "properties": { "kind": { "const": "normal" }, "mean": { "$ref": "#/$defs/signedDuration" }, "sd": { "$ref": "#/$defs/duration" } } }
      ]
    },
    "sigma": { "type": "number", "minimum": 0, "maximum": 5, "examples": [0.5] },
    "delayDistribution": {
      "description": "A delay distribution, or a latency trace: samples from a CSV file (path relative to the scenario file; a column of its header, or its only column; unit ms by default), drawn as an empirical distribution.",
      "oneOf": [
        { "$ref": "#/$defs/durationDistribution" },
        { "type": "object", "additionalProperties": false, "required": ["trace"],
          "properties": {
            "trace": { "type": "string", "minLength": 1, "examples": ["traces/lte-sample.csv"] },
            "column": { "type": "string", "minLength": 1, "examples": ["uplink_ms"] },
            "unit": { "enum": ["ms", "ns", "us", "s"] }
          } }
      ]
    },
    "intervalDuration": { "type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(ns|us|µs|μs|ms|s|m|h|d)$", "examples": ["1d"], "description": "A duration with a unit; an event interval's mean must be at least 1m." },
    "eventInterval": {
      "description": "Time between one player's events (true time): a duration distribution with a mean of at least 1m.",
      "oneOf": [
        { "$ref": "#/$defs/intervalDuration" },
        { "type": "object", "additionalProperties": false, "required": ["kind", "mean"],
          "properties": { "kind": { "const": "exponential" }, "mean": { "$ref": "#/$defs/intervalDuration" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "min", "max"],
          "properties": { "kind": { "const": "uniform" }, "min": { "$ref": "#/$defs/intervalDuration" }, "max": { "$ref": "#/$defs/intervalDuration" } } },
        { "type": "object", "additionalProperties": false, "required": ["kind", "median", "sigma"],
          "properties": { "kind": { "const": "lognormal" }, "median": { "$ref": "#/$defs/intervalDuration" }, "sigma": { "$ref": "#/$defs/sigma" } } }
      ]
    },
    "shape": { "type": "number", "exclusiveMinimum": 0, "examples": [5] },
    "linkProfile": {
      "type": "object",
      "additionalProperties": false,
      "required": ["share"],
      "if": { "not": { "required": ["preset"] } },
      "then": { "required": ["name"], "anyOf": [ { "required": ["uplink", "downlink", "bandwidth"] }, { "required": ["linkTrace"] } ] },
      "properties": {
        "preset": { "enum": ["wifi", "lte", "3g", "edge"], "description": "Start from a named profile (docs/links.md); every other key overrides it, name defaults to the preset's." },
        "name": { "type": "string", "minLength": 1, "maxLength": 64, "examples": ["wifi"] },
        "share": { "$ref": "#/$defs/probability", "examples": [1] },
        "uplink": { "$ref": "#/$defs/delayDistribution", "description": "One-way delay, at most 1d." },
        "downlink": { "$ref": "#/$defs/delayDistribution", "description": "One-way delay, at most 1d." },
        "bandwidth": { "$ref": "#/$defs/rateDistribution" },
        "failure": { "$ref": "#/$defs/probability" },
        "timeout": { "$ref": "#/$defs/positiveDuration", "description": "1ms to 1d (default 30s)." },
        "floor": {
          "description": "Physical floor of the one-way delays: every drawn delay is at least it. One duration for both directions, or per direction (a direction left out keeps the preset's, else 0s); 0 to the link's time-out (default: the preset's, else 0s; docs/links.md).",
          "oneOf": [
            { "$ref": "#/$defs/duration", "examples": ["3ms"] },
            { "type": "object", "additionalProperties": false,
              "properties": { "uplink": { "$ref": "#/$defs/duration", "examples": ["4ms"] }, "downlink": { "$ref": "#/$defs/duration", "examples": ["2ms"] } } }
          ]
        },
        "correlation": { "$ref": "#/$defs/delayProcess", "description": "How a player's successive delays relate (default independent)." },
        "loss": { "$ref": "#/$defs/packetLoss", "description": "Segments lost and sent again by TCP (default none)." },
        "connection": { "$ref": "#/$defs/connection", "description": "Idle connections close; a new one pays DNS, TCP and TLS (default: always open)." },
        "radio": { "$ref": "#/$defs/radio", "description": "A cellular radio's idle tail and promotion delay (default: always ready)." },
        "linkTrace": {
          "type": "object", "additionalProperties": false, "required": ["uplink", "downlink"],
          "description": "Measured packet-delivery traces (Mahimahi format: one line per 1500-byte delivery opportunity, ms since the start; the trace repeats) crossed in place of uplink, downlink, bandwidth and correlation; paths relative to the scenario file (docs/links.md).",
          "properties": {
            "uplink": { "type": "object", "additionalProperties": false, "required": ["trace"],
                        "properties": { "trace": { "type": "string", "minLength": 1, "examples": ["traces/synthetic-link.up"] } } },
            "downlink": { "type": "object", "additionalProperties": false, "required": ["trace"],
                          "properties": { "trace": { "type": "string", "minLength": 1, "examples": ["traces/synthetic-link.down"] } } },
            "baseDelay": { "$ref": "#/$defs/duration", "examples": ["20ms"], "description": "One-way delay added to every crossing, 0 to 1d (default 0s)." }
          }
        }
      }
    },
    "outage": {
      "description": "A window in which no server answers: refused (the client hears of it one round trip later) or timeout (the client notices at its link's time-out).",
      "oneOf": [
        { "type": "object", "additionalProperties": false, "required": ["at", "duration", "mode"],
          "properties": { "at": { "$ref": "#/$defs/duration", "examples": ["90m"], "description": "Inside the measured duration." }, "duration": { "$ref": "#/$defs/positiveDuration", "examples": ["2m"], "description": "1ms to 1d." }, "mode": { "const": "refused" } } },
        { "type": "object", "additionalProperties": false, "required": ["at", "duration", "mode"],
          "properties": { "at": { "$ref": "#/$defs/duration", "examples": ["90m"], "description": "Inside the measured duration." }, "duration": { "$ref": "#/$defs/positiveDuration", "examples": ["2m"], "description": "1ms to 1d." }, "mode": { "const": "timeout" } } }
      ]
    },
    "figure": {
      "type": "string",
      "pattern": "^(transitionGapMs\\.(p50|p99|max)|transitionSpreadMs\\.(p50|p99)|transitionSpread999Ms\\.(p50|p99)|transitionsWithin500msShare|viewersInBest500msShare|viewersInCentred500msShare|viewerPairsWithin500msShare|transition(Best|Centred)500msShare\\.(p50|p1|min)|transitionPairsWithin500msShare\\.(p50|p1)|displayedSecondWrongShare|(clientErrorMs|estimateErrorMs)\\.(p50|p99|max)|requests|(peak|p99|p999|mean)RequestsPerSecond|peakToMeanRatio|bareShare|staleShare|failedRequestShare|modelAudit\\.allHold|telemetry\\.agrees|estimateErrorMs\\.byClock\\.(suspending|continuous|uptime-1s|uptime-1us|wall)\\.(p50|p99|max)|clientErrorMs\\.byLink\\..{1,64}\\.(p50|p99|max)|requestsPerMonth|bytesPerMonth|costPerMonth\\.[A-Za-z0-9_-]+|errorSourceMs\\.(timestampResolution|timestampPlacement|serverOffset|pathAndEstimator|clockDrift|standbyPause|clockResolution|uiTick)\\.(mean|sd)|wakeRecoveryMinutes\\.(displayed|estimate)(\\.vsNoSleep)?|deviceEvents\\.(reboots|rebootsWhileViewing|appKills|wallClockChanges|tamperings|wallClockSteps|wallClockSlews)|earlyShowShare|tamperEarlyShowShare|tamperHeadStartMs\\.(mean|max)|queueWaitMs\\.(mean|p99|max)|queueLengthMax|outageFailures|originalPlan\\.(earlyShowShare|earlyVisibilityMs\\.max|queryWaitMs\\.p99)|boundCoverageShare|boundMs\\.(p50|p99)|boundCoverageShare\\.byLink\\..{1,64}|seedFailureRate(\\.upper95)?)$",
      "examples": ["transitionGapMs.p99"],
      "description": "A figure key of summary.json (docs/summary-json.md). Per link profile (clientErrorMs.byLink.<link>.p50, boundCoverageShare.byLink.<link>), per cost model (costPerMonth.<name>) and with device events switched on (deviceEvents.*, earlyShowShare, tamperHeadStartMs.*) only for the links, models and events the scenario has: the loader checks that."
    },
    "budget": {
      "description": "A limit on one figure of the summary: exactly one of max or min. Figures include wakeRecoveryMinutes.displayed (and .estimate, .displayed.vsNoSleep, .estimate.vsNoSleep); seedFailureRate and seedFailureRate.upper95 are judged across seeds by synclab check --seeds. A share's limit is from 0 to 1; every other figure's is at least 0, except an error source's mean (either sign).",
      "oneOf": [
        { "type": "object", "additionalProperties": false, "required": ["name", "metric", "max"],
          "properties": { "name": { "type": "string", "examples": ["gap"] }, "metric": { "$ref": "#/$defs/figure" }, "max": { "type": "number", "examples": [500] } } },
        { "type": "object", "additionalProperties": false, "required": ["name", "metric", "min"],
          "properties": { "name": { "type": "string", "examples": ["within"] }, "metric": { "$ref": "#/$defs/figure", "examples": ["transitionBest500msShare.p1"] }, "min": { "type": "number", "examples": [0.99] } } }
      ],
      "allOf": [
        { "if": { "properties": { "metric": { "pattern": "(^|\\.)[^.]*Share(\\.|$)|^seedFailureRate" } } },
          "then": { "properties": { "max": { "minimum": 0, "maximum": 1 }, "min": { "minimum": 0, "maximum": 1 } } } },
        { "if": { "properties": { "metric": { "not": { "pattern": "^errorSourceMs\\.[A-Za-z]+\\.mean$" } } } },
          "then": { "properties": { "max": { "minimum": 0 }, "min": { "minimum": 0 } } } }
      ]
    }
  }
}

"""#
}
