import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// `synclab check`: the CI gate. Runs scenarios (over one or more seeds) and judges their
/// budgets; writes no report folder.
struct CheckCommand {
    let cli: CLI
    /// Where `GITHUB_STEP_SUMMARY` is read from (the process environment by default).
    var environment: [String: String] = ProcessInfo.processInfo.environment

    static let help = """
    synclab check — run scenarios and judge their budgets (the CI gate)

    USAGE
      synclab check SCENARIO.json... [--junit FILE] [--seeds N] [--max-failures M]
                    [--telemetry FILE [--telemetry-columns MAP] [--burst-gap D]]
      synclab check DIR...           (every *.json scenario with budgets in DIR)

    Runs each scenario (its seed, players and duration as written) and prints one tab-separated
    line per budget: scenario, budget, limit, measured value, PASS or FAIL. Every scenario named
    must set "budgets"; in a folder, scenarios without budgets are skipped. JSON Schema files
    (*.schema.json, e.g. from a glob like Scenarios/*.json) are skipped. No report folder is
    written; use 'synclab run' for the report.

    OPTIONS
      --junit FILE       also write JUnit XML: one testsuite per scenario (per scenario and seed
                         with --seeds), one testcase per budget (a failing budget carries its
                         measured value and limit)
      --seeds N          run each scenario with N seeds: its own seed S, then S+1, …, S+N−1
                         (1 … 10000; default 1). A seed fails when one of its budgets fails; one
                         line per seed, then the failing seeds, each replayable with
                         'synclab run SCENARIO.json --seed K'
      --max-failures M   how many seeds of a scenario may fail (default 0)
    \(TelemetryOptions.help)
                         With --telemetry every run is also judged on it: a budget "the run agrees
                         with the telemetry" (telemetry.agrees ≥ 1) is added unless the scenario
                         sets one on telemetry.agrees, and a scenario named without budgets is
                         checked on it alone
      --quiet            no progress on stderr

    Budgets across seeds: {"metric": "seedFailureRate", "max": 0.05} limits the share of failing
    seeds; "seedFailureRate.upper95" limits the upper end of its 95% Wilson score interval (a
    gate that needs enough seeds to pass: with 0 failures, N ≥ 73 for 0.05). Both are printed
    with the interval.

    When the environment variable GITHUB_STEP_SUMMARY names a file (as in GitHub Actions), a
    Markdown verdict table is appended to it. Progress, with the run of how many, goes to stderr.

    Exit status: 0 every budget holds (with --seeds: at most M seeds fail and every
    seedFailureRate budget holds), 1 otherwise (a figure that could not be measured fails too),
    2 bad input or usage (including a named scenario without budgets).

    EXAMPLES
      synclab check Scenarios/v115-uptime.json
      synclab check Scenarios/*.json --junit build/synclab-junit.xml
      synclab check Scenarios/v115-uptime.json --seeds 20 --max-failures 1
      synclab check Scenarios/ --seeds 5
      synclab check Scenarios/recommended.json --telemetry app-rtt.csv

    """

    static let maximumSeeds = 10_000
    static let options = OptionTable(command: "check", options: [
        OptionSpec("--junit", .path, "FILE"), OptionSpec("--seeds", .whole(1...UInt64(maximumSeeds)), "N"),
        OptionSpec("--max-failures", .whole(0...UInt64(Int.max)), "M", refusal: " expects a whole number from 0"), OptionTable.quiet,
    ] + OptionTable.telemetry, help: help)

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard !parsed.positional.isEmpty else { return cli.usageError("check", "missing scenario files") }
        guard case .success(let seedsOption) = cli.whole("--seeds", parsed, Self.options, as: Int.self),
              case .success(let failures) = cli.whole("--max-failures", parsed, Self.options, as: Int.self) else { return 2 }
        let seedCount = seedsOption ?? 1, maxFailures = failures ?? 0
        let junit = parsed.options["--junit"]
        if let junit, junit.isEmpty { return cli.usageError("check", "--junit needs a file name") }
        let telemetry: TelemetryOptions?
        switch TelemetryOptions.read(parsed.options) {
        case .success(let t): telemetry = t
        case .failure(let p) where p.usage: return cli.usageError("check", p.message)
        case .failure(let p):
            cli.err("synclab check: \(p.message)\n")
            return 2
        }

        // Load every scenario first: all input problems are reported before anything runs.
        var scenarios: [(path: String, scenario: Scenario)] = []
        var bad = false
        for (path, named) in expand(parsed.positional) {
            do {
                let s = try cli.loader.load(path: path)
                let perRun = s.budgets.filter { !$0.acrossSeeds }
                if s.budgets.isEmpty && !named {
                    cli.err("synclab check: skipped \(path): it sets no budgets\n")
                } else if s.budgets.isEmpty && telemetry == nil {
                    cli.err("synclab check: \(path): the scenario sets no budgets, so there is nothing to check; "
                        + "add a \"budgets\" list (see README) or use 'synclab run'\n")
                    bad = true
                } else if perRun.isEmpty && telemetry == nil {
                    cli.err("synclab check: \(path): budgets: a seedFailureRate budget needs at least one budget on a run's "
                        + "figures, which decides whether a seed fails\n")
                    bad = true
                } else if s.seed > UInt64(Int64.max) - UInt64(seedCount - 1) {
                    cli.err("synclab check: \(path): seed: \(s.seed) + \(seedCount - 1) seeds passes 9223372036854775807\n")
                    bad = true
                } else if let problem = ScenarioLoader.memoryProblem(s, limit: MemoryLimit.current()) {
                    cli.err("synclab check: \(path): \(problem)\n")
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
        guard !scenarios.isEmpty else { return cli.usageError("check", "no scenario with budgets among \(parsed.positional.joined(separator: " "))") }
        let summaryFile = environment["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 }
        var junitDestination: OutputFile.Destination? = nil
        if let junit {
            // Checked before the runs, so a typo does not cost a whole run; every file a scenario
            // reads (its extends chain, its traces) is an input the XML must not overwrite.
            let inputs = parsed.positional + scenarios.flatMap { cli.loader.inputFiles(path: $0.path) }
                + (parsed.options["--telemetry"].map { [$0] } ?? [])
            if let summaryFile, SafePaths.same(junit, summaryFile) {
                return cli.usageError("check", "--junit '\(junit)' and GITHUB_STEP_SUMMARY name the same file; "
                    + "the summary appended to it would break the XML — choose another --junit file")
            }
            switch OutputFile.prepare(junit, kind: .junit, inputs: inputs) {
            case .success(let destination): junitDestination = destination
            case .failure(let problem): return cli.usageError("check", "--junit: \(problem.message)")
            }
        }

        var outcomes: [CheckOutcome] = []
        var summaries: [SeedCheckOutcome] = []
        let acrossSeeds = seedCount > 1 || scenarios.contains { $0.scenario.budgets.contains(where: \.acrossSeeds) }
        for (path, scenario) in scenarios {
            let seeds = (0..<UInt64(seedCount)).map { scenario.seed + $0 }
            if seedCount == 1 {
                cli.out("seed \(scenario.seed): \(scenario.name) (\(path)), \(Format.count(scenario.population.players, "player")), "
                    + "\(Units.formatDuration(scenario.duration)) simulated\n")
            } else {
                cli.out("seeds \(seeds[0])…\(seeds[seeds.count - 1]): \(scenario.name) (\(path)), \(Format.count(scenario.population.players, "player")), "
                    + "\(Units.formatDuration(scenario.duration)) simulated\n")
            }
            var failing: [UInt64] = []
            for seed in seeds {
                var variant = scenario
                variant.seed = seed
                let started = DispatchTime.now().uptimeNanoseconds   // timing for stderr only
                var result = Simulation.run(variant, threads: Simulation.defaultThreads, progress: cli.progress("\(scenario.name) seed \(seed)", simulating: variant, run: outcomes.count + 1,
                                                                            of: scenarios.count * seedCount, flags: parsed.flags),
                                            recordsLinkRoundTrips: telemetry != nil)
                cli.progressDone(flags: parsed.flags)
                var verdicts = result.budgetVerdicts
                if let telemetry {
                    result = result.holding(against: telemetry.table, burstGap: telemetry.burstGap)
                    verdicts = result.budgetVerdicts
                    if !scenario.budgets.contains(where: { $0.metric == TelemetryOptions.budget.metric }) {
                        let agrees = result.figures[TelemetryOptions.budget.metric] ?? nil
                        verdicts.append(BudgetVerdict(budget: TelemetryOptions.budget, value: agrees,
                                                      pass: agrees.map(TelemetryOptions.budget.holds) ?? false))
                    }
                    if let t = result.telemetry { cli.out(TelemetryOptions.lines(t)) }
                }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                cli.err("simulated \(scenario.name)\(seedCount == 1 ? "" : " seed \(seed)") in \(Format.fixed(elapsed, 2)) s wall\n")
                let outcome = CheckOutcome(scenario: scenario.name, file: path, seed: seed, verdicts: verdicts,
                                           epochUnix: scenario.epochUnix)
                cli.out(seedCount == 1 ? CheckReport.lines(outcome) : CheckReport.seedLine(outcome))
                if outcome.failures > 0 { failing.append(seed) }
                outcomes.append(outcome)
            }
            let summary = SeedCheckOutcome(scenario: scenario.name, file: path, seeds: seeds, failingSeeds: failing,
                                           maxFailures: maxFailures, budgets: scenario.budgets.filter(\.acrossSeeds),
                                           epochUnix: scenario.epochUnix)
            if acrossSeeds { cli.out(CheckReport.seedSummary(summary)) }
            summaries.append(summary)
        }
        let failed = summaries.filter { !$0.pass }
        if seedCount == 1 {
            cli.out("check: \(CheckReport.tally(outcomes))\n")
        } else {
            cli.out("check: " + CheckReport.scenarioTally(failed: failed.count, of: summaries.count)
                + " across \(seedCount) seeds\n")
        }
        // A failing seed replays with the same telemetry.
        let telemetryOptions = ["--telemetry", "--telemetry-columns", "--burst-gap"]
            .compactMap { name in parsed.options[name].map { " \(name) \($0)" } }.joined()
        for s in summaries {
            let shown = s.failingSeeds.prefix(10)
            for seed in shown { cli.out("reproduce with: \(s.reproduce(seed))\(telemetryOptions)\n") }
            if s.failingSeeds.count > shown.count { cli.out("… and \(s.failingSeeds.count - shown.count) more failing seeds of \(s.scenario)\n") }
        }

        var status: Int32 = failed.isEmpty ? 0 : 1
        // The verdict is out before any file is written: a slow or failing file loses no line of it.
        fflush(nil)   // every output stream
        if let junit, let junitDestination {
            let xml = acrossSeeds ? JUnitReport.render(outcomes, across: summaries) : JUnitReport.render(outcomes)
            do {
                try OutputFile.write(Data(xml.utf8), to: junitDestination)
                cli.out("wrote \(junit)\n")
            } catch {
                cli.err("synclab check: could not write --junit '\(junit)': \(ReportWriter.reason(error))\n")
                status = 2
            }
        }
        if let summary = summaryFile {
            let markdown = seedCount == 1 ? CheckReport.markdown(outcomes) + (acrossSeeds ? CheckReport.seedMarkdown(summaries) : "")
                : CheckReport.seedMarkdown(summaries)
            let inputs = scenarios.flatMap { cli.loader.inputFiles(path: $0.path) }
            do {
                if let input = inputs.first(where: { SafePaths.same($0, summary) }) {
                    throw ReportWriter.WriteError(message: "it is '\(input)', an input of this command; nothing was written")
                }
                try CheckCommand.append(markdown, to: summary)
            } catch {
                // The job summary is a convenience: the verdict stands without it.
                cli.err("synclab check: warning: could not append to GITHUB_STEP_SUMMARY '\(summary)': \(ReportWriter.reason(error))\n")
            }
        }
        return status
    }

    /// The scenario files of the arguments, each with whether it was named: a folder stands for
    /// its `*.json` files in name order; JSON Schema files (`*.schema.json`, as a glob such as
    /// `Scenarios/*.json` includes) are skipped with a note.
    func expand(_ arguments: [String]) -> [(path: String, named: Bool)] {
        var files: [(String, Bool)] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []).sorted()
                for name in names where name.hasSuffix(".json") && !name.hasSuffix(".schema.json") {
                    files.append(((argument as NSString).appendingPathComponent(name), false))
                }
            } else if argument.hasSuffix(".schema.json") {
                cli.out("skipped \(argument) (a JSON Schema, not a scenario)\n")
            } else {
                files.append((argument, true))
            }
        }
        return files
    }

    /// Appends `text` to the regular file at `path`, creating it if needed; never blocks on a
    /// FIFO (see `OutputFile.append`).
    static func append(_ text: String, to path: String) throws {
        if PathKind(path) == .folder { throw ReportWriter.WriteError(message: "it is a folder; expected a file") }
        try OutputFile.append(Data(text.utf8), to: path)
    }
}
