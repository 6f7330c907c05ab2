import Foundation
import Testing
@testable import SyncLab

/// `Scenarios/scenario.schema.json` lets editors check scenario files; these tests keep it
/// honest against the loader, both ways:
///
/// - every key the schema lists under `properties` at an object is a key the loader accepts
///   there, and every key the loader accepts is in the schema. The loader's keys come from a
///   `KeyTrace` over the default scenario and one variant per `oneOf` alternative of the schema
///   (each distribution kind at each distribution, each plug-in form, each budget and cost form),
///   generated from the schema itself, so a key added on either side shows up here;
/// - the shipped scenarios and every generated variant are valid under the schema, and every
///   generated variant loads.
@Suite struct ScenarioSchemaTests {
    static func schema() throws -> JSONValue {
        let text = try String(contentsOfFile: ScenarioFixtures.packageRoot + "/Scenarios/scenario.schema.json", encoding: .utf8)
        return try JSONParser.parse(text)
    }

    /// The committed file is generated output: the plug-ins' fragments over ScenarioSchema+Base.swift.
    @Test func committedSchemaIsTheGeneratedOne() throws {
        let committed = try String(contentsOfFile: ScenarioFixtures.packageRoot + "/Scenarios/scenario.schema.json", encoding: .utf8)
        let generated = ScenarioSchema.text(for: .builtIn)
        guard committed != generated else { return }
        let old = committed.split(separator: "\n", omittingEmptySubsequences: false)
        let new = generated.split(separator: "\n", omittingEmptySubsequences: false)
        let line = zip(old, new).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(old.count, new.count)
        let committedLine = line < old.count ? String(old[line]) : "(end of file)"
        let generatedLine = line < new.count ? String(new[line]) : "(end of file)"
        Issue.record("""
            Scenarios/scenario.schema.json is not the schema the plug-in registry generates; first difference at line \(line + 1):
              committed: \(committedLine)
              generated: \(generatedLine)
            Regenerate it with 'make schema' (or 'swift run synclab schema --out Scenarios/scenario.schema.json') and commit it.
            """)
    }

    @Test func schemaIsDraft202012() throws {
        let schema = try Self.schema()
        #expect(schema["$schema"] == .string("https://json-schema.org/draft/2020-12/schema"))
        #expect(schema["additionalProperties"] == .bool(false))
    }

    @Test func shippedScenariosAreValidUnderTheSchema() throws {
        let validator = MiniSchema(root: try Self.schema())
        for name in ["v115-pausing.json", "v115-uptime.json"] {
            let text = try String(contentsOfFile: ScenarioFixtures.shippedPath(name), encoding: .utf8)
            #expect(validator.errors(try JSONParser.parse(text)) == [], "\(name)")
        }
    }

    @Test func schemaRejectsWhatTheLoaderRejects() throws {
        let validator = MiniSchema(root: try Self.schema())
        let bad: [(String, String)] = [
            (#"{"duration": "5 sec"}"#, "duration: does not match"),
            (#"{"metrics": {"sampleEvry": "5s"}}"#, "metrics: unknown key 'sampleEvry'"),
            (#"{"population": {"lockShare": 1.5}}"#, "population.lockShare: above the maximum 1"),
            (#"{"budgets": [{"name": "b", "metric": "bareShare", "max": 1, "min": 0}]}"#, "budgets[0]: matches 0 of the oneOf alternatives"),
        ]
        for (override, expected) in bad {
            let value = JSONValue.merging(base: try ScenarioFixtures.shipped(), override: try JSONParser.parse(override))
            let errors = validator.errors(value)
            #expect(errors.contains { $0.hasPrefix(expected) }, "\(override): \(errors)")
            #expect(ScenarioFixtures.error(loading: value.serialized()) != nil)
        }
    }

    @Test func schemaKeysAreExactlyTheLoaderKeys() throws {
        let schema = try Self.schema()
        let walker = SchemaWalker(root: schema)
        var schemaKeys: [String: Set<String>] = [:]
        var sites: [(path: String, alternatives: [JSONValue])] = []
        walker.collect(schema, path: "", keys: &schemaKeys, sites: &sites)
        #expect(sites.count > 20)

        let validator = MiniSchema(root: schema)
        let trace = KeyTrace()
        // Objects whose required keys sit beside a oneOf site need those siblings in the base,
        // since a variant sets one key at a time.
        // 5,000 players: the variants test keys, and a shelf life of 1 s at the shipped fleet's
        // 170,000 would be refused for its size.
        let siblings = #"{"population": {"players": 5000}, "devices": {"reboots": {"every": "1d"}, "appKills": {"every": "1d"}, "#
            + #""wallClockChanges": {"every": "1d", "jump": "1h"}, "tampering": {"share": 0.1, "advance": "1m"}, "#
            + #""wallClockSync": {"wander": {"step": "10m", "sigmaPpb": 5}}}}"#
        let base = JSONValue.merging(base: try ScenarioFixtures.shipped(), override: try JSONParser.parse(siblings))
        _ = try ScenarioLoader().load(text: base.serialized(), file: "base.json", trace: trace)
        var variants = 0
        for site in sites {
            for alternative in site.alternatives {
                let value = walker.generate(alternative)
                // Sites inside a link's two-state channel need the channel's other keys.
                let channel: JSONValue = ["kind": "gilbert-elliott", "goodToBadPerSecond": 0.05, "badToGoodPerSecond": 0.3,
                                          "bad": ["uplink": "1s", "downlink": "1s"]]
                // Likewise a link's loss, connection and radio models' other keys.
                let linkModels: [(String, JSONValue)] = [
                    ("network.profiles[].correlation", channel),
                    ("network.profiles[].loss", ["kind": "tcp-retransmit", "rate": 0.01]),
                    ("network.profiles[].connection", ["kind": "keep-alive"]),
                    ("network.profiles[].radio", ["kind": "rrc", "promotion": "260ms", "tail": "11.6s"]),
                ]
                let siteBase = linkModels.first { site.path.hasPrefix($0.0 + ".") }
                    .map { SchemaWalker.setting($0.1, at: $0.0, in: base) } ?? base
                var variant = SchemaWalker.setting(value, at: site.path, in: siteBase)
                // The original plan's distributions sit beside the design's required kind.
                if site.path.hasPrefix("server.design.") {
                    variant = SchemaWalker.setting(.string("database-per-position"), at: "server.design.kind", in: variant)
                }
                // A time endpoint's service time sits beside its required kind.
                if site.path.hasPrefix("client.probeTarget.") {
                    variant = SchemaWalker.setting(.string("time-endpoint"), at: "client.probeTarget.kind", in: variant)
                }
                // The plan refuses the store-file API's fleet and pool, which v115-pausing sets.
                if site.path.hasPrefix("server.design") {
                    variant = SchemaWalker.setting(.null, at: "server.fleet", in: variant)
                    variant = SchemaWalker.setting(.null, at: "server.workers", in: variant)
                }
                // Offsets given outright come one per server: the walker's one-element list fits a fleet of one.
                if site.path.hasPrefix("server.fleet.clockOffsets") {
                    variant = SchemaWalker.setting(1, at: "server.fleet.servers", in: variant)
                }
                // A trace-driven link replaces the first profile, preset and all.
                if site.path.hasPrefix("network.profiles[].linkTrace") {
                    let traced: JSONValue = ["name": "traced", "share": 0.5, "linkTrace": [
                        "uplink": ["trace": "traces/synthetic-link.up"], "downlink": ["trace": "traces/synthetic-link.down"]]]
                    variant = SchemaWalker.setting(value, at: site.path, in: SchemaWalker.setting(traced, at: "network.profiles[]", in: siteBase))
                }
                // Replaying in order needs a latency trace among the profile's delays.
                if site.path == "network.profiles[].correlation" && value.serialized(indent: 0).contains("replay") {
                    let trace: JSONValue = ["trace": "traces/lte-sample.csv", "column": "uplink_ms"]
                    variant = SchemaWalker.setting(trace, at: "network.profiles[].uplink", in: variant)
                }
                #expect(validator.errors(variant) == [], "\(site.path) = \(value.serialized(indent: 0))")
                do {
                    // In Scenarios/, so a latency trace's example path resolves like a shipped scenario's.
                    _ = try ScenarioLoader().load(text: variant.serialized(), file: ScenarioFixtures.packageRoot + "/Scenarios/variant.json", trace: trace)
                } catch {
                    Issue.record("\(site.path) = \(value.serialized(indent: 0)): \(error)")
                }
                variants += 1
            }
        }
        // A trace-driven link has no alternatives of its own: one variant reads all its keys.
        let traced: JSONValue = ["name": "traced", "share": 0.5, "linkTrace": [
            "uplink": ["trace": "traces/synthetic-link.up"], "downlink": ["trace": "traces/synthetic-link.down"], "baseDelay": "20ms"]]
        let tracedVariant = SchemaWalker.setting(traced, at: "network.profiles[]", in: base)
        #expect(validator.errors(tracedVariant) == [])
        _ = try ScenarioLoader().load(text: tracedVariant.serialized(), file: ScenarioFixtures.packageRoot + "/Scenarios/variant.json", trace: trace)
        #expect(variants > 60)
        let loaderKeys = trace.keys.mapValues(Set.init)
        for path in Set(schemaKeys.keys).union(loaderKeys.keys).sorted() {
            let inSchema = schemaKeys[path] ?? []
            let inLoader = loaderKeys[path] ?? []
            #expect(inSchema.subtracting(inLoader).isEmpty, "'\(path)': in the schema but not accepted by the loader: \(inSchema.subtracting(inLoader).sorted())")
            #expect(inLoader.subtracting(inSchema).isEmpty, "'\(path)': accepted by the loader but not in the schema: \(inLoader.subtracting(inSchema).sorted())")
        }
        // Spot checks that both sides saw the deep corners.
        #expect(schemaKeys["network.profiles[].uplink"]?.isSuperset(of: ["kind", "median", "sigma", "scale", "shape", "samples"]) == true)
        #expect(loaderKeys["client.tick.clock"] == ["kind", "resolution"])
        #expect(loaderKeys[""]?.contains("$schema") == true && loaderKeys[""]?.contains("extends") == true)
    }
}

/// Walks a JSON Schema: the keys it lists per instance path, its `oneOf` sites, and a sample
/// instance of any subschema (from `const`, `enum`, `examples`, or all properties).
struct SchemaWalker {
    let root: JSONValue

    func resolve(_ schema: JSONValue) -> JSONValue {
        guard case .string(let ref)? = schema["$ref"] else { return schema }
        let name = String(ref.dropFirst("#/$defs/".count))
        return root["$defs"]?[name] ?? .null
    }

    /// Records, per instance path ("network.profiles[].uplink"), the keys listed under
    /// `properties`, and every `oneOf` with its instance path.
    func collect(_ schema: JSONValue, path: String, keys: inout [String: Set<String>],
                 sites: inout [(path: String, alternatives: [JSONValue])]) {
        let schema = resolve(schema)
        if case .object(let properties)? = schema["properties"] {
            for member in properties {
                keys[path, default: []].insert(member.key)
                collect(member.value, path: path.isEmpty ? member.key : path + "." + member.key, keys: &keys, sites: &sites)
            }
        }
        if let items = schema["items"] { collect(items, path: path + "[]", keys: &keys, sites: &sites) }
        if let then = schema["then"] { collect(then, path: path, keys: &keys, sites: &sites) }
        for combinator in ["oneOf", "anyOf", "allOf"] {
            guard case .array(let alternatives)? = schema[combinator] else { continue }
            if combinator == "oneOf" { sites.append((path, alternatives)) }
            for alternative in alternatives { collect(alternative, path: path, keys: &keys, sites: &sites) }
        }
    }

    /// A sample instance: const, first enum value, first example, first alternative, or an
    /// object with every property.
    func generate(_ schema: JSONValue) -> JSONValue {
        let schema = resolve(schema)
        if let value = schema["const"] { return value }
        if case .array(let values)? = schema["enum"], let first = values.first { return first }
        if case .array(let values)? = schema["examples"], let first = values.first { return first }
        if case .array(let alternatives)? = schema["oneOf"], let first = alternatives.first { return generate(first) }
        switch schema["type"] {
        case .string("object")?:
            guard case .object(let properties)? = schema["properties"] else { return .object([]) }
            return .object(properties.map { JSONMember(key: $0.key, value: generate($0.value)) })
        case .string("array")?:
            return .array([generate(schema["items"] ?? .null)])
        case .string("boolean")?: return .bool(true)
        case .string("integer")?, .string("number")?: return .number(1, literal: "1")
        case .string("null")?: return .null
        default: return .string("x")
        }
    }

    /// `base` with `value` at `path` ("a.b[].c": arrays at index 0), creating what is missing.
    static func setting(_ value: JSONValue, at path: String, in base: JSONValue) -> JSONValue {
        var steps: [(key: String, array: Bool)] = []
        for part in path.split(separator: ".") {
            let isArray = part.hasSuffix("[]")
            steps.append((String(isArray ? part.dropLast(2) : part), isArray))
        }
        return set(value, steps[...], in: base)
    }

    private static func set(_ value: JSONValue, _ steps: ArraySlice<(key: String, array: Bool)>, in node: JSONValue) -> JSONValue {
        guard let step = steps.first else { return value }
        var members: [JSONMember] = []
        if case .object(let existing) = node { members = existing }
        let index = members.firstIndex(where: { $0.key == step.key })
        let current = index.map { members[$0].value } ?? .null
        let updated: JSONValue
        if step.array {
            var elements: [JSONValue] = []
            if case .array(let existing) = current { elements = existing }
            let first = elements.first ?? .null
            let element = set(value, steps.dropFirst(), in: first)
            if elements.isEmpty { elements = [element] } else { elements[0] = element }
            updated = .array(elements)
        } else {
            updated = set(value, steps.dropFirst(), in: current)
        }
        if let index { members[index].value = updated } else { members.append(JSONMember(key: step.key, value: updated)) }
        return .object(members)
    }
}

/// A JSON Schema draft 2020-12 validator for the keywords the scenario schema uses; any other
/// keyword is reported, so the schema cannot grow a rule this check silently ignores.
struct MiniSchema {
    let root: JSONValue
    /// Each pattern compiled once: compiling them anew took a third of the mutation test's time.
    let patterns = PatternCache()
    static let annotations: Set<String> = ["$schema", "$id", "$defs", "title", "description", "examples"]
    static let keywords: Set<String> = ["$ref", "type", "const", "enum", "properties", "required", "additionalProperties",
                                        "items", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum",
                                        "maximum", "exclusiveMinimum", "oneOf", "anyOf", "allOf", "not", "if", "then"]

    /// Problems with `instance`, each "path: what" ("" for none).
    func errors(_ instance: JSONValue) -> [String] { errors(instance, root, path: "") }

    func errors(_ instance: JSONValue, _ schema: JSONValue, path: String) -> [String] {
        guard case .object(let rules) = schema else { return ["\(path): schema is not an object"] }
        var out: [String] = []
        let here = path.isEmpty ? "(root)" : path
        for rule in rules where !MiniSchema.keywords.contains(rule.key) && !MiniSchema.annotations.contains(rule.key) {
            out.append("\(here): unsupported keyword \(rule.key)")
        }
        if case .string(let ref)? = schema["$ref"] {
            out += errors(instance, root["$defs"]?[String(ref.dropFirst("#/$defs/".count))] ?? .null, path: path)
        }
        if case .string(let type)? = schema["type"], !MiniSchema.has(type, instance) { out.append("\(here): expected \(type)") }
        if case .array(let types)? = schema["type"] {
            let names = types.compactMap { t -> String? in if case .string(let name) = t { return name } else { return nil } }
            if !names.contains(where: { MiniSchema.has($0, instance) }) { out.append("\(here): expected \(names.joined(separator: " or "))") }
        }
        if let value = schema["const"], !MiniSchema.same(value, instance) { out.append("\(here): expected \(value.serialized(indent: 0))") }
        if case .array(let values)? = schema["enum"], !values.contains(where: { MiniSchema.same($0, instance) }) {
            out.append("\(here): not one of the allowed values")
        }
        if case .object(let members) = instance {
            let properties: [JSONMember]
            if case .object(let p)? = schema["properties"] { properties = p } else { properties = [] }
            for member in members {
                let childPath = path.isEmpty ? member.key : path + "." + member.key
                if let sub = properties.first(where: { $0.key == member.key }) {
                    out += errors(member.value, sub.value, path: childPath)
                } else if schema["additionalProperties"] == .bool(false) {
                    out.append("\(here): unknown key '\(member.key)'")
                }
            }
            if case .array(let required)? = schema["required"] {
                for case .string(let key) in required where instance[key] == nil { out.append("\(here): missing '\(key)'") }
            }
        }
        if case .array(let elements) = instance {
            if let items = schema["items"] {
                for (i, e) in elements.enumerated() { out += errors(e, items, path: "\(path)[\(i)]") }
            }
            if case .number(let n, _)? = schema["minItems"], Double(elements.count) < n { out.append("\(here): fewer than \(Int(n)) items") }
            if case .number(let n, _)? = schema["maxItems"], Double(elements.count) > n { out.append("\(here): more than \(Int(n)) items") }
        }
        if case .string(let text) = instance {
            if case .number(let n, _)? = schema["minLength"], Double(text.count) < n { out.append("\(here): shorter than \(Int(n))") }
            if case .number(let n, _)? = schema["maxLength"], Double(text.count) > n { out.append("\(here): longer than \(Int(n))") }
            if case .string(let pattern)? = schema["pattern"] {
                let regex = patterns.regex(pattern)
                let range = NSRange(text.startIndex..., in: text)
                if regex?.firstMatch(in: text, range: range) == nil { out.append("\(here): does not match \(pattern)") }
            }
        }
        if case .number(let x, _) = instance {
            if case .number(let n, _)? = schema["minimum"], x < n { out.append("\(here): below the minimum \(n)") }
            if case .number(let n, let literal)? = schema["maximum"], x > n { out.append("\(here): above the maximum \(literal)") }
            if case .number(let n, _)? = schema["exclusiveMinimum"], x <= n { out.append("\(here): not above \(n)") }
        }
        if case .array(let all)? = schema["allOf"] { for s in all { out += errors(instance, s, path: path) } }
        if case .array(let any)? = schema["anyOf"], !any.contains(where: { errors(instance, $0, path: path).isEmpty }) {
            out.append("\(here): matches none of the anyOf alternatives")
        }
        if case .array(let one)? = schema["oneOf"] {
            let matching = one.filter { errors(instance, $0, path: path).isEmpty }.count
            if matching != 1 { out.append("\(here): matches \(matching) of the oneOf alternatives") }
        }
        if let not = schema["not"], errors(instance, not, path: path).isEmpty { out.append("\(here): matches a 'not' schema") }
        if let condition = schema["if"], errors(instance, condition, path: path).isEmpty, let then = schema["then"] {
            out += errors(instance, then, path: path)
        }
        return out
    }

    static func has(_ type: String, _ value: JSONValue) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null), ("number", .number):
            return true
        case ("integer", .number(let x, _)):
            return x == x.rounded()
        default:
            return false
        }
    }

    /// JSON equality with numbers compared by value (1 and 1.0 are the same number).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x, _), .number(let y, _)): return x == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { m in y.contains { $0.key == m.key && same($0.value, m.value) } }
        default: return a == b
        }
    }
}

/// Compiled `pattern`s by their text (nil for one that does not compile).
final class PatternCache: @unchecked Sendable {
    private var compiled: [String: NSRegularExpression?] = [:]
    private let lock = NSLock()

    func regex(_ pattern: String) -> NSRegularExpression? {
        lock.withLock {
            if let known = compiled[pattern] { return known }
            let regex = try? NSRegularExpression(pattern: pattern)
            compiled[pattern] = regex
            return regex
        }
    }
}
