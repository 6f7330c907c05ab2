import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct DriftCorrectionTests {
    static let model = BoundModel(serverResolution: .microsecond, clockResolution: 1, maxDriftPPB: 100_000)

    static func estimate(_ s: Int64, _ r: Int64, bound: Int64 = 10 * .microsecond) -> SyncEstimate {
        SyncEstimate(anchor: SyncAnchor(serverTime: s, reading: ClockReading(ns: r)), bound: .halfWidth(bound), boundGrowthPPB: 100_000)
    }

    /// A clock 40 ppm fast: over 1 h of clock, server time advances 1 h − 144 ms·(1/1.00004)…;
    /// by hand with S₂ − S₁ = 3600 s and R₂ − R₁ = 3600.144 s: rate = (3600 − 3600.144)/3600.144
    /// = −39.998 ppm → −39 998 ppb (truncated toward zero: −0.144e9·1e9/3600.144e9 = −39 998.4).
    @Test func rateFromTwoSyncsAnHourApart() {
        let d = DriftCorrection(minInterval: .hour, maxPPB: 500_000)
        var memory = [Int64](repeating: 0, count: DriftCorrection.memoryWords)
        let first = d.apply(Self.estimate(0, 0), words: &memory, Self.model)
        #expect(first.anchor.ratePPB == 0)            // one sync: no rate yet
        #expect(first.boundGrowthPPB == 100_000)
        // 30 minutes later: too soon, still nothing.
        let soon = d.apply(Self.estimate(1_800 * .second, 1_800_072 * .millisecond), words: &memory, Self.model)
        #expect(soon.anchor.ratePPB == 0)
        let second = d.apply(Self.estimate(3_600 * .second, 3_600_144 * .millisecond), words: &memory, Self.model)
        #expect(second.anchor.ratePPB == -39_998)
        // Residual: u = ⌈(10 µs + 10 µs)·1e9 / 3600.144 s⌉ = ⌈5.555…⌉ = 6 ppb.
        #expect(second.boundGrowthPPB == 6)
        // Extrapolating an hour more with the rate lands within a few µs of the truth.
        let predicted = second.anchor.serverTime(at: ClockReading(ns: 7_200_288 * .millisecond))
        // (the rate truncated by 0.4 ppb costs 1.4 µs over the hour: 2.44 µs by hand).
        #expect(abs(predicted - 7_200 * .second) < 3 * .microsecond)
        // The next sync keeps the learned rate until a new baseline is long enough.
        let later = d.apply(Self.estimate(3_660 * .second, 3_660_146_400_000), words: &memory, Self.model)
        #expect(later.anchor.ratePPB == -39_998)
    }

    @Test func rateClampAndResidual() {
        // A clock that paused 5 min in 1 h (a suspending clock in standby) looks 90 909 ppm slow;
        // clamped to 500 ppm, the residual allows for the clamp: min(u + clamp gap, allowed + |rate|).
        let r = DriftCorrection.rate(from: (0, 0, 1_000), to: (3_600 * .second, 3_300 * .second, 1_000),
                                     maxPPB: 500_000, allowedPPB: 100_000)
        #expect(r.rate == 500_000)
        #expect(r.raw == 90_909_090)
        #expect(r.residual == 600_000)
        // Whole-second stamps over 1 h: u = ⌈2 s / 1 h⌉ = 555 556 ppb > allowed + |rate|.
        let coarse = DriftCorrection.rate(from: (0, 0, .second), to: (3_600 * .second, 3_600 * .second, .second),
                                          maxPPB: 500_000, allowedPPB: 100_000)
        #expect(coarse.rate == 0)
        #expect(coarse.residual == 100_000)
    }

    /// A baseline too short for the syncs' bounds is not adopted, and the reference is kept so the
    /// next sync measures over a longer one; a step beyond any oscillator restarts the baseline.
    @Test func adoptsOnlyARateKnownBetterThanTheDrift() {
        let d = DriftCorrection(minInterval: 10 * .minute, maxPPB: 500_000)
        var memory = [Int64](repeating: 0, count: DriftCorrection.memoryWords)
        func sync(_ s: Int64, _ r: Int64, bound: Int64) -> SyncEstimate {
            d.apply(Self.estimate(s, r, bound: bound), words: &memory, Self.model)
        }
        _ = sync(0, 0, bound: 50 * .millisecond)
        // 15 min, bounds 50 ms each: u = 100 ms / 900 s = 111 112 ppb ≥ 100 ppm allowed: not adopted.
        #expect(sync(900 * .second, 900_018 * .millisecond, bound: 50 * .millisecond).anchor.ratePPB == 0)
        #expect(memory[1] == 0)                      // the reference stays at the first sync
        // 30 min from the reference: u = ⌈100 ms · 10⁹ / 1800.036 s⌉ = ⌈55 554.4⌉ = 55 555 ppb < 100 000:
        // adopted; rate = −36 ms / 1800.036 s = −19 999.6 → −19 999 ppb (the clock is 20 ppm fast).
        let adopted = sync(1_800 * .second, 1_800_036 * .millisecond, bound: 50 * .millisecond)
        #expect(adopted.anchor.ratePPB == -19_999)
        #expect(adopted.boundGrowthPPB == 55_555)
        #expect(memory[1] == 1_800_036 * .millisecond)
        // The clock then loses 5 min in standby over 20 min: far beyond ±500 ppm, a step. The
        // learned rate stays and the baseline restarts at this sync.
        let step = sync(3_000 * .second + 300 * .second, 3_000_024 * .millisecond, bound: 50 * .millisecond)
        #expect(step.anchor.ratePPB == -19_999)
        #expect(memory[1] == 3_000_024 * .millisecond)
    }
}

extension DriftCorrection {
    /// `apply` with the memory in an array, as the world lends it: a span of the client's words.
    func apply(_ estimate: SyncEstimate, words: inout [Int64], _ m: BoundModel) -> SyncEstimate {
        words.withUnsafeMutableBufferPointer { buffer in
            var memory = unsafe MutableSpan(_unsafeElements: buffer)
            return apply(estimate, memory: &memory, m)
        }
    }
}
