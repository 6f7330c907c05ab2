import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// A third hostile sweep's rows on budgets, figures' names, progress, validate's messages and the
/// model audit, and a new user's first hour: each test runs the row's repro through the command
/// line (in-process, as `CLITests` does) and checks the exit status and the message.
@Suite struct HostileMiscTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    /// `text` written to `dir/name`; its path.
    static func write(_ text: String, _ name: String, in dir: String) throws -> String {
        try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        return dir + "/" + name
    }

    /// The small scenario (v1.1.5 pausing, 300 players, 30 min) and a variant of it.
    static func variant(_ overrides: String, in dir: String, name: String = "variant.json") throws -> String {
        _ = try CLITests.smallScenario(in: dir)
        return try write(#"{ "extends": "small.json", "name": "variant", "# + overrides + " }", name, in: dir)
    }

    static let escape = "\u{1B}", bell = "\u{07}"

    // MARK: Progress on a dumb terminal

    final class Box: @unchecked Sendable { var out = ""; var err = ""; var now = 0.0 }

    /// `synclab run` in-process with stderr a terminal of type `term`, on a clock that moves 31 s
    /// at every reading (so plain lines appear in a short run).
    static func runOnTerminal(_ scenario: String, out: String, term: String?) -> (status: Int32, err: String) {
        let box = Box()
        var cli = CLI(out: { box.out += $0 }, err: { box.err += $0 }, showsProgress: true, stderrIsTerminal: true, terminalType: term)
        cli.progressClock = { box.now += 31; return box.now }
        let status = cli.main(["run", scenario, "--out", out])
        return (status, box.err)
    }

    @Test(arguments: ["dumb", "", nil] as [String?])
    func aDumbTerminalGetsPlainProgressLines(term: String?) throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let r = Self.runOnTerminal(scenario, out: dir + "/r", term: term)
        #expect(r.status == 0)
        #expect(!r.err.contains(Self.escape) && !r.err.contains("\r"), "stderr: \(r.err.debugDescription)")
        #expect(r.err.contains("small: done, 40 min 00 s simulated in "), "stderr: \(r.err)")
        #expect(r.err.contains(" simulated ("), "a plain line every 10%: \(r.err)")
    }

    @Test func aTerminalThatTakesCursorControlsStillGetsOneLineInPlace() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let r = Self.runOnTerminal(scenario, out: dir + "/r", term: "xterm-256color")
        #expect(r.status == 0)
        #expect(r.err.contains("\rsmall: 40 min 00 s of 40 min 00 s simulated (100%)") && r.err.contains("\u{1B}[K"), "stderr: \(r.err)")
    }

    // MARK: Gilbert–Elliott rates of 1e-10 per second

    @Test func aGilbertElliottChannelThatNeverSwitchesRunsAndIsAudited() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.variant(#"""
            "network": { "profiles": [ { "preset": "lte", "share": 1, "correlation": { "kind": "gilbert-elliott",
              "goodToBadPerSecond": 1e-10, "badToGoodPerSecond": 1e-10, "bad": { "uplink": "1s", "downlink": "1s" } } } ] },
            "budgets": []
            """#, in: dir, name: "ge.json")
        #expect(Self.synclab(["validate", scenario]).status == 0)
        let r = Self.synclab(["run", scenario, "--out", dir + "/r", "--clients", "300", "--duration", "20m", "--quiet"])
        #expect(r.status == 0, "\(r.err)")
        let report = try String(contentsOfFile: dir + "/r/report.md", encoding: .utf8)
        #expect(report.contains("| link lte | `uplinkMs.p50` |"), "the link's audit rows are there")
    }

    /// The same class of trap in the loss model: its time-outs are timed by the link's mean round
    /// trip in whole nanoseconds, and a Pareto law with shape ≤ 1 (which the loader accepts for a
    /// delay, its draws bounded) has no mean.
    @Test func aLossyLinkWithoutAMeanRoundTripIsRefusedAtLoad() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.variant(#"""
            "network": { "profiles": [ { "name": "p", "share": 1, "uplink": { "kind": "pareto", "scale": "1ns", "shape": 0.9 },
              "downlink": "20ms", "bandwidth": "1MB/s", "loss": { "kind": "tcp-retransmit", "rate": 0.1 } } ] },
            "budgets": []
            """#, in: dir)
        let message = "\(scenario): network.profiles[0].loss: needs a link whose mean round trip (uplink + downlink) is finite and at most 2d, "
            + "since its time-outs are timed by it; this link's is infinite (a delay law without a mean)\n"
        for arguments in [["validate", scenario], ["run", scenario, "--out", dir + "/r", "--quiet"]] {
            let r = Self.synclab(arguments)
            #expect(r.status == 2, "\(arguments[0])")
            #expect(r.err == "synclab \(arguments[0]): " + message, "\(r.err)")
        }
    }

    // MARK: The M/G/1 queue row of a random fleet

    /// R1 at 83,000 players on two servers behind a random balancer, one worker each, lognormal
    /// service (median 8 ms, σ 0.4), no queue limit: each server is M/G/1. The row's expected
    /// value is Pollaczek–Khinchine's at the run's own arrival rate, worked out here from the
    /// requests the run served; its tolerance is finite (it was "n/a": the batches' request
    /// counts were read as bit patterns) and the row holds, so a check gating on
    /// `modelAudit.allHold` passes. The first fetches are spread over a refetch cycle (R1's come
    /// in its first minute, a burst whose waves return every cycle for hours), and an hour of
    /// warm-up lets the queue settle.
    @Test func theQueueOfARandomFleetAgreesWithPollaczekKhinchine() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.write(#"""
            { "extends": "r1.json", "name": "mg1", "duration": "1h", "warmup": "1h",
              "server": { "serviceTime": { "kind": "lognormal", "median": "8ms", "sigma": 0.4 }, "workers": 1, "queueLimit": "unlimited",
                          "fleet": { "servers": 2, "balancing": "random" } },
              "population": { "players": 83000, "visitGap": { "kind": "uniform", "min": "0s", "max": "450s" } },
              "budgets": [ { "name": "every model did what its parameters say", "metric": "modelAudit.allHold", "min": 1 } ] }
            """#, "mg1.json", in: dir)
        let r = Self.synclab(["run", scenario, "--out", dir + "/r", "--quiet"])
        #expect(r.status == 0, "\(r.err)")
        let summary = try #require(JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: dir + "/r/summary.json")))
                                   as? [String: Any])
        let audit = try #require(summary["modelAudit"] as? [String: Any])
        let rows = try #require(audit["rows"] as? [[String: Any]])
        let row = try #require(rows.first { $0["model"] as? String == "server queue" })
        let served = try #require((summary["serverQueue"] as? [String: Any])?["requests"] as? Double)
        // λ per server per second, E[S] = m·e^(σ²/2), E[S²] = m²·e^(2σ²), W = λE[S²]/(2(1 − ρ)).
        let lambda = served / 2 / 3600, meanService = 8e-3 * exp(0.08), second = 64e-6 * exp(0.32)
        let wait = lambda * second / (2 * (1 - lambda * meanService)) * 1e3
        let expected = try #require(row["expected"] as? Double), tolerance = try #require(row["tolerance"] as? Double)
        #expect(abs(expected - wait) < 0.002, "expected \(expected) ms, Pollaczek–Khinchine \(wait) ms")
        #expect(wait > 15 && wait < 25, "ρ about 0.8: \(wait) ms")
        #expect(tolerance > 0 && tolerance < 2, "\(tolerance)")
        #expect(row["holds"] as? Bool == true, "\(row)")
        #expect(audit["allHold"] as? Bool == true)
        #expect(Self.synclab(["check", scenario, "--quiet"]).status == 0)
    }

    /// `outageFailures` converts its count as the queue row's batches now do (`Double($0)`, not
    /// `map(Double.init)`, which on a UInt64 can pick `init(bitPattern:)`): a budget of at most
    /// 0.5 failures sees the run's real count and fails.
    @Test func outageFailuresCountsTheFailures() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.variant(#"""
            "server": { "outages": [ { "at": "20m", "duration": "2m", "mode": "refused" } ] },
            "budgets": [ { "name": "no failures", "metric": "outageFailures", "max": 0.5 } ]
            """#, in: dir)
        let r = Self.synclab(["run", scenario, "--out", dir + "/r", "--quiet", "--threads", "1"])
        #expect(r.status == 0, "\(r.err)")
        let summary = try String(contentsOfFile: dir + "/r/summary.json", encoding: .utf8)
        let queue = try #require(summary.firstMatch(of: #/"outageRefused": (\d+), "outageTimedOut": (\d+)/#))
        let failures = Double(queue.output.1)! + Double(queue.output.2)!
        #expect(failures > 0)
        #expect(summary.contains(#""metric": "outageFailures", "comparison": "max", "limit": 0.500000, "value": \#(String(format: "%.6f", failures)), "pass": false"#),
                "\(summary)")
    }

    // MARK: Shares that do not sum to 1

    @Test(arguments: [("0.500001", "they sum to 1.000001 (wifi 0.5 + lte 0.500001)"),
                      ("0.4999", "they sum to 0.9999 (wifi 0.5 + lte 0.4999)")])
    func sharesThatMissOneShowTheirRealNumbers(share: String, expected: String) throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.variant(#""network": { "profiles": [ { "preset": "wifi", "share": 0.5 }, { "preset": "lte", "share": "#
            + share + " } ] }", in: dir)
        let r = Self.synclab(["validate", scenario])
        #expect(r.status == 2)
        #expect(r.err == "synclab validate: \(scenario): network.profiles: shares must sum to 1 (within 0.000001); \(expected)\n")
    }

    // MARK: Control characters in budget names and descriptions

    @Test func aBudgetNameWithEscapesIsRefusedByEveryCommand() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.variant(#""budgets": [ { "name": "x\u001b]0;PWNED\u0007", "metric": "bareShare", "max": 0.5 } ]"#, in: dir)
        let message = "\(scenario): budgets[0].name: must be printable text, without control characters; character 2 is U+001B\n"
        for (command, arguments) in [("check", ["check", scenario, "--quiet"]), ("run", ["run", scenario, "--out", dir + "/r", "--quiet"]),
                                     ("validate", ["validate", scenario])] {
            let r = Self.synclab(arguments)
            #expect(r.status == 2, "\(command)")
            #expect(r.err.hasSuffix(message), "\(command): \(r.err)")
            #expect(!(r.out + r.err).contains(Self.escape) && !(r.out + r.err).contains(Self.bell), "\(command)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/r"), "no report")
    }

    @Test func aDescriptionWithEscapesIsRefusedAndListStaysClean() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try CLITests.smallScenario(in: dir)
        let folder = dir + "/list"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = try Self.write(#"{ "extends": "../small.json", "name": "d1", "description": "hello \u001b]0;PWNED\u0007 world." }"#,
                                  "d1.json", in: folder)
        let r = Self.synclab(["list", folder])
        #expect(r.status == 2)
        #expect(r.err == "synclab list: \(path): description: must be printable text, without control characters; character 7 is U+001B\n")
        #expect(!(r.out + r.err).contains(Self.escape) && !(r.out + r.err).contains(Self.bell))
        // Line breaks and text-reordering marks too; plain Unicode is fine.
        for (text, code) in [("two\\nlines", "U+000A"), ("a\\u202eb", "U+202E"), ("c\\u009bd", "U+009B")] {
            let bad = try Self.variant(#""description": ""# + text + "\"", in: dir)
            #expect(Self.synclab(["validate", bad]).err.contains("description: must be printable text, without control characters; character "
                + "\(text.hasPrefix("two") ? 4 : 2) is \(code)"), "\(text)")
        }
        let fine = try Self.variant(#""description": "Größe — 500 ms, 日本""#, in: dir)
        #expect(Self.synclab(["validate", fine]).status == 0)
    }

    // MARK: A new user's first hour

    @Test func anUnknownFigureNamesTheThreeNearestNotAllOfThem() throws {
        let dir = CLITests.temporaryDirectory()
        let far = try Self.variant(#""budgets": [ { "name": "b", "metric": "zzz", "max": 0.5 } ]"#, in: dir, name: "far.json")
        let r = Self.synclab(["validate", far])
        #expect(r.status == 2)
        #expect(r.err == "synclab validate: \(far): budgets[0].metric: unknown figure 'zzz'; the nearest are 'requests', 'bareShare' or "
            + "'staleShare' (every figure: docs/summary-json.md#every-figure-declared-once)\n")
        let near = try Self.variant(#""budgets": [ { "name": "b", "metric": "bareShar", "max": 0.5 } ]"#, in: dir, name: "near.json")
        #expect(Self.synclab(["validate", near]).err == "synclab validate: \(near): budgets[0].metric: unknown figure 'bareShar'; "
            + "did you mean 'bareShare'? (every figure: docs/summary-json.md#every-figure-declared-once)\n")
    }

    @Test func aMisspeltKeyGetsDidYouMeanEvenWhenTheBaseSetsIt() throws {
        let dir = CLITests.temporaryDirectory()
        // v1.1.5 sets client.clock, so the merged object holds both keys.
        let clok = try Self.variant(#""client": { "clok": "continuous" }"#, in: dir, name: "clok.json")
        #expect(Self.synclab(["validate", clok]).err
            == "synclab validate: \(clok): client: unknown key 'clok'; did you mean 'clock'? ('clock' is set too)\n")
        let uplnk = try Self.variant(#""network": { "profiles": [ { "preset": "wifi", "share": 1, "uplnk": "30ms" } ] }"#, in: dir, name: "uplnk.json")
        #expect(Self.synclab(["validate", uplnk]).err == "synclab validate: \(uplnk): network.profiles[0]: unknown key 'uplnk'; did you mean 'uplink'?\n")
        let kind = try Self.variant(#""client": { "clock": "continous" }"#, in: dir, name: "kind.json")
        #expect(Self.synclab(["validate", kind]).err.hasSuffix("(did you mean 'continuous'?)\n"))
    }

    @Test func aDurationWithoutAUnitShowsBothLikelyReadings() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.variant(#""server": { "serviceTime": "250" }"#, in: dir)
        let r = Self.synclab(["validate", scenario])
        #expect(r.status == 2)
        #expect(r.err == "synclab validate: \(scenario): server.serviceTime: missing unit in \"250\"; expected one of ns, us, ms, s, m, h, d, "
            + "like \"250ms\" or \"250s\"\n")
    }

    @Test func theEndOfARunCountsTradesWithTheFleetOnlyWhenAsked() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)   // v1.1.5's round-robin fleet: players trade with it
        for (environment, counted) in [([String: String](), false), ([RunCommand.shardCountsVariable: "1"], true)] {
            let box = Box()
            let cli = CLI(out: { box.out += $0 }, err: { box.err += $0 }, showsProgress: false)
            let status = RunCommand(cli: cli, environment: environment).main([scenario, "--out", dir + "/r", "--threads", "2"])
            #expect(status == 0)
            // The timing line the bench reads stays: "simulated in S s wall, E events, F fetches, T threads".
            #expect(box.err.hasPrefix("simulated in ") && box.err.contains(" events, ") && box.err.contains(" threads"), "\(box.err)")
            #expect(box.err.contains("trades with the fleet") == counted, "\(environment): \(box.err)")
            #expect(!box.out.contains("trades"))
        }
    }
}
