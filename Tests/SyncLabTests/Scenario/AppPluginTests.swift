import Testing
import SyncLab
import SyncLabKernel

// Written as an app team would, against the public API only (no @testable import): a refetch
// policy of its own, registered, named by kind in scenario JSON, and present in the schema
// generated from the registry.

/// A fixed wait after each load: an app team's refetch policy.
struct FixedDelayRefetch: RefetchPolicy, Plugin, Equatable {
    static let family = PluginFamily.refetch
    static let kind = "fixed-delay"
    static let schema = SchemaFragment(
        "A fixed wait after each load (an app team's policy).",
        properties: ["delay": SchemaFragment.ref("positiveDuration", "1s to 1h.")],
        required: ["delay"])

    var delay: Nanoseconds
    init(delay: Nanoseconds) { self.delay = delay }
    init(_ node: InputNode, in context: PluginContext) throws {
        delay = try node.required("delay").duration(in: Int64.second...Int64.hour)
    }

    var name: String { Self.kind }
    var summary: String { "fixed \(Units.formatDuration(delay)) after each load" }
    func refetchDue(after load: LoadContext, _ rng: inout RandomStream) -> ClockReading { load.loadedAt + delay }
}

@Suite struct AppPluginTests {
    static let registry: PluginRegistry = try! PluginRegistry.builtIn.adding(FixedDelayRefetch.self)

    static func scenarioText(refetch: String) throws -> String {
        try ScenarioFixtures.variant(#"{"client": {"refetch": "# + refetch + "}}")
    }

    @Test func loadsFromScenarioJSONByKindName() throws {
        let text = try Self.scenarioText(refetch: #"{"kind": "fixed-delay", "delay": "7m"}"#)
        let s = try ScenarioLoader(plugins: Self.registry).load(text: text, file: "app.json")
        #expect(s.client.refetch as? FixedDelayRefetch == FixedDelayRefetch(delay: 7 * .minute))
        #expect(FixedDelayRefetch(delay: 7 * .minute).summary == "fixed 7m after each load")
    }

    @Test func itsParametersAreCheckedByKeyPath() throws {
        let loader = ScenarioLoader(plugins: Self.registry)
        let short = try Self.scenarioText(refetch: #"{"kind": "fixed-delay", "delay": "10ms"}"#)
        #expect(throws: InputError(file: "app.json", keyPath: "client.refetch.delay",
                                   message: "must be at least 1s; got \"10ms\"")) {
            try loader.load(text: short, file: "app.json")
        }
        let missing = try Self.scenarioText(refetch: #""fixed-delay""#)
        #expect(throws: InputError(file: "app.json", keyPath: "client.refetch.delay", message: "missing required key")) {
            try loader.load(text: missing, file: "app.json")
        }
    }

    @Test func theBuiltInsDoNotKnowIt_andTheExtendedRegistryListsIt() throws {
        let text = try Self.scenarioText(refetch: #"{"kind": "fixed-delay", "delay": "7m"}"#)
        #expect(throws: InputError(file: "app.json", keyPath: "client.refetch.kind",
                                   message: "unknown refetch policy 'fixed-delay'; expected one of 'uniform-after-load', 'aligned-to-publication'")) {
            try ScenarioLoader().load(text: text, file: "app.json")
        }
        let typo = try Self.scenarioText(refetch: #""fixed-dealy""#)
        #expect(throws: InputError(file: "app.json", keyPath: "client.refetch",
                                   message: "unknown refetch policy 'fixed-dealy'; expected one of 'uniform-after-load', 'aligned-to-publication', 'fixed-delay' (did you mean 'fixed-delay'?)")) {
            try ScenarioLoader(plugins: Self.registry).load(text: typo, file: "app.json")
        }
    }

    @Test func appearsInTheGeneratedSchema() throws {
        let refetch = ScenarioSchema.value(for: Self.registry)["$defs"]?["refetch"]
        guard case .array(let alternatives)? = refetch?["oneOf"] else {
            Issue.record("no refetch alternatives in \(String(describing: refetch))")
            return
        }
        let expected: JSONValue = [
            "type": "object", "additionalProperties": false, "required": ["kind", "delay"],
            "description": "A fixed wait after each load (an app team's policy).",
            "properties": ["kind": ["const": "fixed-delay"],
                           "delay": ["$ref": "#/$defs/positiveDuration", "description": "1s to 1h."]],
        ]
        #expect(alternatives.last == expected)
        // It needs a parameter, so the bare name is not an alternative.
        #expect(alternatives.first == ["enum": ["aligned-to-publication"]])
        #expect(!ScenarioSchema.text(for: .builtIn).contains("fixed-delay"))
    }
}
