import SyncLabKernel

/// A one-shot timer set for the instant the estimated server time reaches the next transition,
/// so the UI flips exactly on the estimate (no tick phase added to the sync error).
///
/// The world already asks for "the first tick at or after the instant the measuring clock
/// reaches the next transition's reading" (`World.scheduleDisplay`); for this policy every
/// instant is a possible tick, so that instant itself is the tick. A due refetch likewise fires
/// at the instant it falls due.
///
/// Sampling: between two flips nothing on screen changes, so the item a position shows at t is
/// the item at the estimate at t. `lastTick(atOrBefore: t)` therefore returns t: the displayed
/// error of this policy is its estimate error. (A seconds countdown, if the UI has one, would
/// need its own timer; it is not modelled.)
public struct AlignedTick: TickPolicy {
    public init() {}
    public var name: String { Self.kind }
}

extension AlignedTick: Plugin {
    public static let family = PluginFamily.tick
    public static let kind = "aligned"
    public static let schema = SchemaFragment("A one-shot timer at each transition's estimated instant.")
    public init(_ node: InputNode, in context: PluginContext) throws { self.init() }
    public var summary: String { "one-shot timer at each transition's estimated instant (aligned)" }
}
