import Testing
@testable import SyncLab
import SyncLabKernel

/// A stream for this file's seeded property checks.
private func stateStream(_ entity: UInt64) -> RandomStream {
    RandomStream(seed: 0x5EED_D5, purpose: StreamPurpose("test-device-state"), entity: entity)
}

/// Uniform integer in [lo, hi].
private func uniformIn(_ lo: Int64, _ hi: Int64, _ rng: inout RandomStream) -> Int64 {
    lo &+ Int64(bitPattern: rng.below(UInt64(bitPattern: hi &- lo) &+ 1))
}

@Suite struct DeviceStateTests {
    static let epoch: Int64 = 1_700_000_000_000_000_000

    // MARK: Drift.scaled: floor(elapsed × ppb / 10⁹)

    @Test func scaledIsFloorOfTheExactProduct() {
        // 1 s at +1 ppb: exactly 1 ns; one ns short of 1 s: 0.999999999 → 0.
        #expect(Drift.scaled(1_000_000_000, ppb: 1) == 1)
        #expect(Drift.scaled(999_999_999, ppb: 1) == 0)
        // Negative products floor toward -∞: -1 ns × 1 ppb = -1e-9 → -1; 1 s × -1 ppb = -1 exactly.
        #expect(Drift.scaled(-1, ppb: 1) == -1)
        #expect(Drift.scaled(1, ppb: -1) == -1)
        #expect(Drift.scaled(1_000_000_000, ppb: -1) == -1)
        #expect(Drift.scaled(1_000_000_001, ppb: -1) == -2)   // -1.000000001 → -2
        // Zero drift is zero whatever the elapsed time.
        #expect(Drift.scaled(.max, ppb: 0) == 0)
        // 20 ppm of 75 min: 4.5e12 × 2e-5 = 9e7 exactly; +7 ns adds 1.4e-4 → still 9e7.
        #expect(Drift.scaled(75 * .minute, ppb: 20_000) == 90 * .millisecond)
        #expect(Drift.scaled(75 * .minute + 7, ppb: 20_000) == 90 * .millisecond)
        // No overflow: 100 years at +500 ppm = 3.1536e18 × 5e-4 = 1.5768e15 exactly.
        let century: Int64 = 100 * 365 * 24 * .hour
        #expect(Drift.scaled(century, ppb: 500_000) == 1_576_800_000_000_000)
        #expect(Drift.scaled(century, ppb: -500_000) == -1_576_800_000_000_000)
    }

    @Test func scaledMatchesA128BitReferenceOnASeededGrid() {
        var rng = stateStream(1)
        for _ in 0..<2_000 {
            let elapsed = uniformIn(-400 * 24 * .hour, 400 * 24 * .hour, &rng)
            let ppb = uniformIn(-1_000_000, 1_000_000, &rng)
            // Independent reference: elapsed = a·10⁹ + b with 0 ≤ b < 10⁹, so
            // floor(elapsed·ppb/10⁹) = a·ppb + floor(b·ppb/10⁹), every product fitting in 64 bits.
            let a = floorDiv(elapsed, .second)
            let b = elapsed - a * .second
            let expected = a * ppb + floorDiv(b * ppb, .second)
            #expect(Drift.scaled(elapsed, ppb: ppb) == expected, "elapsed \(elapsed) ppb \(ppb)")
        }
    }

    // MARK: drifted / undrifted

    @Test func driftedHandCases() {
        let fast = DeviceState(driftPPB: 20_000, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        // 1 s at +20 ppm: 1e9 + 20 000.
        #expect(fast.drifted(.second) == 1_000_020_000)
        // 1 s − 1 ns: 999 999 999 + floor(19 999.99998) = 1 000 019 998 (the count skips …999).
        #expect(fast.drifted(.second - 1) == 1_000_019_998)
        let slow = DeviceState(driftPPB: -20_000, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        // At -20 ppm the count stalls once every 50 µs: 50 000 → 50 000 − 1; 50 001 → 50 001 − 2.
        #expect(slow.drifted(50_000) == 49_999)
        #expect(slow.drifted(50_001) == 49_999)
        #expect(slow.drifted(49_999) == 49_998)   // 49 999 + floor(-0.99998)
    }

    @Test func undriftedHandCases() {
        let fast = DeviceState(driftPPB: 20_000, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        // drifted(1 s) = 1 000 020 000 and drifted(1 s − 1) = 1 000 019 998, so both …000 and the
        // skipped …999 are first reached at exactly 1 s.
        #expect(fast.undrifted(reaching: 1_000_020_000) == .second)
        #expect(fast.undrifted(reaching: 1_000_019_999) == .second)
        #expect(fast.undrifted(reaching: 1_000_019_998) == .second - 1)
        // 1e9 / 1.00002 = 999 980 000.39999…: drifted(999 980 001) = 999 980 001 + 19 999 = 1e9.
        #expect(fast.undrifted(reaching: .second) == 999_980_001)

        let slow = DeviceState(driftPPB: -20_000, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        // 49 999 is first reached at 50 000 (it stays there at 50 001).
        #expect(slow.undrifted(reaching: 49_999) == 50_000)
        // 50 000: drifted(50 002) = 50 002 + floor(-1.00004) = 50 000.
        #expect(slow.undrifted(reaching: 50_000) == 50_002)

        let perfect = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        #expect(perfect.undrifted(reaching: 123_456_789) == 123_456_789)
        #expect(perfect.undrifted(reaching: 0) == 0)
    }

    @Test(arguments: [Int64(500_000), -500_000, 100_000, -100_000, 1, -1, 0, 499_999, -499_999])
    func undriftedIsTheExactInverseForLargeTargets(ppb: Int64) {
        let d = DeviceState(driftPPB: ppb, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        var rng = stateStream(UInt64(bitPattern: ppb &+ 1_000_000))
        let tenDays: Int64 = 10 * 24 * .hour
        var targets: [Int64] = [tenDays, tenDays + 1, tenDays - 1, d.drifted(tenDays), d.drifted(tenDays) + 1,
                                1, 2, .second]
        for _ in 0..<300 { targets.append(uniformIn(1, 2 * tenDays, &rng)) }
        for target in targets {
            let e = d.undrifted(reaching: target)
            // Smallest true elapsed time whose count reaches the target.
            #expect(d.drifted(e) >= target, "ppb \(ppb) target \(target)")
            #expect(d.drifted(e - 1) < target, "ppb \(ppb) target \(target)")
        }
    }

    /// Targets beyond 2⁵² ns (52 days), where a floating-point guess would be off by more than
    /// a step: the 128-bit quotient is still the boundary.
    @Test(arguments: [Int64(20_000), -20_000, 1, -1])
    func undriftedIsExactBeyondTheFloatingPointGuess(ppb: Int64) {
        let d = DeviceState(driftPPB: ppb, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        for target: Int64 in [(1 << 52) - 1, 1 << 52, (1 << 52) + 1, 3 << 52, -(1 << 52) - 5, 1 << 60] {
            let e = d.undrifted(reaching: target)
            #expect(d.drifted(e) >= target, "ppb \(ppb) target \(target)")
            #expect(d.drifted(e - 1) < target, "ppb \(ppb) target \(target)")
        }
    }

    /// The closed form ⌈target·10⁹ / (10⁹ + ppb)⌉ is the boundary for negative targets too (a
    /// reading before the session's base), for drifts far beyond a real oscillator's, and for
    /// rate corrections (`Drift.inverse` serves both).
    @Test func inverseIsTheBoundaryForNegativeTargetsAndLargeRates() {
        var rng = stateStream(7)
        for _ in 0..<2_000 {
            let ppb = uniformIn(-500_000_000, 500_000_000, &rng) / (rng.below(2) == 0 ? 1 : 10_000)
            let target = uniformIn(-30 * 24 * .hour, 30 * 24 * .hour, &rng) / (rng.below(2) == 0 ? 1 : 1_000_000)
            let e = Drift.inverse(reaching: target, ppb: ppb)
            #expect(e &+ Drift.scaled(e, ppb: ppb) >= target, "ppb \(ppb) target \(target)")
            #expect((e &- 1) &+ Drift.scaled(e &- 1, ppb: ppb) < target, "ppb \(ppb) target \(target)")
        }
    }

    @Test func driftedIsMonotoneAndUndriftedRoundTrips() {
        var rng = stateStream(2)
        for _ in 0..<500 {
            let ppb = uniformIn(-500_000, 500_000, &rng)
            let d = DeviceState(driftPPB: ppb, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
            let e = uniformIn(0, 30 * 24 * .hour, &rng)
            #expect(d.drifted(e + 1) >= d.drifted(e))
            // A count that is reached is reached no later than the elapsed time that produced it.
            #expect(d.undrifted(reaching: d.drifted(e)) <= e)
            #expect(d.drifted(d.undrifted(reaching: d.drifted(e))) == d.drifted(e))
            if ppb >= 0 {
                // At non-negative drift the count is strictly increasing, so the round trip is exact.
                #expect(d.undrifted(reaching: d.drifted(e)) == e)
            }
        }
    }

    // MARK: Layout

    @Test func compactLayout() {
        // Seven 64-bit fields, three 32-bit ones and a Bool: 69 bytes, 72 in an array.
        #expect(MemoryLayout<DeviceState>.size == 69)
        #expect(MemoryLayout<DeviceState>.stride == 72)
    }

    // MARK: Boot, wall clock

    @Test func initRecordsTheBootWallClock() {
        // Booted 1 h before the epoch, wall clock 2.5 s fast: KERN_BOOTTIME = epoch − 1 h + 2.5 s.
        let d = DeviceState(driftPPB: 7, wallOffset: 2_500 * .millisecond, bootTime: SimTime(ns: -.hour),
                            epochUnix: Self.epoch)
        #expect(d.bootWallUnix == Self.epoch - .hour + 2_500 * .millisecond)
        #expect(d.sleptTotal == 0)
        #expect(!d.asleep)
        let c = ClockContext(epochUnix: Self.epoch)
        // wallUnix = epoch + t + offset, read live from wallOffset.
        #expect(d.wallUnix(at: SimTime(ns: 10 * .second), c) == Self.epoch + 12_500 * .millisecond)
        var moved = d
        moved.wallOffset = -.minute
        #expect(moved.wallUnix(at: SimTime(ns: 10 * .second), c) == Self.epoch + 10 * .second - .minute)
        #expect(moved.bootWallUnix == d.bootWallUnix)   // fixed at boot
    }

    // MARK: Sleep and wake

    @Test func awakeElapsedLosesExactlyTheDeepSleep() {
        // Booted at −1 h; asleep 10 min → 25 min; at 30 min: (1 h + 30 min) − 15 min = 75 min.
        var d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: SimTime(ns: -.hour), epochUnix: Self.epoch)
        #expect(d.awakeElapsed(at: SimTime(ns: 10 * .minute)) == 70 * .minute)
        d.fallAsleep(at: SimTime(ns: 10 * .minute))
        #expect(d.asleep)
        // While asleep the awake time is frozen at its value at the sleep start.
        #expect(d.awakeElapsed(at: SimTime(ns: 20 * .minute)) == 70 * .minute)
        #expect(d.awakeElapsed(at: SimTime(ns: 25 * .minute)) == 70 * .minute)
        let slept = d.wake(at: SimTime(ns: 25 * .minute))
        #expect(slept == 15 * .minute)
        #expect(d.sleptTotal == 15 * .minute)
        #expect(!d.asleep)
        #expect(d.awakeElapsed(at: SimTime(ns: 30 * .minute)) == 75 * .minute)
        #expect(d.awakeElapsed(at: SimTime(ns: 30 * .minute + 1)) == 75 * .minute + 1)
        // A second sleep 40 → 42 min accumulates: at 50 min, 110 − 15 − 2 = 93 min.
        d.fallAsleep(at: SimTime(ns: 40 * .minute))
        #expect(d.awakeElapsed(at: SimTime(ns: 41 * .minute)) == 85 * .minute)
        #expect(d.wake(at: SimTime(ns: 42 * .minute)) == 2 * .minute)
        #expect(d.sleptTotal == 17 * .minute)
        #expect(d.awakeElapsed(at: SimTime(ns: 50 * .minute)) == 93 * .minute)
    }

    @Test func fallAsleepTwiceKeepsTheFirstStartAndWakeWhileAwakeIsANoOp() {
        var d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        #expect(d.wake(at: SimTime(ns: 5 * .second)) == 0)
        #expect(d.sleptTotal == 0)
        d.fallAsleep(at: SimTime(ns: 10 * .second))
        d.fallAsleep(at: SimTime(ns: 12 * .second))   // ignored: already asleep since 10 s
        #expect(d.sleepStart == SimTime(ns: 10 * .second))
        #expect(d.wake(at: SimTime(ns: 15 * .second)) == 5 * .second)
        #expect(d.wake(at: SimTime(ns: 16 * .second)) == 0)
        #expect(d.sleptTotal == 5 * .second)
        #expect(d.awakeElapsed(at: SimTime(ns: 20 * .second)) == 15 * .second)
    }

    @Test func seededSleepSequencesAccumulate() {
        var rng = stateStream(3)
        for _ in 0..<200 {
            let boot = SimTime(ns: -uniformIn(0, 10 * 24 * .hour, &rng))
            var d = DeviceState(driftPPB: uniformIn(-100_000, 100_000, &rng), wallOffset: 0, bootTime: boot,
                                epochUnix: Self.epoch)
            var t = boot
            var total: Int64 = 0
            for _ in 0..<Int(uniformIn(0, 6, &rng)) {
                t = t + uniformIn(0, .hour, &rng)
                d.fallAsleep(at: t)
                let length = uniformIn(0, 3 * .hour, &rng)
                t = t + length
                #expect(d.wake(at: t) == length)
                total += length
            }
            let later = t + uniformIn(0, .hour, &rng)
            #expect(d.sleptTotal == total)
            #expect(d.awakeElapsed(at: later) == (later - boot) - total)
        }
    }
}

/// Reboots and wall-clock steps on the device state.
@Suite struct DeviceStateEventTests {
    static let epoch: Int64 = 1_700_000_000_000_000_000

    @Test func rebootRestartsTheKernelAndKeepsTheHardware() {
        var d = DeviceState(driftPPB: -3_000, wallOffset: 2 * .second, bootTime: SimTime(ns: -.hour), epochUnix: Self.epoch)
        d.fallAsleep(at: SimTime(ns: 5 * .minute))
        // Rebooting while asleep: awake from the boot on, nothing slept, boot wall from the current wall.
        d.reboot(at: SimTime(ns: 7 * .minute), epochUnix: Self.epoch)
        #expect(!d.asleep)
        #expect(d.sleptTotal == 0)
        #expect(d.bootTime == SimTime(ns: 7 * .minute))
        #expect(d.bootWallUnix == Self.epoch + 7 * .minute + 2 * .second)
        #expect(d.awakeElapsed(at: SimTime(ns: 9 * .minute)) == 2 * .minute)
        #expect(d.driftPPB == -3_000 && d.wallOffset == 2 * .second)
    }

    @Test func wallStepMovesOnlyTheWallOffset() {
        var d = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: SimTime(ns: -.hour), epochUnix: Self.epoch)
        let c = ClockContext(epochUnix: Self.epoch)
        d.moveWallClock(by: -90 * .second)
        #expect(d.wallOffset == -90 * .second)
        #expect(d.bootWallUnix == Self.epoch - .hour)                         // recorded at boot
        #expect(d.kernelBootWallUnix(c) == Self.epoch - .hour - 90 * .second)  // the OS's, shifted
        #expect(d.awakeElapsed(at: .zero) == .hour)
    }
}
