import SyncLabKernel

/// NTP's on-wire calculation (RFC 5905 §8) with a minimum-delay clock filter (§10 in spirit).
///
/// Four timestamps per exchange: T1 request sent (client clock), T2 the server's receive stamp
/// (`REQUEST_TIME`), T3 the server's transmit stamp (when the response leaves), T4 download
/// complete (client clock). Offset θ = ((T2 − T1) + (T3 − T4)) / 2, round-trip delay
/// δ = (T4 − T1) − (T3 − T2). The server's time in hand excludes its own residence, and a
/// symmetric path gives θ exactly; an asymmetric one errs by half the asymmetry.
///
/// Filter: the last `window` exchanges since the app started are kept; the sync uses the one
/// with the smallest δ (the one least disturbed by queueing and asymmetry), anchored at its own
/// T4: server time T4 + θ at reading T4. Unlike RFC 5905 it does not age samples, so after a
/// suspending clock pauses in standby an old sample keeps its now-stale offset (a finding, not a
/// bug to hide).
///
/// Bound of one exchange: with stamps truncated by a, b ∈ [0, ρs), the offset error is
/// (x − y)/2 − (a + b)/2 for uplink x and downlink y, and x + y = δ + a − b, so it lies in
/// [−δ/2 − a, δ/2 − b]: ± (|δ|/2 + ρs + ε(T4 − T1) + ρc + 1 ns).
///
/// Memory per client: 1 + 4·window words (count; per sample: server time at T4, T4, δ, bound).
public struct NTPEstimator: SyncEstimator {
    public static let maximumWindow = 64
    /// Exchanges the clock filter keeps.
    public var window: Int

    public init(window: Int = 8) {
        precondition(window >= 1 && window <= NTPEstimator.maximumWindow)
        self.window = window
    }

    public var name: String { Self.kind }

    /// θ = ((T2 − T1) + (T3 − T4)) / 2, rounded toward −∞.
    @inlinable public static func offset(_ s: SyncSample) -> Int64 {
        floorDiv((s.serverTimestamp &- s.requestSent.ns) &+ (s.serverTransmit &- s.downloadComplete.ns), 2)
    }

    /// δ = (T4 − T1) − (T3 − T2).
    @inlinable public static func delay(_ s: SyncSample) -> Int64 {
        (s.downloadComplete - s.requestSent) &- (s.serverTransmit &- s.serverTimestamp)
    }

    public func anchor(for s: SyncSample) -> SyncAnchor {
        SyncAnchor(serverTime: s.downloadComplete.ns &+ Self.offset(s), reading: s.downloadComplete)
    }

    public func halfWidth(for s: SyncSample, _ m: BoundModel) -> SyncBound { .halfWidth(Self.bound(s, m)) }

    /// The one-exchange half-width, ns (always bounded).
    @inlinable public static func bound(_ s: SyncSample, _ m: BoundModel) -> Nanoseconds {
        Swift.abs(delay(s)) / 2 &+ 1 &+ m.serverResolution &+ m.intervalError(s.roundTrip) &+ m.extrapolationBase
    }

    public var memoryWords: Int { 1 + 4 * window }

    public func estimate(for s: SyncSample, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
        precondition(memory.count >= memoryWords)
        let a = anchor(for: s)
        let count = memory[0]
        let slot = 1 + 4 * Int(count % Int64(window))
        memory[slot] = a.serverTime
        memory[slot + 1] = a.reading.ns
        memory[slot + 2] = Self.delay(s)
        memory[slot + 3] = Self.bound(s, m)
        memory[0] = count &+ 1
        // The kept sample with the smallest delay; the newest wins a tie.
        let kept = Int(min(count &+ 1, Int64(window)))
        var best = slot
        for i in 0..<kept {
            let k = 1 + 4 * i
            if memory[k + 2] < memory[best + 2] || (memory[k + 2] == memory[best + 2] && memory[k + 1] > memory[best + 1]) {
                best = k
            }
        }
        return SyncEstimate(anchor: SyncAnchor(serverTime: memory[best], reading: ClockReading(ns: memory[best + 1])),
                            bound: .halfWidth(memory[best + 3]), boundGrowthPPB: m.maxDriftPPB)
    }
}

extension NTPEstimator: Plugin {
    public static let family = PluginFamily.estimator
    public static let kind = "ntp"
    public static let schema = SchemaFragment(
        "RFC 5905 four timestamps, minimum-delay filter over the last window exchanges.",
        properties: ["window": ["type": "integer", "minimum": 1, "maximum": .integer(maximumWindow),
                                "description": "Exchanges the clock filter keeps (default 8)."]])
    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(window: try node.value("window", default: 8) { try $0.int(min: 1, max: NTPEstimator.maximumWindow) })
    }
    public var summary: String { "RFC 5905 offset of the exchange with the smallest delay among the last \(window)" }
    public var settings: String? { "NTP clock filter over the last \(window) exchanges (minimum delay)" }
}
