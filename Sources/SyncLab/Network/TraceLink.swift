import SyncLabKernel

/// A link driven by measured packet-delivery traces (`MahimahiTrace`), crossed as Mahimahi's
/// link emulation crosses it: a message of k packets of 1500 bytes leaves at the trace's next k
/// delivery opportunities at or after it enters the link, one packet per opportunity, and then
/// takes the one-way base delay. The trace repeats when it ends.
///
/// Every player has a phone link of its own: it enters the trace at its own offset, uniform over
/// the trace's length and keyed to the scenario seed and the player's global index (the same
/// instant of the recording for its uplink and downlink, which were recorded together), so
/// players are not in lock step. Nothing is kept per player: the offset is worked out again at
/// every crossing, and a player's messages never overlap (a response leaves after its request
/// arrived), so none waits behind its own earlier ones.
///
/// In a scenario, a profile's `linkTrace` in place of `uplink`, `downlink` and `bandwidth`
/// (docs/links.md, "Trace-driven links").
public struct TraceLink: Sendable, Equatable {
    public var uplink: DeliveryOpportunities
    public var downlink: DeliveryOpportunities
    /// One-way delay added to every crossing (propagation beyond the radio link), ns.
    public var baseDelay: Nanoseconds

    /// Bytes a delivery opportunity carries: one Ethernet-sized packet, as in Mahimahi.
    public static let packetBytes = 1500

    public init(uplink: DeliveryOpportunities, downlink: DeliveryOpportunities, baseDelay: Nanoseconds) {
        self.uplink = uplink
        self.downlink = downlink
        self.baseDelay = baseDelay
    }

    /// The packets a message of `bytes` takes: at least one (a request without a body is headers).
    @inline(__always)
    public static func packets(bytes: Int) -> Int { max(1, (bytes + packetBytes - 1) / packetBytes) }

    /// Where player `player` enters the recording: ns, reduced modulo each direction's length.
    public static func offset(player: UInt64, seed: UInt64) -> UInt64 {
        var stream = RandomStream(seed: seed, purpose: purpose, entity: player)
        return stream.next() >> 1
    }

    static let purpose = StreamPurpose("link-trace")

    /// A message of `bytes` entering the link in `direction` at true time `at`: the delay until its
    /// first packet arrives (base delay included), and the further time until its last one does.
    public func crossing(_ direction: LinkDirection, bytes: Int, at: SimTime, player: UInt64, seed: UInt64)
        -> (first: Nanoseconds, rest: Nanoseconds) {
        let trace = direction == .uplink ? uplink : downlink
        let entry = max(0, at.ns) &+ Int64(Self.offset(player: player, seed: seed) % UInt64(trace.length))
        let exits = trace.exits(entering: entry, packets: Self.packets(bytes: bytes))
        return (exits.first - entry + baseDelay, exits.last - exits.first)
    }
}

/// One direction of a trace-driven link: its delivery opportunities, shared by every player
/// (an array is copied on write only, and nothing writes it).
public struct DeliveryOpportunities: Sendable, Equatable {
    /// Opportunity times within one pass of the trace, ms since its start, never decreasing.
    public let milliseconds: [Int64]
    /// The trace's file, as the scenario names it (for messages and summaries).
    public let file: String

    /// `milliseconds` must be non-empty, non-decreasing, from 0, and end above 0.
    public init(milliseconds: [Int64], file: String) {
        precondition(!milliseconds.isEmpty && milliseconds.first! >= 0 && milliseconds.last! > 0)
        self.milliseconds = milliseconds
        self.file = file
    }

    /// One pass of the trace, ns: its last time. The next pass starts there.
    public var length: Nanoseconds { milliseconds.last! * .millisecond }

    /// When the first and the last of `packets` packets entering at `entry` (ns on the trace's
    /// own clock, from 0) leave: at the next `packets` opportunities at or after `entry`, one each.
    public func exits(entering entry: Int64, packets: Int) -> (first: Int64, last: Int64) {
        let n = milliseconds.count
        // The pass whose opportunities run from just after its start to its end, inclusive: one
        // entering exactly as a pass ends meets that pass's last opportunities, at `length`.
        let pass = entry > 0 ? (entry - 1) / length : 0
        let within = entry - pass * length
        // The first opportunity at or after `within`: at most the last, which is `length` itself.
        let atOrAfterMs = (within + .millisecond - 1) / .millisecond
        var low = 0, high = n - 1
        while low < high {
            let mid = (low + high) / 2
            if milliseconds[mid] < atOrAfterMs { low = mid + 1 } else { high = mid }
        }
        let j = low + packets - 1
        let first = (pass * length) + milliseconds[low] * .millisecond
        let last = (pass + Int64(j / n)) * length + milliseconds[j % n] * .millisecond
        return (first, last)
    }
}
