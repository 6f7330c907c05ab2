import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// `synclab run`: simulate one scenario and write its report folder atomically.
struct RunCommand {
    let cli: CLI

    static let help = """
    synclab run — simulate one scenario and write its report

    USAGE
      synclab run SCENARIO.json [--out DIR] [--seed N] [--clients N] [--duration D]

    OPTIONS
      --out DIR        report folder (default: Reports/<scenario name>); an existing folder is
                       replaced only if it is a SyncLab report
      --seed N         override the scenario's seed (0 … 2^63−1)
      --clients N      override the number of players
      --duration D     override the measured duration, with a unit ("30m", "24h")

    Writes report.md, summary.json and CSV files. The same scenario and seed give byte-identical
    files on any machine. Exit status 0 on success, 2 on bad input or usage.

    EXAMPLES
      synclab run Scenarios/v115-pausing.json
      synclab run Scenarios/v115-uptime.json --seed 7 --clients 20000 --out /tmp/uptime

    """

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch ParsedArguments.parse(arguments, valued: ["--out", "--seed", "--clients", "--duration"], flags: []) {
        case .failure(let e): return cli.usageError("run", e.message)
        case .success(let p): parsed = p
        }
        if parsed.flags.contains("--help") {
            cli.out(RunCommand.help)
            return 0
        }
        guard parsed.positional.count == 1 else {
            return cli.usageError("run", parsed.positional.isEmpty ? "missing the scenario file" : "expected one scenario file, got \(parsed.positional.count)")
        }
        let path = parsed.positional[0]
        // Options first: a usage error is reported before any file is read.
        var seed: UInt64? = nil, clients: Int? = nil, duration: Int64? = nil
        if let text = parsed.options["--seed"] {
            guard let v = UInt64(text), v <= UInt64(Int64.max) else {
                return cli.usageError("run", "--seed expects a whole number from 0 to 9223372036854775807; got '\(text)'")
            }
            seed = v
        }
        if let text = parsed.options["--clients"] {
            guard let n = Int(text), n >= 1, n <= 20_000_000 else {
                return cli.usageError("run", "--clients expects a whole number from 1 to 20000000; got '\(text)'")
            }
            clients = n
        }
        if let text = parsed.options["--duration"] {
            switch Units.parseDuration(text) {
            case .success(let d) where d > 0 && d <= 30 * 24 * .hour: duration = d
            case .success: return cli.usageError("run", "--duration must be greater than zero and at most 30d; got '\(text)'")
            case .failure(let e): return cli.usageError("run", "--duration: \(e.message)")
            }
        }
        var scenario: Scenario
        do {
            scenario = try ScenarioLoader().load(path: path)
        } catch {
            cli.err("synclab run: \(error)\n")
            return 2
        }
        if let seed { scenario.seed = seed }
        if let clients { scenario.population.players = clients }
        if let duration {
            if let release = scenario.population.release, release.at.ns >= duration {
                cli.err("synclab run: note: the release at \(Units.formatDuration(release.at.ns)) falls after --duration \(Units.formatDuration(duration)); running without it\n")
                scenario.population.release = nil
            }
            scenario.duration = duration
        }
        let out = parsed.options["--out"] ?? "Reports/\(scenario.name)"
        // Refuse a destination we must not replace before spending time on the run.
        if let problem = ReportWriter.refusal(for: out) {
            cli.err("synclab run: \(problem)\n")
            return 2
        }
        cli.out("seed \(scenario.seed)\n")
        cli.out("running \(scenario.name): \(scenario.population.players) players, \(Units.formatDuration(scenario.duration)) simulated\n")
        let started = DispatchTime.now().uptimeNanoseconds   // timing for stderr only
        let result = Simulation.run(scenario)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        do {
            try ReportWriter.write(ReportBundle.files(result), to: out)
        } catch {
            cli.err("synclab run: \(error)\n")
            return 2
        }
        let f = result.figures
        func v(_ k: String, _ d: Int) -> String { Format.optional(f[k] ?? nil, d) }
        cli.out("transition gap p50/p99/max: \(v("transitionGapMs.p50", 1))/\(v("transitionGapMs.p99", 1))/\(v("transitionGapMs.max", 1)) ms; "
            + "within 500 ms: \(Format.percent(f["transitionsWithin500msShare"] ?? nil)) of \(result.gapTransitions.count) transitions\n")
        cli.out("peak requests/s: \(v("peakRequestsPerSecond", 0)); budgets: \(result.budgetVerdicts.filter(\.pass).count)/\(result.budgetVerdicts.count) hold\n")
        cli.out("wrote \(out)/report.md\n")
        cli.err("simulated in \(Format.fixed(elapsed, 2)) s wall, \(result.eventsScheduled) events\n")
        return 0
    }
}
