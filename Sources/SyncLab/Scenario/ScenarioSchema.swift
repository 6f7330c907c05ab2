/// The scenario file's JSON Schema (`Scenarios/scenario.schema.json`), generated: the shared
/// part is data (`ScenarioSchema.base`), each plug-in kind adds its own fragment.
///
/// `synclab schema --out Scenarios/scenario.schema.json` writes it; a test fails when the
/// committed file differs from `text(for: .builtIn)`. An app team that registers its own kinds
/// can generate a schema that knows them.
public enum ScenarioSchema {
    /// The schema for the kinds of `registry`.
    public static func value(for registry: PluginRegistry = .builtIn) -> JSONValue {
        var schema = baseValue
        var families = PluginFamily.all
        for family in registry.families where !families.contains(family) { families.append(family) }
        for family in families {
            let kinds = registry.kinds(of: family)
            switch family.form {
            case .choice:
                schema = appending([JSONMember(key: family.name, value: choice(family, kinds))], at: ["$defs"], in: schema)
            case .keyed(let section):
                let members = kinds.map { JSONMember(key: $0.kind, value: keyed($0.schema)) }
                schema = appending(members, at: ["properties", section, "properties"], in: schema)
            }
        }
        return schema
    }

    /// The schema as the text of `scenario.schema.json`: small values on one line, ending in a newline.
    public static func text(for registry: PluginRegistry = .builtIn) -> String {
        SchemaLayout(width: 120).text(value(for: registry), indent: 0, column: 0) + "\n"
    }

    /// A family chosen by `"kind"`: the bare names of kinds that need no parameter, then one
    /// object per kind with its `kind`, the family's shared keys and its own.
    static func choice(_ family: PluginFamily, _ kinds: [any Plugin.Type]) -> JSONValue {
        var alternatives: [JSONValue] = []
        let bare = kinds.filter { family.shared == nil && $0.schema.required.isEmpty }
        if !bare.isEmpty { alternatives.append(["enum": .array(bare.map { .string($0.kind) })]) }
        for kind in kinds {
            let own = kind.schema
            let shared = family.shared
            let properties = [JSONMember(key: "kind", value: ["const": .string(kind.kind)])]
                + (shared?.properties ?? []) + own.properties
            let required = ["kind"] + (shared?.required ?? []) + own.required
            alternatives.append(object(required: required, description: own.description, properties: properties))
        }
        return ["description": .string(family.about), "oneOf": .array(alternatives)]
    }

    /// A kind switched on under its own key: an object of its parameters.
    static func keyed(_ fragment: SchemaFragment) -> JSONValue {
        object(required: fragment.required, description: fragment.description, properties: fragment.properties)
    }

    static func object(required: [String], description: String, properties: [JSONMember]) -> JSONValue {
        var members: [JSONMember] = [JSONMember(key: "type", value: "object"), JSONMember(key: "additionalProperties", value: false)]
        if !required.isEmpty { members.append(JSONMember(key: "required", value: .array(required.map { .string($0) }))) }
        members.append(JSONMember(key: "description", value: .string(description)))
        members.append(JSONMember(key: "properties", value: .object(properties)))
        return .object(members)
    }

    /// `value` with `members` appended to the object at `path` (each step an object key).
    static func appending(_ members: [JSONMember], at path: ArraySlice<String>, in value: JSONValue) -> JSONValue {
        guard case .object(var existing) = value else { return value }
        guard let step = path.first else { return .object(existing + members) }
        if let i = existing.firstIndex(where: { $0.key == step }) {
            existing[i].value = appending(members, at: path.dropFirst(), in: existing[i].value)
        }
        return .object(existing)
    }

    /// The shared part, parsed once. Its text is ours: a mistake in it is a bug a test reports.
    static let baseValue: JSONValue = {
        do {
            return try JSONParser.parse(base)
        } catch {
            fatalError("ScenarioSchema.base is not JSON: \(error)")
        }
    }()
}

/// JSON text for people: a value that fits in `width` columns stays on one line
/// (`{ "type": "string" }`), a larger one gets a line per member or element.
struct SchemaLayout {
    var width: Int

    func text(_ value: JSONValue, indent: Int, column: Int) -> String {
        let flat = inline(value)
        guard column + flat.count > width else { return flat }
        let inner = String(repeating: " ", count: indent + 2)
        switch value {
        case .object(let members) where !members.isEmpty:
            let lines = members.map { m -> String in
                let key = quoted(m.key) + ": "
                return inner + key + text(m.value, indent: indent + 2, column: indent + 2 + key.count)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indent) + "}"
        case .array(let elements) where !elements.isEmpty:
            let lines = elements.map { inner + text($0, indent: indent + 2, column: indent + 2) }
            return "[\n" + lines.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indent) + "]"
        default:
            return flat
        }
    }

    func inline(_ value: JSONValue) -> String {
        switch value {
        case .object(let members):
            return members.isEmpty ? "{}" : "{ " + members.map { quoted($0.key) + ": " + inline($0.value) }.joined(separator: ", ") + " }"
        case .array(let elements):
            return "[" + elements.map(inline).joined(separator: ", ") + "]"
        default:
            return value.serialized(indent: 0)
        }
    }

    func quoted(_ text: String) -> String {
        var out = ""
        JSONValue.writeString(text, into: &out)
        return out
    }
}
