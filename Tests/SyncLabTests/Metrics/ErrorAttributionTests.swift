import Testing
@testable import SyncLab
import SyncLabKernel

/// The error split: hand-derived parts for the seeds' estimator, exact additivity over whole
/// runs, and the standby part equal to the scripted sleep.
@Suite struct ErrorAttributionTests {
    /// Upload-complete estimator, perfect clock readings equal to true time (ns):
    /// upload complete 1_000, arrival 41_000 (40 µs uplink), stamp truncated to 0, response leaves
    /// at 49_000 (8 µs service), download complete 109_000.
    /// Estimate at 109_000 = stamp + (109_000 − 1_000) = 108_000 → error −1_000 against truth.
    /// exact stamp 41_000 → 149_000 (+40_000: the uplink the estimator ignores … and the rest);
    /// mid-residence stamp 45_000 → 153_000; reference (no offset) identical.
    @Test func seedsEstimatorSplitByHand() {
        let sample = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 0),
                                uploadComplete: ClockReading(ns: 1_000), downloadComplete: ClockReading(ns: 109_000))
        let a = AnchorAttribution.split(estimator: UploadCompleteEstimator(), sample: sample,
                                        reading: ClockReading(ns: 109_000), truth: 109_000, actual: 108_000,
                                        exactStamp: 41_000, exactTransmit: 49_000, midStamp: 45_000, referenceMid: 45_000)
        #expect(a.timestampResolution == -41_000)     // the truncated stamp
        #expect(a.timestampPlacement == -4_000)       // stamped 4 µs before mid-residence
        #expect(a.serverOffset == 0)
        // With a mid-residence stamp the estimate is 45_000 + 108_000 = 153_000: ahead by the
        // uplink (40 µs) and half the service time (4 µs).
        #expect(a.pathAndEstimator == 44_000)
        #expect(a.total == -1_000)
    }

    /// A server 3 ms ahead of the reference shows up as the offset part and nowhere else.
    @Test func serverOffsetPart() {
        let sample = SyncSample(serverTimestamp: 3_045_000, requestSent: ClockReading(ns: 0),
                                uploadComplete: ClockReading(ns: 0), downloadComplete: ClockReading(ns: 90_000))
        let a = AnchorAttribution.split(estimator: UploadCompleteEstimator(), sample: sample,
                                        reading: ClockReading(ns: 90_000), truth: 90_000, actual: 3_135_000,
                                        exactStamp: 3_045_000, exactTransmit: 3_045_000, midStamp: 3_045_000,
                                        referenceMid: 45_000)
        #expect(a.timestampResolution == 0)
        #expect(a.timestampPlacement == 0)
        #expect(a.serverOffset == 3_000_000)
        #expect(a.pathAndEstimator == 45_000)
    }

    /// NTP with exact stamps at arrival (T2) and departure (T3) has no placement error: the
    /// midpoint stamp gives the same offset. T1 0, T2 41_000, T3 49_000, T4 109_000 (40 µs up,
    /// 60 µs down): θ = ((41 − 0) + (49 − 109))/2 µs = −9.5 µs → server time at 109 µs = 99.5 µs,
    /// error −9.5 µs = half the asymmetry; stamps truncated to 0 make it −54.5 µs.
    @Test func ntpSplitHasNoPlacementPart() {
        let sample = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 0), uploadComplete: ClockReading(ns: 0),
                                downloadComplete: ClockReading(ns: 109_000), serverTransmit: 0)
        let ntp = NTPEstimator(window: 1)
        let actual = ntp.anchor(for: sample).serverTime(at: ClockReading(ns: 109_000))
        #expect(actual == 109_000 - 54_500)
        let a = AnchorAttribution.split(estimator: ntp, sample: sample, reading: ClockReading(ns: 109_000), truth: 109_000,
                                        actual: actual, exactStamp: 41_000, exactTransmit: 49_000, midStamp: 45_000,
                                        referenceMid: 45_000)
        #expect(a.timestampResolution == -45_000)   // both stamps 41 and 49 µs truncated to 0
        #expect(a.timestampPlacement == 0)
        #expect(a.serverOffset == 0)
        #expect(a.pathAndEstimator == -9_500)
    }

    /// What the estimator's memory adds (a filter keeping an older sample) lands in the
    /// path-and-estimator part, never in the stamp parts.
    @Test func estimatorMemoryLandsInPathAndEstimator() {
        let sample = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 0),
                                uploadComplete: ClockReading(ns: 1_000), downloadComplete: ClockReading(ns: 109_000))
        let a = AnchorAttribution.split(estimator: UploadCompleteEstimator(), sample: sample,
                                        reading: ClockReading(ns: 109_000), truth: 109_000, actual: 108_000 + 7_000,
                                        exactStamp: 41_000, exactTransmit: 49_000, midStamp: 45_000, referenceMid: 45_000)
        #expect(a.timestampResolution == -41_000)
        #expect(a.timestampPlacement == -4_000)
        #expect(a.pathAndEstimator == 44_000 + 7_000)
        #expect(a.total == 6_000)
    }

    @Test func partsAddUpToTheDisplayedError() {
        var anchor = AnchorAttribution()
        anchor.timestampResolution = -700
        anchor.timestampPlacement = -5
        anchor.serverOffset = 11
        anchor.pathAndEstimator = 40
        let p = ErrorParts(anchor: anchor, estimateError: -600, drift: 7, pause: -20, displayError: -900)
        #expect(p.parts == [-700, -5, 11, 40, 7, -20, 67, -300])
        #expect(p.total == -900)
    }

    /// 128-bit sums are exact whatever the order, across carries and signs.
    @Test func wideSumIsExactInAnyOrder() {
        let values: [Int64] = [.max, .max, -5, .min, 3, .max, -1, .min + 1, 42]
        var forward = WideSum(), backward = WideSum(), halves = WideSum(), second = WideSum()
        for v in values { forward.add(v) }
        for v in values.reversed() { backward.add(v) }
        for v in values.prefix(4) { halves.add(v) }
        for v in values.dropFirst(4) { second.add(v) }
        halves.add(second)
        #expect(forward == backward)
        #expect(forward == halves)
        // 3·max + 2·min + 1 − 5 + 3 − 1 + 42 = 3·max − 2·max − 2 + 40 = max + 38: past Int64.
        var expected = WideSum()
        expected.add(.max)
        expected.add(38)
        #expect(forward == expected)
        #expect(forward.high == 0 && forward.low == UInt64(Int64.max) + 38)
    }

    /// Over a whole run of the default-like design, the summed parts equal the summed displayed
    /// errors exactly (128-bit integers, no rounding), and the sample count matches; 4,000
    /// players, so that 2 threads split them into two shards of 2,000.
    @Test func partsAddUpOverARun() {
        var s = WorldExactTests.scenario(clock: SuspendingDeviceClock(), duration: 2 * .hour, sessions: 4,
                                         viewing: 3 * .minute, pause: 12 * .minute, players: 4_000)
        s.links[0].uplink = .lognormal(median: 40e6, sigma: 0.5)
        s.devices.driftPPM = .normal(mean: 0, sd: 20)
        s.server.serviceTime = .lognormal(median: 8e6, sigma: 0.4)
        var world = World(scenario: s)
        let r = world.run()
        let a = r.errorAttribution
        #expect(a.count == r.clientError.count)
        #expect(a.count > 100)
        var sum = WideSum()
        for part in a.sums { sum.add(part) }
        #expect(sum == a.totalSum)
        #expect(a.dominant != nil)
        // Each anchor's parts are added once per sync, the last sync's when the results are
        // read: split across shards, the run adds them up the same.
        let two = Simulation.run(s, threads: 2)
        #expect(two.shards == 2, "the test means to split the players")
        #expect(two.errorAttribution == a)
    }

    /// An anchor's parts added once for n samples are the n samples' records.
    @Test func anchorPartsAddedPerSyncEqualPerSampleRecords() {
        var anchor = AnchorAttribution()
        anchor.timestampResolution = -999_999_999
        anchor.timestampPlacement = 4_000
        anchor.serverOffset = .max / 3
        anchor.pathAndEstimator = -7
        var one = AttributionStats(), batched = AttributionStats()
        let samples: [(estimate: Int64, drift: Int64, pause: Int64, display: Int64)] =
            [(-600, 7, -20, -900), (5_000_000, -3, 0, 4_000_000), (.max / 3 + 1, 1, -1, .max / 3)]
        for _ in 0..<5 {
            for x in samples {
                one.record(ErrorParts(anchor: anchor, estimateError: x.estimate, drift: x.drift, pause: x.pause,
                                      displayError: x.display))
                batched.recordSinceSync(anchorTotal: anchor.total, estimateError: x.estimate, drift: x.drift,
                                        pause: x.pause, displayError: x.display)
            }
        }
        batched.addAnchor(anchor, samples: 15)
        batched.addAnchor(AnchorAttribution(), samples: 0)   // no samples: no extremes either
        #expect(batched == one)
        #expect(batched.maximum[2] == .max / 3 && batched.minimum[0] == -999_999_999)
    }

    /// x · n in 128 bits, past 64.
    @Test func wideSumAddsProducts() {
        var product = WideSum(), repeated = WideSum()
        product.add(.max, times: 5)
        product.add(-3, times: 1 << 40)
        for _ in 0..<5 { repeated.add(.max) }
        var minus = WideSum()
        minus.add(-3 << 40)
        repeated.add(minus)
        #expect(product == repeated)
    }

    /// The same with the design memory in play: an NTP filter, best-of-3 probes, drift
    /// correction, a fleet of servers with clock offsets and a continuous clock.
    @Test func partsAddUpWithFiltersProbesAndAFleet() {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: 2 * .hour, sessions: 4,
                                         viewing: 3 * .minute, pause: 12 * .minute, players: 40)
        s.links[0].uplink = .lognormal(median: 40e6, sigma: 0.5)
        s.devices.driftPPM = .normal(mean: 0, sd: 20)
        s.server.timestampResolution = .microsecond
        s.server.fleet = Fleet(servers: 3, clockOffset: .normal(mean: 0, sd: 20e6), balancing: .random)
        s.client.estimator = NTPEstimator(window: 4)
        s.client.probes = 3
        s.client.driftCorrection = DriftCorrection()
        var world = World(scenario: s)
        let r = world.run()
        let a = r.errorAttribution
        #expect(a.count == r.clientError.count)
        #expect(a.count > 100)
        var sum = WideSum()
        for part in a.sums { sum.add(part) }
        #expect(sum == a.totalSum)
        // Servers 20 ms apart show up in the offset part; µs stamps leave almost no truncation.
        #expect((a.standardDeviation(.serverOffset) ?? 0) > 1e6)
        #expect(abs(a.mean(.timestampResolution) ?? 1e9) < 1_000)
    }

    /// One player who sleeps exactly 8 min between syncs on the suspending clock: the standby
    /// part of a sample after the wake is −8 min; on the continuous clock it is 0.
    @Test(arguments: [true, false])
    func standbyPartIsTheScriptedSleep(suspending: Bool) {
        let viewing: Int64 = 60 * .second, pause: Int64 = 10 * .minute
        let end = 5 * Int64.second + viewing + pause + 30 * .second
        let clock: any DeviceClock = suspending ? SuspendingDeviceClock() : ContinuousDeviceClock()
        let s = WorldExactTests.scenario(clock: clock, duration: end, sessions: 2, viewing: viewing, pause: pause)
        var world = World(scenario: s)
        let r = world.run()
        let a = r.errorAttribution
        #expect(a.count > 0)
        // Samples before the sleep have no pause, those after it exactly −8 min.
        let slot = ErrorSource.standbyPause.rawValue
        if suspending {
            #expect(a.minimum[slot] == -8 * .minute)
            #expect(a.maximum[slot] == 0)
            #expect(a.largest(.standbyPause) == 8 * .minute)
            #expect(a.mean(.standbyPause)! < 0)
        } else {
            #expect(a.minimum[slot] == 0 && a.maximum[slot] == 0)
        }
        #expect(a.mean(.clockDrift) == 0)
        #expect(a.mean(.serverOffset) == 0)
    }
}
