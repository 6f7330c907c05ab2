import Testing
@testable import SyncLab
import SyncLabKernel

/// `DesignClocks` works a timer's ticks out from its period instead of through the tick policy:
/// the same instants as the policy's own route, on every reference clock, drifting and asleep.
@Suite struct DesignClocksTests {
    @Test func timerShortcutGivesThePolicysTicks() {
        let context = ReferenceClocksTests.context
        var rng = RandomStream(seed: 7, purpose: StreamPurpose("test-design-clocks-timer"))
        for clock in ReferenceClocks.all {
            let design = ClientDesign(tick: TimerTick(period: 333 * .millisecond, clock: clock))
            let ticks = TickInstants(design.tick)
            let clocks = DesignClocks(design, clock: SuspendingDeviceClock(), ticks: ticks, context: context, devicesChange: false)
            #expect(clocks.timerPeriod == 333 * .millisecond)
            for _ in 0..<200 {
                let d = ReferenceClocksTests.device(&rng)
                let start = SimTime(ns: Int64(rng.below(UInt64(Int64.hour))))
                let t = start + Int64(rng.below(UInt64(10 * Int64.minute))) - Int64.second
                let s = clocks.session(d, start: start)
                #expect(s == ticks.session(d, start: start, context))
                #expect(clocks.firstTick(atOrAfter: t, s, d) == ticks.firstTick(atOrAfter: t, s, d, context))
                #expect(clocks.lastTick(atOrBefore: t, s, d, ReferenceReadings(d, at: t, context))
                        == ticks.lastTick(atOrBefore: t, s, d, context))
            }
        }
        // Any other policy goes through the policy itself.
        let aligned = ClientDesign(tick: AlignedTick())
        #expect(DesignClocks(aligned, clock: SuspendingDeviceClock(), ticks: TickInstants(aligned.tick), context: context,
                             devicesChange: false).timerPeriod == 0)
    }
}
