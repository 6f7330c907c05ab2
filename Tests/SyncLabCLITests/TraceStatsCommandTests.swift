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

    static let shared = (#filePath.components(separatedBy: "/Tests/").first ?? ".") + "/../shared/traces"

    @Test(.enabled(if: FileManager.default.fileExists(atPath: shared + "/Verizon-LTE-short.up"), "needs ../shared/traces"))
    func readsTheSaturatorTraces() {
        let r = CLITests.synclab(["trace-stats", Self.shared + "/Verizon-LTE-short.up", Self.shared + "/Verizon-LTE-short.down"])
        #expect(r.status == 0)
        #expect(r.out.contains("uplink: 69367 opportunities over 140.0 s"))
        #expect(r.out.contains("| 7m | not informed: the trace repeats every 140 s |"))
    }
}
