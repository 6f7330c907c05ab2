import SyncLabKernel

/// Latency traces replayed in their recorded order, per player: one sample per draw, whatever the
/// time between draws (a trace of consecutive requests' delays keeps their order).
///
/// A link whose uplink or downlink is a latency trace (`{"trace": …}`) otherwise draws its
/// samples uniformly, which keeps their distribution and loses their order. With `replay`,
/// each player walks the trace from its own starting sample, one sample per draw (a request's
/// uplink, a response's downlink), wrapping at the end. The start is keyed to the scenario seed
/// and the player's global index, the same for both directions modulo each trace's length, so
/// an uplink and a downlink trace of one recording (same length) stay in step. A direction that
/// is not a trace draws independently, as before.
///
/// Memory: each direction's half of `LinkMemory` holds its next sample's index plus one (0:
/// not started; traces hold at most a million samples).
public struct TraceReplayDelays: DelayProcess, Equatable {
    public static let family = PluginFamily.delayProcess
    public static let kind = "replay"
    public static let schema = SchemaFragment(
        "Latency traces replayed in recorded order, each player from its own starting sample; needs a trace uplink or downlink.")

    public init() {}
    public init(_ node: InputNode, in context: PluginContext) throws {}

    public var summary: String { "traces replayed in order" }
    /// Stepped per draw, not per second: the time between draws does not matter.
    public var memory: DelayMemory { .none }

    public func check(_ link: LinkProfile, at node: InputNode) throws {
        if case .empirical = link.uplink { return }
        if case .empirical = link.downlink { return }
        throw node.error("'\(Self.kind)' needs a latency trace ({\"trace\": …}) as the uplink or downlink of profile '\(link.name)'; "
            + "it has \(LinkProfile.shapeName(link.uplink)) and \(LinkProfile.shapeName(link.downlink))")
    }

    /// Where player `player`'s walk starts in a trace of `count` samples.
    public static func start(count: Int, player: UInt64, seed: UInt64) -> Int {
        var stream = RandomStream(seed: seed, purpose: purpose, entity: player)
        // One 64-bit draw for both directions; its bias modulo a million samples is below 1e-13.
        return Int(stream.next() % UInt64(count))
    }

    static let purpose = StreamPurpose("trace-replay")

    public func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, at now: SimTime, player: UInt64,
                      seed: UInt64, _ rng: inout RandomStream) -> Double {
        guard case .empirical(let samples) = link.distribution(direction) else {
            return link.distribution(direction).sample(&rng)
        }
        let stored = memory[direction]
        let i = stored == 0 ? Self.start(count: samples.count, player: player, seed: seed) : Int(stored) - 1
        memory[direction] = UInt32(i + 1 == samples.count ? 0 : i + 1) + 1
        return samples[i]
    }
}
