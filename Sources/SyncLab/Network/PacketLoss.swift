import SyncLabKernel

/// How a link loses packets and recovers them: a link profile's `loss`
/// (`{"kind": "tcp-retransmit", "rate": 0.01}`), absent by default.
///
/// A link's `failure` loses a whole request, noticed only at the time-out. Real links lose
/// single segments, which TCP sends again: a loss shows as a late response. A model says how late
/// a message of some segments arrives because of lost segments; its draws come from a stream of
/// their own, keyed to the player and the request, so switching it on moves no other draw.
public protocol PacketLoss: Plugin {
    /// Segments a message of `bytes` bytes takes (at least one: a request without a body still
    /// sends its headers).
    func segments(bytes: Int) -> Int
    /// The extra delay lost segments add to a message of `segments` segments on a connection
    /// whose smoothed round trip is `roundTrip` (ns): for its first segment (where a response's
    /// headers are) and for the whole message.
    func recoveryDelay(segments: Int, roundTrip: Double, _ rng: inout RandomStream) -> SegmentRecovery
}

/// Extra delay (ns) lost segments add to one message.
public struct SegmentRecovery: Sendable, Equatable {
    /// Until the first segment is in.
    public var first: Nanoseconds
    /// Until every segment is in.
    public var all: Nanoseconds

    public init(first: Nanoseconds = 0, all: Nanoseconds = 0) {
        self.first = first
        self.all = all
    }
}
