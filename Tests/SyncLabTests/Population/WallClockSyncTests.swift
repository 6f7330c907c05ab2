import Testing
@testable import SyncLab
import SyncLabKernel

/// The disciplined wall clock (`devices.wallClockSync`), on the device state alone: every figure
/// below is worked out by hand from the piecewise-linear offset.
@Suite struct WallClockSyncTests {
    static let epoch: Int64 = 1_700_000_000_000_000_000
    static let slewing = ClockContext(epochUnix: epoch, wallSlewPPB: 500_000)    // 500 ppm

    static func device(ratePPB: Int32 = 0, offset: Nanoseconds = 0) -> DeviceState {
        var d = DeviceState(driftPPB: Int64(ratePPB), wallOffset: offset, bootTime: SimTime(ns: -.hour), epochUnix: epoch)
        d.wallRatePPB = ratePPB
        return d
    }

    /// 10 ppm fast for 1 h: 36 ms ahead (3,600 s × 10⁻⁵); the offset is the same however the
    /// hour is cut by re-anchoring.
    @Test func driftAccumulatesAtTheWallRate() {
        var d = Self.device(ratePPB: 10_000)
        #expect(d.wallOffset(at: SimTime(ns: .hour), Self.slewing) == 36 * .millisecond)
        d.anchorWallClock(at: SimTime(ns: 20 * .minute), Self.slewing)
        #expect(d.wallOffset == 12 * .millisecond)
        #expect(d.wallOffset(at: SimTime(ns: .hour), Self.slewing) == 36 * .millisecond)
    }

    /// A slew of −100 ms at 500 ppm takes 200 s: half done at 100 s, done at 200 s, and then
    /// the clock keeps its corrected offset.
    @Test func aSlewWorksOffAtItsRateAndStops() {
        var d = Self.device(offset: 100 * .millisecond)
        d.wallSlewLeft = Int32(-100 * .millisecond)
        let c = Self.slewing
        #expect(d.wallOffset(at: SimTime(ns: 100 * .second), c) == 50 * .millisecond)
        #expect(d.wallOffset(at: SimTime(ns: 200 * .second), c) == 0)
        #expect(d.wallOffset(at: SimTime(ns: 1_000 * .second), c) == 0)
        // Re-anchoring halfway keeps what is left of the slew.
        d.anchorWallClock(at: SimTime(ns: 100 * .second), c)
        #expect(d.wallOffset == 50 * .millisecond && d.wallSlewLeft == Int32(-50 * .millisecond))
        #expect(d.wallOffset(at: SimTime(ns: 200 * .second), c) == 0)
    }

    /// The uptime fix (`time(now) − KERN_BOOTTIME`) follows drift and slews, not steps: a step of
    /// −2 s leaves it alone, a slew of −100 ms reaches it in full after 200 s.
    @Test func uptimeFixFollowsSlewsAndDriftButNotSteps() {
        let clock = BootTimeUptimeClock(resolution: .microsecond), c = Self.slewing
        var d = Self.device(ratePPB: 20_000)       // 20 ppm: 72 ms ahead of true elapsed per hour
        let t = SimTime(ns: .hour)
        #expect(clock.reading(d, at: t, c).ns == 2 * .hour + 72 * .millisecond)   // booted 1 h before 0
        d.anchorWallClock(at: t, c)
        d.moveWallClock(by: -2 * .second)                                           // a step
        #expect(clock.reading(d, at: t, c).ns == 2 * .hour + 72 * .millisecond)
        d.wallSlewLeft = Int32(-100 * .millisecond)                                  // then a slew
        let later = t + 200 * .second
        // 200 s more at 20 ppm is 4 ms; the slew takes 100 ms off.
        #expect(clock.reading(d, at: later, c).ns == 2 * .hour + 200 * .second + 72 * .millisecond + 4 * .millisecond - 100 * .millisecond)
        // The wall-based variant that ignores KERN_BOOTTIME's shifts sees the step too.
        #expect(WallUptimeClock(resolution: .microsecond).reading(d, at: later, c).ns
                == clock.reading(d, at: later, c).ns - 2 * .second)
    }

    /// `earliestWall` is the first nanosecond at which the wall clock reaches a reading, while
    /// drifting and slewing: checked against the definition one nanosecond either side.
    @Test(arguments: [(Int32(0), Int32(0)), (Int32(37_000), Int32(0)), (Int32(-25_000), Int32(-80_000_000)),
                      (Int32(12_345), Int32(150_000_000))])
    func earliestWallIsTheFirstInstantReachingTheReading(rate: Int32, slew: Int32) {
        var d = Self.device(ratePPB: rate, offset: 3 * .millisecond)
        d.wallSlewLeft = slew
        let c = Self.slewing
        let targets: [Int64] = (0..<18).map { k in Int64(k) * (7 * Int64.minute + 123_457) }
        for target in targets {
            let unix: Int64 = Self.epoch + target
            let t = d.earliestWall(reaching: unix, notBefore: .zero, c)
            #expect(d.wallUnix(at: t, c) >= unix)
            if t > .zero { #expect(d.wallUnix(at: t - 1, c) < unix) }
        }
    }

    /// A correction removes the estimate: a step above the threshold, a slew at or below it,
    /// nothing when slewing is off (Android's style) — from one exchange whose error is half the
    /// link's asymmetry.
    @Test func correctionStepsAboveTheThresholdAndSlewsBelow() {
        let ntp = DeviceEventsConfig.WallClockSync()
        #expect(ntp.correction(offset: 300 * .millisecond, error: 0) == .step(-300 * .millisecond))
        #expect(ntp.correction(offset: 100 * .millisecond, error: 10 * .millisecond) == .slew(-110 * .millisecond))
        #expect(ntp.correction(offset: 120 * .millisecond, error: 8 * .millisecond) == .slew(-128 * .millisecond))   // at the threshold
        #expect(ntp.correction(offset: 120 * .millisecond, error: 9 * .millisecond) == .step(-129 * .millisecond))   // just above
        let android = DeviceEventsConfig.WallClockSync(stepAbove: 5 * .second, slewPPB: 0)
        #expect(android.correction(offset: 4 * .second, error: 0) == .none)
        #expect(android.correction(offset: -6 * .second, error: 0) == .step(6 * .second))
        // 40 ms up, 10 ms down: the estimate is 15 ms off (RFC 5905's offset error, half the asymmetry).
        let link = LinkProfile(name: "fixed", share: 1, uplink: .constant(Double(40 * Int64.millisecond)),
                               downlink: .constant(Double(10 * Int64.millisecond)), bandwidth: .constant(1e9),
                               failure: 0, timeout: 30 * .second)
        var rng = RandomStream(seed: 1, purpose: StreamPurpose("test"), entity: 0)
        #expect(ntp.measurementError(&rng, link: link) == -15 * .millisecond)
    }

    /// Random-walk frequency noise: with rate steps of σ every τ₀ the Allan variance at τ = m·τ₀
    /// is σ²(2m² + 1)/(6m) (derived in docs/clocks.md), so the deviation is 0.707σ at m = 1 and
    /// 1.30σ at m = 5, in ppb. Each of n devices gives one independent second difference of its
    /// phase (the wall offset, sampled every τ); it is normal, so its square has mean 2τ²σ_y²
    /// and relative standard error √(2/n) = 2.2% at n = 4,000, and the deviation (a square
    /// root) half that, 1.1%: 4 standard errors make the tolerance, 4.5%.
    @Test(arguments: [1, 5])
    func wanderHasTheAllanDeviationOfARandomWalk(m: Int) {
        let wander = DeviceEventsConfig.WallClockSync.Wander(step: 10 * .minute, sigmaPPB: 50)
        let c = ClockContext(epochUnix: Self.epoch)
        let n = 4_000
        let tau = Int64(m) * wander.step
        var sum = 0.0
        for i in 0..<n {
            var d = Self.device()
            var rng = RandomStream(seed: 7, purpose: StreamPurpose("allan"), entity: UInt64(i))
            var phases: [Double] = []
            var t = SimTime.zero
            // Steps at 0, τ₀, 2τ₀, …: the rate is constant within each τ₀ and the offset is
            // read at block boundaries (0, τ, 2τ), with one warm-up block so the walk is under way.
            for k in 0..<(3 * m) {
                if k % m == 0 { phases.append(Double(d.wallOffset(at: t, c))) }
                wander.step(&d, at: t, c, &rng)
                t = t + wander.step
            }
            phases.append(Double(d.wallOffset(at: t, c)))
            let x = Array(phases.suffix(3))
            let second = x[2] - 2 * x[1] + x[0]
            sum += second * second
        }
        let allanVariance = sum / Double(n) / (2 * Double(tau) * Double(tau))     // (ns/ns)²
        let measured = allanVariance.squareRoot() * 1e9                          // ppb
        let md = Double(m)
        let expected = 50 * ((2 * md * md + 1) / (6 * md)).squareRoot()
        #expect(abs(measured / expected - 1) < 0.045, "Allan deviation at m = \(m): \(measured) ppb vs \(expected) ppb")
    }

    /// Corrections and wander on every player give the same results on any number of threads
    /// (measured with the uptime fix, which reads the wall clock).
    @Test func identicalForAnyThreadCount() throws {
        var base = try ShardingTests.small("v115-idealised.json")
        base.client.clock = BootTimeUptimeClock()
        let (one, _) = ShardingTests.expectModelIsThreadIndependent(base) {
            $0.devices.events.wallClockSync = .init(every: .exponential(mean: Double(10 * Int64.minute)),
                                                    wander: .init(step: 5 * .minute, sigmaPPB: 50))
        }
        #expect(one.deviceEvents.wallClockSteps + one.deviceEvents.wallClockSlews > 0)
    }
}
