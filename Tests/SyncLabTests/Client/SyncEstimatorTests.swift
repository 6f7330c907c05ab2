import Testing
@testable import SyncLab
import SyncLabKernel

private func estimatorStream(_ entity: UInt64) -> RandomStream {
    RandomStream(seed: 0xE57_1A7E, purpose: StreamPurpose("test-sync-estimator"), entity: entity)
}

/// Uniform integer in [lo, hi].
private func uniformIn(_ lo: Int64, _ hi: Int64, _ rng: inout RandomStream) -> Int64 {
    lo &+ Int64(bitPattern: rng.below(UInt64(bitPattern: hi &- lo) &+ 1))
}

private func at(_ ns: Int64) -> SimTime { SimTime(ns: ns) }

/// One exchange with constant latencies, as the seeds' client saw it: the request is sent at true
/// time `sent` and its last byte leaves at once (upload complete = sent); it reaches the server
/// `uplink` later, where `REQUEST_TIME` is taken (floor of unix time to whole seconds, relative to
/// the epoch); the response's last byte arrives `downlink` later.
private struct Exchange {
    var epochUnix: Int64
    var device: DeviceState
    var clock: any DeviceClock = ContinuousDeviceClock()
    var uplink: Nanoseconds = 40 * .millisecond
    var downlink: Nanoseconds = 60 * .millisecond

    var context: ClockContext { ClockContext(epochUnix: epochUnix) }

    func arrival(_ sent: SimTime) -> SimTime { sent + uplink }
    func downloadComplete(_ sent: SimTime) -> SimTime { arrival(sent) + downlink }
    /// REQUEST_TIME, by hand: floor the unix time to whole seconds, back to epoch-relative.
    func timestamp(_ sent: SimTime) -> Int64 {
        floorTo(epochUnix + arrival(sent).ns, .second) - epochUnix
    }

    func sample(_ sent: SimTime) -> SyncSample {
        let r = clock.reading(device, at: sent, context)
        return SyncSample(serverTimestamp: timestamp(sent), requestSent: r, uploadComplete: r,
                          downloadComplete: clock.reading(device, at: downloadComplete(sent), context))
    }

    /// Estimated minus true server time at true time `t` (server clock = true time).
    func error(anchor: SyncAnchor, at t: SimTime) -> Int64 {
        anchor.serverTime(at: clock.reading(device, at: t, context)) - t.ns
    }
}

@Suite struct SyncEstimatorTests {
    static let epoch: Int64 = 1_700_000_000_000_000_000
    static func perfectDevice(epoch: Int64 = epoch) -> DeviceState {
        DeviceState(driftPPB: 0, wallOffset: 0, bootTime: at(-.hour), epochUnix: epoch)
    }

    /// The world lends an estimator its own words as a span: one that writes past them stops
    /// (the span is bounds-checked) rather than overwrite the next client's memory.
    @Test func anEstimatorCannotWritePastItsWords() async {
        await #expect(processExitsWith: .failure) {
            struct Greedy: SyncEstimator {
                var name: String { "greedy" }
                var memoryWords: Int { 2 }
                func anchor(for s: SyncSample) -> SyncAnchor { SyncAnchor(serverTime: 0, reading: s.downloadComplete) }
                func estimate(for s: SyncSample, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
                    memory[memory.count] = 1
                    return SyncEstimate(anchor: anchor(for: s), bound: .unbounded, boundGrowthPPB: 0)
                }
            }
            let s = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 0), uploadComplete: ClockReading(ns: 0),
                               downloadComplete: ClockReading(ns: 1))
            let model = BoundModel(serverResolution: 1, clockResolution: 1, maxDriftPPB: 0)
            // Two clients' words side by side, as in the world's flat array.
            var words = [Int64](repeating: 0, count: 4)
            words.withUnsafeMutableBufferPointer { all in
                var first = unsafe MutableSpan(_unsafeElements: all[0..<2])
                _ = Greedy().estimate(for: s, memory: &first, model)
            }
        }
    }

    @Test func anchorArithmetic() {
        let a = SyncAnchor(serverTime: 10 * .second, reading: ClockReading(ns: 500 * .second))
        #expect(a.serverTime(at: ClockReading(ns: 503 * .second + 7)) == 13 * .second + 7)
        #expect(a.serverTime(at: ClockReading(ns: 499 * .second)) == 9 * .second)
        #expect(a.reading(atServerTime: 13 * .second + 7) == ClockReading(ns: 503 * .second + 7))
        var rng = estimatorStream(1)
        for _ in 0..<200 {
            let anchor = SyncAnchor(serverTime: uniformIn(-.hour, .hour, &rng),
                                    reading: ClockReading(ns: uniformIn(0, 100 * .hour, &rng)))
            let s = uniformIn(-2 * .hour, 2 * .hour, &rng)
            #expect(anchor.serverTime(at: anchor.reading(atServerTime: s)) == s)
        }
    }

    @Test func sampleRoundTripAndName() {
        let s = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 100), uploadComplete: ClockReading(ns: 150),
                           downloadComplete: ClockReading(ns: 400))
        #expect(s.roundTrip == 300)
        #expect(UploadCompleteEstimator().name == "upload-complete")
    }

    @Test func uploadCompleteEstimatorFormula() {
        // server time = timestamp + (download complete − upload complete), anchored at download complete.
        let s = SyncSample(serverTimestamp: 42 * .second, requestSent: ClockReading(ns: 1_000),
                           uploadComplete: ClockReading(ns: 5_000), downloadComplete: ClockReading(ns: 105_000))
        let a = UploadCompleteEstimator().anchor(for: s)
        #expect(a == SyncAnchor(serverTime: 42 * .second + 100_000, reading: ClockReading(ns: 105_000)))
    }

    /// Arrival at 12.3 s past a whole-second epoch: REQUEST_TIME 12 s; download complete at
    /// 12.36 s; estimate = 12 s + 100 ms = 12.1 s; error = 12.1 − 12.36 = −260 ms = 40 ms − 300 ms.
    @Test func errorIsUplinkMinusTheTruncatedFractionArrivalPointThree() {
        let x = Exchange(epochUnix: Self.epoch, device: Self.perfectDevice())
        let sent = at(12_260 * .millisecond)
        #expect(x.timestamp(sent) == 12 * .second)
        let anchor = UploadCompleteEstimator().anchor(for: x.sample(sent))
        #expect(anchor.serverTime == 12_100 * .millisecond)
        #expect(x.error(anchor: anchor, at: x.downloadComplete(sent)) == -260 * .millisecond)
        // A perfect, continuous clock keeps the error constant afterwards (even across deep sleep).
        var slept = x
        slept.device.fallAsleep(at: at(20 * .second))
        slept.device.wake(at: at(200 * .second))
        #expect(slept.error(anchor: anchor, at: at(10 * .minute)) == -260 * .millisecond)
    }

    /// Arrival at 7.02 s: REQUEST_TIME 7 s; download complete at 7.08 s; estimate 7.1 s: +20 ms.
    @Test func errorIsUplinkMinusTheTruncatedFractionArrivalPointZeroTwo() {
        let x = Exchange(epochUnix: Self.epoch, device: Self.perfectDevice())
        let sent = at(6_980 * .millisecond)
        #expect(x.timestamp(sent) == 7 * .second)
        let anchor = UploadCompleteEstimator().anchor(for: x.sample(sent))
        #expect(x.error(anchor: anchor, at: x.downloadComplete(sent)) == 20 * .millisecond)
    }

    /// The fraction is of unix time, not of the epoch-relative time: with the epoch at …000.371 s,
    /// an arrival at t = 5 s is unix …005.371 s, REQUEST_TIME = …005 − …000.371 = 4.629 s;
    /// error = 40 ms − 371 ms = −331 ms.
    @Test func theFractionIsOfUnixTime() {
        let epoch = Self.epoch + 371 * .millisecond
        let x = Exchange(epochUnix: epoch, device: Self.perfectDevice(epoch: epoch))
        let sent = at(4_960 * .millisecond)
        #expect(x.timestamp(sent) == 4_629 * .millisecond)
        let anchor = UploadCompleteEstimator().anchor(for: x.sample(sent))
        #expect(x.error(anchor: anchor, at: x.downloadComplete(sent)) == -331 * .millisecond)
        // The server's own REQUEST_TIME agrees with the hand formula.
        let server = StoreServer(config: ServerConfig(),
                                 schedule: StoreSchedule(positions: 1, shelfLife: .constant(60e9), resolution: .second,
                                                         start: .zero, end: at(.minute), epochUnix: epoch, seed: 1),
                                 epochUnix: epoch, seed: 1)
        #expect(server.timestamp(at: x.arrival(sent)) == x.timestamp(sent))
    }

    @Test func seededErrorIsUplinkMinusUnixFraction() {
        var rng = estimatorStream(2)
        for _ in 0..<1_000 {
            let epoch = Self.epoch + uniformIn(0, 999_999_999, &rng)
            let x = Exchange(epochUnix: epoch, device: Self.perfectDevice(epoch: epoch))
            let sent = at(uniformIn(0, 24 * .hour, &rng))
            let anchor = UploadCompleteEstimator().anchor(for: x.sample(sent))
            let fraction = (epoch + x.arrival(sent).ns) % .second   // positive: unix time is positive
            #expect(x.error(anchor: anchor, at: x.downloadComplete(sent)) == 40 * .millisecond - fraction)
            #expect(x.error(anchor: anchor, at: x.downloadComplete(sent) + uniformIn(0, .hour, &rng))
                    == 40 * .millisecond - fraction)
        }
    }

    @Test func suspendingClockFallsBehindByTheDeepSleepAfterSync() {
        // Same exchange on the suspending clock: −260 ms right after sync, then a 3 min deep sleep
        // makes the estimate 3 min behind on top of that.
        var x = Exchange(epochUnix: Self.epoch, device: Self.perfectDevice())
        x.clock = SuspendingDeviceClock()
        let sent = at(12_260 * .millisecond)
        let anchor = UploadCompleteEstimator().anchor(for: x.sample(sent))
        #expect(x.error(anchor: anchor, at: x.downloadComplete(sent)) == -260 * .millisecond)
        x.device.fallAsleep(at: at(30 * .second))
        x.device.wake(at: at(210 * .second))
        #expect(x.error(anchor: anchor, at: at(5 * .minute)) == -260 * .millisecond - 3 * .minute)
    }

    @Test func driftingClockGainsItsDriftOnTheElapsedTime() {
        // Continuous clock at +20 ppm booted at 0; sent at 12.26 s. Readings: 12.26 s → +245 200 ns,
        // 12.36 s → +247 200 ns, so the measured 100 ms is 100.002 ms; estimate 12 s + 100.002 ms,
        // error at download complete −259.998 ms. 1000 s later: + 1000 s × 20 ppm = + 20 ms.
        let device = DeviceState(driftPPB: 20_000, wallOffset: 0, bootTime: .zero, epochUnix: Self.epoch)
        let x = Exchange(epochUnix: Self.epoch, device: device)
        let sent = at(12_260 * .millisecond)
        let anchor = UploadCompleteEstimator().anchor(for: x.sample(sent))
        #expect(anchor.serverTime == 12_100 * .millisecond + 2_000)
        #expect(x.error(anchor: anchor, at: x.downloadComplete(sent)) == -260 * .millisecond + 2_000)
        #expect(x.error(anchor: anchor, at: x.downloadComplete(sent) + 1_000 * .second)
                == -260 * .millisecond + 2_000 + 20 * .millisecond)
    }
}

/// An estimator that reads every probe of a round: the one of median NTP delay δ (the lower
/// middle for an even count, the earlier on a tie), anchored as NTP's one exchange. Less
/// disturbed by one lucky probe than the minimum, as a filter across a round may want.
struct MedianDelayEstimator: SyncEstimator {
    var name: String { "median-delay" }
    func anchor(for s: SyncSample) -> SyncAnchor { NTPEstimator().anchor(for: s) }
    var readsEveryProbe: Bool { true }
    func estimate(probes: Span<SyncSample>, best: Int, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
        let n = probes.count
        var chosen = 0
        // Ranks by (δ, index), a strict order: the probe of rank ⌊(n − 1)/2⌋ is the median.
        for i in 0..<n {
            var below = 0
            for j in 0..<n where NTPEstimator.delay(probes[j]) < NTPEstimator.delay(probes[i])
                || (NTPEstimator.delay(probes[j]) == NTPEstimator.delay(probes[i]) && j < i) { below += 1 }
            if below == (n - 1) / 2 { chosen = i; break }
        }
        return SyncEstimate(anchor: anchor(for: probes[chosen]), bound: .unbounded, boundGrowthPPB: m.maxDriftPPB)
    }
}

/// Every probe of a sync round reaches an estimator that asks for them.
@Suite struct EveryProbeTests {
    static let ms = Nanoseconds.millisecond
    static let model = BoundModel(serverResolution: .microsecond, clockResolution: 1, maxDriftPPB: 0)

    /// A perfect clock reading true time and a server whose clock is true time, stamping the
    /// instant the request arrives and again when the response leaves (no residence):
    /// T1 = sent, T2 = T3 = sent + up, T4 = sent + up + down.
    static func probe(sent: Int64, up: Int64, down: Int64) -> SyncSample {
        SyncSample(serverTimestamp: sent + up, requestSent: ClockReading(ns: sent), uploadComplete: ClockReading(ns: sent),
                   downloadComplete: ClockReading(ns: sent + up + down), serverTransmit: sent + up)
    }

    /// Three probes, by hand (δ = up + down, θ = (up − down)/2, anchor T4 + θ at T4):
    /// A at 0 s: 20 ms up, 80 ms down, δ 100 ms, θ −30 ms;
    /// B at 1 s: 30 ms up, 30 ms down, δ 60 ms, θ 0;
    /// C at 2 s: 10 ms up, 20 ms down, δ 30 ms, θ −5 ms.
    /// The best (smallest round trip) is C, so best-probe estimators say server time is 2.025 s
    /// when the clock reads 2.030 s: 5 ms behind. The median delay is B's, which is exact: 1.060 s
    /// at 1.060 s. At the clock reading 3 s, best-probe says 2.995 s and median-delay 3.000 s.
    @Test func medianDelayDiffersFromBestProbeByHand() {
        let round = [Self.probe(sent: 0, up: 20 * Self.ms, down: 80 * Self.ms),
                     Self.probe(sent: 1_000 * Self.ms, up: 30 * Self.ms, down: 30 * Self.ms),
                     Self.probe(sent: 2_000 * Self.ms, up: 10 * Self.ms, down: 20 * Self.ms)]
        let best = 2
        var none: [Int64] = []
        let median = MedianDelayEstimator().estimate(probes: round, best: best, memory: &none, Self.model)
        let bestProbe = NTPEstimator(window: 1)
        var words = [Int64](repeating: 0, count: bestProbe.memoryWords)
        let viaBest = bestProbe.estimate(probes: round, best: best, memory: &words, Self.model)
        let three = ClockReading(ns: 3 * .second)
        #expect(median.anchor == SyncAnchor(serverTime: 1_060 * Self.ms, reading: ClockReading(ns: 1_060 * Self.ms)))
        #expect(viaBest.anchor == SyncAnchor(serverTime: 2_025 * Self.ms, reading: ClockReading(ns: 2_030 * Self.ms)))
        #expect(median.anchor.serverTime(at: three) == 3_000 * Self.ms)
        #expect(viaBest.anchor.serverTime(at: three) == 2_995 * Self.ms)
        // The default hands the best probe to the one-sample form: the same as calling it directly.
        var again = [Int64](repeating: 0, count: bestProbe.memoryWords)
        #expect(bestProbe.estimate(for: round[best], memory: &again, Self.model) == viaBest)
        #expect(!bestProbe.readsEveryProbe && !CristianEstimator().readsEveryProbe)
    }
}
