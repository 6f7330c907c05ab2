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

/// A tick policy sees only its clock's readings: when the UI recomputes, as readings of the
/// clock its timer counts on. The world turns readings into instants (`TickInstants`), so a
/// policy cannot see true time.
public protocol TickPolicy: Sendable {
    var name: String { get }
    /// The clock the UI's timer counts on; nil when the UI recomputes exactly at the instants the
    /// world asks about (a one-shot timer at each one).
    var tickClock: (any DeviceClock)? { get }
    /// The first tick at or after reading `r`, for a timer started when its clock read `base`
    /// (the session start is itself a tick).
    func firstTick(atOrAfter r: ClockReading, base: ClockReading) -> ClockReading
    /// The last tick at or before reading `r` after the start; nil when none has come since the
    /// start's own.
    func lastTick(atOrBefore r: ClockReading, base: ClockReading) -> ClockReading?
}

extension TickPolicy {
    /// Policies without a timer recompute at the instant asked: any reading is a tick.
    public var tickClock: (any DeviceClock)? { nil }
    public func firstTick(atOrAfter r: ClockReading, base: ClockReading) -> ClockReading { r }
    public func lastTick(atOrBefore r: ClockReading, base: ClockReading) -> ClockReading? { r }
}

/// A repeating timer of fixed period on a device clock (the seeds: 1 s on the suspending clock,
/// as `NSTimer` runs on it). Tick k is where the clock reads base + k·period; tick 0 is the
/// session start.
public struct TimerTick: TickPolicy {
    public var period: Nanoseconds
    public var clock: any DeviceClock
    public init(period: Nanoseconds = .second, clock: any DeviceClock = SuspendingDeviceClock()) {
        precondition(period > 0)
        self.period = period
        self.clock = clock
    }
    public var name: String { "timer" }
    public var tickClock: (any DeviceClock)? { clock }

    public func firstTick(atOrAfter r: ClockReading, base: ClockReading) -> ClockReading {
        Self.firstTick(atOrAfter: r, base: base, period: period)
    }

    public func lastTick(atOrBefore r: ClockReading, base: ClockReading) -> ClockReading? {
        Self.lastTick(atOrBefore: r, base: base, period: period)
    }

    // The arithmetic itself, which `TickInstants` also calls directly: most designs tick on a
    // timer, and a call through the policy's existential copies it (a reference count that every
    // thread's display ticks and samples contend for).
    @inline(__always)
    static func firstTick(atOrAfter r: ClockReading, base: ClockReading, period: Nanoseconds) -> ClockReading {
        base + max(0, ceilDiv(r - base, period)) &* period
    }

    @inline(__always)
    static func lastTick(atOrBefore r: ClockReading, base: ClockReading, period: Nanoseconds) -> ClockReading? {
        let k = floorDiv(r - base, period)
        return k > 0 ? base + k &* period : nil
    }
}
