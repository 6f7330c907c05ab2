import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct AlignedTickTests {
    static let context = ClockContext(epochUnix: 1_700_000_000_000_000_000)

    /// Every instant from the session start on is a tick: the one-shot timer fires exactly where
    /// the world asks (the instant the estimate reaches a transition), and the value on screen at
    /// t is the estimate at t.
    @Test func everyInstantFromTheStartIsATick() {
        let d = DeviceState(driftPPB: 12_345, wallOffset: 0, bootTime: SimTime(ns: -.hour), epochUnix: Self.context.epochUnix)
        let tick = AlignedTick()
        #expect(tick.name == "aligned")
        let start = SimTime(ns: 10 * .second + 7)
        let s = TickInstants(tick).session(d, start: start, Self.context)
        for t in [start, start + 1, start + 999_999_999, start + .hour] {
            #expect(TickInstants(tick).firstTick(atOrAfter: t, s, d, Self.context) == t)
            #expect(TickInstants(tick).lastTick(atOrBefore: t, s, d, Self.context) == t)
        }
        // Before the Store is on screen nothing is drawn: both answer the session start.
        #expect(TickInstants(tick).firstTick(atOrAfter: start - 5, s, d, Self.context) == start)
        #expect(TickInstants(tick).lastTick(atOrBefore: start - 5, s, d, Self.context) == start)
    }
}
