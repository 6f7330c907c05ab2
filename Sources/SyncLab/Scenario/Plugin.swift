import SyncLabKernel

/// A named alternative a scenario can select: a clock, an estimator, a tick, refetch or retry
/// policy, a server design, a price model or a device event.
///
/// The type owns everything about its kind: the family it belongs to, the name scenarios use,
/// how its parameters are read and checked, its JSON Schema fragment and how reports describe
/// it. Adding one is one file and one entry in a `PluginRegistry` (`PluginRegistry.builtIn` for
/// ours; `try PluginRegistry.builtIn.adding(MyEstimator.self)` for an app team's).
public protocol Plugin: Sendable {
    /// The role the kind plays; the registry checks that the type conforms to the role's protocol.
    static var family: PluginFamily { get }
    /// The name scenarios use: `"kind": "ntp"`, or the bare string `"ntp"`. Unique in its family.
    static var kind: String { get }
    /// The kind's parameters as JSON Schema, for the generated `scenario.schema.json`.
    static var schema: SchemaFragment { get }
    /// Reads and checks the parameters in `node` (the `kind` key is already read; a bare name
    /// gives an empty object). Throw `node.error(…)` (or a child's) so the message names the key
    /// path. Keys not asked for are refused after this returns.
    init(_ node: InputNode, in context: PluginContext) throws
    /// One line for reports, with its parameters: "every 5s until data arrives".
    var summary: String { get }
    /// Settings a report lists among the client design's options, or nil when `summary` says it
    /// all (the default).
    var settings: String? { get }
}

extension Plugin {
    public var settings: String? { nil }
}

/// What a plug-in may consult while it reads its parameters besides its own object: the
/// registry (to read a nested plug-in, like a timer tick's clock) and facts of the scenario
/// read before it.
public struct PluginContext: Sendable {
    /// The registry the scenario is loaded with; nested plug-ins come from it too.
    public var registry: PluginRegistry
    /// The measured duration of the run, for defaults and limits that depend on it (a
    /// context made outside a scenario assumes `Scenario`'s default, 3 h).
    public var runDuration: Nanoseconds

    public init(registry: PluginRegistry = .builtIn, runDuration: Nanoseconds = 3 * .hour) {
        self.registry = registry
        self.runDuration = runDuration
    }

    /// Reads a plug-in of `family` given as `"name"` or `{"kind": "name", …parameters}`.
    public func read<Role>(_ family: PluginFamily, from node: InputNode, as role: Role.Type = Role.self) throws -> Role {
        let made = try registry.read(family, from: node, in: self)
        // The registry only admits types that conform to their family's role protocol.
        guard let typed = made as? Role else {
            throw node.error("internal error: '\(type(of: made).kind)' is not a \(Role.self)")
        }
        return typed
    }
}
