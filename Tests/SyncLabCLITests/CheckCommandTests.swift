import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import SyncLabCLI
import SyncLab

/// `synclab check`, the CI gate: exit 0 / 1 / 2, one line per budget, JUnit XML, the GitHub job
/// summary, and cost figures worked out by hand. Serialized: one test sets an environment
/// variable of this process.
@Suite(.serialized) struct CheckCommandTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    /// A 300-player, 30-minute variant of the shipped scenario with `budgets` (JSON) replaced.
    static func scenario(in dir: String, name: String = "small", budgets: String) throws -> String {
        let base = try String(contentsOfFile: CLITests.shippedPausing, encoding: .utf8)
        try base.write(toFile: dir + "/base.json", atomically: true, encoding: .utf8)
        let text = """
        { "extends": "base.json", "name": "\(name)", "duration": "30m", "warmup": "10m",
          "population": { "players": 300, "release": { "at": "15m", "multiplier": 50, "window": "1m" } },
          "budgets": \(budgets) }
        """
        let path = dir + "/\(name).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let holding = """
    [ { "name": "some requests", "metric": "requests", "min": 1 },
      { "name": "peak below 10000/s", "metric": "peakRequestsPerSecond", "max": 10000 } ]
    """
    static let failing = """
    [ { "name": "gap p99 <= 500 ms", "metric": "transitionGapMs.p99", "max": 500 },
      { "name": "some requests", "metric": "requests", "min": 1 } ]
    """

    @Test func passingBudgetsExitZero() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: Self.holding)
        let r = Self.synclab(["check", path])
        #expect(r.status == 0, "stderr: \(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "seed 1: small (\(path)), 300 players, 30m simulated")
        let verdicts = lines.filter { $0.hasPrefix("small\t") }
        #expect(verdicts.count == 2)
        #expect(verdicts[0].hasPrefix("small\tsome requests\trequests ≥ 1\t"))
        #expect(verdicts.allSatisfy { $0.hasSuffix("\tPASS") })
        #expect(lines.contains("check: all 2 budgets hold in 1 scenario"))
        #expect(!r.out.contains("reproduce with"))
        // check writes no report folder.
        #expect(!FileManager.default.fileExists(atPath: "Reports/small"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["base.json", "small.json"])
    }

    @Test func failingBudgetExitsOneWithJUnit() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: Self.failing)
        let junit = dir + "/junit.xml"
        let r = Self.synclab(["check", path, "--junit", junit])
        #expect(r.status == 1, "stderr: \(r.err)")
        let verdicts = r.out.split(separator: "\n").filter { $0.hasPrefix("small\t") }.map { $0.split(separator: "\t").map(String.init) }
        #expect(verdicts.map { $0[4] } == ["FAIL", "PASS"])
        #expect(verdicts[0][1] == "gap p99 <= 500 ms" && verdicts[0][2] == "transitionGapMs.p99 ≤ 500 ms")
        // Above 500 ms, so written in milliseconds from 501 or in seconds.
        #expect(verdicts[0][3].wholeMatch(of: /([5-9][0-9][0-9] ms)|([0-9.]+ s)|([0-9]+ min [0-9]{2} s)/) != nil, "\(verdicts[0][3])")
        #expect(r.out.contains("check: 1 of 2 budgets fails in 1 scenario\n"))
        #expect(r.out.contains("reproduce with: synclab run \(path) --seed 1\n"))

        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- synclab check: 2 budgets, 1 failing -->\n<testsuites>\n"))
        // No timestamp: only the host clock knows when tests ran, and the file must not depend on it.
        #expect(xml.contains("  <testsuite name=\"small\" package=\"synclab.check\" id=\"0\" tests=\"2\" failures=\"1\" errors=\"0\" time=\"0\" hostname=\"synclab\">\n"))
        #expect(xml.contains("<testcase name=\"gap p99 &lt;= 500 ms\" classname=\"small\" time=\"0\">\n"))
        #expect(xml.contains("<failure type=\"budget\" message=\"measured \(verdicts[0][3]); must be at most 500 ms (transitionGapMs.p99)\">"))
        #expect(xml.contains("<testcase name=\"some requests\" classname=\"small\" time=\"0\"/>\n"))
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "JUnit XML is not well-formed")
    }

    @Test func stepSummaryIsAppended() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: Self.failing)
        let summary = dir + "/step-summary.md"
        try "earlier step\n".write(toFile: summary, atomically: true, encoding: .utf8)
        setenv("GITHUB_STEP_SUMMARY", summary, 1)
        defer { unsetenv("GITHUB_STEP_SUMMARY") }
        let r = Self.synclab(["check", path])
        #expect(r.status == 1)
        let text = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(text.hasPrefix("earlier step\n### synclab check: ❌ 1 of 2 budgets fails in 1 scenario\n\n"))
        #expect(text.contains("| scenario | budget | limit | measured | verdict |\n|---|---|---|---|---|\n"))
        #expect(text.contains("| small | gap p99 &lt;= 500 ms | `transitionGapMs.p99 ≤ 500 ms` | "))
        #expect(text.contains(" | ❌ FAIL |\n| small | some requests | `requests ≥ 1` | "))
        #expect(text.hasSuffix("Reproduce: `synclab run \(path) --seed 1`\n\n"))
    }

    @Test func costFiguresMatchTheHandArithmetic() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: """
            [ { "name": "requests", "metric": "requestsPerMonth", "max": 1e12 },
              { "name": "api bill", "metric": "costPerMonth.parse-like", "max": 1e12 },
              { "name": "server bill", "metric": "costPerMonth.vps", "max": 20 } ]
            """)
        // The same scenario run directly: its request count and peak are what check measured.
        let result = Simulation.run(try ScenarioLoader().load(path: path))
        let r = Self.synclab(["check", path])
        #expect(r.status == 0, "stdout: \(r.out)")
        let measured = Dictionary(uniqueKeysWithValues: r.out.split(separator: "\n").filter { $0.hasPrefix("small\t") }
            .map { line in let f = line.split(separator: "\t").map(String.init); return (f[1], f[3]) })
        // 30 minutes is 1/1440 of a 30-day month.
        let perMonth = Double(result.requestsServed) * 1440
        #expect(measured["requests"]?.replacingOccurrences(of: ",", with: "") == "\(Int(perMonth))")
        // parse-like: $199 including 1 million requests, $100 per further million.
        let api = 199 + max(0, perMonth - 1_000_000) / 1_000_000 * 100
        // Shown in dollars to the cent: "$1,234.57".
        let bill = measured["api bill"] ?? ""
        #expect(bill.hasPrefix("$"))
        let shown = try #require(Double(bill.dropFirst().replacingOccurrences(of: ",", with: "")))
        #expect(abs(shown - api) <= 0.005, "\(shown) vs \(api)")
        // vps: $20 per server of 200 requests/s; a 300-player peak fits one.
        #expect((result.requestsPerSecond.max() ?? 0) <= 200)
        #expect(measured["server bill"] == "$20")
    }

    @Test func scenarioWithoutBudgetsIsAnInputError() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: "[]")
        let r = Self.synclab(["check", path])
        #expect(r.status == 2)
        #expect(r.err.contains("synclab check: \(path): the scenario sets no budgets, so there is nothing to check"))
        #expect(!r.out.contains("seed"), "ran although the input was bad")
    }

    @Test func badInputAndUsageExitTwo() throws {
        let dir = CLITests.temporaryDirectory()
        let good = try Self.scenario(in: dir, budgets: Self.holding)
        try "{\"extends\": \"base.json\", \"name\": \"bad\", \"costs\": [{\"name\": \"x\", \"kind\": \"flat\"}]}"
            .write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let bad = Self.synclab(["check", good, dir + "/bad.json"])
        #expect(bad.status == 2)
        #expect(bad.err.contains("bad.json: costs[0].monthly: missing required key"), "stderr: \(bad.err)")
        #expect(!bad.out.contains("seed"), "ran although one input was bad")

        #expect(Self.synclab(["check"]).err.contains("synclab check: missing scenario files"))
        #expect(Self.synclab(["check"]).status == 2)
        let typo = Self.synclab(["check", good, "--junt", "x.xml"])
        #expect(typo.status == 2 && typo.err.contains("unknown option --junt; did you mean --junit?"))
        let folder = Self.synclab(["check", good, "--junit", dir + "/no/such/folder/j.xml"])
        #expect(folder.status == 2 && folder.err.contains("--junit: the folder"))
        #expect(Self.synclab(["check", dir + "/missing.json"]).status == 2)
    }

    @Test func helpHasExamples() {
        let r = Self.synclab(["check", "--help"])
        #expect(r.status == 0)
        #expect(r.out.contains("synclab check SCENARIO.json... [--junit FILE]"))
        #expect(r.out.contains("EXAMPLES\n  synclab check Scenarios/v115-uptime.json\n"))
        #expect(r.out.contains("GITHUB_STEP_SUMMARY"))
        #expect(Self.synclab(["help", "check"]).out == r.out)
        #expect(Self.synclab(["help"]).out.contains("synclab check SCENARIO.json... [--junit FILE]"))
    }
}
