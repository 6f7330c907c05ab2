import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// `synclab compare`: scenarios on the same seed, side by side in one report folder.
struct CompareCommand {
    let cli: CLI

    static let help = """
    synclab compare — run scenarios on the same seed and report them side by side

    USAGE
      synclab compare A.json B.json... [--out DIR] [--seed S] [--threads N]

    Runs every scenario with one seed (common random numbers: each player's draws are keyed by
    seed, purpose and player, so player k meets the same links, clocks and sessions in every
    design, and a difference is the design's, not the dice's) and writes DIR:
      compare.md     the scenarios, their headline figures side by side, each one's difference
                     from the first (A), and the overlaid charts
      compare.csv    every headline figure: one row per figure, one column per scenario, then
                     one per difference from the first
      compare_requests_per_second.svg/.csv, compare_transition_gaps.svg/.csv,
      compare_error_over_time.svg/.csv   the charts (one series per scenario) and their data

    OPTIONS
      --out DIR        report folder (default: Reports/compare-<A name>); replaced atomically,
                       only if SyncLab wrote it
      --seed S         the seed every scenario runs with (default: the first scenario's seed)
      --threads N      threads per run (the files are byte-identical for any number)
      --quiet          no progress (which run of how many, and how far) on stderr

    Exit status 0 on success, 2 on bad input or usage.

    EXAMPLES
      synclab compare Scenarios/v115-pausing.json Scenarios/v115-uptime.json
      synclab compare Scenarios/v115-pausing.json Scenarios/v115-uptime.json --seed 7 --out /tmp/cmp

    """

    static let options = OptionTable(command: "compare", options: [
        OptionSpec("--out", .path, "DIR"), OptionSpec("--seed", .whole(0...UInt64(Int64.max)), "S"), OptionTable.threads, OptionTable.quiet,
    ], help: help)

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard parsed.positional.count >= 2 else {
            return cli.usageError("compare", "expected at least two scenario files; got \(parsed.positional.count)")
        }
        guard case .success(let seed) = cli.whole("--seed", parsed, Self.options, as: UInt64.self) else { return 2 }
        guard let threads = cli.threads(parsed, "compare") else { return 2 }
        if let out = parsed.options["--out"], out.isEmpty { return cli.usageError("compare", "--out needs a folder; got an empty value") }
        var scenarios: [Scenario] = []
        var bad = false
        for path in parsed.positional {
            do { scenarios.append(try cli.loader.load(path: path)) } catch {
                cli.err("synclab compare: \(error)\n")
                bad = true
            }
        }
        if bad { return 2 }
        let memoryLimit = MemoryLimit.current()
        for (path, scenario) in zip(parsed.positional, scenarios) {
            if let problem = ScenarioLoader.memoryProblem(scenario, limit: memoryLimit) {
                cli.err("synclab compare: \(path): \(problem)\n")
                bad = true
            }
        }
        if bad { return 2 }
        let common = seed ?? scenarios[0].seed
        let out = parsed.options["--out"] ?? "Reports/compare-\(scenarios[0].name)"
        let inputs = parsed.positional.flatMap { cli.loader.inputFiles(path: $0) }
        if let problem = ReportWriter.preflight(for: out, inputs: inputs) {
            cli.err("synclab compare: \(problem)\n")
            return 2
        }
        cli.out("seed \(common)\n")
        var results: [RunResult] = []
        for (path, var scenario) in zip(parsed.positional, scenarios) {
            scenario.seed = common
            cli.out("running \(scenario.name) (\(path)): \(Format.count(scenario.population.players, "player")), \(Units.formatDuration(scenario.duration)) simulated\n")
            let started = DispatchTime.now().uptimeNanoseconds   // timing for stderr only
            results.append(Simulation.run(scenario, threads: threads, progress: cli.progress(scenario.name, simulating: scenario, run: results.count + 1,
                                                                                              of: scenarios.count, flags: parsed.flags)))
            cli.progressDone(flags: parsed.flags)
            cli.err("simulated \(scenario.name) in \(Format.fixed(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, 2)) s wall\n")
        }
        do {
            let warnings = try ReportWriter.write(CompareReport.files(results, files: parsed.positional), to: out, inputs: inputs)
            for warning in warnings { cli.err("synclab compare: warning: \(warning)\n") }
        } catch {
            cli.err("synclab compare: \(error)\n")
            return 2
        }
        let names = CompareReport.names(results)
        let f = results.map(\.figures)
        for (k, name) in names.enumerated() {
            let best = f[k][Figure.transitionBest500msShareP1.key] ?? nil
            let peak = f[k][Figure.peakRequestsPerSecond.key] ?? nil
            cli.out("\(name): viewers in the best 500 ms window, worst 1% of changes \(Format.figure(best, metric: Figure.transitionBest500msShareP1.key)), "
                + "peak \(Format.figure(peak, metric: Figure.peakRequestsPerSecond.key))\n")
        }
        cli.out("wrote \(ReportWriter.expanded(out))/compare.md\n")
        return 0
    }
}
