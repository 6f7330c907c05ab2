import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// Latency traces from CSV files: parsing, units, path anchoring, and errors that name the file,
/// the line and the key path.
@Suite struct LatencyTraceTests {
    @Test func parsesHeaderColumnsCommentsAndBlankLines() throws {
        let text = "# measured somewhere\nuplink_ms, downlink_ms\n12.5,30\n\n7,  8.25\n# note\n1e1,0\n"
        #expect(try LatencyTrace.samples(in: text, column: "downlink_ms") == [30, 8.25, 0])
        #expect(try LatencyTrace.samples(in: text, column: "uplink_ms") == [12.5, 7, 10])
        // One column, no header.
        #expect(try LatencyTrace.samples(in: "5\n6\n7", column: nil) == [5, 6, 7])
        // One column with a header, no column named.
        #expect(try LatencyTrace.samples(in: "rtt\n5\n", column: nil) == [5])
    }

    /// Issue 40, row 10: "\r\n" is one Character, so a split on "\n" left the whole file one
    /// line ("has no column 'ms' in its header (ms⏎50⏎30)").
    @Test func crlfLineEndsReadLikeLF() throws {
        #expect(try LatencyTrace.samples(in: "ms\r\n50\r\n30\r\n", column: "ms") == [50, 30])
        #expect(try LatencyTrace.samples(in: "ms\r\n50\r\n30\r\n", column: nil) == [50, 30])
        #expect(try LatencyTrace.samples(in: "# note\r\na,b\r\n1,2\r\n\r\n3,4", column: "b") == [2, 4])
        do {
            _ = try LatencyTrace.samples(in: "a\r\n1\r\nx\r\n", column: nil)
            Issue.record("a bad cell was accepted")
        } catch {
            #expect(error == .init(line: 3, message: "column 'a' is \"x\", not a number"))
        }
    }

    @Test func problemsNameTheLine() {
        func problem(_ text: String, _ column: String?) -> LatencyTrace.Problem? {
            do { _ = try LatencyTrace.samples(in: text, column: column); return nil } catch { return error }
        }
        #expect(problem("a,b\n1,2\n3,x\n", "b") == .init(line: 3, message: "column 'b' is \"x\", not a number"))
        #expect(problem("1\n2\nfast\n", nil) == .init(line: 3, message: "the cell is \"fast\", not a number"))
        #expect(problem("# only a comment\n\n", nil) == .init(line: 0, message: "has no samples"))
        #expect(problem("", nil) == .init(line: 0, message: "has no samples"))
        #expect(problem("a,b\n1,2\n", "c") == .init(line: 1, message: "has no column 'c' in its header (a, b)", aboutColumn: true))
        #expect(problem("a,b\n1,2\n", nil) == .init(line: 1, message: "has 2 columns (a, b); name one with 'column'", aboutColumn: true))
        #expect(problem("1\n2\n", "x") == .init(line: 1, message: "has no header line, so no column can be named 'x'", aboutColumn: true))
        #expect(problem("1,2\n", nil) == .init(line: 1, message: "has 2 columns and no header; a file without one must have one column"))
        #expect(problem("a,b\n1\n", "b") == .init(line: 2, message: "has 1 column; expected at least 2"))
        #expect(problem("a\n-3\n", nil) == .init(line: 2, message: "\"-3\" is negative; a latency cannot be"))
    }

    @Test func anchorsRelativePathsToTheScenarioFolder() {
        let value = JSONValue.object([
            JSONMember(key: "a", value: .object([JSONMember(key: "trace", value: .string("t/x.csv"))])),
            JSONMember(key: "b", value: .array([.object([JSONMember(key: "trace", value: .string("/abs.csv"))])])),
        ])
        let anchored = LatencyTrace.anchorPaths(value, in: "Scenarios/examples/s.json")
        #expect(anchored["a"]?["trace"] == .string("Scenarios/examples/t/x.csv"))
        #expect(InputKeyPath.lookup("b[0].trace", in: anchored) == .string("/abs.csv"))
        #expect(LatencyTrace.anchorPaths(value, in: "s.json") == value)   // the working folder
    }

    /// The shipped example: a scenario in Scenarios/examples/ naming ../traces/lte-sample.csv,
    /// loaded through its extends chain; the samples are the file's milliseconds in ns.
    @Test func shippedExampleTraceLoads() throws {
        let s = try ScenarioLoader().load(path: ScenarioFixtures.packageRoot + "/Scenarios/examples/devices-uptime.json")
        let lte = try #require(s.links.first { $0.name == "lte" })
        guard case .empirical(let up) = lte.uplink, case .empirical(let down) = lte.downlink else {
            Issue.record("not a trace: \(lte.uplink)"); return
        }
        #expect(up.count == 240 && down.count == 240)
        #expect(up[0] == 30.3e6 && down[0] == 22.1e6)   // first data row: 30.3,22.1
        let text = try String(contentsOfFile: ScenarioFixtures.packageRoot + "/Scenarios/traces/lte-sample.csv", encoding: .utf8)
        #expect(text.hasPrefix("# Synthetic"))
    }

    @Test func badTraceFilesAreInputErrorsWithFileLineAndKeyPath() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "up_ms\n10\n12\noops\n".write(toFile: dir + "/bad.csv", atomically: true, encoding: .utf8)
        try "# nothing yet\n".write(toFile: dir + "/empty.csv", atomically: true, encoding: .utf8)
        try "5\n".write(toFile: dir + "/ok.csv", atomically: true, encoding: .utf8)
        func load(_ uplink: String) throws -> InputError? {
            let text = try ScenarioFixtures.variant(#"{"network": {"profiles": [{"preset": "lte", "share": 1, "uplink": \#(uplink)}]}}"#)
            try text.write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
            do { _ = try ScenarioLoader().load(path: dir + "/s.json"); return nil } catch { return error }
        }
        // A bad cell in the named column is the file's problem: located at `trace`.
        let cell = try load(#"{"trace": "bad.csv", "column": "up_ms"}"#)
        #expect(cell?.keyPath == "network.profiles[0].uplink.trace")
        #expect(cell?.message == "trace file '\(dir)/bad.csv' line 4: column 'up_ms' is \"oops\", not a number")
        let bad = try load(#"{"trace": "bad.csv"}"#)
        #expect(bad?.file == dir + "/s.json")
        #expect(bad?.keyPath == "network.profiles[0].uplink.trace")
        #expect(bad?.message == "trace file '\(dir)/bad.csv' line 4: column 'up_ms' is \"oops\", not a number")
        let missing = try load(#"{"trace": "nope.csv"}"#)
        #expect(missing?.message == "trace file '\(dir)/nope.csv' does not exist (paths are relative to the scenario file)")
        #expect(missing?.keyPath == "network.profiles[0].uplink.trace")
        let empty = try load(#"{"trace": "empty.csv"}"#)
        #expect(empty?.message == "trace file '\(dir)/empty.csv': has no samples")
        let column = try load(#"{"trace": "bad.csv", "column": "down_ms"}"#)
        #expect(column?.keyPath == "network.profiles[0].uplink.column")
        let unit = try load(#"{"trace": "ok.csv", "unit": "min"}"#)
        #expect(unit?.keyPath == "network.profiles[0].uplink.unit")
        let typo = try load(#"{"trace": "ok.csv", "colum": "x"}"#)
        #expect(typo?.message == "unknown key 'colum'; did you mean 'column'?")
        #expect(try load(#"{"trace": "ok.csv", "unit": "s"}"#) == nil)
        // Seconds: 5 s per sample, as an empirical distribution.
        let s = try ScenarioLoader().load(path: dir + "/s.json")
        #expect(s.links[0].uplink == .empirical([5e9]))
        // A rate cannot come from a latency trace.
        let rate = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(
            #"{"network": {"profiles": [{"preset": "lte", "share": 1, "bandwidth": {"trace": "x.csv"}}]}}"#))
        #expect(rate?.keyPath == "network.profiles[0].bandwidth.trace")
    }
}
