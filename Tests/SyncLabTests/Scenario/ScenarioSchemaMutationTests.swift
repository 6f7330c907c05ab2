import Foundation
import Testing
@testable import SyncLab

/// The schema and the loader agree on mutated scenarios: every shipped scenario, with its
/// `extends` chain merged, is mutated one place at a time (a value replaced by a wrong type, a
/// negative, zero, a huge number, a malformed duration, a bad name or date, an unknown key, a
/// missing key, an unknown figure or a share limit above 1), and each mutation is both checked
/// against `Scenarios/scenario.schema.json` and loaded.
///
/// - The schema never rejects what the loader accepts (an editor must not flag a good file).
/// - Where the loader rejects, the schema rejects too, except for rules a JSON Schema cannot
///   state: those that compare one value with another (shares summing to 1, a minimum above a
///   maximum, a release or an outage outside the run, a run longer than the limits allow), that
///   need the file system (a latency trace's file), that compute (the memory a run needs, a
///   distribution's mean) or that refer to another part of the file (a cost model's name in a
///   budget's figure). Each is listed in `inexpressible` by the words of the loader's message.
@Suite struct ScenarioSchemaMutationTests {
    /// Loader messages of rules the schema cannot express, each with why.
    static let inexpressible: [(words: String, why: String)] = [
        ("shares sum to", "a sum across array elements"),
        ("must sum to 1", "a sum across array elements"),
        ("duplicate link profile name", "a name unique across array elements"),
        ("duplicate cost model name", "a name unique across array elements"),
        ("must be at least min (", "compares two values (min ≤ max)"),
        ("inside the run", "compares with duration and warmup"),
        ("within the run", "compares with duration and warmup"),
        ("memory", "computed from players, positions and duration"),
        ("trace file", "needs the file system"),
        ("unknown figure 'costPerMonth.", "refers to the costs array"),
        ("unknown figure 'clientErrorMs.byLink.", "refers to the link profiles"),
        ("unknown figure 'boundCoverageShare.byLink.", "refers to the link profiles"),
        ("unknown figure 'deviceEvents.", "depends on device events being on"),
        ("can draw values up to", "computed from a distribution's parameters"),
        ("must have a mean between", "computed from a distribution's parameters"),
        ("must be at least", "a bound other than zero that differs by key inside a shared distribution or duration definition"),
        ("must be at most", "a bound other than zero that differs by key inside a shared distribution or duration definition"),
        ("must be between", "a bound other than zero that differs by key inside a shared distribution or duration definition"),
    ]

    static let scenarioNames = ["v115-pausing.json", "v115-uptime.json", "fix-aligned-ticks.json", "fix-continuous-clock.json",
                                "fix-rtt-half.json", "fix-subsecond-timestamp.json", "multistore-80.json", "original-plan.json",
                                "outage-backoff.json", "outage-fixed-retry.json", "recommended.json", "r1.json"]

    struct Tally {
        var mutations = 0, agree = 0
        var schemaTooStrict: [String] = []
        var schemaTooLax: [String] = []
        var inexpressible: [String: Int] = [:]
    }

    @Test func schemaAndLoaderAgreeOnMutations() throws {
        let validator = MiniSchema(root: try ScenarioSchemaTests.schema())
        var tally = Tally()
        // The same mutation of the same value at the same place (scenarios extend each other) is
        // tried once.
        var seen: Set<String> = []
        for name in Self.scenarioNames {
            var base = try ScenarioFixtures.shipped(name)
            base = Self.removing("extends", from: base)
            #expect(validator.errors(base) == [], "\(name) merged is not valid under the schema")
            for (path, mutated, original) in Self.mutations(of: base) {
                guard seen.insert(path + " @ " + original).inserted else { continue }
                tally.mutations += 1
                let schemaOK = validator.errors(mutated).isEmpty
                var loaderError: String? = nil
                do {
                    _ = try ScenarioLoader().load(text: mutated.serialized(), file: ScenarioFixtures.packageRoot + "/Scenarios/mutant.json")
                } catch {
                    loaderError = "\(error)"
                }
                let label = "\(name) \(path)"
                switch (schemaOK, loaderError) {
                case (true, nil), (false, .some): tally.agree += 1
                case (false, nil): tally.schemaTooStrict.append("\(label): \(validator.errors(mutated).prefix(2))")
                case (true, .some(let message)):
                    if let rule = Self.inexpressible.first(where: { message.contains($0.words) }) {
                        tally.inexpressible[rule.why, default: 0] += 1
                    } else {
                        tally.schemaTooLax.append("\(label): \(message)")
                    }
                }
            }
        }
        let unexpressed = tally.inexpressible.values.reduce(0, +)
        print("schema/validate agreement: \(tally.agree) of \(tally.mutations) mutations agree; "
            + "\(unexpressed) differ only on rules a schema cannot express "
            + tally.inexpressible.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        if ProcessInfo.processInfo.environment["SYNCLAB_MUTATION_REPORT"] != nil {
            for line in tally.schemaTooLax + tally.schemaTooStrict { print("DISAGREE " + String(line.prefix(260))) }
        }
        #expect(tally.mutations > 1000)
        #expect(tally.schemaTooStrict == [], "the schema rejects files the loader accepts")
        #expect(tally.schemaTooLax == [], "the loader rejects files the schema accepts, for a rule the schema could state")
    }

    /// Every shipped scenario names the schema in `$schema` by a path that resolves from its own
    /// folder, so editors check it without setup, and each file as written is valid under it.
    @Test func everyShippedScenarioNamesTheSchema() throws {
        let root = ScenarioFixtures.packageRoot
        let validator = MiniSchema(root: try ScenarioSchemaTests.schema())
        var files: [String] = []
        for folder in ["Scenarios", "Scenarios/examples", "examples/check", "bench"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: root + "/" + folder).sorted()
            where name.hasSuffix(".json") && !name.hasSuffix(".schema.json") {
                files.append(folder + "/" + name)
            }
        }
        #expect(files.count >= 17)
        for file in files {
            let value = try JSONParser.parse(try String(contentsOfFile: root + "/" + file, encoding: .utf8))
            guard case .string(let schema)? = value["$schema"] else {
                Issue.record("\(file) names no $schema")
                continue
            }
            let resolved = URL(fileURLWithPath: root + "/" + file).deletingLastPathComponent().appendingPathComponent(schema).standardized.path
            #expect(resolved == URL(fileURLWithPath: root + "/Scenarios/scenario.schema.json").standardized.path, "\(file): \(schema)")
            #expect(validator.errors(value) == [], "\(file)")
        }
    }

    /// The schema's figure pattern accepts every figure the loader lets a budget name (with
    /// device events on, several links and cost models) and refuses near misses.
    @Test func figurePatternMatchesTheLoadersFigures() throws {
        let schema = try ScenarioSchemaTests.schema()
        guard case .string(let pattern)? = schema["$defs"]?["figure"]?["pattern"] else {
            Issue.record("no $defs.figure.pattern")
            return
        }
        let regex = try NSRegularExpression(pattern: pattern)
        func matches(_ s: String) -> Bool { regex.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil }
        var keys: [String] = RunResult.seedFigureKeys
        for name in ["examples/devices-uptime.json", "recommended.json", "original-plan.json", "outage-backoff.json"] {
            keys += RunResult.figureKeys(for: try ScenarioLoader().load(path: ScenarioFixtures.shippedPath(name)))
        }
        #expect(keys.count > 100)
        for key in keys { #expect(matches(key), "\(key)") }
        for wrong in ["transitionGapMs.p98", "transitionGapMs", "noSuchFigure", "estimateErrorMs.byClock.sundial.p99",
                      "errorSourceMs.cosmicRays.sd", "clientErrorMs.byLink..p99", "", "bareShare "] {
            #expect(!matches(wrong), "\(wrong)")
        }
    }

    static func removing(_ key: String, from value: JSONValue) -> JSONValue {
        guard case .object(let members) = value else { return value }
        return .object(members.filter { $0.key != key })
    }

    /// Every mutation of `value`, one place at a time, with the key path it changes.
    /// Every mutation of `value`, one place at a time: what it changes, the mutant, and the
    /// original value at that place (serialized).
    static func mutations(of value: JSONValue) -> [(String, JSONValue, String)] {
        var out: [(String, JSONValue, String)] = []
        func add(_ label: String, _ mutant: JSONValue, _ original: JSONValue) { out.append((label, mutant, original.serialized(indent: 0))) }
        walk(value, path: []) { path, node in
            for replacement in replacements(for: node, key: path.last.flatMap { if case .key(let k) = $0 { k } else { nil } } ?? "") {
                add(describe(path) + " = " + replacement.serialized(indent: 0), set(replacement, at: path[...], in: value), node)
            }
            if case .object(let members) = node {
                add(describe(path) + " + unknown key", set(.object(members + [JSONMember(key: "zzz", value: .number(1, literal: "1"))]), at: path[...], in: value), node)
                for m in members {
                    add(describe(path) + " - " + m.key, set(.object(members.filter { $0.key != m.key }), at: path[...], in: value), node)
                }
            }
            if case .array(let elements) = node, !elements.isEmpty {
                add(describe(path) + " = []", set(.array([]), at: path[...], in: value), node)
                add(describe(path) + " + copy", set(.array(elements + [elements[0]]), at: path[...], in: value), node)
            }
        }
        // Figures a budget may or may not name, and share limits outside 0…1.
        if case .array(let budgets)? = value["budgets"], !budgets.isEmpty {
            let figures: [(String, Double)] = [("noSuchFigure", 1), ("transitionGapMs.p98", 1), ("transitionGapMs", 1),
                                               ("bareShare", 1.5), ("bareShare", -0.1), ("transitionsWithin500msShare", 2),
                                               ("clientErrorMs.p99", -5), ("errorSourceMs.uiTick.mean", -5),
                                               ("costPerMonth.nobody", 1), ("queueWaitMs.p99", 1), ("seedFailureRate", 1.2),
                                               ("clientErrorMs.byLink.wifi.p99", 1), ("wakeRecoveryMinutes.displayed.vsNoSleep", -1),
                                               ("boundCoverageShare.byLink.edge", 1.01), ("deviceEvents.reboots", 2)]
            for (figure, limit) in figures {
                let budget = JSONValue.object([JSONMember(key: "name", value: .string("mutant")),
                                               JSONMember(key: "metric", value: .string(figure)),
                                               JSONMember(key: "max", value: .number(limit, literal: "\(limit)"))])
                add("budgets + \(figure) max \(limit)", set(.array(budgets + [budget]), at: [.key("budgets")], in: value), value)
            }
        }
        return out
    }

    static func replacements(for node: JSONValue, key: String) -> [JSONValue] {
        func n(_ x: Double) -> JSONValue { .number(x, literal: "\(x)") }
        switch node {
        case .number:
            return [n(-1), n(0), n(0.5), n(1.5), n(1e12), .string("x"), .null, .bool(true)]
        case .string:
            var values: [JSONValue] = [.string(""), .string("x"), .string("5 sec"), .string("-5s"), .string("0s"), .string("a b"),
                                       .string(".x"), .string("1e3s"), n(5)]
            if key == "epoch" {
                values += ["2012-02-30T18:00:00Z", "2012-13-01T00:00:00Z", "1969-12-31T23:59:59Z", "2012-02-08T24:00:00Z",
                           "2200-01-01T00:00:00Z", "2012-02-08T18:00:00.1234567890Z", "2012-02-08T18:00:00"].map { .string($0) }
            }
            if key == "name" { values += ["a/b", "ü", "a:b", String(repeating: "n", count: 101)].map { .string($0) } }
            return values
        case .bool:
            return [.string("yes"), n(1)]
        case .object, .array:
            return [.string("x")]
        case .null:
            return [n(1)]
        }
    }

    enum Step { case key(String), index(Int) }

    static func describe(_ path: [Step]) -> String {
        var s = ""
        for step in path {
            switch step {
            case .key(let k): s += s.isEmpty ? k : "." + k
            case .index(let i): s += "[\(i)]"
            }
        }
        return s.isEmpty ? "(root)" : s
    }

    static func walk(_ node: JSONValue, path: [Step], _ visit: ([Step], JSONValue) -> Void) {
        visit(path, node)
        switch node {
        case .object(let members): for m in members { walk(m.value, path: path + [.key(m.key)], visit) }
        case .array(let elements): for (i, e) in elements.enumerated() { walk(e, path: path + [.index(i)], visit) }
        default: break
        }
    }

    static func set(_ value: JSONValue, at path: ArraySlice<Step>, in node: JSONValue) -> JSONValue {
        guard let step = path.first else { return value }
        switch (step, node) {
        case (.key(let k), .object(var members)):
            if let i = members.firstIndex(where: { $0.key == k }) {
                members[i].value = set(value, at: path.dropFirst(), in: members[i].value)
            } else {
                members.append(JSONMember(key: k, value: set(value, at: path.dropFirst(), in: .null)))
            }
            return .object(members)
        case (.index(let i), .array(var elements)) where i < elements.count:
            elements[i] = set(value, at: path.dropFirst(), in: elements[i])
            return .array(elements)
        default:
            return node
        }
    }
}
