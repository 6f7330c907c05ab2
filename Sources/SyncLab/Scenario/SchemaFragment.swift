/// A plug-in kind's part of the scenario's JSON Schema: what it is, and its parameters.
///
/// The generator (`ScenarioSchema`) wraps it: for a kind chosen by `"kind"` it adds the `kind`
/// key, `"additionalProperties": false` and, when no parameter is required, the bare name as an
/// alternative. Property schemas may refer to the shared definitions (`ref("positiveDuration")`)
/// or to another family (`ref(.clock)`).
public struct SchemaFragment: Sendable {
    /// One sentence on what the kind does, as editors show it.
    public var description: String
    /// Parameter name → JSON Schema, in the order editors list them.
    public var properties: [JSONMember]
    /// Parameters that must be given.
    public var required: [String]

    public init(_ description: String, properties: KeyValuePairs<String, JSONValue> = [:], required: [String] = []) {
        self.description = description
        self.properties = properties.map { JSONMember(key: $0.key, value: $0.value) }
        self.required = required
    }

    /// A reference to one of the schema's shared definitions ("duration", "positiveDuration",
    /// "durationDistribution", …), with a description of this use.
    public static func ref(_ definition: String, _ description: String? = nil, examples: [JSONValue] = []) -> JSONValue {
        var members = [JSONMember(key: "$ref", value: .string("#/$defs/" + definition))]
        if !examples.isEmpty { members.append(JSONMember(key: "examples", value: .array(examples))) }
        if let description { members.append(JSONMember(key: "description", value: .string(description))) }
        return .object(members)
    }

    /// A reference to a family's definition: a nested plug-in, like a timer tick's clock.
    public static func ref(_ family: PluginFamily) -> JSONValue { ref(family.name) }
}
