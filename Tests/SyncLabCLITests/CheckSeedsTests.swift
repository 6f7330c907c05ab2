import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// `synclab check --seeds N --max-failures M`, budgets on the failure rate across seeds, and
/// folders or globs that include the JSON Schema.
@Suite(.serialized) struct CheckSeedsTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    /// The 300-player, 30-minute scenario of `CheckCommandTests` with `budgets`.
    static func scenario(in dir: String, name: String = "small", budgets: String) throws -> String {
        try CheckCommandTests.scenario(in: dir, name: name, budgets: budgets)
    }

    /// Per-seed figure `key` of the small scenario for seeds 1…n, from direct runs.
    static func figures(_ path: String, _ key: String, seeds n: UInt64) throws -> [Double] {
        let base = try ScenarioLoader().load(path: path)
        return try (1...n).map { seed in
            var s = base
            s.seed = seed
            return try #require(Simulation.run(s).figures[key] ?? nil)
        }
    }

    @Test func failingSeedsAreListedAndMaxFailuresDecides() throws {
        let dir = CLITests.temporaryDirectory()
        // First find the per-seed values, then put the limit between them.
        let probe = try Self.scenario(in: dir, budgets: "[ { \"name\": \"x\", \"metric\": \"requests\", \"min\": 0 } ]")
        let values = try Self.figures(probe, "requests", seeds: 4)
        let limit = values.sorted()[1]   // seeds above the second smallest fail a "max" budget
        let failing = (1...4).filter { values[$0 - 1] > limit }.map(UInt64.init)
        #expect(failing.count == 2, "values \(values)")
        let path = try Self.scenario(in: dir, budgets: """
            [ { "name": "requests cap", "metric": "requests", "max": \(Int(limit)) },
              { "name": "rate", "metric": "seedFailureRate", "max": 0.5 } ]
            """)
        let strict = Self.synclab(["check", path, "--seeds", "4"])
        #expect(strict.status == 1)
        let lines = strict.out.split(separator: "\n").map(String.init)
        #expect(lines[0] == "seeds 1…4: small (\(path)), 300 players, 30m simulated")
        for seed in 1...4 {
            let line = try #require(lines.first { $0.hasPrefix("small\tseed \(seed)\t") })
            #expect(line.hasPrefix("small\tseed \(seed)\t\(failing.contains(UInt64(seed)) ? "FAIL\trequests cap: " : "PASS")"))
        }
        let seedList = failing.map(String.init).joined(separator: ", ")
        #expect(strict.out.contains("small: 2 of 4 seeds fail (seeds \(seedList)); 95% Wilson 15.00–85.00%; at most 0 may: FAIL\n"))
        // 2 of 4 = 0.5 ≤ 0.5 holds; Wilson 95% for 2/4: 0.1500–0.8500.
        #expect(strict.out.contains("small\trate\tseedFailureRate ≤ 50%\t50% (2 of 4 seeds; 95% Wilson 15.00–85.00%)\tPASS\n"))
        for seed in failing { #expect(strict.out.contains("reproduce with: synclab run \(path) --seed \(seed)\n")) }
        #expect(strict.out.contains("check: 1 of 1 scenario fails across 4 seeds\n"))

        let lenient = Self.synclab(["check", path, "--seeds", "4", "--max-failures", "2"])
        #expect(lenient.status == 0, "stdout: \(lenient.out)")
        #expect(lenient.out.contains("at most 2 may: PASS"))
        #expect(lenient.out.contains("check: the 1 scenario passes across 4 seeds\n"))

        // A replayed failing seed fails the same budget with the same value.
        let replay = Self.synclab(["check", path, "--max-failures", "0"])
        #expect(replay.out.contains("seed 1: small"))
    }

    @Test func aRateBudgetCanFailAlone() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: """
            [ { "name": "no requests", "metric": "requests", "max": 0 },
              { "name": "rate upper", "metric": "seedFailureRate.upper95", "max": 0.9 } ]
            """)
        // Every seed fails; 3 allowed, but 3 of 3 gives the upper end 1 > 0.9.
        let r = Self.synclab(["check", path, "--seeds", "3", "--max-failures", "3"])
        #expect(r.status == 1)
        #expect(r.out.contains("at most 3 may: PASS"))
        #expect(r.out.contains("small\trate upper\tseedFailureRate.upper95 ≤ 90%\t100% (upper end of the interval; rate 100% (3 of 3 seeds; 95% Wilson 43.85–100.00%))\tFAIL\n"))
    }

    @Test func rateBudgetsNeedARunBudgetAndRunIgnoresThem() throws {
        let dir = CLITests.temporaryDirectory()
        let only = try Self.scenario(in: dir, budgets: "[ { \"name\": \"rate\", \"metric\": \"seedFailureRate\", \"max\": 0.1 } ]")
        let r = Self.synclab(["check", only, "--seeds", "2"])
        #expect(r.status == 2 && r.err.contains("a seedFailureRate budget needs at least one budget on a run's figures"))
        // A single run has no failure rate: summary.json lists only the run's budgets.
        let both = try Self.scenario(in: dir, name: "both", budgets: """
            [ { "name": "some", "metric": "requests", "min": 1 }, { "name": "rate", "metric": "seedFailureRate", "max": 0.1 } ]
            """)
        let run = Self.synclab(["run", both, "--out", dir + "/out"])
        #expect(run.status == 0)
        let summary = try String(contentsOfFile: dir + "/out/summary.json", encoding: .utf8)
        #expect(summary.contains("\"metric\": \"requests\"") && !summary.contains("seedFailureRate"))
    }

    @Test func jobSummaryAndJUnitAcrossSeeds() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: CheckCommandTests.failing)
        let summary = dir + "/summary.md", junit = dir + "/junit.xml"
        final class Box: @unchecked Sendable { var out = "" }
        let box = Box()
        // The environment is injected, so no other test's check appends to this file.
        let command = CheckCommand(cli: CLI(out: { box.out += $0 }, err: { _ in }, showsProgress: false),
                                   environment: ["GITHUB_STEP_SUMMARY": summary])
        #expect(command.main([path, "--seeds", "2", "--junit", junit]) == 1)
        let md = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(md.hasPrefix("### synclab check across seeds: ❌ 1 of 1 scenario fails\n"))
        #expect(md.contains("| small | 2 | 1, 2 | 0 | 100% (34.24–100.00%) | ❌ FAIL |"), "\(md)")
        #expect(md.contains("Reproduce: `synclab run \(path) --seed 1`, `synclab run \(path) --seed 2`"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testsuite name=\"small seed 1\" package=\"synclab.check\" id=\"0\" tests=\"2\" failures=\"1\""))
        #expect(xml.contains("<testsuite name=\"small across seeds\" package=\"synclab.check\" id=\"2\" tests=\"1\" failures=\"1\""))
    }

    @Test func seedOptionsAreChecked() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: CheckCommandTests.holding)
        #expect(Self.synclab(["check", path, "--seeds", "0"]).err.contains("--seeds expects a whole number from 1 to 10000"))
        #expect(Self.synclab(["check", path, "--max-failures", "-1"]).status == 2)
        #expect(Self.synclab(["check", path, "--seeds", "2", "--seeds", "3"]).err.contains("--seeds is given more than once"))
    }

    @Test func foldersAndGlobsSkipTheSchema() throws {
        let dir = CLITests.temporaryDirectory()
        let path = try Self.scenario(in: dir, budgets: CheckCommandTests.holding)
        // base.json (the shipped scenario, with budgets) sits beside small.json; make it budget-free.
        let base = dir + "/base.json"
        var text = try String(contentsOfFile: base, encoding: .utf8)
        let budgetsStart = try #require(text.range(of: ",\n  \"budgets\""))
        text = String(text[..<budgetsStart.lowerBound]) + "\n}\n"
        try text.write(toFile: base, atomically: true, encoding: .utf8)
        try "{ \"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": \"object\" }"
            .write(toFile: dir + "/scenario.schema.json", atomically: true, encoding: .utf8)
        // A folder: the schema is not even considered, base.json is skipped for lack of budgets.
        let folder = Self.synclab(["check", dir])
        #expect(folder.status == 0, "stderr: \(folder.err)")
        #expect(folder.err.contains("skipped \(dir)/base.json: it sets no budgets"))
        #expect(folder.out.contains("seed 1: small (\(dir)/small.json)"))
        // What a shell makes of DIR/*.json: the schema is skipped with a note.
        let glob = Self.synclab(["check", dir + "/scenario.schema.json", path])
        #expect(glob.status == 0, "stderr: \(glob.err)")
        #expect(glob.out.hasPrefix("skipped \(dir)/scenario.schema.json (a JSON Schema, not a scenario)\n"))
        #expect(Self.synclab(["check", dir + "/scenario.schema.json"]).status == 2)
    }
}
