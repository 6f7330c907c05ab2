// Mahimahi packet-delivery traces: parsed, measured by `synclab trace-stats` (the command
// itself, on files in a scratch folder, with its options), and used as a scenario's
// `linkTrace`: loaded, validated and run small.
//
// One input is an uplink trace, then optionally a "--8<--" line and a downlink trace (else the
// uplink serves both ways). A first line starting with "#!" holds trace-stats options
// (`--message-bytes N`, `--base-delay D`); it is not part of the trace.

import Foundation
import SyncLab
import SyncLabCLI

enum MahimahiTraceTarget {
    static let target = FuzzTarget(name: "mahimahi-trace", summary: "Mahimahi traces: parse, trace-stats, a linkTrace scenario and a tiny run",
                                   prepare: { TinyRun.warmUp(); Scratch.prepare() }) { data in
        var files = FuzzInput.files(data, limit: 2)
        var options: [String] = []
        if files[0].starts(with: Array("#!".utf8)) {
            let line = files[0].prefix { $0 != UInt8(ascii: "\n") }
            options = Self.options(String(decoding: line.dropFirst(2), as: UTF8.self))
            files[0] = files[0].dropFirst(line.count + 1)
        }
        let up = Data(files[0]), down = Data(files.count > 1 ? files[1] : files[0])

        // The parser alone, as a caller of the library reads a trace; the longer pass, in ms.
        var pass: Int64 = 0
        for trace in [up, down] {
            if let text = String(data: trace, encoding: .utf8), let times = try? MahimahiTrace.opportunities(in: text) {
                pass = max(pass, times.last ?? 0)
            }
        }
        // The command, as a user runs it: its checks, its statistics and its report.
        if !slowPasses.contains(pass), let paths = Scratch.write([("fuzz.up", up), ("fuzz.down", down)]) {
            _ = Scratch.cli.main(["trace-stats"] + paths + options)
        }
        // A scenario whose link is the pair.
        let resolver = FuzzResolver(files: ["fuzz.json": scenario, "fuzz.up": up, "fuzz.down": down])
        do {
            TinyRun.run(try ScenarioLoader().load(path: "fuzz.json", resolver: resolver), reports: FuzzInput.sampled(data))
        } catch {
            FuzzInput.refused(error)
        }
    }

    /// Passes (ms) that `trace-stats` is not run on: it measures a pass every 5 ms, so its cost
    /// grows with the pass (3.3 h took 2.7 s, and 28 s under coverage instrumentation, past the
    /// fuzzer's time-out). A harness bound, as a run's size is (`TinyRun`): passes up to 10 min
    /// are measured, and those over a day, which the command must refuse at once, still go in.
    static let slowPasses: ClosedRange<Int64> = (10 * 60_000 + 1)...(24 * 3_600_000)

    static let scenario = Data("""
        { "extends": "r1.json", "name": "fuzz-link",
          "network": { "profiles": [ { "name": "trace", "share": 1,
            "linkTrace": { "uplink": { "trace": "fuzz.up" }, "downlink": { "trace": "fuzz.down" }, "baseDelay": "20ms" } } ] } }
        """.utf8)

    /// The options of a "#!" line that trace-stats takes: `--message-bytes` and `--base-delay`
    /// with the word after each (`--against` draws 20,000 players through a preset: too slow to
    /// try on every input, and not a reader of the input).
    static func options(_ line: String) -> [String] {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var out: [String] = []
        var i = 0
        while i < words.count, out.count < 6 {
            if ["--message-bytes", "--base-delay"].contains(words[i]), i + 1 < words.count {
                out += [words[i], words[i + 1]]
                i += 2
            } else {
                i += 1
            }
        }
        return out
    }
}
