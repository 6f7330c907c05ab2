import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct CristianEstimatorTests {
    static let model = BoundModel(serverResolution: .second, clockResolution: 1, maxDriftPPB: 100_000)

    @Test func nameAndStateless() {
        #expect(CristianEstimator().name == "cristian")
        #expect(CristianEstimator().memoryWords == 0)
    }

    /// Round trip 101 ms + 1 ns (request sent at 1 s, download complete at 1.101000001 s);
    /// timestamp 42 s: server time = 42 s + ⌊101 000 001 / 2⌋ = 42.0505 s at the download reading.
    @Test func timestampPlusHalfTheRoundTrip() {
        let s = SyncSample(serverTimestamp: 42 * .second, requestSent: ClockReading(ns: .second),
                           uploadComplete: ClockReading(ns: .second + 7), downloadComplete: ClockReading(ns: 1_101_000_001))
        let a = CristianEstimator().anchor(for: s)
        #expect(a == SyncAnchor(serverTime: 42 * .second + 50_500_000, reading: ClockReading(ns: 1_101_000_001)))
    }

    /// Bound by hand: M = 101 ms, ρs = 1 s, ρc = 1 ns, d = 100 ppm:
    /// M/2 + 1 + ρs + (ρc + ⌈d·M⌉) + (ρc + 1) = 50 500 000 + 1 + 1e9 + (1 + 10 100) + 2 = 1 050 510 104 ns.
    @Test func boundByHand() {
        let s = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 0), uploadComplete: ClockReading(ns: 0),
                           downloadComplete: ClockReading(ns: 101 * .millisecond))
        #expect(CristianEstimator().halfWidth(for: s, Self.model) == .halfWidth(1_050_510_104))
        // Without memory the estimate is the anchor with that bound, growing at the allowed drift.
        var none: [Int64] = []
        let e = CristianEstimator().estimate(for: s, memory: &none, Self.model)
        #expect(e.anchor == CristianEstimator().anchor(for: s))
        #expect(e.bound == .halfWidth(1_050_510_104))
        #expect(e.boundGrowthPPB == 100_000)
        // 10 minutes later the bound has grown by ⌈600 s × 100 ppm⌉ = 60 ms.
        #expect(e.bound(at: ClockReading(ns: 101 * .millisecond + 10 * .minute)) == .halfWidth(1_050_510_104 + 60 * .millisecond))
    }

    /// The seeds' estimate is ahead by the uplink; Cristian's by half the asymmetry, behind by the
    /// truncation. Uplink 40 ms, downlink 60 ms, arrival at 12.3 s (stamp 12 s), download complete
    /// at 12.36 s: estimate 12 s + 50 ms = 12.05 s, error −310 ms = (40 − 60)/2 − 300 ms.
    @Test func errorIsHalfTheAsymmetryMinusTheTruncation() {
        let s = SyncSample(serverTimestamp: 12 * .second, requestSent: ClockReading(ns: 12_260 * .millisecond),
                           uploadComplete: ClockReading(ns: 12_260 * .millisecond),
                           downloadComplete: ClockReading(ns: 12_360 * .millisecond))
        let a = CristianEstimator().anchor(for: s)
        #expect(a.serverTime - 12_360 * .millisecond == -310 * .millisecond)
        // The bound holds: 310 ms ≤ 50 ms + 1 s + clock terms.
        #expect(CristianEstimator().halfWidth(for: s, Self.model).contains(-310 * .millisecond))
    }

    /// The seeds' estimator's bound: max(ρs, M) with M = download − upload complete, plus clock terms.
    @Test func uploadCompleteBoundByHand() {
        let s = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 0), uploadComplete: ClockReading(ns: 5),
                           downloadComplete: ClockReading(ns: 5 + 2 * .second))
        // M = 2 s > ρs: 2 s + (1 + ⌈2 s × 100 ppm⌉ = 200 001) + 2 = 2 000 200 003.
        #expect(UploadCompleteEstimator().halfWidth(for: s, Self.model) == .halfWidth(2_000_200_003))
        let short = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 0), uploadComplete: ClockReading(ns: 0),
                               downloadComplete: ClockReading(ns: 100 * .millisecond))
        // M = 100 ms < ρs: 1 s + (1 + 10 000) + 2.
        #expect(UploadCompleteEstimator().halfWidth(for: short, Self.model) == .halfWidth(.second + 10_003))
    }
}
