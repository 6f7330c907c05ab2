import Testing
@testable import SyncLab
import SyncLabKernel

private func clockStream(_ entity: UInt64) -> RandomStream {
    RandomStream(seed: 0xC10C_C5, purpose: StreamPurpose("test-device-clock"), entity: entity)
}

/// Uniform integer in [lo, hi].
private func uniformIn(_ lo: Int64, _ hi: Int64, _ rng: inout RandomStream) -> Int64 {
    lo &+ Int64(bitPattern: rng.below(UInt64(bitPattern: hi &- lo) &+ 1))
}

private func at(_ ns: Int64) -> SimTime { SimTime(ns: ns) }

/// Every built-in clock, including the microsecond uptime variant.
private let allClocks: [any DeviceClock] = [
    SuspendingDeviceClock(), ContinuousDeviceClock(), BootTimeUptimeClock(), BootTimeUptimeClock(resolution: .microsecond),
    WallClock(),
]

@Suite struct DeviceClockTests {
    /// An epoch on a whole unix second.
    static let epoch: Int64 = 1_700_000_000_000_000_000
    /// An epoch 0.25 s past a whole unix second.
    static let quarterEpoch: Int64 = 1_700_000_000_250_000_000

    /// Booted at t = −1 h, asleep from 10 min to 25 min.
    static func sleeper(driftPPB: Int64) -> DeviceState {
        var d = DeviceState(driftPPB: driftPPB, wallOffset: 0, bootTime: at(-.hour), epochUnix: epoch)
        d.fallAsleep(at: at(10 * .minute))
        d.wake(at: at(25 * .minute))
        return d
    }

    @Test func names() {
        #expect(SuspendingDeviceClock().name == "suspending")
        #expect(ContinuousDeviceClock().name == "continuous")
        #expect(BootTimeUptimeClock().name == "uptime")
        #expect(BootTimeUptimeClock(resolution: .microsecond).name == "uptime(1000ns)")
        #expect(WallClock().name == "wall")
    }

    // MARK: Suspending vs continuous across deep sleep

    @Test func suspendingClockLosesExactlyTheDeepSleepAtZeroDrift() {
        let c = ClockContext(epochUnix: Self.epoch)
        let d = Self.sleeper(driftPPB: 0)
        // Elapsed since boot at 30 min: 1 h 30 min; the suspending clock missed the 15 min asleep.
        #expect(SuspendingDeviceClock().reading(d, at: at(30 * .minute), c) == ClockReading(ns: 75 * .minute))
        #expect(ContinuousDeviceClock().reading(d, at: at(30 * .minute), c) == ClockReading(ns: 90 * .minute))
        // The difference between the two is the sleep, to the nanosecond, at any later instant.
        let later = at(30 * .minute + 123_456_789)
        #expect(ContinuousDeviceClock().reading(d, at: later, c) - SuspendingDeviceClock().reading(d, at: later, c)
                == 15 * .minute)
    }

    @Test func suspendingClockWithTwentyPPMDrift() {
        let c = ClockContext(epochUnix: Self.epoch)
        let d = Self.sleeper(driftPPB: 20_000)
        // Awake elapsed 75 min = 4.5e12 ns: + floor(4.5e12 × 20 000 / 1e9) = + 90 ms.
        #expect(SuspendingDeviceClock().reading(d, at: at(30 * .minute), c).ns == 75 * .minute + 90 * .millisecond)
        // Continuous: 90 min = 5.4e12 ns → + 108 ms.
        #expect(ContinuousDeviceClock().reading(d, at: at(30 * .minute), c).ns == 90 * .minute + 108 * .millisecond)
        // 7 ns more: 4 500 000 000 007 × 2e-5 = 90 000 000.00014 → still + 90 ms (floor).
        #expect(SuspendingDeviceClock().reading(d, at: at(30 * .minute + 7), c).ns == 75 * .minute + 7 + 90 * .millisecond)
        // 49 999 ns more: 90 000 000.99998 → floor 90 000 000; 50 000 ns more: exactly 90 000 001.
        #expect(SuspendingDeviceClock().reading(d, at: at(30 * .minute + 49_999), c).ns
                == 75 * .minute + 49_999 + 90 * .millisecond)
        #expect(SuspendingDeviceClock().reading(d, at: at(30 * .minute + 50_000), c).ns
                == 75 * .minute + 50_000 + 90 * .millisecond + 1)
    }

    @Test func twoSleepsAccumulateAndTheClockIsFrozenWhileAsleep() {
        let c = ClockContext(epochUnix: Self.epoch)
        var d = Self.sleeper(driftPPB: 0)
        d.fallAsleep(at: at(40 * .minute))
        // Frozen at its value at 40 min: 100 − 15 = 85 min, both at 41 min and 1 h later.
        #expect(SuspendingDeviceClock().reading(d, at: at(41 * .minute), c).ns == 85 * .minute)
        #expect(SuspendingDeviceClock().reading(d, at: at(100 * .minute), c).ns == 85 * .minute)
        // The continuous clock keeps counting: 41 min + 1 h.
        #expect(ContinuousDeviceClock().reading(d, at: at(41 * .minute), c).ns == 101 * .minute)
        d.wake(at: at(42 * .minute))
        // 50 min: 110 min since boot − 15 − 2 = 93 min.
        #expect(SuspendingDeviceClock().reading(d, at: at(50 * .minute), c).ns == 93 * .minute)
        #expect(ContinuousDeviceClock().reading(d, at: at(50 * .minute), c).ns == 110 * .minute)
        // With +20 ppm: 93 min = 5.58e12 ns → + 111.6 ms; 110 min = 6.6e12 → + 132 ms.
        var fast = Self.sleeper(driftPPB: 20_000)
        fast.fallAsleep(at: at(40 * .minute))
        fast.wake(at: at(42 * .minute))
        #expect(SuspendingDeviceClock().reading(fast, at: at(50 * .minute), c).ns == 93 * .minute + 111_600_000)
        #expect(ContinuousDeviceClock().reading(fast, at: at(50 * .minute), c).ns == 110 * .minute + 132 * .millisecond)
    }

    @Test func seededReadingsEqualElapsedPlusFlooredDrift() {
        var rng = clockStream(1)
        let c = ClockContext(epochUnix: Self.epoch)
        for _ in 0..<500 {
            let ppb = uniformIn(-100_000, 100_000, &rng)
            let boot = at(-uniformIn(0, 30 * 24 * .hour, &rng))
            var d = DeviceState(driftPPB: ppb, wallOffset: uniformIn(-.hour, .hour, &rng), bootTime: boot,
                                epochUnix: Self.epoch)
            let sleep = boot + uniformIn(0, boot.ns < 0 ? -boot.ns : 0, &rng)
            let length = uniformIn(0, 5 * .hour, &rng)
            d.fallAsleep(at: sleep)
            d.wake(at: sleep + length)
            let t = sleep + length + uniformIn(0, 2 * 24 * .hour, &rng)
            let awake = (t - boot) - length
            // elapsed + floor(elapsed × ppb / 1e9), from first principles.
            let a = floorDiv(awake, .second), b = awake - a * .second
            #expect(SuspendingDeviceClock().reading(d, at: t, c).ns == awake + a * ppb + floorDiv(b * ppb, .second))
            let all = t - boot
            let a2 = floorDiv(all, .second), b2 = all - a2 * .second
            #expect(ContinuousDeviceClock().reading(d, at: t, c).ns == all + a2 * ppb + floorDiv(b2 * ppb, .second))
        }
    }

    // MARK: Uptime = floor(wall) − floor(boot wall)

    @Test func uptimeAtOneSecondStepsAtTheWallSecondBoundary() {
        let c = ClockContext(epochUnix: Self.quarterEpoch)
        let uptime = BootTimeUptimeClock()
        // Wall clock 0.4 s fast; booted 1 h before the epoch. Boot wall = …(−3600).65 s → floor …400 s.
        // Wall at t = epoch + t + 0.4 s = …000.65 s + t: the wall second turns at t = 1 − 0.25 − 0.4 = 0.35 s.
        let d = DeviceState(driftPPB: 50_000, wallOffset: 400 * .millisecond, bootTime: at(-.hour),
                            epochUnix: Self.quarterEpoch)
        #expect(d.bootWallUnix == 1_699_996_400_650_000_000)
        #expect(uptime.reading(d, at: .zero, c).ns == 3_600 * .second)
        #expect(uptime.reading(d, at: at(350 * .millisecond - 1), c).ns == 3_600 * .second)
        #expect(uptime.reading(d, at: at(350 * .millisecond), c).ns == 3_601 * .second)
        #expect(uptime.reading(d, at: at(1_350 * .millisecond - 1), c).ns == 3_601 * .second)
        #expect(uptime.reading(d, at: at(1_350 * .millisecond), c).ns == 3_602 * .second)
        // Same device with a correct wall clock: boot wall …400.25 s, the second turns at t = 0.75 s.
        let honest = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.quarterEpoch)
        #expect(uptime.reading(honest, at: at(750 * .millisecond - 1), c).ns == 3_600 * .second)
        #expect(uptime.reading(honest, at: at(750 * .millisecond), c).ns == 3_601 * .second)
        // The drift of the oscillator plays no part: the uptime clock runs at the wall clock's rate.
        let drifting = DeviceState(driftPPB: -90_000, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.quarterEpoch)
        #expect(uptime.reading(drifting, at: at(750 * .millisecond), c) == uptime.reading(honest, at: at(750 * .millisecond), c))
    }

    @Test func uptimeAtOneSecondMeasuresIntervalsRoundedDownOrUp() {
        let c = ClockContext(epochUnix: Self.quarterEpoch)
        let uptime = BootTimeUptimeClock()
        let d = DeviceState(driftPPB: 0, wallOffset: 400 * .millisecond, bootTime: at(-.hour),
                            epochUnix: Self.quarterEpoch)
        // Wall fractions: 0.3 s → .95, 1.2 s → 1.85: readings 3600 s, 3601 s; true 0.9 s reads 1 s (up).
        #expect(uptime.reading(d, at: at(1_200 * .millisecond), c) - uptime.reading(d, at: at(300 * .millisecond), c)
                == .second)
        // 0.4 s → 1.05, 1.3 s → 1.95: both 3601 s; true 0.9 s reads 0 s (down).
        #expect(uptime.reading(d, at: at(1_300 * .millisecond), c) - uptime.reading(d, at: at(400 * .millisecond), c)
                == 0)
        // Seeded: any interval reads floor or ceil of the true interval, in whole seconds.
        var rng = clockStream(2)
        for _ in 0..<1_000 {
            let t1 = at(uniformIn(0, 24 * .hour, &rng))
            let t2 = t1 + uniformIn(0, 20 * .minute, &rng)
            let r1 = uptime.reading(d, at: t1, c), r2 = uptime.reading(d, at: t2, c)
            #expect(r1.ns % .second == 0 && r2.ns % .second == 0)
            // floor(wall) − floor(bootWall), computed here from the definition.
            #expect(r1.ns == (floorDiv(d.wallUnix(at: t1, c), .second) - floorDiv(d.bootWallUnix, .second)) * .second)
            let measured = r2 - r1
            let trueInterval = t2 - t1
            #expect(measured == floorTo(trueInterval, .second) || measured == ceilDiv(trueInterval, .second) * .second)
        }
    }

    @Test func uptimeAtOneMicrosecondIsTheTrueIntervalTruncated() {
        let uptime = BootTimeUptimeClock(resolution: .microsecond)
        // Epoch and offset on whole µs: boot wall is on a µs boundary, so reading = floor((t − boot) / 1 µs).
        let c = ClockContext(epochUnix: Self.quarterEpoch)
        let d = DeviceState(driftPPB: 0, wallOffset: 400 * .millisecond, bootTime: at(-.hour),
                            epochUnix: Self.quarterEpoch)
        // t = 1.234567891 s: true uptime 3601.234567891 s → 3601.234567 s.
        #expect(uptime.reading(d, at: at(1_234_567_891), c).ns == 3_601_234_567_000)
        var rng = clockStream(3)
        for _ in 0..<1_000 {
            let t = at(uniformIn(-.hour, 24 * .hour, &rng))
            #expect(uptime.reading(d, at: t, c).ns == floorTo(t - d.bootTime, .microsecond))
        }
        // Epoch 300 ns past a µs: boot wall …(−3600).650000300 s, wall …001.884568191 s at the same t;
        // floor(wall) − floor(boot) = 3601.234568 s: one µs above the truncated true interval.
        let c2 = ClockContext(epochUnix: Self.quarterEpoch + 300)
        let d2 = DeviceState(driftPPB: 0, wallOffset: 400 * .millisecond, bootTime: at(-.hour),
                             epochUnix: Self.quarterEpoch + 300)
        #expect(uptime.reading(d2, at: at(1_234_567_891), c2).ns == 3_601_234_568_000)
    }

    /// `uptime-wall` (boot time as recorded at boot) follows every step of the wall clock; the
    /// OS-adjusted `uptime` (XNU shifts KERN_BOOTTIME when the calendar is set) does not.
    @Test func uptimeWallFollowsAWallOffsetChange() {
        let c = ClockContext(epochUnix: Self.quarterEpoch)
        let uptime = WallUptimeClock()
        var d = DeviceState(driftPPB: 0, wallOffset: 400 * .millisecond, bootTime: at(-.hour),
                            epochUnix: Self.quarterEpoch)
        let before = uptime.reading(d, at: .zero, c)
        #expect(before.ns == 3_600 * .second)
        let suspending = SuspendingDeviceClock().reading(d, at: .zero, c)
        let continuous = ContinuousDeviceClock().reading(d, at: .zero, c)
        // The user moves the wall clock 5 s forward: boot wall stays, uptime jumps by 5 s.
        d.wallOffset += 5 * .second
        #expect(uptime.reading(d, at: .zero, c).ns == 3_605 * .second)
        // … and 8 s back (offset −2.6 s): wall …997.65 → 3597 s.
        d.wallOffset -= 8 * .second
        #expect(uptime.reading(d, at: .zero, c).ns == 3_597 * .second)
        // Half a second forward (offset 0.9 s): wall …001.15 → 3601 s, a whole-second step.
        d.wallOffset = 900 * .millisecond
        #expect(uptime.reading(d, at: .zero, c).ns == 3_601 * .second)
        // The oscillator clocks ignore the wall clock.
        #expect(SuspendingDeviceClock().reading(d, at: .zero, c) == suspending)
        #expect(ContinuousDeviceClock().reading(d, at: .zero, c) == continuous)
        // At 1 µs the shift is exactly the change (a whole number of µs).
        let fine = WallUptimeClock(resolution: .microsecond)
        var e = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: at(-.hour), epochUnix: Self.quarterEpoch)
        let r0 = fine.reading(e, at: at(777), c)
        e.wallOffset -= 123_456_000
        #expect(fine.reading(e, at: at(777), c) - r0 == -123_456_000)
    }

    // MARK: Wall clock

    @Test func wallClockIsUnixMicroseconds() {
        let c = ClockContext(epochUnix: Self.quarterEpoch)
        let d = DeviceState(driftPPB: 80_000, wallOffset: 400 * .millisecond, bootTime: at(-.hour),
                            epochUnix: Self.quarterEpoch)
        // …000.25 + 1.234567891 + 0.4 = …001.884567891 s → µs floor.
        #expect(WallClock().reading(d, at: at(1_234_567_891), c).ns == 1_700_000_001_884_567_000)
        // Before the epoch with a negative offset: …000.25 − 0.000000001 − 0.5 = …999.749999999 → …999.749999.
        let e = DeviceState(driftPPB: 0, wallOffset: -500 * .millisecond, bootTime: at(-.hour),
                            epochUnix: Self.quarterEpoch)
        #expect(WallClock().reading(e, at: at(-1), c).ns == 1_699_999_999_749_999_000)
    }

    // MARK: earliest: hand cases

    @Test func earliestHandCases() {
        let c = ClockContext(epochUnix: Self.epoch)
        let d = Self.sleeper(driftPPB: 0)
        // Suspending reads 75 min at 30 min; 80 min is reached 5 min later. Already reached → notBefore.
        #expect(SuspendingDeviceClock().earliest(d, reaching: ClockReading(ns: 80 * .minute), notBefore: at(30 * .minute), c)
                == at(35 * .minute))
        #expect(SuspendingDeviceClock().earliest(d, reaching: ClockReading(ns: 75 * .minute), notBefore: at(30 * .minute), c)
                == at(30 * .minute))
        #expect(SuspendingDeviceClock().earliest(d, reaching: ClockReading(ns: 10 * .minute), notBefore: at(30 * .minute), c)
                == at(30 * .minute))
        // Continuous reads 90 min at 30 min; 100 min at 40 min.
        #expect(ContinuousDeviceClock().earliest(d, reaching: ClockReading(ns: 100 * .minute), notBefore: at(30 * .minute), c)
                == at(40 * .minute))
        // +20 ppm: at 30 min + 1 s the awake time is 4 501 000 000 000 ns → + 90 020 000 ns.
        let fast = Self.sleeper(driftPPB: 20_000)
        #expect(SuspendingDeviceClock().earliest(fast, reaching: ClockReading(ns: 4_501_090_020_000),
                                           notBefore: at(30 * .minute), c) == at(30 * .minute + .second))

        // Uptime (wall 0.4 s fast, epoch .25): 3600 s at t = 0, 3601 s from t = 0.35 s.
        let qc = ClockContext(epochUnix: Self.quarterEpoch)
        let u = DeviceState(driftPPB: 0, wallOffset: 400 * .millisecond, bootTime: at(-.hour),
                            epochUnix: Self.quarterEpoch)
        let uptime = BootTimeUptimeClock()
        #expect(uptime.earliest(u, reaching: ClockReading(ns: 3_601 * .second), notBefore: .zero, qc) == at(350 * .millisecond))
        #expect(uptime.earliest(u, reaching: ClockReading(ns: 3_600 * .second + 1), notBefore: .zero, qc) == at(350 * .millisecond))
        #expect(uptime.earliest(u, reaching: ClockReading(ns: 3_600 * .second), notBefore: at(100), qc) == at(100))
        #expect(uptime.earliest(u, reaching: ClockReading(ns: 3_602 * .second), notBefore: at(100 * .millisecond), qc)
                == at(1_350 * .millisecond))
        // Wall: …001.884567891 at 1.234567891 s; …001.884568 s is reached 109 ns later.
        #expect(WallClock().earliest(u, reaching: ClockReading(ns: 1_700_000_001_884_568_000),
                                     notBefore: at(1_234_567_891), qc) == at(1_234_568_000))
        #expect(WallClock().earliest(u, reaching: ClockReading(ns: 1_700_000_001_884_567_001),
                                     notBefore: at(1_234_567_891), qc) == at(1_234_568_000))
    }

    // MARK: earliest: seeded inverse property over every clock

    @Test func earliestIsTheExactInverseOnASeededGrid() {
        var rng = clockStream(4)
        var checked = 0
        for device in 0..<300 {
            let epoch = 1_700_000_000_000_000_000 + uniformIn(0, 999_999_999, &rng)   // random sub-second phase
            let c = ClockContext(epochUnix: epoch)
            let boot = at(-uniformIn(.minute, 30 * 24 * .hour, &rng))
            var d = DeviceState(driftPPB: uniformIn(-100_000, 100_000, &rng),
                                wallOffset: uniformIn(-2 * .hour, 2 * .hour, &rng), bootTime: boot, epochUnix: epoch)
            if device % 2 == 0 {
                // A completed deep sleep before the run.
                let start = boot + uniformIn(0, -boot.ns / 2, &rng)
                d.fallAsleep(at: start)
                d.wake(at: start + uniformIn(0, -boot.ns / 2, &rng))
            }
            for clock in allClocks {
                for _ in 0..<8 {
                    let t0 = at(uniformIn(0, 2 * 24 * .hour, &rng))
                    let r0 = clock.reading(d, at: t0, c)
                    let delta: Int64
                    switch rng.below(4) {
                    case 0: delta = uniformIn(-2 * .second, 0, &rng)                 // already reached
                    case 1: delta = uniformIn(1, 2_000, &rng)                        // within a few µs
                    case 2: delta = uniformIn(1, 3, &rng) * .second                   // whole seconds
                    default: delta = uniformIn(1, 20 * .minute, &rng)
                    }
                    let target = r0 + delta
                    let t = clock.earliest(d, reaching: target, notBefore: t0, c)
                    #expect(t >= t0, "\(clock.name) device \(device)")
                    #expect(clock.reading(d, at: t, c) >= target, "\(clock.name) device \(device) δ \(delta)")
                    if delta <= 0 {
                        #expect(t == t0, "\(clock.name) device \(device) δ \(delta)")
                    } else {
                        #expect(t > t0)
                        #expect(clock.reading(d, at: t - 1, c) < target, "\(clock.name) device \(device) δ \(delta)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 300 * allClocks.count * 8)
    }

    @Test func readingsNeverDecreaseOnAnAwakeDevice() {
        var rng = clockStream(5)
        for _ in 0..<200 {
            let epoch = 1_700_000_000_000_000_000 + uniformIn(0, 999_999_999, &rng)
            let c = ClockContext(epochUnix: epoch)
            let d = DeviceState(driftPPB: uniformIn(-100_000, 100_000, &rng),
                                wallOffset: uniformIn(-.hour, .hour, &rng),
                                bootTime: at(-uniformIn(0, 24 * .hour, &rng)), epochUnix: epoch)
            for clock in allClocks {
                var t = at(uniformIn(0, .hour, &rng))
                var previous = clock.reading(d, at: t, c)
                for _ in 0..<20 {
                    t = t + uniformIn(0, 3 * .second, &rng)
                    let r = clock.reading(d, at: t, c)
                    #expect(r >= previous, "\(clock.name)")
                    previous = r
                }
            }
        }
    }
}
