// A search file: which design to ship. It names a base scenario, the knobs an engineer may turn
// and the values each may take, the constraints a design must meet (budgets, in the scenario's
// budget format) and the objective to minimise. `synclab search` reads it like a scenario: every
// problem is an error naming the file and key path before anything runs (docs/search.md).

/// One knob: a key path a sweep accepts and the values it may take, in the file's order.
public struct SearchKnob: Sendable, Equatable {
    public var keyPath: String
    public var values: [JSONValue]
    /// Whether a later value never makes a constraint fail that an earlier value meets (more
    /// servers never raise queue waits), so the search may bisect over it.
    public var monotone: Bool

    public init(keyPath: String, values: [JSONValue], monotone: Bool = false) {
        self.keyPath = keyPath
        self.values = values
        self.monotone = monotone
    }

    /// A value as a person reads it: a string without quotes, anything else as compact JSON;
    /// control characters escaped (`\u{1B}`), since it is printed and written into reports.
    public static func text(_ value: JSONValue) -> String {
        if case .string(let s) = value {
            return InputError.escapingControls(s).split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n")
        }
        let compact = value.serialized(indent: 0).split(separator: "\n").map { $0.trimmingPrefix(while: \.isWhitespace) }.joined()
        return InputError.escapingControls(compact)
    }
}

private extension Substring {
    func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
        var s = self
        while let c = s.first, predicate(c) { s = s.dropFirst() }
        return s
    }
}

/// What the search minimises: a figure of the run (mean over seeds), or the fleet's servers.
public enum SearchObjective: Sendable, Equatable {
    /// `server.fleet.servers` of the candidate's scenario (1 without a fleet).
    case servers
    case figure(String)

    /// The column the objective is recorded in.
    public var key: String {
        switch self {
        case .servers: "servers"
        case .figure(let key): key
        }
    }
}

/// The cheap first stage: fewer players and one seed, pruning only clear misses.
public struct SearchScreen: Sendable, Equatable {
    /// Players of a screening run (the base's size is confirmed later).
    public var players: Int
    /// How far, relative to its limit, a constraint must be missed to prune at screening:
    /// 0.02 prunes a `min 0.99` share below 0.9702 (a limit of 0: absolute).
    public var slack: Double

    /// The widest slack: a miss by ten times a constraint's limit is no near miss.
    public static let maximumSlack = 10.0

    public init(players: Int, slack: Double) {
        self.players = players
        self.slack = slack
    }
}

/// A parsed, validated search file.
public struct SearchSpace: Sendable {
    /// The search file, as named on the command line.
    public var file: String
    /// The base scenario's path, relative to the working folder, and as the file writes it.
    public var basePath: String
    public var baseReference: String
    public var knobs: [SearchKnob]
    /// The constraints: the file's `constraints`, or the base scenario's budgets.
    public var constraints: [Budget]
    /// Whether the file wrote its own constraints (then `best.json` carries them as budgets).
    public var constraintsGiven: Bool
    public var objective: SearchObjective
    /// Seeds each confirmed candidate runs with: the base's seed S, S+1, …
    public var seedCount: Int
    /// How many of those seeds may fail a constraint (`synclab check --max-failures`).
    public var maxFailingSeeds: Int
    public var screen: SearchScreen?
    /// When a candidate's pass may be called before its last seed (nil: every seed runs).
    public var sequential: SequentialConfirmation? = nil

    public static let maximumSeeds = 1000
    /// Candidates a search may have: the product of its knobs' value counts.
    public static let maximumCandidates = 100_000
    /// Knobs a search file may give: each is set on every candidate it loads (more than 16 knobs
    /// of two values already pass `maximumCandidates`, so the rest could only fix one value each).
    public static let maximumKnobs = 100
    /// Constraints a search may judge each run by (given, or the base's budgets).
    public static let maximumConstraints = 1000
    /// Bytes a loaded candidate scenario takes besides its knob values: about 11 KB measured
    /// (10,000 candidates of a small scenario held 111 MB), rounded up.
    public static let candidateScenarioBytes = 16_384.0
    /// Bytes a knob value takes in a loaded scenario, per JSON scalar in it (a number of an
    /// empirical distribution is 8, with room for what holds it), plus its strings' bytes.
    public static let knobValueBytesPerScalar = 16.0
    /// The figure the Pareto front sets against the objective: the 500 ms requirement.
    public static let mainFigure = Figure.transitionBest500msShareP1.key

    /// The knob bisected over, if any (at most one, always the search's innermost axis).
    public var monotoneKnob: Int? { knobs.firstIndex(where: \.monotone) }

    /// Reads a search file's text; `base` is resolved against the file's folder and loaded.
    public static func read(text: String, file: String, loader: ScenarioLoader = ScenarioLoader()) throws(InputError) -> (SearchSpace, Scenario) {
        do { return try parse(text: text, file: file, loader: loader) } catch { throw ScenarioLoader.inputError(error, file: file) }
    }

    /// The text of the search file `path`, read as a scenario file is: only a regular file of at
    /// most `ScenarioLoader.maximumFileBytes`, in UTF-8, with at most one byte order mark.
    public static func text(ofFile path: String, loader: ScenarioLoader = ScenarioLoader()) throws(InputError) -> String {
        try ScenarioLoader.readText(path, loader.files)
    }

    /// Refuses a base scenario (a search's, or a search part's) that does not parse, quoting
    /// nothing of it when its name does not end in .json: it may be any readable file, as a
    /// file reached through `extends` may (docs/safety.md). Loading it then says the rest.
    public static func checkBaseFile(_ path: String, loader: ScenarioLoader = ScenarioLoader()) throws(InputError) {
        guard !path.hasSuffix(".json") else { return }
        _ = try ScenarioLoader.parseScenario(try ScenarioLoader.readText(path, loader.files), file: path, quoting: false)
    }

    private static func parse(text: String, file: String, loader: ScenarioLoader) throws -> (SearchSpace, Scenario) {
        let root = try InputNode.parse(text, file: file)
        try root.expectObject()
        let baseNode = try root.required("base")
        let reference = try baseNode.string()
        guard !reference.isEmpty else { throw baseNode.error("must name the base scenario file") }
        let basePath = reference.hasPrefix("/") ? reference : Self.join(Self.folder(of: file), reference)
        let base: Scenario
        do {
            try checkBaseFile(basePath, loader: loader)
            base = try loader.load(path: basePath)
        } catch {
            throw baseNode.error("the base scenario does not load: \(error)")
        }

        let knobsNode = try root.required("knobs")
        guard case .array(let knobValues) = knobsNode.value, knobValues.count <= maximumKnobs else {
            if case .array(let a) = knobsNode.value {
                throw knobsNode.error("has \(a.count) knobs; a search may have at most \(maximumKnobs)")
            }
            throw knobsNode.error("expected an array of knobs; got \(InputNode.describe(knobsNode.value))")
        }
        let knobNodes = try knobsNode.elements()
        guard !knobNodes.isEmpty else { throw knobsNode.error("give at least one knob: {\"key\": \"client.probes\", \"values\": [1, 2, 4]}") }
        var knobs: [SearchKnob] = []
        var seenKeys: [String: Int] = [:]
        var candidates = 1
        for (k, node) in knobNodes.enumerated() {
            try node.expectObject()
            let keyNode = try node.required("key")
            let key = try keyNode.string()
            // Compared and kept in one spelling: `client["probes"]` is `client.probes`.
            guard let canonical = InputKeyPath.canonical(key), let steps = InputKeyPath.steps(canonical) else {
                throw keyNode.error("'\(key)' is not a key path like client.clock or network.profiles[0].failure")
            }
            let shown = canonical == key ? "'\(key)'" : "'\(key)' (\(canonical))"
            if case .key(let first) = steps[0], first == "extends" || first == "seed" || first.hasPrefix("$schema") || first == "budgets" {
                throw keyNode.error("\(shown) cannot be a knob: seeds come from \"seeds\", constraints from \"constraints\", "
                    + "and extends is merged before a knob is set")
            }
            if canonical == "population.players" {
                throw keyNode.error("\(shown) cannot be a knob: every candidate is confirmed at the base's size "
                    + "(\(base.population.players) players), so the players are the question, not a design; "
                    + "search a base of each size, or sweep population.players")
            }
            if let earlier = seenKeys[canonical] {
                throw keyNode.error("the knob \(shown) is given twice (knobs[\(earlier)] sets it too)")
            }
            seenKeys[canonical] = k
            let valuesNode = try node.required("values")
            // The grid's size first: a million values is refused before any of them is compared.
            guard case .array(let values) = valuesNode.value else {
                throw valuesNode.error("expected an array of values; got \(InputNode.describe(valuesNode.value))")
            }
            guard !values.isEmpty else { throw valuesNode.error("a knob needs at least one value") }
            let (product, overflow) = candidates.multipliedReportingOverflow(by: values.count)
            guard !overflow, product <= maximumCandidates else {
                let counts = knobNodes[...k].map { n -> String in
                    if case .array(let a)? = n.value["values"] { return String(a.count) } else { return "?" }
                }
                let product = counts.count <= 6 ? counts.joined(separator: " × ") : (counts.prefix(3) + ["…", counts[k]]).joined(separator: " × ")
                let which = k == 0 ? "knobs[0] has \(counts[0]) values" : "knobs[0] to knobs[\(k)] have \(product) values"
                throw valuesNode.error("the space would have more than \(maximumCandidates) candidates (\(which)); "
                    + "a search may have at most \(maximumCandidates)")
            }
            candidates = product
            // Values a scenario reads alike are one value: 1, 1.0 and 1e0; {"a": 1, "b": 2} in any order.
            var seenValues: [String: Int] = [:]
            for (i, v) in values.enumerated() {
                let text = v.canonicalText
                if let earlier = seenValues[text] {
                    throw try valuesNode.elements()[i].error("the value \(SearchKnob.text(v)) repeats values[\(earlier)]"
                        + (v == values[earlier] ? "" : " (\(SearchKnob.text(values[earlier])))"))
                }
                seenValues[text] = i
            }
            let monotone = try node.value("monotone", default: false) { try $0.bool() }
            if monotone {
                let numbers = try valuesNode.elements().map { try $0.double() }
                for i in numbers.indices.dropFirst() where numbers[i] <= numbers[i - 1] {
                    throw try valuesNode.elements()[i].error("a monotone knob's values must increase; \(Bounds.number(numbers[i])) follows \(Bounds.number(numbers[i - 1]))")
                }
                if knobs.contains(where: \.monotone) { throw try node.required("monotone").error("at most one knob may be monotone") }
            }
            try node.rejectUnknownKeys()
            knobs.append(SearchKnob(keyPath: canonical, values: values, monotone: monotone))
        }

        let keys = RunResult.figureKeys(for: base)
        var constraints = base.budgets.filter { !$0.acrossSeeds }
        var given = false
        if let node = root.child("constraints") {
            if case .array(let a) = node.value, a.count > maximumConstraints {
                throw node.error("has \(a.count) constraints; a search may have at most \(maximumConstraints)")
            }
            constraints = try node.elements().map { try ScenarioLoader.budget($0, keys: keys) }
            if let across = constraints.firstIndex(where: \.acrossSeeds) {
                throw try node.elements()[across].error("a constraint across seeds is set with \"maxFailingSeeds\"")
            }
            given = true
        } else if constraints.count > maximumConstraints {
            throw baseNode.error("the base has \(constraints.count) budgets; a search may judge at most \(maximumConstraints) constraints")
        }
        guard !constraints.isEmpty else {
            throw (root.child("constraints") ?? root).error("no constraints: give \"constraints\" (budgets) or a base scenario with budgets")
        }

        let objectiveNode = try root.required("objective")
        let objectiveKey = try objectiveNode.string()
        let objective: SearchObjective
        if objectiveKey == "servers" {
            objective = .servers
        } else if keys.contains(objectiveKey) {
            if let reason = unmeasured(objectiveKey, by: base) {
                throw objectiveNode.error("'\(objectiveKey)' is never measured by the base scenario: \(reason); "
                    + "minimise a figure every candidate measures, such as servers or peakRequestsPerSecond")
            }
            objective = .figure(objectiveKey)
        } else {
            let names = ["servers"] + keys
            let near = names.min { ScenarioLoader.editDistanceForHints($0, objectiveKey) < ScenarioLoader.editDistanceForHints($1, objectiveKey) }
            let hint = near.map { ScenarioLoader.editDistanceForHints($0, objectiveKey) <= 3 ? "; did you mean '\($0)'?" : "" } ?? ""
            throw objectiveNode.error("'\(objectiveKey)' is not a figure to minimise\(hint): give servers, a cost figure such as "
                + (base.costModels.first.map { Figure.costPerMonth.key(for: $0.name) } ?? Figure.costPerMonth.key) + ", peakRequestsPerSecond or requestsPerMonth")
        }

        let seedCount = try root.value("seeds", default: 1) { try $0.int(min: 1, max: maximumSeeds) }
        let maxFailing = try root.value("maxFailingSeeds", default: 0) { try $0.int(min: 0, max: maximumSeeds) }
        // With every seed allowed to fail, a design that misses on all of them would "meet".
        guard maxFailing < seedCount else {
            throw try root.required("maxFailingSeeds").error("must be below \"seeds\" (\(seedCount)); got \(maxFailing), "
                + "which would let a design that misses on every seed meet the constraints")
        }
        guard base.seed <= UInt64(Int64.max) - UInt64(seedCount - 1) else {
            throw try root.required("seeds").error("the base's seed \(base.seed) + \(seedCount - 1) passes 9223372036854775807")
        }
        var screen: SearchScreen? = nil
        if let node = root.child("screen") {
            try node.expectObject()
            let players = try node.required("players").int(min: 1, max: base.population.players)
            let slack = try node.value("slack", default: 0) { n -> Double in
                let v = try n.double()
                guard v >= 0, v <= SearchScreen.maximumSlack else {
                    throw n.error("must be from 0 to \(Bounds.number(SearchScreen.maximumSlack)); got \(Bounds.number(v))")
                }
                return v
            }
            try node.rejectUnknownKeys()
            screen = SearchScreen(players: players, slack: slack)
        }
        var sequential: SequentialConfirmation? = nil
        if let node = root.child("stopWhenClear") {
            try node.expectObject()
            let least = try node.value("minimumSeeds", default: SequentialConfirmation.defaultMinimumSeeds) { try $0.int(min: 2, max: maximumSeeds) }
            guard least < seedCount else {
                throw try node.required("minimumSeeds").error("must be below \"seeds\" (\(seedCount)); got \(least), "
                    + "so no pass could be called before the last seed")
            }
            let confidence = try node.value("confidence", default: SequentialConfirmation.defaultConfidence) { n -> Double in
                let v = try n.double()
                guard v >= 0.5, v <= SequentialConfirmation.maximumConfidence else {
                    throw n.error("must be from 0.5 to \(NumberText.compact(SequentialConfirmation.maximumConfidence, 6)); got \(NumberText.compact(v, 12))")
                }
                return v
            }
            try node.rejectUnknownKeys()
            sequential = SequentialConfirmation(minimumSeeds: least, confidence: confidence)
        }
        // A note for people, as a scenario's "description", and the schema an editor checks against.
        _ = try root.value("description", default: "") { try $0.string() }
        _ = try root.value("$schema", default: "") { try $0.string() }
        try root.rejectUnknownKeys()
        var space = SearchSpace(file: file, basePath: basePath, baseReference: reference, knobs: knobs, constraints: constraints,
                                constraintsGiven: given, objective: objective, seedCount: seedCount, maxFailingSeeds: maxFailing, screen: screen)
        space.sequential = sequential
        return (space, base)
    }

    /// Why a run of `scenario` never measures figure `key` (it is measured only by a server model
    /// the scenario does not use), or nil when it may: the objective must be measured to compare.
    public static func unmeasured(_ key: String, by scenario: Scenario) -> String? {
        let server = scenario.server
        let servingModel = server.hasServingModel && server.design == nil
        let plan = [Figure.originalPlanEarlyShowShare, Figure.originalPlanEarlyVisibilityMsMax, Figure.originalPlanQueryWaitMsP99]
        if plan.contains(where: { $0.key == key }), server.design == nil {
            return "only the original plan's database measures it (server.design)"
        }
        if [Figure.queueWaitMsMean, Figure.queueWaitMsP99, Figure.queueWaitMsMax].contains(where: { $0.key == key }), !servingModel {
            return "only a serving model (server.workers, queueLimit or a fleet) measures it"
        }
        if key == Figure.queueLengthMax.key || key == Figure.outageFailures.key, !servingModel, server.design == nil {
            return "only a serving model (server.workers, queueLimit, outages or a fleet) or the original plan's database measures it"
        }
        return nil
    }

    /// Bytes the search would hold in its loaded candidate scenarios: each candidate's scenario
    /// (`candidateScenarioBytes`) and its knob values (`knobValueBytesPerScalar` per scalar),
    /// and a screening scenario per group too. Known before any candidate is loaded.
    public var heldScenarioBytes: Double {
        let plan = SearchPlan(self, baseSeed: 0)
        let count = Double(plan.candidates) + (screen == nil ? 0 : Double(plan.groups))
        var total = count * Self.candidateScenarioBytes
        for knob in knobs {
            let bytes = knob.values.reduce(0.0) { $0 + Self.heldBytes($1) }
            total += count / Double(knob.values.count) * bytes
        }
        return total
    }

    /// Why holding every candidate's scenario (`heldScenarioBytes`) would not fit in `limit`,
    /// worded as a run's refusal (`ScenarioLoader.memoryProblem`); nil when it fits. Known from
    /// the search file alone, so it is said before any candidate is loaded.
    public func memoryProblem(limit: MemoryLimit) -> String? {
        let held = heldScenarioBytes
        guard !(held <= limit.bytes) else { return nil }   // NaN is refused too
        let candidates = SearchPlan(self, baseSeed: 0).candidates
        let heaviest = heaviestKnob.map { ", the values of \($0.keyPath) about \(NumberText.grouped($0.scalars)) numbers and strings per candidate" } ?? ""
        return "the search would hold about \(ScenarioLoader.gib(held)) of scenarios before its first run "
            + "(\(candidates) candidates, each about \(Int(Self.candidateScenarioBytes / 1024)) KiB and its knob values\(heaviest)); "
            + "\(limit.described); use fewer candidates or smaller knob values"
    }

    /// The knob whose values weigh most in `heldScenarioBytes`, with their scalars per candidate.
    public var heaviestKnob: (keyPath: String, scalars: Double)? {
        knobs.map { k in (k.keyPath, k.values.reduce(0.0) { $0 + Self.scalars($1) } / Double(k.values.count)) }.max { $0.1 < $1.1 }
    }

    static func heldBytes(_ v: JSONValue) -> Double {
        switch v {
        case .string(let s): return knobValueBytesPerScalar + Double(s.utf8.count)
        case .array(let a): return knobValueBytesPerScalar + a.reduce(0) { $0 + heldBytes($1) }
        case .object(let m): return knobValueBytesPerScalar + m.reduce(0) { $0 + Double($1.key.utf8.count) + heldBytes($1.value) }
        default: return knobValueBytesPerScalar
        }
    }

    static func scalars(_ v: JSONValue) -> Double {
        switch v {
        case .array(let a): return a.reduce(0) { $0 + scalars($1) }
        case .object(let m): return m.reduce(0) { $0 + scalars($1.value) }
        default: return 1
        }
    }

    /// The folder part of a path ("" for a bare name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    static func join(_ folder: String, _ name: String) -> String {
        folder.isEmpty ? name : folder + "/" + name
    }

    /// The overrides that turn the base into candidate values `values` (one per knob).
    public func overrides(_ values: [JSONValue]) -> [ScenarioLoader.Override] {
        zip(knobs, values).map { ScenarioLoader.Override(keyPath: $0.keyPath, value: $1) }
    }
}
