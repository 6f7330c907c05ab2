// `synclab search`: the files of a search, written the way sweep writes its files. Its runs
// become a *part* (the runs of one shard's groups, plus a description of the whole search), and
// parts are merged into the report; the unsharded search is the part 0/1 merged, so a `merge` of
// any complete set of shards writes exactly the bytes the unsharded search writes.

import SyncLab
import SyncLabKernel

/// What every part of one search must agree on: the plan and where it came from.
public struct SearchSpec: Sendable {
    /// The search file's name without folder and extension ("gallery").
    public var name: String
    /// The base scenario's name and its path (relative to the working folder).
    public var scenario: String
    public var basePath: String
    /// FNV-1a 64 of the search file's text and the base's merged JSON.
    public var fingerprint: String
    public var plan: SearchPlan
    /// Players of the base scenario (confirmation size) and whether constraints came from the file.
    public var players: Int
    public var constraintsGiven: Bool

    public init(name: String, scenario: String, basePath: String, fingerprint: String, plan: SearchPlan, players: Int, constraintsGiven: Bool) {
        self.name = name
        self.scenario = scenario
        self.basePath = basePath
        self.fingerprint = fingerprint
        self.plan = plan
        self.players = players
        self.constraintsGiven = constraintsGiven
    }

    /// One line of JSON, the part file's header: everything `parse` needs to rebuild the plan.
    var json: String {
        let p = plan
        let v = JSONValue.object([
            JSONMember(key: "name", value: .string(name)),
            JSONMember(key: "scenario", value: .string(scenario)),
            JSONMember(key: "base", value: .string(basePath)),
            JSONMember(key: "fingerprint", value: .string(fingerprint)),
            JSONMember(key: "players", value: .string(String(players))),
            JSONMember(key: "constraintsGiven", value: .bool(constraintsGiven)),
            JSONMember(key: "knobs", value: .array(p.knobs.map { k in
                .object([JSONMember(key: "key", value: .string(k.keyPath)), JSONMember(key: "values", value: .array(k.values)),
                         JSONMember(key: "monotone", value: .bool(k.monotone))])
            })),
            JSONMember(key: "constraints", value: .array(p.constraints.map { b in
                .object([JSONMember(key: "name", value: .string(b.name)), JSONMember(key: "metric", value: .string(b.metric)),
                         JSONMember(key: b.comparison.rawValue, value: .string(NumberText.compact(b.limit, 12)))])
            })),
            JSONMember(key: "objective", value: .string(p.objective.key)),
            JSONMember(key: "seeds", value: .array(p.seeds.map { .string(String($0)) })),
            JSONMember(key: "maxFailingSeeds", value: .string(String(p.maxFailingSeeds))),
            JSONMember(key: "screen", value: p.screen.map { s in
                .object([JSONMember(key: "players", value: .string(String(s.players))),
                         JSONMember(key: "slack", value: .string(NumberText.compact(s.slack, 12)))])
            } ?? .null),
        ] + (p.sequential.map { q in
            // Written only when set, so a part of a search without it reads as before.
            [JSONMember(key: "stopWhenClear", value: .object([
                JSONMember(key: "minimumSeeds", value: .string(String(q.minimumSeeds))),
                JSONMember(key: "confidence", value: .string(NumberText.compact(q.confidence, 12)))]))]
        } ?? []))
        return v.serialized(indent: 0).split(separator: "\n").map { String($0.drop { $0 == " " }) }.joined()
    }

    /// Reads the part file's header, checking it as a search file is checked (docs/search.md):
    /// a part edited by hand, or written by another version, is refused with what is wrong.
    static func parse(_ text: String) -> Result<SearchSpec, SweepError> {
        func bad(_ what: String) -> Result<SearchSpec, SweepError> { .failure(SweepError("the search description (line 2): \(what)")) }
        guard let v = try? JSONParser.parse(text), case .object = v else { return bad("not a JSON object") }
        func string(_ key: String) -> String? { if case .string(let s)? = v[key] { s } else { nil } }
        func whole(_ key: String, _ range: ClosedRange<Int>) -> Int? {
            guard let t = string(key), let n = Int(t), range.contains(n) else { return nil }
            return n
        }
        guard let name = string("name"), let scenario = string("scenario"), let base = string("base"), !base.isEmpty,
              let fingerprint = string("fingerprint") else { return bad("name, scenario, base or fingerprint is missing") }
        // The base's name, as a scenario's (it names best.json's scenario and a report folder).
        guard !scenario.isEmpty, scenario.count <= 100, !scenario.hasPrefix("."),
              scenario.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            return bad("scenario must be a scenario's name (1 to 100 letters, digits, '-', '_' or '.'); got \(Self.shown(v["scenario"]))")
        }
        guard let players = whole("players", 1...ScenarioLoader.Limits.players) else {
            return bad("players must be a whole number from 1 to \(ScenarioLoader.Limits.players); got \(Self.shown(v["players"]))")
        }
        guard case .bool(let given)? = v["constraintsGiven"] else { return bad("constraintsGiven must be true or false") }

        guard case .array(let knobValues)? = v["knobs"], !knobValues.isEmpty, knobValues.count <= SearchSpace.maximumKnobs else {
            return bad("knobs must be 1 to \(SearchSpace.maximumKnobs) knobs")
        }
        var knobs: [SearchKnob] = []
        var candidates = 1
        for (k, value) in knobValues.enumerated() {
            guard case .string(let key)? = value["key"], let canonical = InputKeyPath.canonical(key), canonical == key,
                  !knobs.contains(where: { $0.keyPath == key }) else {
                return bad("knobs[\(k)].key is not a key path of its own in the form a search writes")
            }
            guard case .array(let values)? = value["values"], !values.isEmpty, case .bool(let monotone)? = value["monotone"] else {
                return bad("knobs[\(k)] needs values and monotone")
            }
            let (product, overflow) = candidates.multipliedReportingOverflow(by: values.count)
            guard !overflow, product <= SearchSpace.maximumCandidates else {
                return bad("the knobs make more than \(SearchSpace.maximumCandidates) candidates; a search has at most \(SearchSpace.maximumCandidates)")
            }
            candidates = product
            knobs.append(SearchKnob(keyPath: key, values: values, monotone: monotone))
        }
        guard knobs.filter(\.monotone).count <= 1 else { return bad("more than one knob is monotone") }

        guard case .array(let constraintValues)? = v["constraints"], !constraintValues.isEmpty,
              constraintValues.count <= SearchSpace.maximumConstraints else {
            return bad("constraints must be 1 to \(SearchSpace.maximumConstraints) budgets")
        }
        var constraints: [Budget] = []
        for (i, c) in constraintValues.enumerated() {
            guard case .string(let n)? = c["name"], case .string(let metric)? = c["metric"], let figure = Figure.declared(metric),
                  figure.scope != .acrossSeeds else {
                return bad("constraints[\(i)] needs a name and the metric of a figure one run writes")
            }
            let limits: [(Budget.Comparison, JSONValue?)] = [(.atMost, c["max"]), (.atLeast, c["min"])]
            guard let (comparison, limitValue) = limits.first(where: { $0.1 != nil }), case .string(let t)? = limitValue,
                  let limit = Double(t), limit.isFinite else {
                return bad("constraints[\(i)] needs a finite max or min; got \(Self.shown(c["max"] ?? c["min"]))")
            }
            constraints.append(Budget(name: n, metric: metric, comparison: comparison, limit: limit))
        }
        guard let objectiveKey = string("objective"), objectiveKey == "servers" || Figure.declared(objectiveKey) != nil else {
            return bad("objective must be servers or a figure SyncLab writes; got \(Self.shown(v["objective"]))")
        }

        guard case .array(let seedValues)? = v["seeds"], !seedValues.isEmpty, seedValues.count <= SearchSpace.maximumSeeds else {
            return bad("seeds must be 1 to \(SearchSpace.maximumSeeds) seeds")
        }
        let seeds = seedValues.compactMap { if case .string(let s) = $0 { UInt64(s) } else { nil } }
        guard seeds.count == seedValues.count, Set(seeds).count == seeds.count else { return bad("seeds must be distinct whole numbers") }
        guard let maxFailing = whole("maxFailingSeeds", 0...(seeds.count - 1)) else {
            return bad("maxFailingSeeds must be a whole number from 0 to \(seeds.count - 1) (below the \(seeds.count) seeds); "
                + "got \(Self.shown(v["maxFailingSeeds"]))")
        }
        var screen: SearchScreen? = nil
        switch v["screen"] {
        case .null?: break
        case .object?:
            guard case .string(let p)? = v["screen"]?["players"], let sp = Int(p), (1...players).contains(sp) else {
                return bad("screen.players must be a whole number from 1 to the base's \(players); got \(Self.shown(v["screen"]?["players"]))")
            }
            guard case .string(let s)? = v["screen"]?["slack"], let slack = Double(s), slack >= 0, slack <= SearchScreen.maximumSlack else {
                return bad("screen.slack must be a number from 0 to \(NumberText.compact(SearchScreen.maximumSlack, 0)); got \(Self.shown(v["screen"]?["slack"]))")
            }
            screen = SearchScreen(players: sp, slack: slack)
        default: return bad("screen must be an object or null")
        }
        var sequential: SequentialConfirmation? = nil
        if let q = v["stopWhenClear"] {
            guard case .string(let m)? = q["minimumSeeds"], let least = Int(m), least >= 2, least < seeds.count,
                  case .string(let c)? = q["confidence"], let confidence = Double(c),
                  confidence >= 0.5, confidence <= SequentialConfirmation.maximumConfidence else {
                return bad("stopWhenClear needs minimumSeeds from 2 to below the \(seeds.count) seeds and a confidence from 0.5 to "
                    + "\(NumberText.compact(SequentialConfirmation.maximumConfidence, 6)); got \(Self.shown(q))")
            }
            sequential = SequentialConfirmation(minimumSeeds: least, confidence: confidence)
        }
        let objective: SearchObjective = objectiveKey == "servers" ? .servers : .figure(objectiveKey)
        let plan = SearchPlan(knobs: knobs, constraints: constraints, objective: objective, seeds: seeds, maxFailingSeeds: maxFailing, screen: screen,
                              sequential: sequential)
        return .success(SearchSpec(name: name, scenario: scenario, basePath: base, fingerprint: fingerprint, plan: plan, players: players,
                                   constraintsGiven: given))
    }

    /// A header value for a message: short, on one line, with no control character.
    static func shown(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        let text = value.serialized(indent: 0)
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}

/// The runs of one shard's groups.
public struct SearchPart: Sendable {
    public var spec: SearchSpec
    public var shard: Int
    public var shards: Int
    public var runs: [SearchRun]

    public init(spec: SearchSpec, shard: Int, shards: Int, runs: [SearchRun]) {
        self.spec = spec
        self.shard = shard
        self.shards = shards
        self.runs = runs
    }

    public static let fileName = "search-part.csv"

    /// A figure as the part writes it (and so as every decision reads it): `Headline.cell`.
    public static func rounded(_ v: Double?) -> Double? { Double(Headline.cell(v)) }

    /// The part file: two header lines, then `candidate,stage,seed,<figures>` rows.
    public var text: String {
        var out = "# synclab search part \(shard)/\(shards)\n# \(spec.json)\n"
        out += "candidate,stage,seed," + spec.plan.figures.map(Format.csv).joined(separator: ",") + "\n"
        for r in runs { out += "\(r.candidate),\(r.stage.rawValue),\(r.seed)," + r.values.map(Headline.cell).joined(separator: ",") + "\n" }
        return out
    }

    public static func parse(_ text: String) -> Result<SearchPart, SweepError> {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3, lines[0].hasPrefix("# synclab search part "), lines[1].hasPrefix("# ") else {
            return .failure(SweepError("not a search part (no '# synclab search part i/n' header)"))
        }
        let shardText = lines[0].dropFirst("# synclab search part ".count).split(separator: "/")
        guard shardText.count == 2, let shard = Int(shardText[0]), let shards = Int(shardText[1]), shards >= 1, shards <= SweepPart.maximumShards,
              shard >= 0, shard < shards
        else { return .failure(SweepError("bad shard in the header '\(lines[0])'")) }
        let spec: SearchSpec
        switch SearchSpec.parse(String(lines[1].dropFirst(2))) {
        case .success(let s): spec = s
        case .failure(let e): return .failure(e)
        }
        let width = 3 + spec.plan.figures.count
        var runs: [SearchRun] = []
        for (i, line) in lines.dropFirst(3).enumerated() where !line.isEmpty {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count == width, let c = Int(f[0]), c >= 0, c < spec.plan.candidates, let stage = SearchStage(rawValue: f[1]), let seed = UInt64(f[2])
            else { return .failure(SweepError("line \(i + 4) is not a run of \(width) fields")) }
            // A figure is one a run can write (`Headline.isPossible`, as a sweep part's is), or
            // empty where the run had none; `servers` is the candidate's whole number of servers.
            var values: [Double?] = []
            for (cell, figure) in zip(f.dropFirst(3), spec.plan.figures) {
                if cell.isEmpty { values.append(nil); continue }
                let possible = Double(cell).map { d in
                    figure == "servers" ? d.isFinite && d >= 1 && d.rounded() == d : Headline.isPossible(d, figure: figure)
                } ?? false
                guard possible, let d = Double(cell) else {
                    let shown = cell.count > 40 ? "\(cell.prefix(20))… (\(cell.count) characters)" : cell
                    let expected = figure == "servers" ? "a whole number of servers ≥ 1" : Headline.expected(figure: figure)
                    return .failure(SweepError("line \(i + 4), figure \(figure): expected \(expected) or nothing; got '\(shown)'"))
                }
                values.append(d)
            }
            runs.append(SearchRun(candidate: c, stage: stage, seed: seed, values: values))
        }
        return .success(SearchPart(spec: spec, shard: shard, shards: shards, runs: runs))
    }
}

public enum SearchReport {
    /// The runs of every group, in group order, checked against the parts: each shard once, and
    /// each group holding exactly the runs its search makes (replayed from the recorded figures).
    public static func merge(_ parts: [(source: String, part: SearchPart)]) -> Result<(SearchSpec, [SearchRun]), SweepError> {
        guard let first = parts.first else { return .failure(SweepError("no parts given")) }
        let spec = first.part.spec, shards = first.part.shards
        var byShard: [Int: (String, SearchPart)] = [:]
        for (source, part) in parts {
            guard part.spec.json == spec.json else {
                return .failure(SweepError("\(source) is a part of another search than \(first.source) (search file, base scenario or seeds differ)"))
            }
            guard part.shards == shards else {
                return .failure(SweepError("\(source) is shard \(part.shard)/\(part.shards) but \(first.source) is of \(shards) shards"))
            }
            if let other = byShard[part.shard] {
                return .failure(SweepError("overlapping parts: \(other.0) and \(source) are both shard \(part.shard)/\(shards)"))
            }
            byShard[part.shard] = (source, part)
        }
        let missing = (0..<shards).filter { byShard[$0] == nil }
        guard missing.isEmpty else {
            return .failure(SweepError("missing parts: shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(shards)" }.joined(separator: ", "))"))
        }
        let plan = spec.plan
        var runs: [SearchRun] = []
        for s in 0..<shards {
            let (source, part) = byShard[s]!
            var recorded: [String: SearchRun] = [:]
            for r in part.runs { recorded["\(r.candidate)/\(r.stage.rawValue)/\(r.seed)"] = r }
            var used = 0
            for g in 0..<plan.groups where SearchPlan.shard(ofGroup: g, count: shards) == s {
                struct Missing: Error { var what: String }
                do {
                    runs += try plan.search(group: g) { c, stage, seed in
                        guard let r = recorded["\(c)/\(stage.rawValue)/\(seed)"] else { throw Missing(what: "candidate \(c) \(stage.rawValue) seed \(seed)") }
                        used += 1
                        return r.values
                    }
                } catch let e as Missing {
                    return .failure(SweepError("\(source): shard \(s)/\(shards) lacks the run \(e.what) its search needs; rerun that shard"))
                } catch {
                    return .failure(SweepError("\(source): \(error)"))
                }
            }
            guard used == part.runs.count, recorded.count == part.runs.count else {
                return .failure(SweepError("\(source): shard \(s)/\(shards) holds \(part.runs.count) runs but its search makes \(used); rerun that shard"))
            }
        }
        return .success((spec, runs))
    }

    /// A candidate's knob values as CSV/Markdown cells.
    static func cells(_ plan: SearchPlan, _ c: Int) -> [String] { plan.values(of: c).map(SearchKnob.text) }

    /// Every file but `best.json`: search.md, candidates.csv, pareto.csv, pareto.svg.
    public static func files(_ spec: SearchSpec, runs: [SearchRun], best: String?) -> [(name: String, contents: String)] {
        let plan = spec.plan
        let outcome = plan.outcome(runs)
        let labels = Dictionary(Headline.figures.map { ($0.key, $0.label) }, uniquingKeysWith: { a, _ in a })
        let objectiveLabel = plan.objective == .servers ? "servers" : plan.objective.key
        let byCandidate = Dictionary(grouping: runs, by: \.candidate)

        // candidates.csv: every candidate, its fate and the mean figures of the last stage it ran.
        var csv = "candidate," + plan.knobs.map { Format.csv($0.keyPath) }.joined(separator: ",")
            + ",verdict,stage,seeds_run,failing_seeds,margin," + plan.figures.map { Format.csv("mean_" + $0) }.joined(separator: ",") + ",reason\n"
        for fate in outcome.fates {
            let own = (byCandidate[fate.candidate] ?? []).filter { $0.stage == fate.stage }
            let means = plan.figures.indices.map { i -> String in
                let v = own.compactMap { $0.values[i] }
                return v.isEmpty ? "" : Headline.cell(v.reduce(0, +) / Double(v.count))
            }
            csv += "\(fate.candidate)," + cells(plan, fate.candidate).map(Format.csv).joined(separator: ",") + ","
                + Format.csv(fate.verdict.rawValue) + "," + (fate.stage?.rawValue ?? "none") + ",\(fate.seedsRun),\(fate.failingSeeds),\(Headline.cell(fate.margin)),"
                + means.joined(separator: ",") + "," + Format.csv(fate.reason) + "\n"
        }

        // pareto.csv: every full-size candidate, whether it meets the constraints and is on the front.
        var pareto = "candidate," + plan.knobs.map { Format.csv($0.keyPath) }.joined(separator: ",")
            + ",mean_\(Format.csv(plan.objective.key)),mean_\(SearchSpace.mainFigure),margin,verdict,on_front\n"
        let full = outcome.fates.filter { $0.stage == .full }
        for f in full {
            pareto += "\(f.candidate)," + cells(plan, f.candidate).map(Format.csv).joined(separator: ",") + ","
                + Headline.cell(f.objective) + "," + Headline.cell(f.main) + "," + Headline.cell(f.margin) + "," + f.verdict.rawValue + "," + (outcome.front.contains(f.candidate) ? "yes" : "no") + "\n"
        }
        let chart = paretoChart(plan, outcome, objectiveLabel: objectiveLabel)

        // search.md
        let fullRunsGrid = plan.candidates * plan.seeds.count
        var md = "# Search of \(spec.scenario): \(InputError.escapingControls(spec.name))\n\n"
        let verdictCounts = Dictionary(grouping: outcome.fates, by: \.verdict).mapValues(\.count)
        if let w = outcome.winner, let fate = outcome.fates.first(where: { $0.candidate == w }) {
            md += "**Winner: \(describe(plan, w)).** It meets every constraint on \(fate.seedsRun) seed\(fate.seedsRun == 1 ? "" : "s") at the base's size "
                + "(\(Format.count(spec.players, "player"))) with \(objectiveLabel) \(Headline.cell(fate.objective)) "
                + "and \(labels[SearchSpace.mainFigure] ?? SearchSpace.mainFigure) \(Headline.cell(fate.main)); "
                + "its worst constraint has a margin of \(Headline.cell(fate.margin)) (the room left, relative to the limit; "
                + "equal \(objectiveLabel) is decided by the larger margin). "
                + (best.map { "[\($0)](\($0)) is that design as a scenario: `synclab run` or `synclab check` it as it is.\n\n" } ?? "\n\n")
        } else if let n = outcome.nearestMiss, let fate = outcome.fates.first(where: { $0.candidate == n }) {
            md += "**No design in the space meets every constraint.** The nearest miss is \(describe(plan, n)), which \(fate.reason).\n\n"
        } else {
            md += "**No design in the space meets every constraint**, and none was run.\n\n"
        }
        md += "Space: \(plan.candidates) candidates (" + plan.knobs.map { "`\($0.keyPath)` × \($0.values.count)" + ($0.monotone ? ", monotone" : "") }.joined(separator: "; ")
            + "), the base scenario `\(spec.scenario)` (fingerprint `\(spec.fingerprint)`). Objective: the lowest mean \(objectiveLabel) over seeds. "
            + "Constraints, judged on every seed (at most \(plan.maxFailingSeeds) of \(plan.seeds.count) may fail, seeds \(plan.seeds.map(String.init).joined(separator: ", ")); "
            + "the same seeds for every candidate"
            + (plan.sequential.map { q in
                "; a candidate stops short of its last seed once its pass is clear at \(NumberText.compact(q.confidence * 100, 4))% "
                    + "after at least \(q.minimumSeeds) seeds"
            } ?? "") + "):\n\n"
        for b in plan.constraints { md += "- \(Self.oneLine(b.name)): `\(b.metric)` \(b.comparison == .atMost ? "≤" : "≥") \(NumberText.compact(b.limit, 6))\n" }
        md += "\n## What it cost\n\n"
        md += "\(outcome.fullRuns) full-size run\(outcome.fullRuns == 1 ? "" : "s") (\(Format.count(spec.players, "player")) each) and \(outcome.screenRuns) screening run\(outcome.screenRuns == 1 ? "" : "s")"
            + (plan.screen.map { " (\(Format.count($0.players, "player")), seed \(plan.seeds[0]), pruning a miss by more than \(NumberText.compact($0.slack * 100, 2))% of its limit)" } ?? "")
            + ", where running the whole grid at full size would take \(fullRunsGrid). "
        md += "Fates: " + SearchVerdict.allInOrder.compactMap { v in verdictCounts[v].map { "\($0) \(v.rawValue)" } }.joined(separator: ", ") + ". "
        md += "Pruning is explained in docs/search.md: what each stage decides on, and what it can miss.\n\n"
        md += "## Pareto front: \(objectiveLabel) against the 500 ms figure\n\n"
        if outcome.front.isEmpty {
            md += "No candidate that ran at full size meets the constraints not on `\(SearchSpace.mainFigure)`.\n\n"
        } else {
            md += "Full-size candidates meeting every constraint not on `\(SearchSpace.mainFigure)` that no other such candidate beats "
                + "on both \(objectiveLabel) (lower) and `\(SearchSpace.mainFigure)` (higher):\n\n"
            md += "| " + plan.knobs.map { "`\(SweepReport.shortKey($0.keyPath))`" }.joined(separator: " | ") + " | \(objectiveLabel) | `\(SearchSpace.mainFigure)` | margin | verdict |\n"
            md += "|" + String(repeating: "---|", count: plan.knobs.count) + "---:|---:|---:|---|\n"
            for c in outcome.front {
                let f = outcome.fates.first { $0.candidate == c }!
                md += "| " + cells(plan, c).map { $0.replacingAll("|", with: "\\|") }.joined(separator: " | ")
                    + " | \(Headline.cell(f.objective)) | \(Headline.cell(f.main)) | \(Headline.cell(f.margin)) | \(f.verdict.rawValue) |\n"
            }
            md += "\n"
        }
        md += "![\(chart.title)](\(chart.svgFile))\n\n\(chart.caption) Data: [\(chart.csvFile)](\(chart.csvFile)).\n\n"
        md += "## Every candidate run at full size\n\n"
        md += "| " + plan.knobs.map { "`\(SweepReport.shortKey($0.keyPath))`" }.joined(separator: " | ") + " | \(objectiveLabel) | `\(SearchSpace.mainFigure)` | margin | verdict | why |\n"
        md += "|" + String(repeating: "---|", count: plan.knobs.count) + "---:|---:|---:|---|---|\n"
        for f in full {
            md += "| " + cells(plan, f.candidate).map { $0.replacingAll("|", with: "\\|") }.joined(separator: " | ")
                + " | \(Headline.cell(f.objective)) | \(Headline.cell(f.main)) | \(Headline.cell(f.margin)) | \(f.verdict.rawValue) | \(f.reason.replacingAll("|", with: "\\|")) |\n"
        }
        md += "\nEvery candidate, with its stage, verdict and reason: [candidates.csv](candidates.csv).\n"
        return [("search.md", md), ("candidates.csv", csv), (chart.csvFile, pareto), (chart.svgFile, chart.svg)]
    }

    /// Text from a search file (a constraint's name) for one line of a report: control
    /// characters escaped, as every message escapes them, and a line break as `\n`.
    static func oneLine(_ text: String) -> String {
        InputError.escapingControls(text).split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n")
    }

    /// "`client.probes`=2, `server.fleet.servers`=8".
    static func describe(_ plan: SearchPlan, _ c: Int) -> String {
        zip(plan.knobs, plan.values(of: c)).map { "`\($0.keyPath)`=\(SearchKnob.text($1))" }.joined(separator: ", ")
    }

    /// Full-size candidates as dots (meeting the constraints or not) and the front as a line.
    static func paretoChart(_ plan: SearchPlan, _ outcome: SearchOutcome, objectiveLabel: String) -> ChartFile {
        let full = outcome.fates.filter { $0.stage == .full && $0.objective != nil && $0.main != nil }
        let meets = full.filter { $0.verdict == .meets }.map { [ChartPoint($0.objective!, $0.main!)] }
        let misses = full.filter { $0.verdict != .meets }.map { [ChartPoint($0.objective!, $0.main!)] }
        let front = outcome.front.compactMap { c in full.first { $0.candidate == c }.map { ChartPoint($0.objective!, $0.main!) } }
        let xs = full.map { $0.objective! }, ys = full.map { $0.main! }
        // A candidate that stopped at a failing seed, or once its pass was clear, ran fewer.
        let seedsRun = Set(full.map(\.seedsRun)).sorted()
        let seedsLabel = switch (plan.seeds.count > 1, seedsRun.first, seedsRun.last) {
        case (true, let least?, let most?) where least < most: ", mean of each candidate's \(least) to \(most) seeds"
        case (true, 1?, _): ", first seed"
        case (true, let n?, _): ", mean of \(n) seeds"
        default: ""
        }
        let x = ChartAxis.linear(label: objectiveLabel + seedsLabel,
                                 lower: min(0, xs.min() ?? 0), upper: max(1, xs.max() ?? 1))
        let y = ChartAxis.linear(label: "\(SearchSpace.mainFigure) (share)", lower: min(0.9, (ys.min() ?? 0.9)), upper: 1, target: 5, roundUp: false,
                                 tickLabel: { Format.fixed($0, $1) })
        // The front last, so its line and dots lie over the others.
        let series = [
            LineSeries(name: "misses a budget", color: "#999999", width: 0, runs: misses, markers: true),
            LineSeries(name: "meets all", color: ChartPalette.color(2), width: 0, runs: meets, markers: true),
            LineSeries(name: "Pareto front", color: ChartPalette.color(0), width: 1.5, runs: front.isEmpty ? [] : [front], markers: true),
        ]
        let limit = plan.constraints.first { $0.metric == SearchSpace.mainFigure && $0.comparison == .atLeast }
        // A grey dot above the constraint line meets that constraint but misses another: say so
        // where the reader looks, in the legend as in the caption.
        let chart = LineChart(title: "\(objectiveLabel) against \(SearchSpace.mainFigure)", x: x, y: y, series: series,
                              references: limit.map { [ReferenceLine(.horizontal, at: $0.limit, label: "constraint \(NumberText.compact($0.limit, 6))")] } ?? [],
                              legendExtras: limit == nil ? [] : [LegendEntry("grey above the line:", swatch: .none),
                                                                  LegendEntry("misses another budget", swatch: .none)],
                              noDataMessage: "no data: no candidate ran at full size")
        return ChartFile(name: "pareto", title: chart.title,
                         caption: "Each dot is a candidate run at full size (mean over its seeds): green meets every constraint, grey misses at least one. "
                            + "A grey dot above the constraint line meets the constraint on the 500 ms figure but misses another budget "
                            + "(which one: the why column of the table below); "
                            + "the blue line joins the Pareto front, drawn among the candidates that meet every constraint not on the 500 ms figure.",
                         svg: chart.svg(), csv: "")
    }

    /// The name of `best.json`'s scenario: "<base>-<search>-best", with every character a
    /// scenario's name may not hold (it names a report folder) as "-", at most 100 characters.
    static func bestName(_ spec: SearchSpec) -> String {
        let search = String(spec.name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "-" })
        let name = "\(spec.scenario)-\(search)-best"
        return name.count <= 100 ? name : String(name.prefix(95)) + "-best"
    }

    /// `best.json`: the winner as a scenario that stands alone, so it runs wherever it is
    /// copied. `design` is the base with the winner's knobs set, its `extends` chain merged
    /// (`ScenarioLoader.standaloneValue`); this names it, points editors at the schema `synclab
    /// schema` writes, and holds the search's own constraints as its budgets when it gave them.
    public static func bestScenario(_ spec: SearchSpec, winner c: Int, design: JSONValue) -> String {
        let plan = spec.plan
        let knobbed = Set(plan.knobs.map(\.keyPath))
        var members: [JSONMember] = [
            JSONMember(key: "$schema", value: .string("scenario.schema.json")),
            JSONMember(key: "name", value: .string(bestName(spec))),
            JSONMember(key: "description", value: .string("The cheapest design of the search '\(spec.name)' over \(spec.scenario): "
                + plan.describe(c) + ". Written by synclab search, with the base's settings in full.")),
        ]
        if case .object(let m) = design {
            for member in m where member.key != "$schema" && member.key != "extends" {
                // A knob on the name or the description sets it; otherwise this file's own.
                if let i = members.firstIndex(where: { $0.key == member.key }) {
                    if knobbed.contains(member.key) { members[i] = member }
                } else {
                    members.append(member)
                }
            }
        }
        if spec.constraintsGiven {
            let budgets = JSONMember(key: "budgets", value: .array(plan.constraints.map { b in
                .object([JSONMember(key: "name", value: .string(b.name)), JSONMember(key: "metric", value: .string(b.metric)),
                         JSONMember(key: b.comparison.rawValue, value: .number(b.limit, literal: NumberText.compact(b.limit, 12)))])
            }))
            if let i = members.firstIndex(where: { $0.key == "budgets" }) { members[i] = budgets } else { members.append(budgets) }
        }
        return JSONValue.object(members).serialized(indent: 2) + "\n"
    }
}

extension SearchVerdict {
    /// The verdicts in the order a report lists them.
    public static let allInOrder: [SearchVerdict] = [.meets, .misses, .prunedAtScreen, .prunedWithGroup, .impliedMiss, .notNeeded]
}
