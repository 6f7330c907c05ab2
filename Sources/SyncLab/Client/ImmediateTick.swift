import SyncLabKernel

/// A UI that recomputes at every instant: every instant is a tick.
///
/// Not a real app's timer: a reference for comparing with other simulators (the reference fleet
/// R1), where a refetch fires exactly when it falls due and a transition shows the instant the
/// displayed time reaches it, so no tick phase adds to any figure.
public struct ImmediateTick: TickPolicy {
    public init() {}
    public var name: String { "immediate" }
}

extension ImmediateTick: Plugin {
    public static let family = PluginFamily.tick
    public static let kind = "immediate"
    public static let schema = SchemaFragment("Every instant is a tick: a reference for comparing with other simulators, not a real app's timer.")
    public init(_ node: InputNode, in context: PluginContext) throws { self.init() }
    public var summary: String { "immediate" }
}
