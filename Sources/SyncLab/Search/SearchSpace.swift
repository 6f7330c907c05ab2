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

    /// A value as a person reads it: a string without quotes, anything else as compact JSON.
    public static func text(_ value: JSONValue) -> String {
        if case .string(let s) = value { return s }
        return value.serialized(indent: 0).split(separator: "\n").map { $0.trimmingPrefix(while: \.isWhitespace) }.joined()
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

    public static let maximumSeeds = 1000
    public static let maximumCandidates = 100_000
    /// The figure the Pareto front sets against the objective: the 500 ms requirement.
    public static let mainFigure = "transitionBest500msShare.p1"

    /// The knob bisected over, if any (at most one, always the search's innermost axis).
    public var monotoneKnob: Int? { knobs.firstIndex(where: \.monotone) }

    /// Reads a search file's text; `base` is resolved against the file's folder and loaded.
    public static func read(text: String, file: String, loader: ScenarioLoader = ScenarioLoader()) throws(InputError) -> (SearchSpace, Scenario) {
        do { return try parse(text: text, file: file, loader: loader) } catch { throw ScenarioLoader.inputError(error, file: file) }
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
            base = try loader.load(path: basePath)
        } catch {
            throw baseNode.error("the base scenario does not load: \(error)")
        }

        let knobsNode = try root.required("knobs")
        let knobNodes = try knobsNode.elements()
        guard !knobNodes.isEmpty else { throw knobsNode.error("give at least one knob: {\"key\": \"client.probes\", \"values\": [1, 2, 4]}") }
        var knobs: [SearchKnob] = []
        for node in knobNodes {
            try node.expectObject()
            let keyNode = try node.required("key")
            let key = try keyNode.string()
            guard let steps = InputKeyPath.steps(key), !steps.isEmpty else {
                throw keyNode.error("'\(key)' is not a key path like client.clock or network.profiles[0].failure")
            }
            guard steps.first != .key("extends"), key != "seed", !key.hasPrefix("$schema"), steps.first != .key("budgets") else {
                throw keyNode.error("'\(key)' cannot be a knob: seeds come from \"seeds\", constraints from \"constraints\", "
                    + "and extends is merged before a knob is set")
            }
            guard !knobs.contains(where: { $0.keyPath == key }) else { throw keyNode.error("the knob '\(key)' is given twice") }
            let valuesNode = try node.required("values")
            let values = try valuesNode.elements().map(\.value)
            guard !values.isEmpty else { throw valuesNode.error("a knob needs at least one value") }
            for (i, v) in values.enumerated() where values[..<i].contains(v) {
                throw try valuesNode.elements()[i].error("the value \(SearchKnob.text(v)) repeats")
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
            knobs.append(SearchKnob(keyPath: key, values: values, monotone: monotone))
        }
        let candidates = knobs.reduce(1) { $0 * $1.values.count }
        guard candidates <= maximumCandidates else { throw knobsNode.error("the space has \(candidates) candidates; at most \(maximumCandidates)") }

        let keys = RunResult.figureKeys(for: base)
        var constraints = base.budgets.filter { !$0.acrossSeeds }
        var given = false
        if let node = root.child("constraints") {
            constraints = try node.elements().map { try ScenarioLoader.budget($0, keys: keys) }
            if let across = constraints.firstIndex(where: \.acrossSeeds) {
                throw try node.elements()[across].error("a constraint across seeds is set with \"maxFailingSeeds\"")
            }
            given = true
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
            objective = .figure(objectiveKey)
        } else {
            let names = ["servers"] + keys
            let near = names.min { ScenarioLoader.editDistanceForHints($0, objectiveKey) < ScenarioLoader.editDistanceForHints($1, objectiveKey) }
            let hint = near.map { ScenarioLoader.editDistanceForHints($0, objectiveKey) <= 3 ? "; did you mean '\($0)'?" : "" } ?? ""
            throw objectiveNode.error("'\(objectiveKey)' is not a figure to minimise\(hint): give servers, a cost figure such as "
                + (base.costModels.first.map { "costPerMonth.\($0.name)" } ?? "costPerMonth.<model>") + ", peakRequestsPerSecond or requestsPerMonth")
        }

        let seedCount = try root.value("seeds", default: 1) { try $0.int(min: 1, max: maximumSeeds) }
        let maxFailing = try root.value("maxFailingSeeds", default: 0) { try $0.int(min: 0, max: maximumSeeds) }
        guard base.seed <= UInt64(Int64.max) - UInt64(seedCount - 1) else {
            throw try root.required("seeds").error("the base's seed \(base.seed) + \(seedCount - 1) passes 9223372036854775807")
        }
        var screen: SearchScreen? = nil
        if let node = root.child("screen") {
            try node.expectObject()
            let players = try node.required("players").int(min: 1, max: base.population.players)
            let slack = try node.value("slack", default: 0) { n -> Double in
                let v = try n.double()
                guard v >= 0, v <= 10 else { throw n.error("must be from 0 to 10; got \(Bounds.number(v))") }
                return v
            }
            try node.rejectUnknownKeys()
            screen = SearchScreen(players: players, slack: slack)
        }
        // A note for people, as a scenario's "description", and the schema an editor checks against.
        _ = try root.value("description", default: "") { try $0.string() }
        _ = try root.value("$schema", default: "") { try $0.string() }
        try root.rejectUnknownKeys()
        let space = SearchSpace(file: file, basePath: basePath, baseReference: reference, knobs: knobs, constraints: constraints,
                                constraintsGiven: given, objective: objective, seedCount: seedCount, maxFailingSeeds: maxFailing, screen: screen)
        return (space, base)
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

extension SearchPlan {
    /// The keys a scenario extending the base must set for candidate `c`: each knob's value, and
    /// where a knob's path enters an array, the whole array (JSON merging replaces arrays whole),
    /// taken from `base` (the base's merged JSON) with the knob set in it.
    public func settings(of c: Int, base: JSONValue) -> JSONValue {
        var merged = base
        for (knob, value) in zip(knobs, values(of: c)) {
            merged = ScenarioLoader.setting(value, at: knob.keyPath, in: merged) ?? merged
        }
        var out = JSONValue.object([])
        for knob in knobs {
            var path = ""
            var value: JSONValue? = merged
            for step in InputKeyPath.steps(knob.keyPath) ?? [] {
                guard case .key(let k) = step else { break }
                path = InputNode.path(path, appending: k)
                value = value?[k]
            }
            guard !path.isEmpty, let value else { continue }
            out = ScenarioLoader.setting(value, at: path, in: out) ?? out
        }
        return out
    }
}
