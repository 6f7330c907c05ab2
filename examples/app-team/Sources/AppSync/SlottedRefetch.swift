import SyncLab

/// The app's refetch policy: once in every `every` of server time, at a random point of the slot.
///
/// The seeds refetch 6–9 minutes after each load, so a player's fetches drift with its round
/// trips and the count per hour depends on them. This policy cuts estimated server time into
/// slots of `every` from the scenario's epoch and, after a load in one slot, refetches at a
/// uniformly drawn instant of the next: the load on the server is as even as the seeds', a
/// player fetches exactly once per slot, and two fetches are never more than two slots apart.
/// So a player who views throughout makes one request per `every`: a known answer for tests.
public struct SlottedRefetch: RefetchPolicy, Equatable {
    /// The slot length.
    public var every: Nanoseconds

    public init(every: Nanoseconds) {
        precondition(every > 0)
        self.every = every
    }

    public var name: String { Self.kind }

    public func refetchDue(after load: LoadContext, _ rng: inout RandomStream) -> ClockReading {
        let nextSlot = (floorDiv(load.serverTimeAtLoad, every) &+ 1) &* every
        let due = nextSlot &+ Int64(rng.below(UInt64(every)))
        return load.anchor.reading(atServerTime: due)
    }
}

extension SlottedRefetch: Plugin {
    public static let family = PluginFamily.refetch
    public static let kind = "slotted"
    public static let schema = SchemaFragment(
        "Once per slot of server time, at a random point of the next slot (an app team's policy).",
        properties: ["every": SchemaFragment.ref("positiveDuration", "The slot length, 10s to 1h.")],
        required: ["every"])

    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(every: try node.required("every").duration(in: 10 * Int64.second...Int64.hour))
    }

    public var summary: String { "once in every \(Units.formatDuration(every)) of server time, at a random point" }
}
