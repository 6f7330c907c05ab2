import Testing
@testable import SyncLab
import SyncLabKernel

/// The models checked against independent truth: closed forms derived by hand, with fixed seeds
/// and tolerances derived from the sample size (4 standard errors: a correct model fails one of
/// these checks with probability about 6e-5 per seed, and the seeds are fixed, so the outcome is
/// deterministic).
///
/// Also validated elsewhere, not repeated here:
/// - suspending versus continuous clocks across scripted sleeps, to the nanosecond:
///   `DeviceClockTests.suspendingClockLosesExactlyTheDeepSleepAtZeroDrift`,
///   `DeviceClockTests.twoSleepsAccumulateAndTheClockIsFrozenWhileAsleep` (Tests/SyncLabTests/Device/
///   DeviceClockTests.swift) and, through the whole world, `WorldExactTests.standbyPausesOnlyTheSuspendingClock`
///   and `WorldExactTests.seedsEstimatorErrorIsUplinkMinusTruncation` (Tests/SyncLabTests/World/WorldExactTests.swift).
///
/// The server queue against Erlang C (M/M/c) and Pollaczek–Khinchine (M/D/1) is in
/// `QueueValidationTests` (Tests/SyncLabTests/Validation/QueueValidationTests.swift).
/// Not yet validated, because the model does not exist yet: an NTP estimator against RFC 5905's
/// offset and delay.
@Suite struct ModelValidationTests {
    /// Players with a perfect network and a perfect clock, so the only error left is the
    /// whole-second timestamp.
    static func perfectWorld(players: Int, duration: Nanoseconds, epochUnix: Int64 = 1_328_724_000_371_000_000,
                             population configure: (inout PopulationConfig) -> Void) -> Scenario {
        let link = LinkProfile(name: "perfect", share: 1, uplink: .constant(0), downlink: .constant(0),
                               bandwidth: .constant(400e9), failure: 0, timeout: 30 * .second)
        var server = ServerConfig()
        server.serviceTime = .constant(0)
        var population = PopulationConfig(players: players)
        configure(&population)
        return Scenario(name: "validation", epochUnix: epochUnix, duration: duration, warmup: 0, positions: 1,
                        shelfLife: .constant(4 * 60e9), server: server, links: [link],
                        devices: DeviceConfig(driftPPM: .constant(0), wallClockOffset: .constant(0),
                                              uptimeAtStart: .constant(Double(Nanoseconds.hour))),
                        client: ClientDesign(clock: ContinuousDeviceClock()), population: population,
                        sampleEvery: 10 * .second)
    }

    /// (a) Uniform truncation. With zero delays the seeds' estimate is the whole-second
    /// `REQUEST_TIME` plus nothing, so its error is −U seconds with U = the fractional second of
    /// the arrival, uniform on [0, 1) because visits start at continuous random instants:
    /// mean −500 ms, and for two players |U − V| > 0.5 s with probability 2·(1/2)·(1/2)² = 0.25.
    @Test func wholeSecondTimestampsGiveTheUniformTruncationError() {
        let scenario = Self.perfectWorld(players: 5000, duration: 20 * .minute) { p in
            p.visitGap = .exponential(mean: 5 * 60e9)
            p.sessionsPerVisit = .constant(1)
            p.viewing = .constant(Double(30 * Nanoseconds.minute))
        }
        var world = World(scenario: scenario)
        let result = world.run()
        // One error per player: its last sync (earlier syncs of the same player are the same draw
        // shifted by whole ticks, so only the last one counts as independent).
        let errors: [Double] = world.clients.filter(\.hasSync).map { c in
            let trueTimeAtAnchor = c.anchor.reading.ns + c.device.bootTime.ns   // continuous clock, no drift
            return Double(c.anchor.serverTime - trueTimeAtAnchor) / 1e6          // ms
        }
        let n = Double(errors.count)
        #expect(errors.count > 4800)                         // P(no visit in 20 min) = e^-4 ≈ 1.8%
        #expect(errors.allSatisfy { $0 > -1000 && $0 <= 0 })  // truncation only, never ahead

        // Mean: U has sd 1000/√12 = 288.7 ms, so the mean of n has standard error 288.7/√n ms
        // (4.08 ms for n ≈ 4900); tolerance 4 standard errors.
        let mean = errors.reduce(0, +) / n
        let meanTolerance = 4 * (1000 / 12.0.squareRoot()) / n.squareRoot()
        #expect(abs(mean - -500) <= meanTolerance, "mean \(mean) ms, expected -500 ± \(meanTolerance)")

        // Pairs more than 500 ms apart: a U-statistic with kernel 1{|U − V| > 0.5}; its first
        // projection is |u − 1/2| with variance 1/48, so its standard error is √(4/48/n) = 1/√(12n)
        // (0.0041 for n ≈ 4900); tolerance 4 standard errors.
        let sorted = errors.sorted()
        var apart = 0
        var j = 0
        for i in sorted.indices {
            if j < i + 1 { j = i + 1 }
            while j < sorted.count && sorted[j] - sorted[i] <= 500 { j += 1 }
            apart += sorted.count - j
        }
        let pairs = n * (n - 1) / 2
        let share = Double(apart) / pairs
        let shareTolerance = 4 / (12 * n).squareRoot()
        #expect(abs(share - 0.25) <= shareTolerance, "share \(share), expected 0.25 ± \(shareTolerance)")

        // The recorder sees the same distribution in its samples: the signed mean of the
        // estimate error over all sampled (player, instant) pairs, within the same tolerance.
        let sampled = (result.estimateError.meanSigned ?? 0) / 1e6
        #expect(abs(sampled - -500) <= meanTolerance, "sampled mean \(sampled) ms")
        print("validation (a): n = \(errors.count), mean \(mean) ms (expected -500 ± \(meanTolerance)), "
              + "pairs > 500 ms apart \(share) (expected 0.25 ± \(shareTolerance)), sampled mean \(sampled) ms")
    }

    /// (b) The first refetch wave after a 50x release. At the release R, J players start a visit
    /// at R + w, w uniform on [0, 60 s), and load at once; each refetches at the first 1 s tick
    /// after a delay d uniform on [6 min, 9 min], i.e. T = ⌈d⌉ uniform on the whole seconds
    /// 361…540 s after the visit. The arrival R + w + T has density (1/180)·(1/60)·#{k : x − 60 < k ≤ x}
    /// per second of x = arrival − R: a trapezoid rising from 361 s, flat at J/180 per second on
    /// [420 s, 541 s), and back to zero at 600 s. So:
    /// - every joiner's first refetch reaches the server in [R + 6 min, R + 10 min + 1 s): exactly J;
    /// - in the 110 s [R + 425 s, R + 535 s) on the plateau, J·110/180 are expected, a binomial
    ///   count with standard error √(J·q·(1 − q)), q = 110/180; tolerance 4 standard errors.
    @Test func firstRefetchWaveAfterAFiftyfoldRelease() {
        let release = 40 * Nanoseconds.minute
        // Epoch on a whole second: server second k is true time [k s, k + 1 s).
        let scenario = Self.perfectWorld(players: 8000, duration: 52 * .minute, epochUnix: 1_328_724_000_000_000_000) { p in
            // 1 player in 100 visits 1 min in, views 30 min, then stays away (a break of a day):
            // online at the release but silent during the wave. The others would come back in
            // 100 days, so only the release brings them.
            p.visitGap = .empirical([60e9] + [Double](repeating: 100 * 86_400e9, count: 99))
            p.sessionsPerVisit = .constant(2)
            p.viewing = .constant(Double(30 * Nanoseconds.minute))
            p.breakDuration = .constant(86_400e9)
            p.lockShare = 1
            p.sleepDelay = .constant(Double(2 * Nanoseconds.minute))
            p.release = PopulationConfig.Release(at: SimTime(ns: release), multiplier: 50, window: .minute)
        }
        let result = Simulation.run(scenario)
        let joined = result.releaseJoined
        let online = result.releaseOnline
        #expect(online > 40 && online < 130)                  // binomial(8000, 0.01) ≈ 80
        #expect(joined > 30 * online && joined <= 49 * online + 200)

        let r = Int(release / .second)
        func requests(_ from: Int, _ to: Int) -> Int {
            (r + from..<r + to).reduce(0) { $0 + Int(result.requestsPerSecond[$1]) }
        }
        #expect(requests(-(r - 32 * 60), 0) == 0)           // the early players are away from 32 min on
        #expect(requests(0, 61) == joined)                  // every joiner loads once on arrival
        #expect(requests(61, 360) == 0)
        #expect(requests(360, 601) == joined)               // the first refetch wave, complete
        #expect(requests(601, 720) == 0)                    // the second wave starts after 12 min

        let q = 110.0 / 180
        let expected = Double(joined) * q
        let tolerance = 4 * (Double(joined) * q * (1 - q)).squareRoot()
        let plateau = Double(requests(425, 535))
        #expect(abs(plateau - expected) <= tolerance, "plateau \(plateau) requests, expected \(expected) ± \(tolerance)")
        // The same as a rate: J/180 requests per second.
        let rate = plateau / 110
        #expect(abs(rate - Double(joined) / 180) <= tolerance / 110)
        // The ramp: the first 60 s of the wave carry (1/180)·∫(x − 360)/60 dx over [360, 420] → 30/180 of J (to ±1 s of tick).
        let ramp = Double(requests(360, 420))
        let rampExpected = Double(joined) * 30 / 180
        let rampTolerance = 4 * (Double(joined) * (30.0 / 180) * (150.0 / 180)).squareRoot() + Double(joined) / 180
        #expect(abs(ramp - rampExpected) <= rampTolerance, "ramp \(ramp), expected \(rampExpected) ± \(rampTolerance)")
        print("validation (b): \(online) online, \(joined) joined; plateau \(rate) requests/s (expected \(Double(joined) / 180) ± \(tolerance / 110)); "
              + "ramp \(ramp) (expected \(rampExpected) ± \(rampTolerance))")
    }
}
