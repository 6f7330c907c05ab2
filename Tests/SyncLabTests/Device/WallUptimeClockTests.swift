import Testing
@testable import SyncLab
import SyncLabKernel

private func at(_ ns: Int64) -> SimTime { SimTime(ns: ns) }

/// `uptime-wall` against the other clocks through scripted device timelines, to the nanosecond.
@Suite struct WallUptimeClockTests {
    /// An epoch 0.25 s past a whole unix second, so whole-second flooring has a phase.
    static let epoch: Int64 = 1_700_000_000_250_000_000
    static let c = ClockContext(epochUnix: epoch)

    @Test func nameAndKind() throws {
        #expect(WallUptimeClock().name == "uptime-wall")
        #expect(WallUptimeClock(resolution: .microsecond).name == "uptime-wall(1000ns)")
        #expect(WallUptimeClock.kind == "uptime-wall")
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(
            #"{"client": {"clock": {"kind": "uptime-wall", "resolution": "1us"}, "tick": {"kind": "timer", "clock": "uptime-wall"}}}"#))
        #expect((s.client.clock as? WallUptimeClock)?.resolution == .microsecond)
        #expect(((s.client.tick as? TimerTick)?.clock as? WallUptimeClock)?.resolution == .second)
        let bad = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"client": {"clock": {"kind": "uptime-wall", "resolution": "1ms"}}}"#))
        #expect(bad?.keyPath == "client.clock.resolution")
    }

    /// Booted at −1 h with a 20 ppm oscillator, deep sleep 0 → 10 min, wall clock moved +1 h at
    /// 20 min, reboot at 30 min. Every clock by hand, before and after the reboot.
    @Test func sleepThenWallChangeThenReboot() {
        var d = DeviceState(driftPPB: 20_000, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.epoch)
        d.fallAsleep(at: .zero)
        d.wake(at: at(10 * .minute))
        d.moveWallClock(by: .hour)
        let t1 = at(25 * .minute)
        // Suspending: awake 85 − 10 = 75 min = 4500 s, plus 20 ppm of it = 90 ms.
        #expect(SuspendingDeviceClock().reading(d, at: t1, Self.c).ns == 4_500 * .second + 90 * .millisecond)
        // Continuous: 85 min = 5100 s, plus 102 ms.
        #expect(ContinuousDeviceClock().reading(d, at: t1, Self.c).ns == 5_100 * .second + 102 * .millisecond)
        // Uptime with the OS-adjusted boot time: the +1 h step is not in it; wall rate, no drift.
        #expect(BootTimeUptimeClock().reading(d, at: t1, Self.c).ns == 5_100 * .second)
        // Uptime from the boot time recorded at boot: 85 min + the 1 h step.
        #expect(WallUptimeClock().reading(d, at: t1, Self.c).ns == 8_700 * .second)
        // Wall: epoch + 25 min + 1 h, µs floor (the epoch is on a whole µs).
        #expect(WallClock().reading(d, at: t1, Self.c).ns == Self.epoch + 85 * .minute)

        d.reboot(at: at(30 * .minute), epochUnix: Self.epoch)
        #expect(d.bootTime == at(30 * .minute))
        #expect(d.bootWallUnix == Self.epoch + 90 * .minute)     // recorded with the moved wall clock
        #expect(d.sleptTotal == 0 && !d.asleep)
        #expect(d.wallOffset == .hour && d.driftPPB == 20_000)  // settings and hardware stay
        let t2 = at(40 * .minute)
        // 10 min since the reboot on every uptime; the oscillator clocks add 20 ppm of 600 s = 12 ms.
        #expect(SuspendingDeviceClock().reading(d, at: t2, Self.c).ns == 600 * .second + 12 * .millisecond)
        #expect(ContinuousDeviceClock().reading(d, at: t2, Self.c).ns == 600 * .second + 12 * .millisecond)
        #expect(BootTimeUptimeClock().reading(d, at: t2, Self.c).ns == 600 * .second)
        #expect(WallUptimeClock().reading(d, at: t2, Self.c).ns == 600 * .second)
        #expect(WallClock().reading(d, at: t2, Self.c).ns == Self.epoch + 100 * .minute)
        // A step back of 30 min after the reboot: only the wall clock and uptime-wall go back.
        d.moveWallClock(by: -30 * .minute)
        #expect(WallUptimeClock().reading(d, at: t2, Self.c).ns == -1_200 * .second)
        #expect(BootTimeUptimeClock().reading(d, at: t2, Self.c).ns == 600 * .second)
        #expect(ContinuousDeviceClock().reading(d, at: t2, Self.c).ns == 600 * .second + 12 * .millisecond)
        #expect(WallClock().reading(d, at: t2, Self.c).ns == Self.epoch + 70 * .minute)
    }

    /// The OS-adjusted uptime at 1 s keeps its reading across steps that are not whole seconds:
    /// wall and adjusted boot time move together, so their fractions stay equal.
    @Test func adjustedUptimeIgnoresFractionalSteps() {
        var d = DeviceState(driftPPB: 0, wallOffset: 400 * .millisecond, bootTime: at(-.hour), epochUnix: Self.epoch)
        for step in [5 * Int64.second, -8 * .second, 500 * .millisecond, 123_456_789, -.hour] {
            d.moveWallClock(by: step)
            #expect(BootTimeUptimeClock().reading(d, at: .zero, Self.c).ns == 3_600 * .second)
            #expect(BootTimeUptimeClock(resolution: .microsecond).reading(d, at: .zero, Self.c).ns == 3_600 * .second)
        }
    }

    /// `earliest` inverts `reading` exactly, whatever the wall offset and boot time.
    @Test func earliestIsTheFirstInstantReachingTheTarget() {
        var rng = RandomStream(seed: 7, purpose: StreamPurpose("test-uptime-wall"))
        for resolution in [Int64.second, .microsecond] {
            let clock = WallUptimeClock(resolution: resolution)
            for _ in 0..<500 {
                var d = DeviceState(driftPPB: 0, wallOffset: Int64(rng.below(4 * UInt64(Int64.second))) - 2 * .second,
                                    bootTime: at(-Int64(rng.below(UInt64(24 * Int64.hour)))), epochUnix: Self.epoch)
                d.moveWallClock(by: Int64(rng.below(UInt64(2 * Int64.hour))) - .hour)
                let t = at(Int64(rng.below(UInt64(Int64.hour))))
                let target = clock.reading(d, at: t, Self.c) + Int64(rng.below(UInt64(10 * Int64.minute)))
                let e = clock.earliest(d, reaching: target, notBefore: t, Self.c)
                #expect(e >= t)
                #expect(clock.reading(d, at: e, Self.c) >= target)
                if e > t { #expect(clock.reading(d, at: e - 1, Self.c) < target) }
            }
        }
    }
}
