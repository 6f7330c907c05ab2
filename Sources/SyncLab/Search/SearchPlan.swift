// The staged search of `synclab search`, free of files and of the simulator: a test drives it
// with an evaluator of its own (a closed form), the command line with simulation runs.
//
// Candidates are every combination of the knobs' values. The ones that differ only in the
// monotone knob (servers) form a *group*. Each group is searched on its own, so the runs a group
// needs never depend on another group's results and a shard of groups gives the same runs on
// any machine (docs/search.md):
//   1. screen: the group's most favourable candidate (the monotone knob's last value) runs once,
//      with fewer players and the first seed; a constraint missed by more than the slack prunes
//      the group;
//   2. confirm: that candidate runs at the base's size with every seed (stopping once more seeds
//      fail than may, or, with `stopWhenClear`, once its pass is clear: SequentialConfirmation);
//      if it misses, no smaller value can meet the constraints;
//   3. bisect: over the monotone knob's values below it, each probe a full-size run on every
//      seed, for the smallest value that meets every constraint.
// Every candidate uses the same seeds: common random numbers, so candidates differ by design.

/// Which stage a run belongs to.
public enum SearchStage: String, Sendable, Equatable {
    case screen, full
}

/// One simulation run of the search: a candidate, a stage, a seed and its figures (one per
/// `SearchPlan.figures`, nil where the run had none).
public struct SearchRun: Sendable, Equatable {
    public var candidate: Int
    public var stage: SearchStage
    public var seed: UInt64
    public var values: [Double?]

    public init(candidate: Int, stage: SearchStage, seed: UInt64, values: [Double?]) {
        self.candidate = candidate
        self.stage = stage
        self.seed = seed
        self.values = values
    }
}

/// What became of one candidate.
public enum SearchVerdict: String, Sendable, Equatable {
    /// Ran at full size on every seed, or on enough for its pass to be clear
    /// (`SequentialConfirmation`), and met every constraint.
    case meets
    /// Ran at full size and missed a constraint on more seeds than may fail.
    case misses
    /// Its screening run missed a constraint by more than the slack.
    case prunedAtScreen = "pruned at screening"
    /// Not run: its group's most favourable candidate was pruned at screening.
    case prunedWithGroup = "pruned with its group"
    /// Not run: a larger value of the monotone knob misses, so this one does too.
    case impliedMiss = "implied miss"
    /// Not run: a smaller value of the monotone knob meets every constraint, at lower cost.
    case notNeeded = "not needed"
}

public struct CandidateFate: Sendable, Equatable {
    public var candidate: Int
    public var verdict: SearchVerdict
    /// The last stage the candidate ran in (nil: never run).
    public var stage: SearchStage?
    /// Why, in a phrase: the constraint missed and by how much, or which run implied it.
    public var reason: String
    /// Means over the runs of its last stage (nil when not run or not measured).
    public var objective: Double?
    public var main: Double?
    public var seedsRun: Int
    public var failingSeeds: Int
    /// The largest relative miss of any constraint that decided the verdict (≤ 0: held).
    public var shortfall: Double?

    /// The room its worst constraint leaves, relative to the limit: the shortfall's negation
    /// (`SearchPlan.margin`), on the seed that decided the verdict; nil when not run.
    public var margin: Double? { shortfall.map { 0 - $0 } }
}

public struct SearchOutcome: Sendable, Equatable {
    public var fates: [CandidateFate]
    /// The candidate meeting every constraint with the lowest objective (ties: the largest
    /// margin, then the first).
    public var winner: Int?
    /// With no winner: the run candidate that came closest, and what it missed.
    public var nearestMiss: Int?
    /// Full-size candidates on the Pareto front of objective (lower) against the main figure
    /// (higher), among those meeting every other constraint, by ascending objective.
    public var front: [Int]
    public var screenRuns: Int
    public var fullRuns: Int
}

/// A search space laid out for running: candidates, groups, figures and seeds.
public struct SearchPlan: Sendable {
    public var knobs: [SearchKnob]
    public var constraints: [Budget]
    public var objective: SearchObjective
    public var seeds: [UInt64]
    public var maxFailingSeeds: Int
    public var screen: SearchScreen?
    /// When a pass may be called before the last seed (nil: every seed runs).
    public var sequential: SequentialConfirmation?
    /// The recorded figures: the main 500 ms figure, the objective, then each constraint's.
    public let figures: [String]

    /// A plan that runs every seed of a passing candidate (no `sequential` rule).
    public init(knobs: [SearchKnob], constraints: [Budget], objective: SearchObjective, seeds: [UInt64],
                maxFailingSeeds: Int = 0, screen: SearchScreen? = nil) {
        self.init(knobs: knobs, constraints: constraints, objective: objective, seeds: seeds, maxFailingSeeds: maxFailingSeeds,
                  screen: screen, sequential: nil)
    }

    public init(knobs: [SearchKnob], constraints: [Budget], objective: SearchObjective, seeds: [UInt64],
                maxFailingSeeds: Int, screen: SearchScreen?, sequential: SequentialConfirmation?) {
        self.knobs = knobs
        self.constraints = constraints
        self.objective = objective
        self.seeds = seeds
        self.maxFailingSeeds = maxFailingSeeds
        self.screen = screen
        self.sequential = sequential
        var figures: [String] = []
        for key in [SearchSpace.mainFigure, objective.key] + constraints.map(\.metric) where !figures.contains(key) { figures.append(key) }
        self.figures = figures
    }

    public init(_ space: SearchSpace, baseSeed: UInt64) {
        self.init(knobs: space.knobs, constraints: space.constraints, objective: space.objective,
                  seeds: (0..<UInt64(space.seedCount)).map { baseSeed + $0 }, maxFailingSeeds: space.maxFailingSeeds, screen: space.screen,
                  sequential: space.sequential)
    }

    // MARK: Layout

    var monotone: Int? { knobs.firstIndex(where: \.monotone) }
    /// Values of the monotone knob (1 without one): the innermost axis of the candidates.
    public var steps: Int { monotone.map { knobs[$0].values.count } ?? 1 }
    public var groups: Int { knobs.enumerated().reduce(1) { $0 * ($1.offset == monotone ? 1 : $1.element.values.count) } }
    public var candidates: Int { groups * steps }

    public func candidate(group g: Int, step m: Int) -> Int { g * steps + m }
    public func group(of c: Int) -> Int { c / steps }
    public func step(of c: Int) -> Int { c % steps }

    /// The value index on each knob (file order) of candidate `c`: the other knobs vary with the
    /// first slowest, the monotone knob innermost.
    public func indices(of c: Int) -> [Int] {
        var out = [Int](repeating: 0, count: knobs.count)
        var rest = group(of: c)
        for k in knobs.indices.reversed() where k != monotone {
            out[k] = rest % knobs[k].values.count
            rest /= knobs[k].values.count
        }
        if let monotone { out[monotone] = step(of: c) }
        return out
    }

    public func values(of c: Int) -> [JSONValue] { zip(knobs, indices(of: c)).map { $0.values[$1] } }

    /// "client.probes=2 server.fleet.servers=8".
    public func describe(_ c: Int) -> String {
        zip(knobs, values(of: c)).map { "\($0.keyPath)=\(SearchKnob.text($1))" }.joined(separator: " ")
    }

    /// The shard that searches group `g` of `count`: round robin.
    public static func shard(ofGroup g: Int, count: Int) -> Int { g % count }

    // MARK: Judging

    /// How far `value` misses `budget`, relative to its limit (an absolute miss for a limit of
    /// 0): ≤ 0 holds, > 0 misses; an unmeasured figure misses without bound.
    public static func relativeMiss(_ budget: Budget, _ value: Double?) -> Double {
        guard let value, value.isFinite else { return .infinity }
        let miss = budget.comparison == .atMost ? value - budget.limit : budget.limit - value
        return budget.limit == 0 ? miss : miss / abs(budget.limit)
    }

    /// The room `value` leaves under `budget`, relative to its limit: (limit − value)/|limit| for
    /// a `max`, (value − limit)/|limit| for a `min`, the absolute room for a limit of 0. The
    /// negation of `relativeMiss` (written `0 − miss` so a figure on its limit has 0, not −0).
    public static func margin(_ budget: Budget, _ value: Double?) -> Double { 0 - relativeMiss(budget, value) }

    /// The margin of a run: that of its worst constraint (the smallest margin).
    public func margin(_ run: SearchRun) -> Double { 0 - worstMiss(run).miss }

    /// The worst relative miss of a run over every constraint, with the constraint's index.
    public func worstMiss(_ run: SearchRun) -> (miss: Double, constraint: Int) {
        var worst = (miss: -Double.infinity, constraint: 0)
        for (i, b) in constraints.enumerated() {
            let v = figures.firstIndex(of: b.metric).flatMap { run.values[$0] }
            let m = Self.relativeMiss(b, v)
            if m > worst.miss { worst = (m, i) }
        }
        return worst
    }

    public func meets(_ run: SearchRun) -> Bool {
        constraints.allSatisfy { b in value(b.metric, run).map(b.holds) ?? false }
    }

    public func value(_ key: String, _ run: SearchRun) -> Double? { figures.firstIndex(of: key).flatMap { run.values[$0] } }

    /// Whether a candidate's full-size runs so far (`full`, in seed order) settle its pass:
    /// every seed run and no more failing than may, or, with `sequential`, a pass already clear.
    public func passes(_ full: [SearchRun]) -> Bool {
        let failing = full.filter { !meets($0) }.count
        guard failing <= maxFailingSeeds else { return false }
        if full.count == seeds.count { return true }
        guard let sequential else { return false }
        let margins = constraints.map { b in full.map { Self.margin(b, value(b.metric, $0)) } }
        return sequential.passIsClear(margins: margins, failing: failing, allowed: maxFailingSeeds,
                                      remaining: seeds.count - full.count)
    }

    /// Whether a screening run is pruned: some constraint missed by more than the slack.
    public func prunedAtScreen(_ run: SearchRun) -> Bool { worstMiss(run).miss > (screen?.slack ?? 0) }

    // MARK: The search

    /// Searches group `g`; `evaluate` runs a candidate at a stage with a seed and returns its
    /// figures (one per `figures`). The runs come back in the order they were made.
    public func search(group g: Int, evaluate: (Int, SearchStage, UInt64) throws -> [Double?]) rethrows -> [SearchRun] {
        var runs: [SearchRun] = []
        let top = candidate(group: g, step: steps - 1)
        if screen != nil {
            let run = SearchRun(candidate: top, stage: .screen, seed: seeds[0], values: try evaluate(top, .screen, seeds[0]))
            runs.append(run)
            if prunedAtScreen(run) { return runs }
        }
        /// Full size on every seed, until more seeds fail than may or the pass is clear.
        func confirm(_ c: Int) throws -> Bool {
            var failing = 0
            var full: [SearchRun] = []
            for seed in seeds {
                let run = SearchRun(candidate: c, stage: .full, seed: seed, values: try evaluate(c, .full, seed))
                runs.append(run)
                full.append(run)
                if !meets(run) { failing += 1 }
                if failing > maxFailingSeeds { return false }
                if sequential != nil && passes(full) { return true }
            }
            return true
        }
        guard try confirm(top) else { return runs }
        // Invariant: step `high` meets every constraint; every step ≤ `low` misses (−1: none known).
        var low = -1, high = steps - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if try confirm(candidate(group: g, step: mid)) { high = mid } else { low = mid }
        }
        return runs
    }

    /// Every candidate's fate, the winner and the front, from the runs alone (so that a merge of
    /// shards decides exactly as one machine does).
    public func outcome(_ runs: [SearchRun]) -> SearchOutcome {
        let byCandidate = Dictionary(grouping: runs, by: \.candidate)
        var fates: [CandidateFate] = []
        let objectiveColumn = figures.firstIndex(of: objective.key)!
        let mainColumn = figures.firstIndex(of: SearchSpace.mainFigure)!
        func mean(_ rs: [SearchRun], _ column: Int) -> Double? {
            let v = rs.compactMap { $0.values[column] }
            return v.isEmpty ? nil : v.reduce(0, +) / Double(v.count)
        }
        let monotoneName = monotone.map { knobs[$0].keyPath } ?? ""
        func stepText(_ c: Int) -> String { monotone.map { "\(monotoneName)=\(SearchKnob.text(knobs[$0].values[step(of: c)]))" } ?? describe(c) }
        func missText(_ run: SearchRun) -> String {
            let (_, i) = worstMiss(run)
            let b = constraints[i]
            let v = value(b.metric, run)
            return "\(b.metric) \(v.map { NumberText.compact($0, 6) } ?? "not measured") against \(b.comparison.rawValue) \(NumberText.compact(b.limit, 6))"
        }
        for g in 0..<groups {
            let top = candidate(group: g, step: steps - 1)
            let screened = byCandidate[top]?.first { $0.stage == .screen }
            let groupPruned = screened.map(prunedAtScreen) ?? false
            // Full-size verdicts of the group's steps.
            var fullMeets: [Int: Bool] = [:]
            for m in 0..<steps {
                let full = (byCandidate[candidate(group: g, step: m)] ?? []).filter { $0.stage == .full }
                if !full.isEmpty { fullMeets[m] = passes(full) }
            }
            let smallestMeeting = fullMeets.filter(\.value).keys.min()
            let largestMissing = fullMeets.filter { !$0.value }.keys.max()
            for m in 0..<steps {
                let c = candidate(group: g, step: m)
                let own = byCandidate[c] ?? []
                let full = own.filter { $0.stage == .full }
                if !full.isEmpty {
                    let failing = full.filter { !meets($0) }
                    let pass = fullMeets[m] ?? false
                    let worst = full.map { worstMiss($0).miss }.sorted(by: >)
                    let shortfall = worst[min(maxFailingSeeds, worst.count - 1)]
                    let early = full.count < seeds.count ? " (its pass clear after \(full.count) of \(seeds.count))" : ""
                    let reason = pass ? "meets every constraint on \(full.count) seed\(full.count == 1 ? "" : "s")\(early)"
                        : "misses \(missText(failing[0])) on \(failing.count) of \(full.count) seed\(full.count == 1 ? "" : "s") run (seed \(failing[0].seed))"
                    fates.append(CandidateFate(candidate: c, verdict: pass ? .meets : .misses, stage: .full, reason: reason,
                                               objective: mean(full, objectiveColumn), main: mean(full, mainColumn),
                                               seedsRun: full.count, failingSeeds: failing.count, shortfall: shortfall))
                } else if let s = own.first(where: { $0.stage == .screen }) {
                    let pruned = prunedAtScreen(s)
                    fates.append(CandidateFate(candidate: c, verdict: pruned ? .prunedAtScreen : .misses, stage: .screen,
                                               reason: "at screening size misses \(missText(s)) by more than the slack",
                                               objective: s.values[objectiveColumn], main: s.values[mainColumn],
                                               seedsRun: 1, failingSeeds: meets(s) ? 0 : 1, shortfall: worstMiss(s).miss))
                } else if groupPruned {
                    fates.append(CandidateFate(candidate: c, verdict: .prunedWithGroup, stage: nil,
                                               reason: "\(stepText(top)) was pruned at screening and a smaller value cannot do better",
                                               objective: nil, main: nil, seedsRun: 0, failingSeeds: 0, shortfall: nil))
                } else if let s = smallestMeeting, m > s {
                    fates.append(CandidateFate(candidate: c, verdict: .notNeeded, stage: nil,
                                               reason: "\(stepText(candidate(group: g, step: s))) already meets every constraint",
                                               objective: nil, main: nil, seedsRun: 0, failingSeeds: 0, shortfall: nil))
                } else {
                    let by = largestMissing.map { candidate(group: g, step: $0) } ?? top
                    fates.append(CandidateFate(candidate: c, verdict: .impliedMiss, stage: nil,
                                               reason: "\(stepText(by)) misses, and this has less",
                                               objective: nil, main: nil, seedsRun: 0, failingSeeds: 0, shortfall: nil))
                }
            }
        }
        // Among equal objectives the most room wins: a design on the edge of a budget fails on
        // the next seeds, one with room does not. The space's order settles what is still tied.
        let meeting = fates.filter { $0.verdict == .meets }
        func rank(_ f: CandidateFate) -> (Double, Double, Int) {
            let objective: Double = f.objective ?? .infinity
            let room: Double = f.margin ?? -.infinity
            return (objective, -room, f.candidate)
        }
        let winner = meeting.min { rank($0) < rank($1) }?.candidate
        var nearest: Int? = nil
        if winner == nil {
            // Full-size evidence first; screening runs only when nothing reached full size.
            let ran = fates.filter { $0.stage == .full }
            let pool = ran.isEmpty ? fates.filter { $0.stage == .screen } : ran
            nearest = pool.min { ($0.shortfall ?? .infinity, $0.candidate) < ($1.shortfall ?? .infinity, $1.candidate) }?.candidate
        }
        // Pareto front over the full-size candidates that meet every constraint not on the main
        // figure (the trade-off it shows is the main figure's): nothing else has both a
        // lower-or-equal objective and a higher-or-equal main figure, one of them strictly.
        let others = constraints.filter { $0.metric != SearchSpace.mainFigure }
        let points = fates.filter { f in
            f.stage == .full && f.objective != nil && f.main != nil
                && (byCandidate[f.candidate] ?? []).filter { $0.stage == .full }.filter { run in
                    !others.allSatisfy { b in value(b.metric, run).map(b.holds) ?? false }
                }.count <= maxFailingSeeds
        }
        let front = points.filter { p in
            !points.contains { q in
                q.candidate != p.candidate && q.objective! <= p.objective! && q.main! >= p.main!
                    && (q.objective! < p.objective! || q.main! > p.main!)
            }
        }.sorted { ($0.objective!, $0.candidate) < ($1.objective!, $1.candidate) }.map(\.candidate)
        return SearchOutcome(fates: fates, winner: winner, nearestMiss: nearest, front: front,
                             screenRuns: runs.filter { $0.stage == .screen }.count, fullRuns: runs.filter { $0.stage == .full }.count)
    }
}
