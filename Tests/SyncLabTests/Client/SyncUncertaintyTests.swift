import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct SyncUncertaintyTests {
    @Test func intervalErrorAndGrowthRoundUp() {
        let m = BoundModel(serverResolution: .second, clockResolution: .second, maxDriftPPB: 20_000)
        // 1 s resolution + ⌈10 s × 20 ppm⌉ = 1 s + 200 µs.
        #expect(m.intervalError(10 * .second) == .second + 200 * .microsecond)
        #expect(m.intervalError(-10 * .second) == .second + 200 * .microsecond)
        // ⌈1 ns × 20 ppm⌉ = 1: a bound never under-grows.
        #expect(Drift.scaledUp(1, ppb: 20_000) == 1)
        #expect(Drift.scaledUp(0, ppb: 20_000) == 0)
        #expect(SyncEstimate.bound(5, growthPPB: 1_000_000_000, age: -7) == 12)
        #expect(SyncEstimate.bound(.max - 1, growthPPB: 1_000_000, age: .second) == .max)
    }

    /// "No bound" is its own value: it contains no error, grows into nothing and stays itself.
    @Test func syncBoundIsAHalfWidthOrNone() {
        let b = SyncBound.halfWidth(5)
        #expect(b.nanoseconds == 5 && b.isBounded && b.description == "±5 ns")
        #expect(b.contains(5) && b.contains(-5) && !b.contains(6) && !b.contains(.min))
        #expect(b.grown(growthPPB: 1_000_000_000, age: -7) == .halfWidth(12))
        #expect(SyncBound.halfWidth(.max - 1).grown(growthPPB: 1_000_000, age: .second) == .halfWidth(.max))
        let none = SyncBound.unbounded
        #expect(none.nanoseconds == nil && !none.isBounded && none.description == "unbounded")
        #expect(!none.contains(0))
        #expect(none.grown(growthPPB: 1_000_000, age: .hour) == .unbounded)
        // An estimator that does not say gives no bound, and its estimate carries none.
        struct Silent: SyncEstimator {
            var name: String { "silent" }
            func anchor(for s: SyncSample) -> SyncAnchor { SyncAnchor(serverTime: s.serverTimestamp, reading: s.downloadComplete) }
        }
        let model = BoundModel(serverResolution: .second, clockResolution: 1, maxDriftPPB: 100_000)
        let s = SyncSample(serverTimestamp: 0, requestSent: ClockReading(ns: 0), uploadComplete: ClockReading(ns: 0),
                           downloadComplete: ClockReading(ns: 1))
        #expect(Silent().halfWidth(for: s, model) == .unbounded)
        // Drift correction needs bounds to judge a rate: an unbounded estimate passes unchanged.
        var memory = [Int64](repeating: 0, count: DriftCorrection.memoryWords)
        let e = SyncEstimate(anchor: SyncAnchor(serverTime: 9, reading: ClockReading(ns: 1)), bound: .unbounded, boundGrowthPPB: 7)
        #expect(DriftCorrection().apply(e, words: &memory, model) == e)
        #expect(memory == [0, 0, 0, 0, 0])
    }

    @Test func anchorWithoutRateIsThePlainSum() {
        var rng = RandomStream(seed: 3, purpose: StreamPurpose("test-anchor-rate"))
        for _ in 0..<500 {
            let a = SyncAnchor(serverTime: Int64(rng.below(1 << 50)), reading: ClockReading(ns: Int64(rng.below(1 << 50))))
            let r = ClockReading(ns: Int64(rng.below(1 << 50)))
            #expect(a.ratePPB == 0)
            #expect(a.serverTime(at: r) == a.serverTime &+ (r - a.reading))
            #expect(a.reading(atServerTime: a.serverTime(at: r)) == r)
        }
    }

    /// Rate +50 ppm: 10 s of clock are 10 s + 500 µs of server time; the inverse is the smallest
    /// reading that reaches a server time, exactly.
    @Test func anchorWithRate() {
        let a = SyncAnchor(serverTime: 100 * .second, reading: ClockReading(ns: 7 * .second), ratePPB: 50_000)
        #expect(a.serverTime(at: ClockReading(ns: 17 * .second)) == 110 * .second + 500 * .microsecond)
        #expect(a.serverTime(at: ClockReading(ns: -3 * .second)) == 90 * .second - 500 * .microsecond)
        var rng = RandomStream(seed: 4, purpose: StreamPurpose("test-anchor-rate-inverse"))
        for _ in 0..<1_000 {
            let ppb = Int64(rng.below(2_000_001)) - 1_000_000
            let b = SyncAnchor(serverTime: Int64(rng.below(1 << 40)), reading: ClockReading(ns: Int64(rng.below(1 << 40))), ratePPB: ppb)
            let s = b.serverTime + Int64(rng.below(1 << 42)) - (1 << 41)
            let r = b.reading(atServerTime: s)
            #expect(b.serverTime(at: r) >= s)
            #expect(b.serverTime(at: ClockReading(ns: r.ns - 1)) < s)
        }
    }
}
