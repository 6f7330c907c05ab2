import SyncLabKernel

/// When the UI recomputes the displayed server time: a named plug-in.
///
/// The seeds tick with a repeating 1 s `NSTimer`, restarted each time the Store comes on screen,
/// so the tick phase is wherever the viewing session began. Ticks themselves are not events in
/// the world: the world asks for the first tick at or after an instant that matters (a
/// transition, a due refetch), which yields the same instants as ticking every second.
public protocol TickPolicy: Sendable {
    var name: String { get }
    /// The clock reading that fixes the phase of a viewing session begun at `start`.
    func sessionBase(_ device: DeviceState, start: SimTime, _ context: ClockContext) -> ClockReading
    /// The first tick at or after `t` in a session with base `base`.
    func firstTick(atOrAfter t: SimTime, base: ClockReading, _ device: DeviceState,
                   _ context: ClockContext) -> SimTime
    /// The last tick at or before `t` (the one whose value is on screen at `t`).
    func lastTick(atOrBefore t: SimTime, base: ClockReading, _ device: DeviceState,
                  _ context: ClockContext) -> SimTime
}

/// A repeating timer of fixed period on a device clock (the seeds: 1 s on the suspending clock,
/// as `NSTimer` runs on it). The first tick is at the session start.
public struct TimerTick: TickPolicy {
    public var period: Nanoseconds
    public var clock: any DeviceClock
    public init(period: Nanoseconds = .second, clock: any DeviceClock = SuspendingClock()) {
        precondition(period > 0)
        self.period = period
        self.clock = clock
    }
    public var name: String { "timer" }

    public func sessionBase(_ d: DeviceState, start: SimTime, _ c: ClockContext) -> ClockReading {
        clock.reading(d, at: start, c)
    }
    public func firstTick(atOrAfter t: SimTime, base: ClockReading, _ d: DeviceState,
                          _ c: ClockContext) -> SimTime {
        let now = clock.reading(d, at: t, c)
        let k = max(0, ceilDiv(now - base, period))
        return clock.earliest(d, reaching: base + k &* period, notBefore: t, c)
    }
    public func lastTick(atOrBefore t: SimTime, base: ClockReading, _ d: DeviceState,
                         _ c: ClockContext) -> SimTime {
        let now = clock.reading(d, at: t, c)
        let k = max(0, floorDiv(now - base, period))
        // The tick instant is the earliest time the clock reached base + k·period; it cannot be
        // after t. Search from the session start side: invert from an instant known to be earlier.
        let target = base + k &* period
        let back = t - (now - target) - period - .millisecond
        return min(t, clock.earliest(d, reaching: target, notBefore: back, c))
    }
}
