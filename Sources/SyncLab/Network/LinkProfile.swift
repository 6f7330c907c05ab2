import SyncLabKernel

/// A kind of connection a player is on (Wi-Fi, LTE, 3G, EDGE, …): a named, parameterised
/// profile. Each request draws from the profile's distributions, afresh unless `correlation`
/// says how a player's delays follow one another (`DelayProcess`).
///
/// Delays are one-way propagation (asymmetric: up and down are drawn separately); the response
/// also takes its size divided by the bandwidth to arrive, so a bigger store file costs more on a
/// slow link. A failed request is lost and the client notices only at its time-out.
public struct LinkProfile: Sendable {
    public var name: String
    public var share: Double
    public var uplink: Distribution
    public var downlink: Distribution
    /// Bandwidth, bytes per second, drawn for a request's bytes (none for a request without a
    /// body) and again for its response's.
    public var bandwidth: Distribution
    public var failure: Double
    public var timeout: Nanoseconds
    /// How a player's successive delays on this link relate (default: independent draws).
    public var correlation: any DelayProcess
    /// Segments lost and sent again by TCP (nil: none; `failure` still loses whole requests).
    public var loss: (any PacketLoss)? = nil
    /// When connections close and what a new one costs (nil: every request finds one open).
    public var connection: (any ConnectionSetup)? = nil
    /// A cellular radio's idle tail and promotion (nil: always ready).
    public var radio: (any RadioState)? = nil
    /// Measured delivery traces that messages cross in place of `uplink`, `downlink` and
    /// `bandwidth` (nil: those distributions). `uplink` and `downlink` then hold its base delay.
    public var trace: TraceLink? = nil
    /// The physical floor of a one-way delay, ns: no message crosses faster than propagation and
    /// the radio's scheduling allow, so every drawn delay is max(floor, draw). 0 (no floor) for
    /// links built in code; the presets carry theirs (`LinkPresets`, docs/links.md).
    public var uplinkFloor: Nanoseconds = 0
    public var downlinkFloor: Nanoseconds = 0

    /// A link without a floor of its own (every link keeps `leastOneWay`); set `uplinkFloor` and
    /// `downlinkFloor` for one.
    public init(name: String, share: Double, uplink: Distribution, downlink: Distribution,
                bandwidth: Distribution, failure: Double, timeout: Nanoseconds,
                correlation: any DelayProcess = IndependentDelays()) {
        self.name = name
        self.share = share
        self.uplink = uplink
        self.downlink = downlink
        self.bandwidth = bandwidth
        self.failure = failure
        self.timeout = timeout
        self.correlation = correlation
    }

    /// Whether delays are drawn afresh per request (the world's plain path).
    public var hasIndependentDelays: Bool { correlation is IndependentDelays && trace == nil }

    /// Whether any of `loss`, `connection` and `radio` is set (the world's plain path has none).
    public var modelsConnection: Bool { loss != nil || connection != nil || radio != nil }

    /// The floor every link has, configured or not: no message crosses a network in less than a
    /// microsecond (light covers 200 m of fibre in it). It keeps a link drawn at zero delay from
    /// answering in no time, which the fleet's synchronisation (`FleetCoordinator`) needs.
    public static let leastOneWay: Nanoseconds = 1_000

    /// The floor in `direction`, ns: the configured one, and at least `leastOneWay`.
    public func floor(_ direction: LinkDirection) -> Nanoseconds {
        max(direction == .uplink ? uplinkFloor : downlinkFloor, LinkProfile.leastOneWay)
    }

    /// A drawn one-way delay (whole ns) held at the floor in `direction`: the form every link
    /// delay takes in the world.
    @inline(__always)
    public func floored(_ delay: Nanoseconds, _ direction: LinkDirection) -> Nanoseconds {
        max(floor(direction), delay)
    }

    /// The least time a message can take one way on this link in the world, ns: what a
    /// synchronisation between parts of the world may rely on. The largest of the configured
    /// floor, the smallest value the delays can be drawn at (the delay process's, which may draw
    /// from more than the link's own distribution) and a trace-driven link's base delay.
    /// Connection set-up, radio promotion, lost segments and transfer time only add to it.
    public func lookahead(_ direction: LinkDirection) -> Nanoseconds {
        let drawn = Distribution.duration(correlation.leastDelay(direction, on: self))
        return max(floor(direction), drawn, trace?.baseDelay ?? 0)
    }

    /// The mean round trip of the link's delays, ns: what a connection's smoothed RTT settles at.
    public var meanRoundTrip: Double { uplink.mean + downlink.mean }

    /// The most `meanRoundTrip` may be on a link that loses segments (`loss`): its time-outs and
    /// fast retransmits are timed by it in whole nanoseconds. Two days, each way's delay limit;
    /// a law without a mean (Pareto with shape ≤ 1) or a mean past this is refused at load.
    public static let maximumLossRoundTrip: Nanoseconds = 2 * ScenarioLoader.Limits.delay

    /// Time for `bytes` to arrive at `bytesPerSecond`, in whole nanoseconds (rounded up).
    @inline(__always)
    public static func transferTime(bytes: Int, bytesPerSecond: Double) -> Nanoseconds {
        // Nothing to send (a request without a body) takes no division.
        if bytes == 0 && bytesPerSecond > 0 { return 0 }
        let ns = Double(bytes) * 1e9 / bytesPerSecond
        // A vanishing bandwidth means the transfer never completes in any run: a finite "never".
        // (Doubles from 2^53 up are whole, so the rounded-up value is below 1e18 exactly when
        // this one is.)
        guard bytesPerSecond > 0, ns < 1e18 else { return .max / 4 }
        // Rounded up by hand: the baseline x86-64 target has no rounding instruction, and
        // `rounded(.up)` is a call into the C library on every request. (From 2^52 up every
        // double is whole.)
        guard ns < 0x1p52 else { return Int64(ns) }
        let nearest = Distribution.wholeBelow2to52(ns)
        // Up by one when rounded down: half the time, so added rather than branched on.
        return nearest &+ (Double(nearest) < ns ? 1 : 0)
    }
}
