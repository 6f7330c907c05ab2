import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
import SyncLabReports

/// `synclab compare`: common random numbers, so a scenario compared with itself differs by
/// nothing, and a real difference shows where the designs differ.
@Suite struct CompareCommandTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    @Test func aScenarioComparedWithItselfHasZeroDifferences() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let r = Self.synclab(["compare", scenario, scenario, "--out", dir + "/cmp", "--seed", "5", "--threads", "1"])
        #expect(r.status == 0, "stderr: \(r.err)")
        #expect(r.out.hasPrefix("seed 5\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/cmp").sorted() == [
            ReportWriter.marker, "compare.csv", "compare.md", "compare_error_over_time.csv", "compare_error_over_time.svg",
            "compare_requests_per_second.csv", "compare_requests_per_second.svg", "compare_transition_gaps.csv", "compare_transition_gaps.svg"])
        let csv = try String(contentsOfFile: dir + "/cmp/compare.csv", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(csv[0] == "figure,small,small (2),small (2) - small")
        #expect(csv.count > 15)
        for line in csv.dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(f[1] == f[2], "\(line)")
            #expect(f[3] == (f[1].isEmpty ? "" : "0"), "\(line)")
        }
        let md = try String(contentsOfFile: dir + "/cmp/compare.md", encoding: .utf8)
        #expect(md.contains("Every scenario ran with seed 5: common random numbers."))
        #expect(md.contains("![Transition gap across players (cumulative)](compare_transition_gaps.svg)"))
        // Overlaid: one series per scenario, with a legend entry each.
        let svg = try String(contentsOfFile: dir + "/cmp/compare_requests_per_second.svg", encoding: .utf8)
        #expect(svg.contains("data-series=\"small\"") && svg.contains("data-series=\"small (2)\""))
    }

    @Test func theSeedIsCommonAndDifferencesAreTheDesigns() throws {
        let dir = CLITests.temporaryDirectory()
        let pausing = try CLITests.smallScenario(in: dir)
        let uptime = dir + "/uptime.json"
        try "{ \"extends\": \"small.json\", \"name\": \"small-uptime\", \"seed\": 99, \"client\": { \"clock\": \"uptime\" } }"
            .write(toFile: uptime, atomically: true, encoding: .utf8)
        let r = Self.synclab(["compare", pausing, uptime, "--out", dir + "/cmp", "--threads", "1"])
        #expect(r.status == 0, "stderr: \(r.err)")
        // The first scenario's seed (1), not the second's own 99.
        #expect(r.out.hasPrefix("seed 1\n"))
        var s = try ScenarioLoader().load(path: uptime)
        s.seed = 1
        let expected = Simulation.run(s).figures
        let rows = try String(contentsOfFile: dir + "/cmp/compare.csv", encoding: .utf8).split(separator: "\n")
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let peak = try #require(rows.first { $0[0] == "peakRequestsPerSecond" })
        #expect(peak[2] == Headline.cell(expected["peakRequestsPerSecond"] ?? nil))
        // The clocks differ, so the displayed error does.
        let error = try #require(rows.first { $0[0] == "clientErrorMs.p99" })
        #expect(error[3] != "0" && !error[3].isEmpty)
    }

    @Test func usageErrors() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        #expect(Self.synclab(["compare", scenario]).err.contains("expected at least two scenario files"))
        #expect(Self.synclab(["compare", scenario, scenario, "--seed", "x"]).status == 2)
        let missing = Self.synclab(["compare", scenario, dir + "/none.json", "--out", dir + "/c"])
        #expect(missing.status == 2 && missing.err.contains("none.json"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/c"))
    }
}
