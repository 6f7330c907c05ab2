import Testing
import SyncLabKernel
@testable import SyncLab

/// The event loop is compiled for the design's clock and tick policy types (`World+DesignTypes`):
/// a built-in pair runs its own copy, and plug-ins the copy that calls them through their
/// protocols. Either way the run is the same.
@Suite struct WorldDesignTypesTests {
    /// A clock an app team adds, which reads what `inner` reads: it has no built-in case.
    struct ForwardingClock: DeviceClock {
        let inner: any DeviceClock
        var name: String { "forwarding" }
        var pausesInDeepSleep: Bool { inner.pausesInDeepSleep }
        var resolution: Nanoseconds { inner.resolution }
        func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading { inner.reading(d, at: t, c) }
        func earliest(_ d: DeviceState, reaching r: ClockReading, notBefore t: SimTime, _ c: ClockContext) -> SimTime {
            inner.earliest(d, reaching: r, notBefore: t, c)
        }
    }

    /// A tick policy an app team adds, which ticks when `inner` ticks.
    struct ForwardingTick: TickPolicy {
        let inner: any TickPolicy
        var name: String { "forwarding" }
        func session(_ d: DeviceState, start: SimTime, _ c: ClockContext) -> TickSession { inner.session(d, start: start, c) }
        func firstTick(atOrAfter t: SimTime, _ s: TickSession, _ d: DeviceState, _ c: ClockContext) -> SimTime {
            inner.firstTick(atOrAfter: t, s, d, c)
        }
        func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState, _ c: ClockContext) -> SimTime {
            inner.lastTick(atOrBefore: t, s, d, c)
        }
    }

    /// The shipped design (the suspending clock, a 1 s timer on it; standby, a release) and the
    /// reference fleet's (the continuous clock, immediate ticks), each run with its built-ins and
    /// with plug-ins that forward to them, singly and together.
    @Test(arguments: ["v115-pausing.json", "r1.json"])
    func pluginsRunTheSameAsTheBuiltInsTheyForwardTo(file: String) throws {
        let s = try WorldInlineResponseTests.load(file, players: 300, duration: 2 * .hour)
        #expect(BuiltInClock(s.client.clock) != nil && BuiltInTick(s.client.tick) != nil)
        var builtIn = World(scenario: s)
        let expected = builtIn.run()
        var clockOnly = s, tickOnly = s, both = s
        clockOnly.client.clock = ForwardingClock(inner: s.client.clock)
        tickOnly.client.tick = ForwardingTick(inner: s.client.tick)
        both.client.clock = clockOnly.client.clock
        both.client.tick = tickOnly.client.tick
        for (label, variant) in [("clock", clockOnly), ("tick", tickOnly), ("both", both)] {
            var world = World(scenario: variant)
            #expect((world.design.clock == nil) == (label != "tick") && (world.design.tick == nil) == (label != "clock"))
            WorldInlineResponseTests.expectSame(world.run(), expected, "\(file): plug-in \(label)")
        }
    }
}
