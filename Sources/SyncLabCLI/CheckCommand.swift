import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// `synclab check`: the CI gate. Runs scenarios and judges their budgets; writes no report folder.
struct CheckCommand {
    let cli: CLI
    /// Where `GITHUB_STEP_SUMMARY` is read from (the process environment by default).
    var environment: [String: String] = ProcessInfo.processInfo.environment

    static let help = """
    synclab check — run scenarios and judge their budgets (the CI gate)

    USAGE
      synclab check SCENARIO.json... [--junit FILE]

    Runs each scenario (its seed, players and duration as written) and prints one tab-separated
    line per budget: scenario, budget, limit, measured value, PASS or FAIL. Every scenario must
    set "budgets". No report folder is written; use 'synclab run' for the report.

    OPTIONS
      --junit FILE     also write JUnit XML: one testsuite per scenario, one testcase per budget
                       (a failing budget carries its measured value and limit)

    When the environment variable GITHUB_STEP_SUMMARY names a file (as in GitHub Actions), a
    Markdown verdict table is appended to it.

    Exit status: 0 every budget holds, 1 some budget fails (or could not be measured),
    2 bad input or usage (including a scenario without budgets).

    EXAMPLES
      synclab check Scenarios/v115-uptime.json
      synclab check Scenarios/*.json --junit build/synclab-junit.xml

    """

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, command: "check", valued: ["--junit"], help: CheckCommand.help) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard !parsed.positional.isEmpty else { return cli.usageError("check", "missing scenario files") }
        let junit = parsed.options["--junit"]
        if let junit {
            // Checked before the runs, so a typo does not cost a whole run.
            guard !junit.isEmpty else { return cli.usageError("check", "--junit needs a file name") }
            let folder = URL(fileURLWithPath: junit).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                return cli.usageError("check", "--junit: the folder '\(folder)' does not exist")
            }
        }

        // Load every scenario first: all input problems are reported before anything runs.
        var scenarios: [(path: String, scenario: Scenario)] = []
        var bad = false
        for path in parsed.positional {
            do {
                let s = try ScenarioLoader().load(path: path)
                if s.budgets.isEmpty {
                    cli.err("synclab check: \(path): the scenario sets no budgets, so there is nothing to check; "
                        + "add a \"budgets\" list (see README) or use 'synclab run'\n")
                    bad = true
                } else {
                    scenarios.append((path, s))
                }
            } catch {
                cli.err("synclab check: \(error)\n")
                bad = true
            }
        }
        if bad { return 2 }

        var outcomes: [CheckOutcome] = []
        for (path, scenario) in scenarios {
            cli.out("seed \(scenario.seed): \(scenario.name) (\(path)), \(scenario.population.players) players, "
                + "\(Units.formatDuration(scenario.duration)) simulated\n")
            let started = DispatchTime.now().uptimeNanoseconds   // timing for stderr only
            let result = Simulation.run(scenario)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            cli.err("simulated \(scenario.name) in \(Format.fixed(elapsed, 2)) s wall\n")
            let outcome = CheckOutcome(scenario: scenario.name, file: path, seed: scenario.seed, verdicts: result.budgetVerdicts)
            cli.out(CheckReport.lines(outcome))
            outcomes.append(outcome)
        }
        let failing = outcomes.filter { $0.failures > 0 }
        cli.out("check: \(CheckReport.tally(outcomes))\n")
        for o in failing { cli.out("reproduce with: \(o.reproduce)\n") }

        var status: Int32 = failing.isEmpty ? 0 : 1
        if let junit {
            do {
                try Data(JUnitReport.render(outcomes).utf8).write(to: URL(fileURLWithPath: junit), options: .atomic)
                cli.out("wrote \(junit)\n")
            } catch {
                cli.err("synclab check: could not write --junit '\(junit)': \(error.localizedDescription)\n")
                status = 2
            }
        }
        if let summary = environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty {
            do {
                try CheckCommand.append(CheckReport.markdown(outcomes), to: summary)
            } catch {
                // The job summary is a convenience: the verdict stands without it.
                cli.err("synclab check: warning: could not append to GITHUB_STEP_SUMMARY '\(summary)': \(error.localizedDescription)\n")
            }
        }
        return status
    }

    /// Appends `text` to the file at `path`, creating it if needed.
    static func append(_ text: String, to path: String) throws {
        let data = Data(text.utf8)
        guard FileManager.default.fileExists(atPath: path) else {
            try data.write(to: URL(fileURLWithPath: path))
            return
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
    }
}
