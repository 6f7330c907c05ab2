import Testing
import SyncLabKernel
@testable import SyncLab

/// The event loop is compiled for the design clock's own type (`DeviceClock._runWorld`), and for
/// the tick clock's when it has the same type; a clock from another module, or a tick clock of
/// another type, runs the same code through its protocol. Either way the run is the same.
@Suite struct WorldDesignTypesTests {
    /// A clock an app team adds (this test target is another module), which reads what `inner` reads.
    struct ForwardingClock: DeviceClock {
        let inner: any DeviceClock
        var name: String { "forwarding" }
        var pausesInDeepSleep: Bool { inner.pausesInDeepSleep }
        var resolution: Nanoseconds { inner.resolution }
        var neverReadsLessLater: Bool { inner.neverReadsLessLater }
        func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading { inner.reading(d, at: t, c) }
        // Forwarded too: a 1 s clock's drift is worked out at full resolution (`driftOffset`).
        func driftOffset(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> Nanoseconds { inner.driftOffset(d, at: t, c) }
        func earliest(_ d: DeviceState, reaching r: ClockReading, notBefore t: SimTime, _ c: ClockContext) -> SimTime {
            inner.earliest(d, reaching: r, notBefore: t, c)
        }
    }

    /// A tick policy an app team adds, which ticks when `inner` ticks, on a forwarding clock.
    struct ForwardingTick: TickPolicy {
        let inner: any TickPolicy
        var name: String { "forwarding" }
        var tickClock: (any DeviceClock)? { inner.tickClock.map { ForwardingClock(inner: $0) } }
        func firstTick(atOrAfter r: ClockReading, base: ClockReading) -> ClockReading { inner.firstTick(atOrAfter: r, base: base) }
        func lastTick(atOrBefore r: ClockReading, base: ClockReading) -> ClockReading? { inner.lastTick(atOrBefore: r, base: base) }
    }

    /// The shipped design (the suspending clock, a 1 s timer on it; standby, a release), the
    /// uptime fix (its timer on another clock than the design's) and the reference fleet's (the
    /// continuous clock, immediate ticks), each run with its built-ins and with plug-ins that
    /// forward to them, singly and together.
    @Test(arguments: ["v115-pausing.json", "v115-uptime.json", "r1.json"])
    func pluginsRunTheSameAsTheBuiltInsTheyForwardTo(file: String) throws {
        let s = try WorldEarlyEventsTests.load(file, players: 300, duration: 2 * .hour)
        var builtIn = World(scenario: s)
        let expected = builtIn.run()
        var clockOnly = s, tickOnly = s, both = s
        clockOnly.client.clock = ForwardingClock(inner: s.client.clock)
        tickOnly.client.tick = ForwardingTick(inner: s.client.tick)
        both.client.clock = clockOnly.client.clock
        both.client.tick = tickOnly.client.tick
        for (label, variant) in [("clock", clockOnly), ("tick", tickOnly), ("both", both)] {
            var world = World(scenario: variant)
            WorldEarlyEventsTests.expectSame(world.run(), expected, "\(file): plug-in \(label)")
        }
    }
}
