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
