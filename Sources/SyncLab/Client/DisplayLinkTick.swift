import SyncLabKernel

/// A display link (`CADisplayLink`): the UI recomputes on every vsync of the screen.
///
/// Vsync k is where the continuous clock (the display's hardware timebase, which does not
/// restart with the app) reads round(k·10⁹ / rate) ns: exact rational instants, so 60 Hz never
/// accumulates the rounding of a 16.666667 ms float period. The frame grid is the device's, not
/// the session's: the Store draws once when it comes on screen (frame 0, at the session start)
/// and then on every vsync.
public struct DisplayLinkTick: TickPolicy {
    /// Refresh rate, frames per second.
    public var rate: Int64
    let clock = ContinuousDeviceClock()

    public init(rate: Int64 = 60) {
        precondition(rate >= 1 && rate <= 1_000)
        self.rate = rate
    }

    public var name: String { Self.kind }

    /// Continuous-clock reading of vsync k (k ≥ 0): round(k·10⁹ / rate), without overflow.
    @inlinable public func vsyncReading(_ k: Int64) -> Int64 {
        let a = k / rate, b = k % rate
        return a &* 1_000_000_000 &+ (b &* 1_000_000_000 &+ rate / 2) / rate
    }

    /// The index of the first vsync whose reading is ≥ `r` (r ≥ 0).
    @inlinable public func firstVsync(reaching r: Int64) -> Int64 {
        var k = (r / 1_000_000_000) &* rate &+ (r % 1_000_000_000) &* rate / 1_000_000_000
        while k > 0 && vsyncReading(k &- 1) >= r { k &-= 1 }
        while vsyncReading(k) < r { k &+= 1 }
        return k
    }

    public var tickClock: (any DeviceClock)? { clock }

    public func firstTick(atOrAfter r: ClockReading, base: ClockReading) -> ClockReading {
        ClockReading(ns: vsyncReading(firstVsync(reaching: r.ns)))
    }

    /// The last vsync at or before r, if it came after the start's own frame.
    public func lastTick(atOrBefore r: ClockReading, base: ClockReading) -> ClockReading? {
        var k = firstVsync(reaching: r.ns)
        if vsyncReading(k) > r.ns { k -= 1 }
        guard k >= 0, vsyncReading(k) > base.ns else { return nil }
        return ClockReading(ns: vsyncReading(k))
    }
}

extension DisplayLinkTick: Plugin {
    public static let family = PluginFamily.tick
    public static let kind = "display-link"
    public static let schema = SchemaFragment(
        "A display link (CADisplayLink): every vsync of the continuous clock.",
        properties: ["rate": ["type": "integer", "minimum": 1, "maximum": 1000, "description": "Refresh rate in Hz (default 60)."]])
    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(rate: Int64(try node.value("rate", default: 60) { try $0.int(min: 1, max: 1_000) }))
    }
    public var summary: String { "display link at \(rate) Hz on the continuous clock" }
}
