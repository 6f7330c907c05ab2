import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// `synclab sweep`: a grid of scenario variants; `--shard i/n` runs a deterministic part of it.
struct SweepCommand {
    let cli: CLI

    static let help = """
    synclab sweep — run a grid of scenario variants (shardable across machines)

    USAGE
      synclab sweep SCENARIO.json --vary KEYPATH=v1,v2,... [--vary ...] [--seeds N]
                    [--shard i/n] [--out DIR] [--chart FIGURE] [--threads N]

    Every point of the grid (every combination of the --vary values; the first --vary varies
    slowest) is the scenario with those keys set, read and validated like the file itself: a
    key path that is not in the scenario format is an error naming it (exit 2) before anything
    runs. Values are JSON scalars (5000, 0.25, true, "text") or else plain text such as "500ms"
    or uptime. Each point runs with the seeds S, S+1, …, S+N−1 (S: the scenario's seed): the
    same seeds at every point (common random numbers).

    Writes DIR:
      sweep.csv             one row per point and seed: point, seed, the varied values, the
                            run's budgets (PASS/FAIL, judged as run and check judge them) and
                            the point's (PASS when every seed passes), every headline figure
                            (the keys of summary.json / budgets), then each link's figures
      sweep.md              the grid, which points pass their budgets, a table of the main
                            figures, and the chart
      sweep_chart.svg/.csv  the chart's figure (mean over seeds) against the first key that
                            varies (more than one value)

    OPTIONS
      --vary KEYPATH=V,...  a key path as errors name it (client.clock, population.players,
                            network.profiles[0].failure) and its values; repeat for more keys
      --seeds N             seeds per point (1 … 1000; default 1)
      --shard i/n           run only the points p with p mod n = i (0 ≤ i < n) and write a part
                            (DIR/sweep-part.csv) for 'synclab merge'
      --out DIR             default: Reports/sweep-<name>, or Reports/sweep-<name>-part-i-of-n
      --chart FIGURE        the figure to chart (default transitionBest500msShare.p1; a link's
                            figure, such as clientErrorMs.byLink.3g.p99, too)
      --threads N           threads per run (files are byte-identical for any number)
      --quiet               no progress (which run of how many, and how far) on stderr

    'synclab merge' of the parts 0/n … n−1/n writes exactly the bytes the unsharded sweep
    writes. Exit status 0 on success, 2 on bad input or usage.

    EXAMPLES
      synclab sweep Scenarios/v115-uptime.json --vary client.refetch.max=7m,9m,12m --seeds 3
      synclab sweep Scenarios/v115-pausing.json --vary client.clock=suspending,uptime,continuous \\
                    --vary population.players=2000,5000 --out /tmp/sweep
      synclab sweep Scenarios/v115-uptime.json --vary server.timestampResolution=1s,1ms \\
                    --shard 0/3 --out /shared/part-0
      synclab merge /shared/part-0 /shared/part-1 /shared/part-2 --out Reports/sweep

    """

    static let maximumSeeds = SweepSpec.maximumSeeds
    static let maximumPoints = SweepSpec.maximumPoints

    /// Output with paths, key paths and values from the user escaped (`\u{1B}`), as `search` prints them.
    func say(_ text: String) { cli.out(InputError.escapingControls(text)) }
    func complain(_ text: String) { cli.err(InputError.escapingControls(text)) }
    func usage(_ message: String) -> Int32 { cli.usageError("sweep", InputError.escapingControls(message)) }

    /// `--vary` may repeat: the parser keeps every value, in order.
    static let options = OptionTable(command: "sweep", options: [
        OptionSpec("--vary", .repeated, "KEYPATH=v1,v2,..."), OptionSpec("--seeds", .whole(1...UInt64(maximumSeeds)), "N"),
        OptionSpec("--shard", .shard, "i/n"), OptionSpec("--out", .path, "DIR"), OptionSpec("--chart", .text, "FIGURE"),
        OptionTable.threads, OptionTable.quiet,
    ], help: help, escapesControls: true)

    /// The axes of `--vary KEYPATH=v1,v2,...` values, in the order given; a usage problem
    /// names the first value that is not one.
    static func axes(_ varies: [String]) -> Result<[SweepAxis], ArgumentError> {
        var axes: [SweepAxis] = []
        for v in varies {
            guard let eq = v.firstIndex(of: "="), eq != v.startIndex else {
                return .failure(ArgumentError("--vary '\(v)': expected KEYPATH=v1,v2,..."))
            }
            let written = String(v[..<eq])
            let values = v[v.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            // Compared and kept in one spelling: `client["probes"]` is `client.probes`, `["seed"]` is `seed`.
            guard let key = InputKeyPath.canonical(written), let first = InputKeyPath.steps(key)?.first else {
                return .failure(ArgumentError("--vary '\(v)': '\(written)' is not a key path like client.clock or network.profiles[0].failure"))
            }
            let shown = key == written ? key : "\(written) (\(key))"
            guard !values.contains(where: \.isEmpty) else { return .failure(ArgumentError("--vary '\(v)': a value is empty")) }
            guard key != "seed" else { return .failure(ArgumentError("--vary \(shown): use --seeds N, which runs every point with the same seeds")) }
            // A value is set after the extends chain is merged, so varying `extends` would change nothing.
            guard first != .key("extends") else {
                return .failure(ArgumentError("--vary \(shown): a key is set after the extends chain is merged, so this would "
                    + "change nothing; sweep each parent's scenario separately, or vary the keys in which they differ"))
            }
            if case .key(let k) = first, k.hasPrefix("$schema") { return .failure(ArgumentError("--vary \(shown): it changes nothing in a run")) }
            guard !axes.contains(where: { $0.keyPath == key }) else { return .failure(ArgumentError("--vary \(shown) is given twice")) }
            // Values read alike are one value: 1, 1.0 and 1e0.
            guard Set(values.map { SweepAxis.jsonValue($0).canonicalText }).count == values.count else {
                return .failure(ArgumentError("--vary '\(v)': a value repeats"))
            }
            axes.append(SweepAxis(keyPath: key, values: values))
        }
        return .success(axes)
    }

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        let varies = parsed.repeated["--vary"] ?? []
        guard parsed.positional.count == 1 else {
            return usage(parsed.positional.isEmpty ? "missing the scenario file" : "expected one scenario file, got \(parsed.positional.count)")
        }
        let path = parsed.positional[0]
        guard !varies.isEmpty else { return usage("give at least one --vary KEYPATH=v1,v2,...") }
        let axes: [SweepAxis]
        switch Self.axes(varies) {
        case .success(let a): axes = a
        case .failure(let problem): return usage(problem.message)
        }
        guard case .success(let seedsOption) = cli.whole("--seeds", parsed, Self.options, as: Int.self) else { return 2 }
        let seedCount = seedsOption ?? 1
        guard let (shard, shards) = cli.shard(parsed, "sweep") else { return 2 }
        guard let threads = cli.threads(parsed, "sweep") else { return 2 }
        let chart = parsed.options["--chart"] ?? Figure.transitionBest500msShareP1.key
        if let out = parsed.options["--out"], out.isEmpty { return usage("--out needs a folder; got an empty value") }

        // Load every point before running any: a bad key path or value costs no simulation time.
        let loader = cli.loader
        let base: Scenario
        let fingerprint: String
        do {
            base = try loader.load(path: path)
            fingerprint = SweepSpec.fingerprint(try loader.mergedValue(path: path).serialized(indent: 0))
        } catch {
            complain("synclab sweep: \(error)\n")
            return 2
        }
        // The headline figures, then each link's: a budget on one link is judged on the latter.
        let figures = Headline.keys(for: [base]).map(\.key) + SweepSpec.linkFigures(for: base)
        guard figures.contains(chart) else {
            return usage("--chart: '\(chart)' is not a headline figure; one of: \(figures.joined(separator: ", "))")
        }
        let probe = SweepSpec(scenario: base.name, fingerprint: fingerprint, axes: axes, seeds: [], chart: chart, figures: figures)
        guard probe.points <= SweepCommand.maximumPoints else {
            return usage("the grid has \(probe.points == Int.max ? "more than \(SweepCommand.maximumPoints)" : String(probe.points)) points ("
                + axes.map { String($0.values.count) }.joined(separator: " × ") + " values); at most \(SweepCommand.maximumPoints)")
        }
        guard base.seed <= UInt64(Int64.max) - UInt64(seedCount - 1) else {
            return usage("seed \(base.seed) + \(seedCount - 1) seeds passes 9223372036854775807")
        }
        let seeds = (0..<UInt64(seedCount)).map { base.seed + $0 }
        let spec = SweepSpec(scenario: base.name, fingerprint: fingerprint, axes: axes, seeds: seeds, chart: chart, figures: figures)
        var points: [(index: Int, scenario: Scenario)] = []
        let memoryLimit = MemoryLimit.current()
        for p in 0..<spec.points {
            let overrides = zip(axes, spec.values(ofPoint: p)).map { ScenarioLoader.Override(keyPath: $0.keyPath, value: SweepAxis.jsonValue($1)) }
            do {
                let s = try loader.load(path: path, overrides: overrides)
                guard SweepSpec.shard(ofPoint: p, count: shards) == shard else { continue }
                // The varied keys change a run's size: refuse before anything is allocated.
                if let problem = ScenarioLoader.memoryProblem(s, limit: memoryLimit) {
                    let which = overrides.map { "\($0.keyPath)=\($0.value.serialized(indent: 0))" }.joined(separator: " ")
                    complain("synclab sweep: \(path) at point \(p) (\(which)): \(problem)\n")
                    return 2
                }
                points.append((p, s))
            } catch {
                let which = overrides.map { "\($0.keyPath)=\($0.value.serialized(indent: 0))" }.joined(separator: " ")
                complain("synclab sweep: --vary at point \(p) (\(which)): \(error)\n")
                return 2
            }
        }
        let sharded = parsed.options["--shard"] != nil
        let out = parsed.options["--out"] ?? (sharded ? "Reports/sweep-\(base.name)-part-\(shard)-of-\(shards)" : "Reports/sweep-\(base.name)")
        let inputs = loader.inputFiles(path: path)
        if let problem = ReportWriter.preflight(for: out, inputs: inputs) {
            complain("synclab sweep: \(problem)\n")
            return 2
        }

        say("seeds \(seeds.map(String.init).joined(separator: ", "))\n")
        say("sweep of \(base.name): \(spec.points) points × \(seedCount) seeds"
            + (sharded ? "; shard \(shard)/\(shards) runs \(points.count) points" : "") + "\n")
        var rows: [SweepPart.Row] = []
        let started = DispatchTime.now().uptimeNanoseconds   // timing for stderr only
        for point in points {
            for seed in seeds {
                var scenario = point.scenario
                scenario.seed = seed
                let label = "point \(point.index) seed \(seed)"
                let result = Simulation.run(scenario, threads: threads, progress: cli.progress(label, simulating: scenario, run: rows.count + 1,
                                                                                             of: points.count * seeds.count, flags: parsed.flags))
                cli.progressDone(flags: parsed.flags)
                rows.append(SweepPart.row(point: point.index, seed: seed, result: result, figures: figures))
            }
            let verdict = SweepReport.pointVerdict(Array(rows.suffix(seeds.count)))
            say("point \(point.index): " + zip(axes, spec.values(ofPoint: point.index)).map { "\($0.keyPath)=\($1)" }.joined(separator: " ")
                + (verdict.isEmpty ? "" : ", budgets \(verdict)") + "\n")
        }
        complain("simulated \(rows.count) runs in \(Format.fixed(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, 2)) s wall\n")
        let part = SweepPart(spec: spec, shard: shard, shards: shards, rows: rows)
        let files: [(name: String, contents: String)]
        if sharded {
            files = [(SweepPart.fileName, part.text)]
        } else {
            switch SweepReport.merge([("the sweep", part)]) {
            case .success(let f): files = f
            case .failure(let e):
                complain("synclab sweep: internal error: \(e)\n")
                return 2
            }
        }
        do {
            let warnings = try ReportWriter.write(files, to: out, inputs: inputs)
            for warning in warnings { complain("synclab sweep: warning: \(warning)\n") }
        } catch {
            complain("synclab sweep: \(error)\n")
            return 2
        }
        say("wrote \(ReportWriter.expanded(out))/\(sharded ? SweepPart.fileName : "sweep.md")\n")
        return 0
    }
}

/// `synclab merge`: the parts of a sharded sweep into the sweep's report.
struct MergeCommand {
    let cli: CLI

    /// A part file larger than this is refused unread: a row is a few hundred bytes, so this is
    /// over a million runs, far beyond any sweep worth simulating (and memory for reading it).
    static let maximumPartBytes = 500_000_000

    static let help = """
    synclab merge — combine the parts of a sharded sweep (or search)

    USAGE
      synclab merge PART_DIR... --out DIR

    Reads PART_DIR/sweep-part.csv of each folder (written by 'synclab sweep --shard i/n') and
    writes DIR exactly as the unsharded sweep would (sweep.csv, sweep.md, sweep_chart.svg/.csv),
    byte for byte. Refuses (exit 2) parts of different sweeps (scenario content, --vary, seeds
    or chart), overlapping parts (a shard given twice), missing shards, a part whose rows
    are not exactly its points × seeds, and a figure no run could have written. Folders
    holding search-part.csv (from 'synclab search --shard i/n') merge into the search's report
    the same way (docs/search.md).

    EXAMPLES
      synclab merge /shared/part-0 /shared/part-1 /shared/part-2 --out Reports/sweep-v115-uptime
      synclab merge parts/*/ --out Reports/sweep

    """

    /// Output with paths and names from the user escaped, as `search` prints them.
    func say(_ text: String) { cli.out(InputError.escapingControls(text)) }
    func complain(_ text: String) { cli.err(InputError.escapingControls(text)) }

    static let options = OptionTable(command: "merge", options: [OptionSpec("--out", .path, "DIR")], help: help)

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard !parsed.positional.isEmpty else { return cli.usageError("merge", "missing the part folders") }
        guard let out = parsed.options["--out"], !out.isEmpty else { return cli.usageError("merge", "--out DIR is required") }
        // Parts of a sharded search merge into the search's report (SearchCommand.swift).
        if PathKind((parsed.positional[0] as NSString).appendingPathComponent(SearchPart.fileName)) == .regularFile {
            return SearchCommand(cli: cli).merge(parsed.positional, out: out)
        }
        let inputs = parsed.positional + parsed.positional.map { ($0 as NSString).appendingPathComponent(SweepPart.fileName) }
        if let problem = ReportWriter.preflight(for: out, inputs: inputs) {
            complain("synclab merge: \(problem)\n")
            return 2
        }
        var parts: [(source: String, part: SweepPart)] = []
        for dir in parsed.positional {
            let file = (dir as NSString).appendingPathComponent(SweepPart.fileName)
            let text: String
            switch SafePaths.readInput(file, limit: MergeCommand.maximumPartBytes) {
            case .success(let t):
                // A part that went through a Windows checkout has CRLF line ends: the same rows.
                text = t.replacingOccurrences(of: "\r\n", with: "\n")
            case .failure(let e):
                complain("synclab merge: \(file): \(e.message) (is '\(dir)' a folder written by 'synclab sweep --shard'?)\n")
                return 2
            }
            switch SweepPart.parse(text) {
            case .success(let p): parts.append((dir, p))
            case .failure(let e):
                complain("synclab merge: \(file): \(e)\n")
                return 2
            }
        }
        let files: [(name: String, contents: String)]
        switch SweepReport.merge(parts) {
        case .success(let f): files = f
        case .failure(let e):
            complain("synclab merge: \(e)\n")
            return 2
        }
        do {
            let warnings = try ReportWriter.write(files, to: out, inputs: inputs)
            for warning in warnings { complain("synclab merge: warning: \(warning)\n") }
        } catch {
            complain("synclab merge: \(error)\n")
            return 2
        }
        say("merged \(parts.count) parts of the sweep of \(parts[0].part.spec.scenario)\n")
        say("wrote \(ReportWriter.expanded(out))/sweep.md\n")
        return 0
    }
}
