import SyncLabKernel

/// When the UI recomputes the displayed server time: a named plug-in.
///
/// The seeds tick with a repeating 1 s `NSTimer`, restarted each time the Store comes on screen,
/// so the tick phase is wherever the viewing session began. Ticks themselves are not events in
/// the world: the world asks for the first tick at or after an instant that matters (a
/// transition, a due refetch), which yields the same instants as ticking every second.
/// A viewing session's tick timer: when it started (true time) and the tick clock's reading then.
public struct TickSession: Sendable, Equatable {
    public var start: SimTime
    public var base: ClockReading
    public init(start: SimTime, base: ClockReading) {
        self.start = start
        self.base = base
    }
}

public protocol TickPolicy: Sendable {
    var name: String { get }
    /// Starts the timer of a viewing session begun at `start` (fixes the tick phase).
    func session(_ device: DeviceState, start: SimTime, _ context: ClockContext) -> TickSession
    /// The first tick at or after `t`.
    func firstTick(atOrAfter t: SimTime, _ session: TickSession, _ device: DeviceState,
                   _ context: ClockContext) -> SimTime
    /// The last tick at or before `t` (the one whose value is on screen at `t`).
    func lastTick(atOrBefore t: SimTime, _ session: TickSession, _ device: DeviceState,
                  _ context: ClockContext) -> SimTime
}

/// A repeating timer of fixed period on a device clock (the seeds: 1 s on the suspending clock,
/// as `NSTimer` runs on it). Tick k is the first instant the clock reads base + k·period; tick 0
/// is the session start.
public struct TimerTick: TickPolicy {
    public var period: Nanoseconds
    public var clock: any DeviceClock
    public init(period: Nanoseconds = .second, clock: any DeviceClock = SuspendingDeviceClock()) {
        precondition(period > 0)
        self.period = period
        self.clock = clock
    }
    public var name: String { "timer" }

    public func session(_ d: DeviceState, start: SimTime, _ c: ClockContext) -> TickSession {
        TimerTick.session(d, start: start, c, clock: clock)
    }

    public func firstTick(atOrAfter t: SimTime, _ s: TickSession, _ d: DeviceState,
                          _ c: ClockContext) -> SimTime {
        TimerTick.firstTick(atOrAfter: t, s, d, c, period: period, clock: clock)
    }

    public func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState,
                         _ c: ClockContext) -> SimTime {
        TimerTick.lastTick(atOrBefore: t, s, d, c, period: period, clock: clock)
    }
}

/// The timer's arithmetic, generic over its clock so the world's hot paths can call it on a
/// concrete clock (`BuiltInTick`) and the plug-in on its existential: one definition, same ticks.
extension TimerTick {
    @inline(__always)
    static func session<C: DeviceClock>(_ d: DeviceState, start: SimTime, _ c: ClockContext, clock: C) -> TickSession {
        TickSession(start: start, base: clock.reading(d, at: start, c))
    }

    /// Instant of tick k: inverted from the session start, where the device has been awake since.
    @inline(__always)
    static func instant<C: DeviceClock>(_ k: Int64, _ s: TickSession, _ d: DeviceState, _ c: ClockContext,
                                        period: Nanoseconds, clock: C) -> SimTime {
        clock.earliest(d, reaching: s.base + k &* period, notBefore: s.start, c)
    }

    @inline(__always)
    static func firstTick<C: DeviceClock>(atOrAfter t: SimTime, _ s: TickSession, _ d: DeviceState,
                                          _ c: ClockContext, period: Nanoseconds, clock: C) -> SimTime {
        var k = max(0, ceilDiv(clock.reading(d, at: t, c) - s.base, period))
        var tick = instant(k, s, d, c, period: period, clock: clock)
        // A coarse clock may have reached that reading before t: then the next tick is the one.
        if tick < t {
            k += 1
            tick = instant(k, s, d, c, period: period, clock: clock)
        }
        return tick
    }

    @inline(__always)
    static func lastTick<C: DeviceClock>(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState,
                                         _ c: ClockContext, period: Nanoseconds, clock: C) -> SimTime {
        lastTick(atOrBefore: t, s, d, c, period: period, clock: clock, reading: clock.reading(d, at: t, c))
    }

    /// The same, given the clock's reading at t (a caller that has it already).
    @inline(__always)
    static func lastTick<C: DeviceClock>(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState, _ c: ClockContext,
                                         period: Nanoseconds, clock: C, reading: ClockReading) -> SimTime {
        let k = max(0, floorDiv(reading - s.base, period))
        return min(t, instant(k, s, d, c, period: period, clock: clock))
    }
}
