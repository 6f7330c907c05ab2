import Foundation
import Testing
@testable import SyncLab

/// Mahimahi delivery traces: parsing, and bad files named with their line.
@Suite struct MahimahiTraceTests {
    @Test func readsTimesInOrderWithRepeatsAndCRLF() throws {
        #expect(try MahimahiTrace.opportunities(in: "0\n1\n1\n5\n") == [0, 1, 1, 5])
        // CRLF line ends and a missing final newline read like LF; blank lines are skipped.
        #expect(try MahimahiTrace.opportunities(in: "0\r\n1\r\n\r\n1\r\n5") == [0, 1, 1, 5])
        #expect(try MahimahiTrace.opportunities(in: " 7 \n") == [7])
        // A trace may last exactly the longest allowed, 30 days.
        #expect(try MahimahiTrace.opportunities(in: "0\n2592000000\n") == [0, 2_592_000_000])
        #expect(MahimahiTrace.maximumLength == 30 * 86_400 * Int64.second)
    }

    @Test(arguments: [
        ("3\n2\n", 2, "2 comes after 3; the times must not decrease"),
        ("1\n-4\n", 2, "-4 is negative; a time since the trace's start cannot be"),
        ("1\n2.5\n", 2, "is not a whole number of milliseconds"),
        ("1\r\nabc\r\n", 2, "is not a whole number of milliseconds"),
        ("\n\n", 0, "has no delivery opportunities"),
        ("0\n0\n", 2, "ends at 0 ms; a trace must last (its last time is its length)"),
        ("0\n2592000001\n", 2, "2592000001 ms is past the longest a trace may last, 30d (2592000000 ms)"),
        ("0\n9999999999999\n5\n", 2, "9999999999999 ms is past the longest a trace may last, 30d (2592000000 ms)"),
    ])
    func badTracesNameTheLine(text: String, line: Int, message: String) {
        #expect(throws: LatencyTrace.Problem(line: line, message: message)) { try MahimahiTrace.opportunities(in: text) }
    }

    /// In a scenario: the file and line in the message, at the key path of the `trace` key.
    @Test func badTraceFilesAreInputErrorsWithFileLineAndKeyPath() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        try "1\n".write(toFile: dir + "/ok.up", atomically: true, encoding: .utf8)
        try "5\n9\n7\n".write(toFile: dir + "/unsorted.down", atomically: true, encoding: .utf8)
        func load(_ down: String) throws -> InputError? {
            let text = try ScenarioFixtures.variant(#"{"network": {"profiles": [{"name": "t", "share": 1, "linkTrace": "#
                + #"{"uplink": {"trace": "ok.up"}, "downlink": {"trace": "\#(down)"}}}]}}"#)
            try text.write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
            do { _ = try ScenarioLoader().load(path: dir + "/s.json"); return nil } catch { return error }
        }
        let unsorted = try load("unsorted.down")
        #expect(unsorted?.keyPath == "network.profiles[0].linkTrace.downlink.trace")
        #expect(unsorted?.message == "trace file '\(dir)/unsorted.down' line 3: 7 comes after 9; the times must not decrease")
        let missing = try load("nope.down")
        #expect(missing?.message == "trace file '\(dir)/nope.down' does not exist (paths are relative to the scenario file)")
        #expect(try load("ok.up") == nil)
    }
}
