import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
import SyncLabKernel

/// `synclab fit` end to end: a telemetry file the test writes, the folder it writes, the fitted
/// scenario loading as it is, dirty rows counted, bad files refused naming file, line, column.
@Suite struct FitCommandTests {
    /// Telemetry of one link: each of `devices` devices logs sessions of three exchanges 5 s
    /// apart, sessions 2 min apart; round trips lognormal (median `medianMs`, σ 0.4) plus a
    /// floor of 10 ms, drawn independently. Then `dirty` rows: one of each kind named.
    static func telemetry(devices: Int, link: String, medianMs: Double, seed: UInt64, dirty: Bool = false) -> String {
        var text = "device,sent,rtt_ms,link,outcome\n"
        let law = Distribution.lognormal(median: medianMs, sigma: 0.4)
        for d in 0..<devices {
            var rng = RandomStream(seed: seed, purpose: StreamPurpose("fit-command-test"), entity: UInt64(d))
            for session in 0..<4 {
                for k in 0..<3 {
                    let sent = 1_767_225_600_000 + Int64(d) * 1_000 + Int64(session) * 120_000 + Int64(k) * 5_000
                    text += "dev\(d),\(sent),\(NumberText.fixed(10 + law.sample(&rng), 3)),\(link),ok\n"
                }
            }
        }
        if dirty {
            text += "dev1,1767225600000,-5,\(link),ok\n"        // a negative round trip
            text += ",1767225600000,40,\(link),ok\n"             // no device
            text += "dev2,yesterday,40,\(link),ok\n"             // an unreadable time
            text += "dev3,1767225600000,,\(link),timeout\n"      // a time-out: used, for the failure share
            text += "dev4,1767225600000,40,\(link),maybe\n"      // an unknown outcome
        }
        return text
    }

    @Test func writesAFittedScenarioThatLoadsAndAReport() throws {
        let dir = CLITests.temporaryDirectory()
        let csv = dir + "/app.csv"
        try Self.telemetry(devices: 200, link: "lte", medianMs: 50, seed: 1, dirty: true).write(toFile: csv, atomically: true, encoding: .utf8)
        let r = CLITests.synclab(["fit", csv, "--out", dir + "/fit", "--resamples", "20", "--holdout", "0.3"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("1 link profile fitted to"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/fit").sorted()
        #expect(names.contains("fitted.json") && names.contains("fit.md") && names.contains("fit.csv") && names.contains("qq_1.svg"))
        // The fitted scenario loads as run and check load it, and carries the fitted link alone.
        let scenario = try CLI().loader.load(path: dir + "/fit/fitted.json")
        #expect(scenario.links.map(\.name) == ["lte"])
        let md = try String(contentsOfFile: dir + "/fit/fit.md", encoding: .utf8)
        for reason in [TelemetryDrop.nonPositiveRoundTrip, .blankDevice, .unreadableSent, .unknownOutcome] {
            #expect(md.contains("| \(reason.rawValue) | 1 |"), "\(reason)")
        }
        #expect(md.contains("## Link 'lte'"))
        #expect(md.contains("Judged on the held-out devices' rows"))
        // The round trip's median: 10 ms + 50 ms (a lognormal's median shifted by the floor).
        let link = scenario.links[0]
        let law = try #require(RoundTripLaw(link))
        #expect(abs(law.quantile(0.5) / 60e6 - 1) < 0.05)
    }

    @Test func missingColumnAndNothingUsableExitTwo() throws {
        let dir = CLITests.temporaryDirectory()
        try "device,when,rtt_ms\nd1,1767225600000,40\n".write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        let r = CLITests.synclab(["fit", dir + "/a.csv", "--out", dir + "/fit"])
        #expect(r.status == 2)
        #expect(r.err.contains(dir + "/a.csv") && r.err.contains("line 1") && r.err.contains("'sent'"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/fit"))
        // The export's own name, mapped.
        let mapped = CLITests.synclab(["fit", dir + "/a.csv", "--out", dir + "/fit", "--columns", "sent=when", "--resamples", "20"])
        #expect(mapped.status == 0, "\(mapped.err)")
        try "device,sent,rtt_ms\nd1,1767225600000,-3\n".write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        let none = CLITests.synclab(["fit", dir + "/b.csv", "--out", dir + "/fit2"])
        #expect(none.status == 2)
        #expect(none.err.contains(dir + "/b.csv"), "\(none.err)")
        for bad in [["--holdout", "1.5"], ["--uplink-share", "0"], ["--resamples", "5"], ["--burst-gap", "30"]] {
            #expect(CLITests.synclab(["fit", dir + "/a.csv", "--out", dir + "/fit3"] + bad).status == 2, "\(bad)")
        }
        #expect(CLITests.synclab(["fit", dir + "/a.csv"]).status == 2)   // no --out
        // A base whose budgets name a link the telemetry has not ('recommended' budgets wifi's
        // error): refused before anything is written.
        let based = CLITests.synclab(["fit", dir + "/a.csv", "--out", dir + "/fit4", "--columns", "sent=when", "--resamples", "20",
                                      "--base", "recommended"])
        #expect(based.status == 2)
        #expect(based.err.contains("would not load") && based.err.contains("clientErrorMs.byLink.wifi"), "\(based.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/fit4"))
    }

    /// A base given as a file is extended by its path relative to the fit's folder, worked out
    /// by hand: from /a/b/fit to /a/c/base.json is ../../c/base.json.
    @Test func aBaseFileIsExtendedByItsRelativePath() throws {
        #expect(FitCommand.relativePath("/a/c/base.json", from: "/a/b/fit") == "../../c/base.json")
        #expect(FitCommand.relativePath("/a/b/base.json", from: "/a/b") == "base.json")
        #expect(FitCommand.relativePath("/base.json", from: "/x") == "../base.json")
        let dir = CLITests.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/scenarios", withIntermediateDirectories: true)
        try #"{"extends": "v115-pausing.json", "name": "mine", "duration": "2h"}"#.write(toFile: dir + "/scenarios/mine.json", atomically: true, encoding: .utf8)
        try Self.telemetry(devices: 40, link: "lte", medianMs: 40, seed: 3).write(toFile: dir + "/app.csv", atomically: true, encoding: .utf8)
        let r = CLITests.synclab(["fit", dir + "/app.csv", "--out", dir + "/fits/lte", "--resamples", "20", "--base", dir + "/scenarios/mine.json"])
        #expect(r.status == 0, "\(r.err)")
        let text = try String(contentsOfFile: dir + "/fits/lte/fitted.json", encoding: .utf8)
        #expect(text.contains(#""extends": "../../scenarios/mine.json""#))
        #expect(try CLI().loader.load(path: dir + "/fits/lte/fitted.json").duration == 2 * 3_600 * .second)
    }

    /// The same file and options give byte-identical folders.
    @Test func deterministic() throws {
        let dir = CLITests.temporaryDirectory()
        let csv = dir + "/app.csv"
        try Self.telemetry(devices: 60, link: "wifi", medianMs: 20, seed: 2).write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(CLITests.synclab(["fit", csv, "--out", dir + "/a", "--resamples", "20"]).status == 0)
        #expect(CLITests.synclab(["fit", csv, "--out", dir + "/b", "--resamples", "20"]).status == 0)
        for name in ["fitted.json", "fit.md", "fit.csv", "qq_1.svg"] {
            #expect(try String(contentsOfFile: dir + "/a/" + name, encoding: .utf8) == String(contentsOfFile: dir + "/b/" + name, encoding: .utf8), "\(name)")
        }
    }

    /// Telemetry drawn from a preset's own law (each direction drawn and floored, added), one
    /// exchange per device session, sessions 2 min apart.
    static func presetTelemetry(_ name: String, label: String, devices: Int, seed: UInt64) -> String {
        var link = LinkPresets.named(name)!
        link.correlation = IndependentDelays()
        var text = "device,sent,rtt_ms,link\n"
        for d in 0..<devices {
            var rng = RandomStream(seed: seed, purpose: StreamPurpose("fit-command-preset"), entity: UInt64(d))
            for session in 0..<5 {
                let up = link.floored(Int64(link.uplink.sample(&rng)), .uplink), down = link.floored(Int64(link.downlink.sample(&rng)), .downlink)
                let sent = 1_767_225_600_000 + Int64(d) * 1_000 + Int64(session) * 120_000
                text += "\(label)-\(d),\(sent),\(NumberText.fixed(Double(up + down) / 1e6, 3)),\(label)\n"
            }
        }
        return text
    }

    /// From telemetry to a verdict: a run of the fitted scenario, held against the telemetry it
    /// was fitted from, agrees (and `check` passes); held against another link's telemetry under
    /// the same label, it does not (and `check` fails).
    @Test func aRunOfTheFittedScenarioAgreesWithItsTelemetryAndNotAnothers() throws {
        let dir = CLITests.temporaryDirectory()
        try Self.presetTelemetry("lte", label: "cell", devices: 1_000, seed: 4).write(toFile: dir + "/lte.csv", atomically: true, encoding: .utf8)
        try Self.presetTelemetry("3g", label: "cell", devices: 1_000, seed: 5).write(toFile: dir + "/3g.csv", atomically: true, encoding: .utf8)
        let fit = CLITests.synclab(["fit", dir + "/lte.csv", "--out", dir + "/fit", "--resamples", "20"])
        #expect(fit.status == 0, "\(fit.err)")
        // A smaller day of the fitted scenario (check runs a scenario as written), without the
        // base's sync budgets (v1.1.5 fails them): judged on the telemetry alone.
        let scenario = dir + "/fit/small.json"
        try #"{"extends": "fitted.json", "name": "small", "duration": "2h", "warmup": "10m", "population": {"players": 3000}, "budgets": null}"#
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        let same = CLITests.synclab(["run", scenario, "--out", dir + "/same", "--telemetry", dir + "/lte.csv", "--quiet"])
        #expect(same.status == 0, "\(same.err)")
        let summary = try String(contentsOfFile: dir + "/same/summary.json", encoding: .utf8)
        let verdict = summary.range(of: "\"telemetry\"").map { String(summary[$0.lowerBound...]) } ?? ""
        #expect(verdict.contains("\"agrees\": true"), "\(verdict)")
        let other = CLITests.synclab(["run", scenario, "--out", dir + "/other", "--telemetry", dir + "/3g.csv", "--quiet"])
        #expect(other.status == 0, "\(other.err)")
        let otherSummary = try String(contentsOfFile: dir + "/other/summary.json", encoding: .utf8)
        #expect(otherSummary.contains("\"agrees\": false"))
        let pass = CLITests.synclab(["check", scenario, "--telemetry", dir + "/lte.csv", "--quiet"])
        #expect(pass.status == 0, "\(pass.out) \(pass.err)")
        let fail = CLITests.synclab(["check", scenario, "--telemetry", dir + "/3g.csv", "--quiet"])
        #expect(fail.status == 1, "\(fail.out) \(fail.err)")
    }
}
