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
    public static func packets(bytes: Int) -> Int { max(1, bytes / packetBytes + (bytes % packetBytes > 0 ? 1 : 0)) }

    /// The longest a message may take to cross a trace, ns: a year, beyond the longest time-out
    /// (a day) and the longest run (30 days and as long a warm-up), so a message that needs
    /// longer never arrives in any run. A scenario whose known messages could need longer is
    /// refused (`crossingProblem`); any other crossing that would is cut to this, which keeps
    /// every time a crossing adds up far from the end of `Int64`.
    public static let maximumCrossing: Nanoseconds = 365 * 24 * 3_600 * .second

    /// Why a message of `bytes` may take too long to cross `trace`, or nil. Its slowest crossing
    /// is bounded by (⌊(k − 1) / n⌋ + 2) passes for k packets over n opportunities a pass (one to
    /// reach its first opportunity, and a pass per n packets); that bound, worked out with
    /// overflow-reporting arithmetic, must be at most `maximumCrossing`. The words say what the
    /// message is, as in "the store file (20000 bytes)".
    public static func crossingProblem(_ message: String, bytes: Int, trace: DeliveryOpportunities) -> String? {
        let k = packets(bytes: bytes), n = trace.milliseconds.count
        let passes = Int64((k - 1) / n + 2)
        let (slowest, overflow) = passes.multipliedReportingOverflow(by: trace.length)
        guard overflow || slowest > maximumCrossing else { return nil }
        return "\(message) takes \(k) packets, which need up to \(passes) passes of this trace to cross it "
            + "(\(n) opportunit\(n == 1 ? "y" : "ies") in each \(Units.formatDuration(trace.length)) pass), "
            + (overflow ? "" : "\(Units.formatDuration(slowest)), ")
            + "more than the \(Units.formatDuration(maximumCrossing)) a crossing may take; "
            + "use a trace with more opportunities or a smaller message"
    }

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

    /// `milliseconds` must be non-empty, non-decreasing, from 0, and end above 0 and at most
    /// at `MahimahiTrace.maximumLength`.
    public init(milliseconds: [Int64], file: String) {
        precondition(!milliseconds.isEmpty && milliseconds.first! >= 0 && milliseconds.last! > 0
                     && milliseconds.last! <= MahimahiTrace.maximumLength / .millisecond)
        self.milliseconds = milliseconds
        self.file = file
    }

    /// One pass of the trace, ns: its last time. The next pass starts there.
    public var length: Nanoseconds { milliseconds.last! * .millisecond }

    /// When the first and the last of `packets` packets entering at `entry` (ns on the trace's
    /// own clock, from 0) leave: at the next `packets` opportunities at or after `entry`, one each.
    /// A last packet that would leave more than `TraceLink.maximumCrossing` after `entry` leaves
    /// then (it arrives in no run).
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
        let first = (pass * length) + milliseconds[low] * .millisecond
        // The last packet is `packets - 1` opportunities after the first: whole passes, then the
        // rest, which may run into one more pass (`low` and the rest are each below n).
        let later = max(packets, 1) - 1
        var j = low + later % n, passes = Int64(later / n)
        if j >= n { j -= n; passes += 1 }
        let (span, overflow) = passes.multipliedReportingOverflow(by: length)
        guard !overflow, span <= TraceLink.maximumCrossing else { return (first, entry + TraceLink.maximumCrossing) }
        let last = (pass * length + span) + milliseconds[j] * .millisecond
        return (first, min(last, entry + TraceLink.maximumCrossing))
    }
}
