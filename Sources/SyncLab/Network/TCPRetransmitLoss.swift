import SyncLabKernel

/// Segments lost independently and sent again by TCP: a retransmission time-out per RFC 6298,
/// doubled on each repeat and bounded, and fast retransmit (RFC 5681) where duplicate ACKs can
/// come back.
///
/// A message of b bytes is ceil(b / MSS) segments (at least one). Each is lost with `rate`, and
/// each copy sent again is lost with `rate` again, independently. A segment lost k times arrives
/// late by the sum of the k waits: the j-th wait (from 0) is the time-out RTO·2^j, bounded by
/// `maximumTimeout`; but a segment with at least three segments after it in the same message is
/// first sent again after one round trip, when the third duplicate ACK arrives (fast retransmit;
/// its later losses wait for the time-out, from RTO). The message is late by its latest
/// segment's delay: the recoveries overlap in time, the overlap with the rest of the transfer
/// is ignored (late by at most the message's own transfer time too much).
///
/// RTO: RFC 6298 sets it to max(1 s, SRTT + 4·RTTVAR), and after one round-trip sample R to
/// SRTT = R, RTTVAR = R/2, so 3R. A connection's SRTT settles near the link's mean round trip,
/// which we take for R, so RTO = max(`minimumTimeout`, 3 × mean round trip): 1 s on every link
/// whose mean round trip is under 333 ms. Per connection the timer state is not kept (a segment
/// of the next request starts from RTO again).
///
/// Simplifications: the three-way handshake's own segments are not lost; no tail-loss probe
/// (RFC 8985), so a lost last segment waits for the full time-out, as in RFC 6298 TCP;
/// a one-segment message never gets fast retransmit (no later segment, no duplicate ACK).
public struct TCPRetransmitLoss: PacketLoss, Equatable {
    public static let family = PluginFamily.packetLoss
    public static let kind = "tcp-retransmit"
    public static let schema = SchemaFragment(
        "Each TCP segment lost independently with `rate` and sent again after RFC 6298's time-out (doubling, bounded) "
            + "or by fast retransmit; a loss shows as a late response.",
        properties: [
            "rate": ["type": "number", "minimum": 0, "maximum": 0.5, "examples": [0.01],
                     "description": "Chance each segment (and each copy sent again) is lost: 0 to 0.5."],
            "segmentBytes": ["type": "integer", "minimum": 100, "maximum": 65535, "examples": [1460],
                             "description": "Maximum segment size, bytes (default 1460: a 1500-byte MTU less 40 bytes of IPv4 and TCP headers)."],
            "minimumTimeout": ["$ref": "#/$defs/positiveDuration",
                               "description": "Least retransmission time-out, RFC 6298's 1 s (default 1s; at most 10s)."],
            "maximumTimeout": ["$ref": "#/$defs/longDuration",
                               "description": "Bound of the doubled time-out: 60s (RFC 6298's least, the default) to 1h."],
        ],
        required: ["rate"])

    /// RFC 6298's least and initial time-out.
    public static let defaultMinimumTimeout: Nanoseconds = .second
    /// The least bound RFC 6298 allows (Linux uses 120 s).
    public static let defaultMaximumTimeout: Nanoseconds = 60 * .second
    /// A 1500-byte Ethernet or Wi-Fi MTU less 20 bytes of IPv4 and 20 of TCP header.
    public static let defaultSegmentBytes = 1460
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681's dupthresh).
    public static let duplicateAckThreshold = 3
    /// Losses of one segment counted at most: 30 doubled time-outs are far past any time-out.
    static let maximumLosses = 30

    public var rate: Double
    public var segmentBytes: Int
    public var minimumTimeout: Nanoseconds
    public var maximumTimeout: Nanoseconds

    public init(rate: Double, segmentBytes: Int = defaultSegmentBytes, minimumTimeout: Nanoseconds = defaultMinimumTimeout,
                maximumTimeout: Nanoseconds = defaultMaximumTimeout) {
        precondition(rate >= 0 && rate <= 0.5 && segmentBytes > 0 && minimumTimeout > 0 && maximumTimeout >= minimumTimeout)
        self.rate = rate
        self.segmentBytes = segmentBytes
        self.minimumTimeout = minimumTimeout
        self.maximumTimeout = maximumTimeout
    }

    public init(_ node: InputNode, in context: PluginContext) throws {
        let rateNode = try node.required("rate")
        let rate = try rateNode.probability()
        guard rate <= 0.5 else {
            throw rateNode.error("must be at most 0.5 (a link losing more than every other segment does not carry TCP); got \(Bounds.number(rate))")
        }
        let mss = try node.value("segmentBytes", default: Self.defaultSegmentBytes) { try $0.int(min: 100, max: 65535) }
        let least = try node.value("minimumTimeout", default: Self.defaultMinimumTimeout) {
            try $0.duration(in: Int64.millisecond...(10 * Int64.second))
        }
        let most = try node.value("maximumTimeout", default: Self.defaultMaximumTimeout) {
            try $0.duration(in: (60 * Int64.second)...Int64.hour)
        }
        self.init(rate: rate, segmentBytes: mss, minimumTimeout: least, maximumTimeout: most)
    }

    public var summary: String {
        "TCP segments lost at \(Bounds.number(rate * 100))%, MSS \(segmentBytes) B, "
            + "time-out from \(Units.formatDuration(minimumTimeout)) doubling to \(Units.formatDuration(maximumTimeout))"
    }

    public func segments(bytes: Int) -> Int { max(1, (bytes + segmentBytes - 1) / segmentBytes) }

    /// The first time-out on a connection whose smoothed round trip is `roundTrip` (ns):
    /// max(minimum, 3 × round trip) (RFC 6298 after one sample), within the bound.
    public func firstTimeout(roundTrip: Double) -> Nanoseconds {
        let threeRoundTrips = 3 * roundTrip
        guard threeRoundTrips < Double(maximumTimeout) else { return maximumTimeout }
        return max(minimumTimeout, Int64(threeRoundTrips.rounded(.up)))
    }

    /// The j-th time-out (from 0): first·2^j, bounded by `maximum`.
    public static func timeout(_ j: Int, first: Nanoseconds, maximum: Nanoseconds) -> Nanoseconds {
        j >= 62 - first.bitWidth + first.leadingZeroBitCount ? maximum : min(first << j, maximum)
    }

    /// How late a segment lost `losses` times arrives: the sum of its waits.
    public func segmentDelay(losses: Int, fastRetransmit: Bool, firstTimeout first: Nanoseconds, roundTrip: Nanoseconds) -> Nanoseconds {
        guard losses > 0 else { return 0 }
        var delay: Nanoseconds = 0
        var timeouts = 0
        for k in 0..<losses {
            if k == 0 && fastRetransmit {
                delay += roundTrip
            } else {
                delay += Self.timeout(timeouts, first: first, maximum: maximumTimeout)
                timeouts += 1
            }
        }
        return delay
    }

    /// The delays of a message whose segments are lost `losses[i]` times each (scripted
    /// patterns in tests; the world draws them in `recoveryDelay`).
    public func recovery(losses: [Int], roundTrip: Double) -> SegmentRecovery {
        let first = firstTimeout(roundTrip: roundTrip)
        let rtt = Int64(roundTrip.rounded(.up))
        var r = SegmentRecovery()
        for (i, k) in losses.enumerated() {
            let d = segmentDelay(losses: k, fastRetransmit: i + Self.duplicateAckThreshold < losses.count, firstTimeout: first, roundTrip: rtt)
            if i == 0 { r.first = d }
            r.all = max(r.all, d)
        }
        return r
    }

    public func recoveryDelay(segments: Int, roundTrip: Double, _ rng: inout RandomStream) -> SegmentRecovery {
        let first = firstTimeout(roundTrip: roundTrip)
        let rtt = Int64(roundTrip.rounded(.up))
        var r = SegmentRecovery()
        for i in 0..<segments {
            // One draw per segment delivered the first time: P(lost k times or more) = rate^k.
            var k = 0
            while k < Self.maximumLosses && rng.unit() < rate { k += 1 }
            guard k > 0 else { continue }
            let d = segmentDelay(losses: k, fastRetransmit: i + Self.duplicateAckThreshold < segments, firstTimeout: first, roundTrip: rtt)
            if i == 0 { r.first = d }
            r.all = max(r.all, d)
        }
        return r
    }
}
