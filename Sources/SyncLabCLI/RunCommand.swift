import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// `synclab run`: simulate one scenario and write its report folder atomically.
struct RunCommand {
    let cli: CLI
    /// Where `shardCountsVariable` is read from (the process environment by default).
    var environment: [String: String] = ProcessInfo.processInfo.environment

    /// Set to 1, stderr's timing line also counts how the shards kept in step with the fleet:
    /// trades, waits and events handled while waiting. For measuring the coordination
    /// (docs/performance.md); nobody else needs them, so they are not printed by default.
    static let shardCountsVariable = "SYNCLAB_SHARD_COUNTS"

    static let help = """
    synclab run — simulate one scenario and write its report

    USAGE
      synclab run SCENARIO.json [--out DIR] [--seed N] [--clients N] [--duration D] [--threads N]
                  [--trace-requests N] [--telemetry FILE [--telemetry-columns MAP] [--burst-gap D]]
                  [--quiet]

    OPTIONS
      --out DIR        report folder (default: Reports/<scenario name>); an existing folder is
                       replaced only if it is a SyncLab report; '.', '~', a folder holding
                       an input or the current folder, a mount point and any other folder
                       SyncLab did not write are refused. A symbolic link is followed: the
                       folder it names is replaced and the link kept
      --seed N         override the scenario's seed (0 … 2^63−1)
      --clients N      override the number of players (1 … 20000000)
      --threads N      threads to run on (default: the machine's cores); the files
                       are byte-identical for any number
      --duration D     override the measured duration, with a unit ("30m", "24h"; at most 30d)
      --trace-requests N  also write requests.csv: every request in the window of N players
                       (1 … 10000, chosen by the viewer subsets' hash), each step in ms of
                       true time and the device's reading (docs/cli.md)
    \(TelemetryOptions.help)
      --quiet          no progress on stderr

    Writes report.md, summary.json and CSV files into a temporary folder that replaces DIR only
    when complete: a failed or interrupted run leaves the previous report as it was. The same
    scenario and seed give byte-identical files on any machine. A run that would need more
    memory than the limit is refused with the estimate. Progress goes to stderr: a line updated in
    place on a terminal, else a line every 10% and 30 s. Exit status 0 on success (whether or not
    the run agrees with --telemetry: 'synclab check --telemetry' gates on it), 2 on bad input or
    usage (an unreadable telemetry file included).

    EXAMPLES
      synclab run Scenarios/v115-pausing.json
      synclab run Scenarios/v115-uptime.json --seed 7 --clients 20000 --out /tmp/uptime
      synclab run Scenarios/recommended.json --telemetry app-rtt.csv --burst-gap 1m

    """

    static let options = OptionTable(command: "run", options: [
        OptionSpec("--out", .path, "DIR"), OptionSpec("--seed", .whole(0...UInt64(Int64.max)), "N"),
        OptionSpec("--clients", .whole(1...UInt64(ScenarioLoader.Limits.players)), "N"),
        OptionSpec("--duration", .duration, "D"), OptionTable.threads,
        OptionSpec("--trace-requests", .whole(1...UInt64(maxTraced)), "N", refusal: " expects a whole number of players from 1 to \(maxTraced)"),
        OptionTable.quiet,
    ] + OptionTable.telemetry, help: help)
    /// The most players `--trace-requests` traces.
    static let maxTraced = 10_000

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard parsed.positional.count == 1 else {
            return cli.usageError("run", parsed.positional.isEmpty ? "missing the scenario file"
                : "expected one scenario file, got \(parsed.positional.count): \(parsed.positional.map { "'\($0)'" }.joined(separator: ", "))")
        }
        let path = parsed.positional[0]
        // Options first: a usage error is reported before any file is read.
        var duration: Int64? = nil
        guard case .success(let seed) = cli.whole("--seed", parsed, Self.options, as: UInt64.self),
              case .success(let clients) = cli.whole("--clients", parsed, Self.options, as: Int.self) else { return 2 }
        let maxDuration = ScenarioLoader.Limits.runLength
        guard let threads = cli.threads(parsed, "run") else { return 2 }
        guard case .success(let tracedOption) = cli.whole("--trace-requests", parsed, Self.options, as: Int.self) else { return 2 }
        let traced = tracedOption ?? 0
        if let text = parsed.options["--duration"] {
            switch Units.parseDuration(text) {
            case .success(let d) where d > 0 && d <= maxDuration: duration = d
            case .success: return cli.usageError("run", "--duration must be greater than zero and at most \(Units.formatDuration(maxDuration)); got \(SafePaths.quoted(text))")
            case .failure(let e): return cli.usageError("run", "--duration: \(e.message)")
            }
        }
        if let out = parsed.options["--out"], out.isEmpty { return cli.usageError("run", "--out needs a folder; got an empty value") }
        if let file = parsed.options["--telemetry"], file.isEmpty { return cli.usageError("run", "--telemetry needs a file; got an empty value") }
        var scenario: Scenario
        do {
            scenario = try cli.loader.load(path: path)
        } catch {
            cli.err("synclab run: \(error)\n")
            return 2
        }
        if let seed { scenario.seed = seed }
        // The library's rules for a new size (Scenario+Resize.swift), with this machine's memory.
        do {
            if let dropped = try scenario.resize(players: clients, duration: duration, memory: MemoryLimit.current()), let duration {
                cli.err("synclab run: note: the release at \(Units.formatDuration(dropped)) falls after --duration \(Units.formatDuration(duration)); running without it\n")
            }
        } catch {
            let overrides = [clients.map { "--clients \($0)" }, duration.map { "--duration \(Units.formatDuration($0))" }].compactMap { $0 }
            cli.err("synclab run: \(path)\(overrides.isEmpty ? "" : " with " + overrides.joined(separator: " ")): \(error.message)\n")
            return 2
        }
        let out = parsed.options["--out"] ?? "Reports/\(scenario.name)"
        // Every file the run reads (the extends chain, traces, the telemetry) is an input no output may delete.
        let inputs = cli.loader.inputFiles(path: path) + (parsed.options["--telemetry"].map { [$0] } ?? [])
        let telemetry: TelemetryOptions?
        switch TelemetryOptions.read(parsed.options) {
        case .success(let t): telemetry = t
        case .failure(let p) where p.usage: return cli.usageError("run", p.message)
        case .failure(let p):
            cli.err("synclab run: \(p.message)\n")
            return 2
        }
        // Refuse a destination we must not replace, or cannot write, before spending time on the run.
        if let problem = ReportWriter.preflight(for: out, inputs: inputs) {
            cli.err("synclab run: \(problem)\n")
            return 2
        }
        cli.out("seed \(scenario.seed)\n")
        cli.out("running \(scenario.name): \(Format.count(scenario.population.players, "player")), \(Units.formatDuration(scenario.duration)) simulated\n")
        fflush(nil)   // every output stream: the seed is out even if the run is interrupted
        let started = DispatchTime.now().uptimeNanoseconds   // timing for stderr only
        var result = Simulation.run(scenario, threads: threads, progress: cli.progress(scenario.name, simulating: scenario, flags: parsed.flags),
                                    traceRequests: traced, recordsLinkRoundTrips: telemetry != nil)
        cli.progressDone(flags: parsed.flags)
        if let telemetry { result = result.holding(against: telemetry.table, burstGap: telemetry.burstGap) }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        do {
            let warnings = try ReportWriter.write(ReportBundle.files(result), to: out, inputs: inputs)
            for warning in warnings { cli.err("synclab run: warning: \(warning)\n") }
        } catch {
            cli.err("synclab run: \(error)\n")
            return 2
        }
        // For people, in each figure's unit ("13 min 53 s", "98 req/s"); summary.json keeps ms.
        let f = result.figures
        func v(_ k: String) -> String { Format.figure(f[k] ?? nil, metric: k) }
        cli.out("viewers in the best 500 ms window per item change: p50 \(v(Figure.transitionBest500msShareP50.key)), "
            + "worst 1% \(v(Figure.transitionBest500msShareP1.key)); viewer pairs within 500 ms: \(v(Figure.viewerPairsWithin500msShare.key)) "
            + "(\(Format.count(result.gapTransitions.count, "item change")))\n")
        cli.out("worst pair (grows with viewers): p50 \(v(Figure.transitionGapMsP50.key)), p99 \(v(Figure.transitionGapMsP99.key)), "
            + "max \(v(Figure.transitionGapMsMax.key))\n")
        let held = result.budgetVerdicts.filter(\.pass).count, budgets = result.budgetVerdicts.count
        cli.out("peak \(v(Figure.peakRequestsPerSecond.key)); budgets: "
            + (budgets == 0 ? "none set" : "\(held) of \(Format.count(budgets, "budget")) \(held == 1 ? "holds" : "hold")") + "\n")
        if let t = result.telemetry { cli.out(TelemetryOptions.lines(t)) }
        cli.out("wrote \(ReportWriter.expanded(out))/report.md\n")
        cli.err("simulated in \(Format.fixed(elapsed, 2)) s wall, \(result.eventsScheduled) events, \(result.responses) fetches, "
            + "\(Simulation.shardCount(scenario, threads: threads)) threads, show summaries \(result.showSummaryBytes >> 20) MiB"
            + (result.fleetExchanges > 0 && environment[RunCommand.shardCountsVariable] == "1"
               ? ", \(result.fleetExchanges) trades with the fleet, \(result.shardWaits) waits, \(result.eventsWhileWaiting) events handled while waiting" : "")
            + "\n")
        return 0
    }
}
