import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct DisplayLinkTickTests {
    static let epoch: Int64 = 1_700_000_000_000_000_000
    static let context = ClockContext(epochUnix: epoch)

    /// Vsync k at round(k·10⁹/60) ns: 0, 16 666 667, 33 333 333, 50 000 000, …; a day of frames
    /// lands on exactly 86 400 s (a 16.666667 ms float period would be 2.88 ms late by then).
    @Test func vsyncReadingsAreExactRationalInstants() {
        let link = DisplayLinkTick()
        #expect(link.name == "display-link")
        #expect(link.rate == 60)
        #expect((0..<5).map(link.vsyncReading) == [0, 16_666_667, 33_333_333, 50_000_000, 66_666_667])
        #expect(link.vsyncReading(60) == .second)
        #expect(link.vsyncReading(61) == .second + 16_666_667)
        #expect(link.vsyncReading(60 * 86_400) == 86_400 * .second)
        #expect(DisplayLinkTick(rate: 120).vsyncReading(1) == 8_333_333)
        // No overflow a year after boot at 1000 Hz.
        #expect(DisplayLinkTick(rate: 1_000).vsyncReading(1_000 * 365 * 86_400) == 365 * 86_400 * .second)
    }

    @Test func firstVsyncReachingInvertsTheReadings() {
        var rng = RandomStream(seed: 60, purpose: StreamPurpose("test-display-link"))
        for rate in [Int64(60), 120, 1, 7] {
            let link = DisplayLinkTick(rate: rate)
            for _ in 0..<500 {
                let r = Int64(rng.below(1 << 55))
                let k = link.firstVsync(reaching: r)
                #expect(link.vsyncReading(k) >= r)
                #expect(k == 0 || link.vsyncReading(k - 1) < r)
            }
        }
    }

    /// Drift 0, booted 1 h before zero (3600 s is a whole number of 60 Hz frames), so vsyncs are at
    /// true j/60 s. Session at 10.005 s: frame 0 at the start, then 10.016666667 s, 10.033333333 s…
    @Test func ticksOnThePerfectClock() {
        let d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: SimTime(ns: -.hour), epochUnix: Self.epoch)
        let link = DisplayLinkTick()
        let start = SimTime(ns: 10_005 * .millisecond)
        let s = TickInstants(link).session(d, start: start, Self.context)
        func first(_ t: Int64) -> Int64 { TickInstants(link).firstTick(atOrAfter: SimTime(ns: t), s, d, Self.context).ns }
        func last(_ t: Int64) -> Int64 { TickInstants(link).lastTick(atOrBefore: SimTime(ns: t), s, d, Self.context).ns }
        #expect(first(start.ns) == start.ns)
        #expect(first(start.ns + 1) == 10 * .second + 16_666_667)
        #expect(first(10 * .second + 16_666_667) == 10 * .second + 16_666_667)
        #expect(first(10 * .second + 16_666_668) == 10 * .second + 33_333_333)
        #expect(last(10_010 * .millisecond) == start.ns)           // the 10.0 s vsync was before the start
        #expect(last(10_020 * .millisecond) == 10 * .second + 16_666_667)
        #expect(last(11 * .second) == 11 * .second)
        #expect(last(11 * .second - 1) == 10 * .second + 983_333_333)
    }

    /// With drift and sleep before the session, each tick is the first instant the continuous
    /// clock reaches a vsync reading, and no vsync falls between t and the first tick after it.
    @Test func seededTicksAreVsyncs() {
        var rng = RandomStream(seed: 61, purpose: StreamPurpose("test-display-link-ticks"))
        let clock = ContinuousDeviceClock()
        for _ in 0..<300 {
            var d = DeviceState(driftPPB: Int64(rng.below(200_001)) - 100_000, wallOffset: 0,
                                bootTime: SimTime(ns: -Int64(rng.below(UInt64(10 * 24 * Nanoseconds.hour))) - .minute),
                                epochUnix: Self.epoch)
            d.fallAsleep(at: SimTime(ns: -30 * .second))
            d.wake(at: SimTime(ns: -10 * .second))
            let link = DisplayLinkTick(rate: [60, 120, 50][Int(rng.below(3))])
            let start = SimTime(ns: Int64(rng.below(UInt64(Nanoseconds.hour))))
            let s = TickInstants(link).session(d, start: start, Self.context)
            let t = start + Int64(rng.below(UInt64(Nanoseconds.minute))) + 1
            let tick = TickInstants(link).firstTick(atOrAfter: t, s, d, Self.context)
            #expect(tick >= t)
            let r = clock.reading(d, at: tick, Self.context).ns
            let k = link.firstVsync(reaching: r)
            let reached = link.vsyncReading(k) == r ? k : k - 1           // the vsync reached at `tick`
            #expect(clock.reading(d, at: tick - 1, Self.context).ns < link.vsyncReading(reached))
            #expect(tick - t < 1_000_000_000 / link.rate + 2)
            let last = TickInstants(link).lastTick(atOrBefore: t, s, d, Self.context)
            #expect(last <= t && last >= start)
            #expect(TickInstants(link).firstTick(atOrAfter: last, s, d, Self.context) == last)
        }
    }
}
