import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// `synclab trace-stats` on traces the test writes, and on the Saturator traces where the
/// machine has them (skipped elsewhere: a fresh clone has no ../shared).
@Suite struct TraceStatsCommandTests {
    @Test func reportsCrossingsLagsAndOutages() throws {
        let dir = CLITests.temporaryDirectory()
        // Up: a packet a millisecond. Down: one a second for 2 s, then a 2 s gap (the trace ends at 4 s).
        try "1\n".write(toFile: dir + "/t.up", atomically: true, encoding: .utf8)
        try "1000\r\n2000\r\n4000\r\n".write(toFile: dir + "/t.down", atomically: true, encoding: .utf8)
        let r = CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--message-bytes", "3000"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("store file 3000 bytes = 2 packets"))
        #expect(r.out.contains("| 1m | not informed: the trace repeats every 4 s |"))
        #expect(r.out.contains("| downlink | 2000 ms | 1 | 900 | 0.5000 |"))
        #expect(r.out.contains("| downlink | longest | 2000 ms | | |"))
    }

    @Test func badTracesExitTwoNamingFileAndLine() throws {
        let dir = CLITests.temporaryDirectory()
        try "1\n".write(toFile: dir + "/t.up", atomically: true, encoding: .utf8)
        try "5\n3\n".write(toFile: dir + "/bad.down", atomically: true, encoding: .utf8)
        let r = CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/bad.down"])
        #expect(r.status == 2)
        #expect(r.err == "synclab trace-stats: trace file '\(dir)/bad.down' line 2: 3 comes after 5; the times must not decrease\n")
        #expect(CLITests.synclab(["trace-stats", dir + "/t.up"]).status == 2)
        #expect(CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.up", "--tau", "2s"]).status == 2)
    }

    /// The implied τ as printed: to the hundredth of a second; a lower bound once the Gaussian
    /// correlation shows as 1.000 (the next double below 1 once gave "900719925474099.25 s");
    /// "—" for no positive correlation. A pass's length to the millisecond below 10 s.
    @Test func timeConstantsAndPassesArePrintedAsTheEntriesCanTell() {
        #expect(TraceStatsCommand.timeConstant(lag: .second, correlation: Foundation.exp(-0.5)) == "2.00 s")
        #expect(TraceStatsCommand.timeConstant(lag: 100 * .millisecond, correlation: 1.0.nextDown) == "over 199 s")
        #expect(TraceStatsCommand.timeConstant(lag: 100 * .millisecond, correlation: 1) == "over 199 s")
        #expect(TraceStatsCommand.timeConstant(lag: .second, correlation: 0) == "—")
        #expect(TraceStatsCommand.pass(300 * .millisecond) == "0.3" && TraceStatsCommand.pass(4 * .second) == "4"
            && TraceStatsCommand.pass(140_400 * .millisecond) == "140" && TraceStatsCommand.pass(.millisecond) == "0.001")
        #expect(TraceStatsCommand.fixed3(.nan) == "not informed" && TraceStatsCommand.fixed3(0.25) == "0.250")
    }

    /// --telemetry-out: each 5 ms entry a device, an exchange at its entry and at each informed
    /// lag, the 1 + 1-packet round trip with the base delay both ways; read back without a drop.
    @Test func writesTheRoundTripsAsTelemetry() throws {
        let dir = CLITests.temporaryDirectory()
        // Up: an opportunity every millisecond. Down: one at 1 s and one at 2 s, a 2 s pass that
        // repeats, so one every second. 400 entries; of the lags only 100 ms is under half a pass.
        try "1\n".write(toFile: dir + "/t.up", atomically: true, encoding: .utf8)
        try "1000\n2000\n".write(toFile: dir + "/t.down", atomically: true, encoding: .utf8)
        let out = dir + "/app.csv"
        let r = CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--base-delay", "20ms", "--telemetry-out", out])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("## Crossing times (ms)"))
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 1 + 400 * 2)
        #expect(lines[0] == "device,sent,rtt_ms,link")
        // e0 enters at 0: the request leaves the uplink at 1 ms, the response the downlink at
        // 1,000 ms; 1,000 + 2 × 20 = 1,040 ms. 100 ms later the request leaves at once (an
        // opportunity at 100 ms) and the response at 1,000 ms: 900 + 40 = 940 ms.
        #expect(lines[1] == "e0,1767225600000,1040.000,trace")
        #expect(lines[2] == "e0,1767225600100,940.000,trace")
        // e1 enters at 5 ms + 0.618033 ms (the entries' golden-ratio jitter, truncated to the ns):
        // 5.618033 ms, sent in whole ms at …005. The response leaves at 1,000 ms:
        // 1,000 − 5.618033 + 40 = 1,034.381967 ms, written to the microsecond.
        #expect(lines[3] == "e1,1767225600005,1034.382,trace")
        #expect(lines[4] == "e1,1767225600105,934.382,trace")
        #expect(lines.last?.hasPrefix("e399,") == true)
        let table = try TelemetryCSV.read(out)
        #expect(table.count == 800 && table.droppedCount == 0 && table.devices.count == 400)
        #expect(table.devices.prefix(3) == ["e0", "e1", "e2"] && table.links == ["trace"])
        #expect(table.roundTripNs[2] == 1_034_382_000)

        // Written again over its own file, with a label that needs quoting.
        let again = CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--telemetry-out", out, "--link-label", "lab, \"2\""])
        #expect(again.status == 0, "\(again.err)")
        let relabelled = try TelemetryCSV.read(out)
        #expect(relabelled.links == ["lab, \"2\""] && relabelled.droppedCount == 0)
        // 1,000 ms without the base delay.
        #expect(relabelled.roundTripNs[0] == 1e9)
    }

    @Test func telemetryOutRefusesATraceAndFilesItDidNotWrite() throws {
        let dir = CLITests.temporaryDirectory()
        try "1\n".write(toFile: dir + "/t.up", atomically: true, encoding: .utf8)
        try "1000\n2000\n".write(toFile: dir + "/t.down", atomically: true, encoding: .utf8)
        let r = CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--telemetry-out", dir + "/t.down"])
        #expect(r.status == 2 && r.err.contains("an input of this command; refusing to overwrite it"), "\(r.err)")
        #expect(try String(contentsOfFile: dir + "/t.down", encoding: .utf8) == "1000\n2000\n")
        try "device,sent,rtt_ms\nmine,1,5\n".write(toFile: dir + "/mine.csv", atomically: true, encoding: .utf8)
        let mine = CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--telemetry-out", dir + "/mine.csv"])
        #expect(mine.status == 2 && mine.err.contains("exists and is not a telemetry CSV written by 'synclab trace-stats'"), "\(mine.err)")
        #expect(CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--link-label", "x"]).status != 0)
        #expect(CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--telemetry-out", dir + "/o.csv", "--link-label", "a\u{1B}b"]).status != 0)
    }

    static let shared = (#filePath.components(separatedBy: "/Tests/").first ?? ".") + "/../shared/traces"

    @Test(.enabled(if: FileManager.default.fileExists(atPath: shared + "/Verizon-LTE-short.up"), "needs ../shared/traces"))
    func readsTheSaturatorTraces() {
        let r = CLITests.synclab(["trace-stats", Self.shared + "/Verizon-LTE-short.up", Self.shared + "/Verizon-LTE-short.down"])
        #expect(r.status == 0)
        #expect(r.out.contains("uplink: 69367 opportunities over 140.0 s"))
        #expect(r.out.contains("| 7m | not informed: the trace repeats every 140 s |"))
    }

    /// --against a scenario file takes its link profile (--link when it has several), drawn
    /// through its own process: a profile named after a preset draws as the preset does.
    /// `--against` holds each way's delay at the link's floor, as the world does: a link whose
    /// draws all lie under floors of 60 and 40 ms has every round trip exactly 100 ms.
    @Test func againstHoldsDelaysAtTheFloors() {
        var link = LinkProfile(name: "floored", share: 1, uplink: .lognormal(median: 5e6, sigma: 0.1),
                               downlink: .lognormal(median: 5e6, sigma: 0.1), bandwidth: .constant(1e6), failure: 0,
                               timeout: 10 * .second, correlation: IndependentDelays())
        link.uplinkFloor = 60 * .millisecond
        link.downlinkFloor = 40 * .millisecond
        let trips = TraceStatsCommand.PresetTrips(link, bytes: 1_000)
        #expect(trips.first.allSatisfy { $0 == 100e6 })
        #expect(trips.bestOf(2).allSatisfy { $0 == 100e6 })
    }

    @Test func againstAScenarioFilesLink() throws {
        let dir = CLITests.temporaryDirectory()
        try "1\n".write(toFile: dir + "/t.up", atomically: true, encoding: .utf8)
        try "1\n".write(toFile: dir + "/t.down", atomically: true, encoding: .utf8)
        try #"{"extends": "v115-pausing.json", "name": "mine", "network": {"profiles": [{"preset": "lte", "name": "mine", "share": 0.5}, {"preset": "3g", "share": 0.5}]}}"#
            .write(toFile: dir + "/mine.json", atomically: true, encoding: .utf8)
        let byFile = CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--against", dir + "/mine.json", "--link", "mine"])
        #expect(byFile.status == 0, "\(byFile.err)")
        let byPreset = CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--against", "lte"])
        // The same draws: only the profile's name differs.
        #expect(byFile.out.replacingOccurrences(of: "'mine'", with: "'lte'") == byPreset.out)
        #expect(CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--against", dir + "/mine.json"]).status == 2)
        #expect(CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--against", dir + "/mine.json", "--link", "x"]).status == 2)
        #expect(CLITests.synclab(["trace-stats", dir + "/t.up", dir + "/t.down", "--against", "lte", "--link", "x"]).status == 2)
    }
}
