import SyncLabKernel

/// A tick policy's ticks as instants of true time: the world's side of the policy, which itself
/// sees only its clock's readings. Generic over the tick clock, so the hot paths read it on its
/// own type.
public struct TickInstants<TickClock: DeviceClock> {
    public let policy: any TickPolicy
    /// The clock the policy's timer counts on (nil: the UI recomputes at any instant asked).
    public let clock: TickClock?

    public init(_ policy: any TickPolicy, clock: TickClock?) {
        self.policy = policy
        self.clock = clock
    }

    /// Starts the timer of a viewing session begun at `start` (fixes the tick phase).
    @inline(__always)
    public func session(_ d: DeviceState, start: SimTime, _ c: ClockContext) -> TickSession {
        TickSession(start: start, base: clock?.reading(d, at: start, c) ?? ClockReading(ns: 0))
    }

    /// The first tick at or after t: the policy's reading, at the first instant the clock
    /// reaches it (the device awake since the start).
    @inline(__always)
    public func firstTick(atOrAfter t: SimTime, _ s: TickSession, _ d: DeviceState, _ c: ClockContext) -> SimTime {
        Self.firstTick(atOrAfter: t, s, d, c, clock: clock) { policy.firstTick(atOrAfter: $0, base: s.base) }
    }

    /// The last tick at or before t (the one whose value is on screen at t), given the tick
    /// clock's reading at t when the caller has it.
    @inline(__always)
    public func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState, _ c: ClockContext,
                         reading: ClockReading? = nil) -> SimTime {
        Self.lastTick(atOrBefore: t, s, d, c, reading: reading, clock: clock) { policy.lastTick(atOrBefore: $0, base: s.base) }
    }

    // The arithmetic of the two above, given the policy's rule for readings. `DesignClocks`
    // calls them with a timer's rule directly: a call through the policy's existential copies it,
    // and the reference count of that copy is one every thread's display ticks and samples
    // contend for.

    @inline(__always)
    static func firstTick(atOrAfter t: SimTime, _ s: TickSession, _ d: DeviceState, _ c: ClockContext, clock: TickClock?,
                          rule: (ClockReading) -> ClockReading) -> SimTime {
        guard let clock else { return max(t, s.start) }
        if t <= s.start { return s.start }
        var r = rule(clock.reading(d, at: t, c))
        var tick = clock.earliest(d, reaching: r, notBefore: s.start, c)
        // A coarse clock may have reached that reading before t: then the next tick is the one.
        if tick < t {
            r = rule(r + 1)
            tick = clock.earliest(d, reaching: r, notBefore: s.start, c)
        }
        return tick
    }

    @inline(__always)
    static func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState, _ c: ClockContext, reading: ClockReading?,
                         clock: TickClock?, rule: (ClockReading) -> ClockReading?) -> SimTime {
        guard let clock else { return max(t, s.start) }
        if t <= s.start { return s.start }
        guard let r = rule(reading ?? clock.reading(d, at: t, c)) else { return s.start }
        return min(t, clock.earliest(d, reaching: r, notBefore: s.start, c))
    }
}

extension TickInstants where TickClock == AnyDeviceClock {
    /// A policy's instants on its own clock, whatever its type.
    public init(_ policy: any TickPolicy) {
        self.init(policy, clock: policy.tickClock.map(AnyDeviceClock.init))
    }
}

/// The design's clock and its UI ticks, each on its own type: the one route by which the world
/// reads them. The event loop gets one made for the design's clock type (`World.runEvents`);
/// paths too rare to matter use `ResolvedDesign.clocks`, the same route on existentials.
struct DesignClocks<Clock: DeviceClock, TickClock: DeviceClock> {
    let clock: Clock
    let ticks: TickInstants<TickClock>
    let context: ClockContext
    /// Where the design's clock and the tick clock are among the reference clocks (nil:
    /// neither), so a sample, which reads those anyway, reads each clock once.
    let clockReference: Int?
    let tickClockReference: Int?
    /// Whether the design's clock never reads less later (with no device events in the run).
    let onlyMovesForward: Bool
    /// The period when the policy is a `TimerTick` (else 0): the hot paths compute a timer's
    /// ticks from it, with no reference to count (`TickInstants.firstTick`).
    let timerPeriod: Nanoseconds

    @inline(__always)
    func reading(_ d: DeviceState, at t: SimTime) -> ClockReading { clock.reading(d, at: t, context) }

    /// The design clock's drift offset at `t` (`DeviceClock.driftOffset`).
    func driftOffset(_ d: DeviceState, at t: SimTime) -> Nanoseconds { clock.driftOffset(d, at: t, context) }

    @inline(__always)
    func reading(_ d: DeviceState, at t: SimTime, _ references: ReferenceReadings) -> ClockReading {
        if let k = clockReference { return references[k] }
        return clock.reading(d, at: t, context)
    }

    @inline(__always)
    func earliest(_ d: DeviceState, reaching r: ClockReading, notBefore t: SimTime) -> SimTime {
        clock.earliest(d, reaching: r, notBefore: t, context)
    }

    @inline(__always)
    func session(_ d: DeviceState, start: SimTime) -> TickSession { ticks.session(d, start: start, context) }

    @inline(__always)
    func firstTick(atOrAfter t: SimTime, _ s: TickSession, _ d: DeviceState) -> SimTime {
        guard timerPeriod > 0 else { return ticks.firstTick(atOrAfter: t, s, d, context) }
        let period = timerPeriod
        return TickInstants.firstTick(atOrAfter: t, s, d, context, clock: ticks.clock) {
            TimerTick.firstTick(atOrAfter: $0, base: s.base, period: period)
        }
    }

    @inline(__always)
    func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState, _ references: ReferenceReadings) -> SimTime {
        let reading = tickClockReference.map { references[$0] }
        guard timerPeriod > 0 else { return ticks.lastTick(atOrBefore: t, s, d, context, reading: reading) }
        let period = timerPeriod
        return TickInstants.lastTick(atOrBefore: t, s, d, context, reading: reading, clock: ticks.clock) {
            TimerTick.lastTick(atOrBefore: $0, base: s.base, period: period)
        }
    }
}

extension DesignClocks {
    init(_ design: ClientDesign, clock: Clock, ticks: TickInstants<TickClock>, context: ClockContext, devicesChange: Bool) {
        self.clock = clock
        self.ticks = ticks
        self.context = context
        clockReference = ReferenceClocks.index(of: design.clock)
        tickClockReference = design.tick.tickClock.flatMap(ReferenceClocks.index(of:))
        onlyMovesForward = design.clock.neverReadsLessLater && !devicesChange
        timerPeriod = (ticks.policy as? TimerTick)?.period ?? 0
    }
}

extension World {
    /// Handles every event before `loop.runLimit` with the design's clock as `Clock` (called
    /// from the clock's `_runWorld`) and its tick clock as its own type too when it has the
    /// design clock's type; then every viewing player records the pending samples.
    mutating func runEvents<Clock: DeviceClock>(designClock: Clock) {
        let client = scenario.client, changes = scenario.devices.events.any
        guard let tickClock = client.tick.tickClock else {
            runEvents(DesignClocks(client, clock: designClock, ticks: TickInstants<Clock>(client.tick, clock: nil),
                                   context: context, devicesChange: changes))
            return
        }
        if let same = tickClock as? Clock {
            runEvents(DesignClocks(client, clock: designClock, ticks: TickInstants(client.tick, clock: same),
                                   context: context, devicesChange: changes))
        } else {
            runEvents(DesignClocks(client, clock: designClock, ticks: TickInstants(client.tick),
                                   context: context, devicesChange: changes))
        }
    }
}
