import Testing
@testable import SyncLab
import SyncLabKernel

private func tickStream(_ entity: UInt64) -> RandomStream {
    RandomStream(seed: 0x71C4_71C4, purpose: StreamPurpose("test-tick-policy"), entity: entity)
}

/// Uniform integer in [lo, hi].
private func uniformIn(_ lo: Int64, _ hi: Int64, _ rng: inout RandomStream) -> Int64 {
    lo &+ Int64(bitPattern: rng.below(UInt64(bitPattern: hi &- lo) &+ 1))
}

private func at(_ ns: Int64) -> SimTime { SimTime(ns: ns) }

/// Independent oracle: the smallest true time in [lo, hi] at which `clock` reads ≥ `value`, by
/// bisection on readings alone (not using `earliest`). Requires reading(hi) ≥ value.
private func firstReaching(_ value: ClockReading, clock: any DeviceClock, _ d: DeviceState, _ c: ClockContext,
                           lo: SimTime, hi: SimTime) -> SimTime {
    var lo = lo.ns, hi = hi.ns
    while lo < hi {
        let mid = lo + (hi - lo) / 2
        if clock.reading(d, at: at(mid), c) >= value { hi = mid } else { lo = mid + 1 }
    }
    return at(lo)
}

@Suite struct TickPolicyTests {
    static let epoch: Int64 = 1_700_000_000_000_000_000
    static let context = ClockContext(epochUnix: epoch)

    @Test func defaultsAndName() {
        let tick = TimerTick()
        #expect(tick.name == "timer")
        #expect(tick.period == .second)
        #expect(tick.clock.name == "suspending")
    }

    @Test func sessionBaseIsTheTickClockReadingAtTheStart() {
        let d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.epoch)
        let start = at(100 * .second + 123)
        #expect(TickInstants(TimerTick()).session(d, start: start, Self.context).base == ClockReading(ns: .hour + 100 * .second + 123))
        let wall = TimerTick(clock: WallClock())
        #expect(TickInstants(wall).session(d, start: start, Self.context).base.ns == Self.epoch + 100 * .second)   // µs floor
    }

    @Test func driftZeroSuspendingTicksEveryWholeSecondFromTheStart() {
        // Drift 0: the clock advances 1 ns per ns, so ticks are exactly S + k s.
        let d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.epoch)
        let tick = TimerTick()
        let s = at(100 * .second + 123)
        let base = TickInstants(tick).session(d, start: s, Self.context)
        func first(_ t: SimTime) -> SimTime { TickInstants(tick).firstTick(atOrAfter: t, base, d, Self.context) }
        func last(_ t: SimTime) -> SimTime { TickInstants(tick).lastTick(atOrBefore: t, base, d, Self.context) }
        #expect(first(s + 2_300 * .millisecond) == s + 3 * .second)
        #expect(last(s + 2_300 * .millisecond) == s + 2 * .second)
        // Exactly at a tick: both return it.
        #expect(first(s + 2 * .second) == s + 2 * .second)
        #expect(last(s + 2 * .second) == s + 2 * .second)
        // One ns either side.
        #expect(first(s + 2 * .second + 1) == s + 3 * .second)
        #expect(last(s + 3 * .second - 1) == s + 2 * .second)
        // The first tick is the session start.
        #expect(first(s) == s)
        #expect(last(s) == s)
        #expect(last(s + 999 * .millisecond) == s)
        // Far later: 1 h 0.5 s after the start → 3601 s.
        #expect(first(s + .hour + 500 * .millisecond) == s + .hour + .second)
    }

    @Test func halfSecondPeriod() {
        let d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.epoch)
        let tick = TimerTick(period: 500 * .millisecond)
        let s = at(7 * .second)
        let base = TickInstants(tick).session(d, start: s, Self.context)
        // 2.3 s after the start: ticks at 2.0 and 2.5 s after it.
        #expect(TickInstants(tick).firstTick(atOrAfter: s + 2_300 * .millisecond, base, d, Self.context) == s + 2_500 * .millisecond)
        #expect(TickInstants(tick).lastTick(atOrBefore: s + 2_300 * .millisecond, base, d, Self.context) == s + 2 * .second)
    }

    @Test func driftingTicksAreWhereTheDriftedClockReachesEachSecond() {
        // +20 ppm, booted at 0, session at 0: base 0. Tick k at the smallest e with
        // e + floor(e × 2e-5) ≥ k s:
        //   k = 1: 1e9 / 1.00002 = 999 980 000.39… → 999 980 001 (+19 999 = 1e9; 999 980 000 gives 1e9 − 1)
        //   k = 2: 1 999 960 000.79… → 1 999 960 001 (+39 999)
        //   k = 3: 2 999 940 001.19… → 2 999 940 002 (+59 998)
        let d = DeviceState(driftPPB: 20_000, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        let tick = TimerTick()
        let base = TickInstants(tick).session(d, start: .zero, Self.context)
        #expect(base.base == ClockReading(ns: 0))
        let t1 = at(999_980_001), t2 = at(1_999_960_001), t3 = at(2_999_940_002)
        func first(_ t: SimTime) -> SimTime { TickInstants(tick).firstTick(atOrAfter: t, base, d, Self.context) }
        func last(_ t: SimTime) -> SimTime { TickInstants(tick).lastTick(atOrBefore: t, base, d, Self.context) }
        #expect(first(at(2_300 * .millisecond)) == t3)
        #expect(last(at(2_300 * .millisecond)) == t2)
        #expect(first(at(500 * .millisecond)) == t1)
        #expect(first(t2) == t2)
        #expect(first(t2 + 1) == t3)
        #expect(first(t2 - 1) == t2)
        #expect(last(t2) == t2)
        #expect(last(t2 - 1) == t1)
        #expect(last(t3 - 1) == t2)
        #expect(last(at(.second)) == t1)
        // The clock reads exactly k s at each tick and k s − 1 ns just before.
        for (k, tk) in [(Int64(1), t1), (2, t2), (3, t3)] {
            #expect(SuspendingDeviceClock().reading(d, at: tk, Self.context).ns == k * .second)
            #expect(SuspendingDeviceClock().reading(d, at: tk - 1, Self.context).ns == k * .second - 1)
        }
    }

    @Test func seededTicksMatchABisectionOracle() {
        var rng = tickStream(1)
        let clocks: [any DeviceClock] = [SuspendingDeviceClock(), ContinuousDeviceClock(), WallClock()]
        for n in 0..<400 {
            let epoch = Self.epoch + uniformIn(0, 999_999_999, &rng)
            let c = ClockContext(epochUnix: epoch)
            let boot = at(-uniformIn(.minute, 10 * 24 * .hour, &rng))
            var d = DeviceState(driftPPB: uniformIn(-100_000, 100_000, &rng),
                                wallOffset: uniformIn(-.hour, .hour, &rng), bootTime: boot, epochUnix: epoch)
            if n % 2 == 0 {
                let sleep = boot + uniformIn(0, -boot.ns / 2, &rng)
                d.fallAsleep(at: sleep)
                d.wake(at: sleep + uniformIn(0, -boot.ns / 2, &rng))
            }
            let clock = clocks[n % clocks.count]
            let period = [Int64.second, 500 * .millisecond, 2 * .second][Int(rng.below(3))]
            let tick = TimerTick(period: period, clock: clock)
            let s = at(uniformIn(0, 24 * .hour, &rng))
            let base = TickInstants(tick).session(d, start: s, c)
            /// Tick k: the session start for k = 0, else the first instant the clock reaches base + k·period.
            func tau(_ k: Int64, near t: SimTime) -> SimTime {
                k == 0 ? s : firstReaching(base.base + k * period, clock: clock, d, c, lo: t - 3 * period, hi: t + 3 * period)
            }
            for _ in 0..<5 {
                // From one period after the start on (tick 0 is covered by the plateau tests below).
                let t = s + uniformIn(period, 30 * .minute, &rng)
                let k0 = floorDiv(clock.reading(d, at: t, c) - base.base, period)
                let candidates = (max(0, k0 - 1)...(k0 + 2)).map { tau($0, near: t) }
                let expectedFirst = candidates.filter { $0 >= t }.min()!
                let expectedLast = candidates.filter { $0 <= t }.max()!
                let first = TickInstants(tick).firstTick(atOrAfter: t, base, d, c)
                let last = TickInstants(tick).lastTick(atOrBefore: t, base, d, c)
                #expect(first == expectedFirst, "\(clock.name) n \(n) period \(period)")
                #expect(last == expectedLast, "\(clock.name) n \(n) period \(period)")
                // Consistency: the first tick at or after t is itself the last tick at or before it.
                #expect(TickInstants(tick).lastTick(atOrBefore: first, base, d, c) == first, "\(clock.name) n \(n)")
            }
        }
    }

    @Test func firstPeriodOnAStrictlyIncreasingClock() {
        // Drift ≥ 0 on the suspending clock: the count strictly increases, so tick 0 is the start itself.
        let d = DeviceState(driftPPB: 37_000, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.epoch)
        let tick = TimerTick()
        let s = at(5 * .second + 17)
        let base = TickInstants(tick).session(d, start: s, Self.context)
        for dt in [Int64(0), 1, 999, 500 * .millisecond, 999_963_000] {
            #expect(TickInstants(tick).lastTick(atOrBefore: s + dt, base, d, Self.context) == s)
        }
        #expect(TickInstants(tick).firstTick(atOrAfter: s, base, d, Self.context) == s)
    }

    /// Suspected bug: with a tick clock whose reading stays constant for a while (the 1 s uptime
    /// clock), `firstTick(atOrAfter: t)` returns `t` itself whenever the reading at `t` is already
    /// base + k·period, although the clock reached that value earlier; and `lastTick` for the first
    /// second returns an instant before the session start.
    @Test func uptimeTickClockFirstTickIsATick() {
        // Epoch and boot on whole seconds, wall clock exact: uptime = floor(t) + 3600 s.
        let d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.epoch)
        let tick = TimerTick(clock: BootTimeUptimeClock())
        let s = at(10_500 * .millisecond)
        let base = TickInstants(tick).session(d, start: s, Self.context)
        #expect(base.base.ns == 3_610 * .second)
        // At 12.3 s the clock reads 3612 s, reached at 12.0 s (a past tick); the next value, 3613 s, is
        // reached at 13.0 s, which is the first tick at or after 12.3 s.
        #expect(TickInstants(tick).lastTick(atOrBefore: at(12_300 * .millisecond), base, d, Self.context) == at(12 * .second))
                    #expect(TickInstants(tick).firstTick(atOrAfter: at(12_300 * .millisecond), base, d, Self.context) == at(13 * .second))
                    // The first tick is at the session start (10.5 s); the clock reached the base at 10.0 s.
            #expect(TickInstants(tick).lastTick(atOrBefore: at(10_700 * .millisecond), base, d, Self.context) == s)
    }

    /// The same two effects at microsecond scale on the wall clock (whose reading is floored to µs).
    @Test func wallTickClockFirstTickIsATick() {
        let d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.epoch)
        let tick = TimerTick(clock: WallClock())
        // Session at 10 s + 500 ns: base = wall floored to µs = epoch + 10 s, so tick k ≥ 1 is at 10 s + k s.
        let s = at(10 * .second + 500)
        let base = TickInstants(tick).session(d, start: s, Self.context)
        #expect(base.base.ns == Self.epoch + 10 * .second)
        #expect(TickInstants(tick).firstTick(atOrAfter: at(11_500 * .millisecond), base, d, Self.context) == at(12 * .second))
        #expect(TickInstants(tick).lastTick(atOrBefore: at(12 * .second + 300), base, d, Self.context) == at(12 * .second))
                    // 12 s + 300 ns reads epoch + 12 s, reached at 12 s: the next tick is at 13 s.
            #expect(TickInstants(tick).firstTick(atOrAfter: at(12 * .second + 300), base, d, Self.context) == at(13 * .second))
                    #expect(TickInstants(tick).lastTick(atOrBefore: s + 100, base, d, Self.context) == s)
    }
}
