import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// `synclab search`: the cheapest design in a declared space that meets the budgets.
struct SearchCommand {
    let cli: CLI

    static let help = """
    synclab search — the cheapest design in a space that meets the budgets

    USAGE
      synclab search SEARCH.json [--shard i/n] [--out DIR] [--threads N] [--quiet]

    SEARCH.json names a base scenario ("base", relative to the search file), the knobs and the
    values each may take ("knobs": key paths as sweep takes them; at most one "monotone", such as
    server.fleet.servers, whose larger values never break a constraint a smaller one meets), the
    "constraints" (budgets in the scenario format; default: the base's budgets), the "objective"
    to minimise (servers, or a figure such as costPerMonth.vps, peakRequestsPerSecond or
    requestsPerMonth), "seeds" and "maxFailingSeeds", and "screen": {"players", "slack"}. A bad
    key path, an empty knob or an objective that is not a figure is exit 2 naming the file and
    key path before anything runs. docs/search.md has the format and what pruning can miss.

    The search screens each group of candidates (all knobs fixed but the monotone one) at its
    most favourable value with fewer players and one seed, confirms survivors at the base's size
    with every seed, and bisects the monotone knob for its smallest passing value. Every run
    uses the same seeds (common random numbers); the files are byte-identical for any --threads.
    Of designs with the same objective, the one whose worst constraint has the most room wins
    (margin: (limit - value)/limit for a max, (value - limit)/limit for a min), then the first.

    Writes DIR:
      search.md        the winner, the Pareto front of the objective against the 500 ms
                       figure, every full-size candidate and what the search cost
      candidates.csv   every candidate: knobs, margin, mean figures, verdict, stage reached, why
      pareto.csv/.svg  every full-size candidate, the front marked
      best.json        the winner as a scenario that stands alone (the base merged, the
                       winner's knobs set): it runs wherever it is copied (only when one meets)

    OPTIONS
      --shard i/n      search only the groups g with g mod n = i and write DIR/search-part.csv
                       for 'synclab merge', which writes exactly the bytes of one machine
      --out DIR        default: Reports/search-<name>, or Reports/search-<name>-part-i-of-n
      --threads N      threads per run
      --quiet          no progress (which candidate, stage and seed) on stderr

    Candidates are numbered from 0, on stdout as in candidates.csv and pareto.csv.

    Exit status: 0 a design meets every constraint, 1 none does (the nearest miss is named),
    2 bad input or usage. A shard exits 0 once its part is written.

    EXAMPLES
      synclab search Scenarios/search/gallery.json --out Reports/search
      synclab search Scenarios/search/gallery.json --shard 0/2 --out /shared/part-0
      synclab merge /shared/part-0 /shared/part-1 --out Reports/search

    """

    /// A search part holds a few hundred bytes per run; refuse a larger file unread.
    static let maximumPartBytes = 200_000_000

    /// What the command prints: its own words, and paths, names and knob values from the user,
    /// with every control character escaped (`\u{1B}`) so no input can drive the terminal.
    func say(_ text: String) { cli.out(InputError.escapingControls(text)) }
    func complain(_ text: String) { cli.err(InputError.escapingControls(text)) }

    static let options = OptionTable(command: "search", options: [
        OptionSpec("--shard", .shard, "i/n"), OptionSpec("--out", .path, "DIR"), OptionTable.threads, OptionTable.quiet,
    ], help: help)

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard parsed.positional.count == 1 else {
            return cli.usageError("search", parsed.positional.isEmpty ? "missing the search file" : "expected one search file, got \(parsed.positional.count)")
        }
        let path = parsed.positional[0]
        guard let (shard, shards) = cli.shard(parsed, "search") else { return 2 }
        guard let threads = cli.threads(parsed, "search") else { return 2 }
        if let out = parsed.options["--out"], out.isEmpty { return cli.usageError("search", "--out needs a folder; got an empty value") }

        // Read and validate everything before any run: the file, the base, the output folder,
        // what holding every candidate takes, then every candidate.
        let loader = cli.loader
        let text: String, space: SearchSpace, base: Scenario, baseValue: JSONValue
        do {
            text = try SearchSpace.text(ofFile: path, loader: loader)
            (space, base) = try SearchSpace.read(text: text, file: path, loader: loader)
            baseValue = try loader.mergedValue(path: space.basePath)
        } catch {
            complain("synclab search: \(error)\n")
            return 2
        }
        let plan = SearchPlan(space, baseSeed: base.seed)
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let sharded = parsed.options["--shard"] != nil
        let out = parsed.options["--out"] ?? (sharded ? "Reports/search-\(name)-part-\(shard)-of-\(shards)" : "Reports/search-\(name)")
        let inputs = [path] + loader.inputFiles(path: space.basePath)
        if let problem = ReportWriter.preflight(for: out, inputs: inputs) {
            complain("synclab search: \(problem)\n")
            return 2
        }
        let memoryLimit = MemoryLimit.current()
        if let problem = space.memoryProblem(limit: memoryLimit) {
            complain("synclab search: \(path): knobs: \(problem)\n")
            return 2
        }
        var full: [Int: Scenario] = [:]
        var screen: [Int: Scenario] = [:]
        for c in 0..<plan.candidates {
            let overrides = space.overrides(plan.values(of: c))
            let mine = SearchPlan.shard(ofGroup: plan.group(of: c), count: shards) == shard
            let which = "\(path): knobs: candidate \(c) (\(plan.describe(c)))"
            do {
                let s = try loader.load(path: space.basePath, overrides: overrides)
                if let problem = ScenarioLoader.memoryProblem(s, limit: memoryLimit) {
                    complain("synclab search: \(which): \(problem)\n")
                    return 2
                }
                // Every candidate is confirmed at the base's size: a knob may not change it.
                if s.population.players != base.population.players {
                    complain("synclab search: \(which): population.players is \(s.population.players), not the base's "
                        + "\(base.population.players); every candidate is confirmed at the base's size, so a knob may not change it\n")
                    return 2
                }
                if case .figure(let key) = plan.objective, let reason = SearchSpace.unmeasured(key, by: s) {
                    complain("synclab search: \(which): the objective '\(key)' is never measured by this candidate: \(reason)\n")
                    return 2
                }
                if mine { full[c] = s }
                if let players = space.screen?.players, plan.step(of: c) == plan.steps - 1 {
                    let small = try loader.load(path: space.basePath, overrides: overrides
                        + [ScenarioLoader.Override(keyPath: "population.players", value: .number(Double(players), literal: String(players)))])
                    if mine { screen[c] = small }
                }
            } catch {
                complain("synclab search: \(which): \(error)\n")
                return 2
            }
        }
        let spec = SearchSpec(name: name, scenario: base.name, basePath: space.basePath,
                              fingerprint: SweepSpec.fingerprint(text + "\n" + baseValue.serialized(indent: 0)),
                              plan: plan, players: base.population.players, constraintsGiven: space.constraintsGiven)

        // Candidates are numbered from 0 everywhere: here, in candidates.csv and pareto.csv.
        say("seeds \(plan.seeds.map(String.init).joined(separator: ", "))\n")
        let mineGroups = (0..<plan.groups).filter { SearchPlan.shard(ofGroup: $0, count: shards) == shard }
        say("search of \(base.name): \(plan.candidates) candidates (0 to \(plan.candidates - 1)) in \(plan.groups) group\(plan.groups == 1 ? "" : "s") of \(plan.steps)"
            + (sharded ? "; shard \(shard)/\(shards) searches \(mineGroups.count) groups" : "") + "\n")
        var runs: [SearchRun] = []
        let started = DispatchTime.now().uptimeNanoseconds   // timing for stderr only
        for g in mineGroups {
            runs += plan.search(group: g) { c, stage, seed in
                var scenario = (stage == .screen ? screen[c] : full[c])!
                scenario.seed = seed
                let label = "candidate \(c) (0 to \(plan.candidates - 1)), \(stage.rawValue) seed \(seed)"
                let result = Simulation.run(scenario, threads: threads, progress: cli.progress(label, simulating: scenario, flags: parsed.flags))
                cli.progressDone(flags: parsed.flags)
                let figures = result.figures
                let servers = Double(scenario.server.fleet?.servers ?? 1)
                let values = plan.figures.map { key in SearchPart.rounded(key == "servers" ? servers : figures[key] ?? nil) }
                let run = SearchRun(candidate: c, stage: stage, seed: seed, values: values)
                say("candidate \(c) (\(plan.describe(c))), \(stage.rawValue) seed \(seed): "
                    + (stage == .screen ? (plan.prunedAtScreen(run) ? "pruned" : "passes screening") : (plan.meets(run) ? "meets" : "misses"))
                    + ", margin " + Self.marginText(plan.margin(run)) + "\n")
                return values
            }
        }
        cli.err("simulated \(runs.count) runs in \(Format.fixed(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, 2)) s wall\n")
        let part = SearchPart(spec: spec, shard: shard, shards: shards, runs: runs)
        if sharded {
            return write([(SearchPart.fileName, part.text)], to: out, inputs: inputs, shown: SearchPart.fileName) ? 0 : 2
        }
        // One machine is the part 0/1 merged: the same path as `merge`, so the same bytes.
        switch SearchPart.parse(part.text) {
        case .success(let p): return report([("the search", p)], out: out, inputs: inputs)
        case .failure(let e):
            complain("synclab search: internal error: \(e)\n")
            return 2
        }
    }

    /// `synclab merge` of search parts: the report of the whole search.
    func merge(_ folders: [String], out: String) -> Int32 {
        let inputs = folders + folders.map { ($0 as NSString).appendingPathComponent(SearchPart.fileName) }
        if let problem = ReportWriter.preflight(for: out, inputs: inputs) {
            complain("synclab merge: \(problem)\n")
            return 2
        }
        var parts: [(source: String, part: SearchPart)] = []
        for dir in folders {
            let file = (dir as NSString).appendingPathComponent(SearchPart.fileName)
            switch SafePaths.readInput(file, limit: SearchCommand.maximumPartBytes) {
            case .success(let t):
                switch SearchPart.parse(t.replacingOccurrences(of: "\r\n", with: "\n")) {
                case .success(let p): parts.append((dir, p))
                case .failure(let e):
                    complain("synclab merge: \(file): \(e)\n")
                    return 2
                }
            case .failure(let e):
                complain("synclab merge: \(file): \(e.message) (is '\(dir)' a folder written by 'synclab search --shard'?)\n")
                return 2
            }
        }
        // best.json holds the base in full: check the base is a scenario before reading it.
        let spec = parts[0].part.spec
        do {
            try SearchSpace.checkBaseFile(spec.basePath, loader: cli.loader)
            _ = try cli.loader.mergedValue(path: spec.basePath)
        } catch {
            complain("synclab merge: the search's base scenario: \(error)\n")
            return 2
        }
        return report(parts, out: out, inputs: inputs + cli.loader.inputFiles(path: spec.basePath))
    }

    /// Merges parts, writes the report folder and says the verdict: 0 a winner, 1 none, 2 bad input.
    func report(_ parts: [(source: String, part: SearchPart)], out: String, inputs: [String]) -> Int32 {
        let command = parts.count == 1 && parts[0].source == "the search" ? "search" : "merge"
        let spec: SearchSpec, runs: [SearchRun]
        switch SearchReport.merge(parts) {
        case .success(let r): (spec, runs) = r
        case .failure(let e):
            complain("synclab \(command): \(e)\n")
            return 2
        }
        let outcome = spec.plan.outcome(runs)
        var files = SearchReport.files(spec, runs: runs, best: outcome.winner == nil ? nil : "best.json")
        if let w = outcome.winner {
            let overrides = zip(spec.plan.knobs, spec.plan.values(of: w)).map { ScenarioLoader.Override(keyPath: $0.keyPath, value: $1) }
            do {
                let design = try cli.loader.standaloneValue(path: spec.basePath, overrides: overrides)
                files.append(("best.json", SearchReport.bestScenario(spec, winner: w, design: design)))
            } catch {
                complain("synclab \(command): the search's base scenario: \(error)\n")
                return 2
            }
        }
        let plan = spec.plan
        say("\(outcome.fullRuns) full-size runs and \(outcome.screenRuns) screening runs; the whole grid at full size is \(plan.candidates * plan.seeds.count)\n")
        if let w = outcome.winner {
            let fate = outcome.fates.first { $0.candidate == w }
            say("winner: candidate \(w) (\(plan.describe(w))), \(plan.objective.key) " + (fate?.objective == nil ? "not measured" : Headline.cell(fate?.objective))
                + ", margin " + Self.marginText(fate?.margin) + "\n")
        } else if let n = outcome.nearestMiss, let fate = outcome.fates.first(where: { $0.candidate == n }) {
            say("no design meets every constraint; nearest miss: candidate \(n) (\(plan.describe(n))), which \(fate.reason)\n")
        } else {
            say("no design meets every constraint\n")
        }
        guard write(files, to: out, inputs: inputs, shown: "search.md", command: command) else { return 2 }
        return outcome.winner == nil ? 1 : 0
    }

    /// A margin for stdout: an unmeasured constraint leaves no room to state.
    static func marginText(_ margin: Double?) -> String {
        let cell = Headline.cell(margin)
        return cell.isEmpty ? "none (a constraint's figure was not measured)" : cell
    }

    func write(_ files: [(name: String, contents: String)], to out: String, inputs: [String], shown: String, command: String = "search") -> Bool {
        do {
            let warnings = try ReportWriter.write(files, to: out, inputs: inputs)
            for warning in warnings { complain("synclab \(command): warning: \(warning)\n") }
        } catch {
            complain("synclab \(command): \(error)\n")
            return false
        }
        say("wrote \(ReportWriter.expanded(out))/\(shown)\n")
        return true
    }
}
