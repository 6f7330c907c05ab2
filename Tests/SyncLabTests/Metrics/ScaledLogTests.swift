import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The audit's fixed-point log-delay: the short log must give exactly what the full log gives,
/// and its own error must sit far inside the margin that sends a value to the full log.
@Suite struct ScaledLogTests {
    @Test func handCases() {
        // ln 1 = 0; ln 2 · 2²⁴ = 0.69314718 · 16,777,216 = 11,629,079.97 → 11,629,080;
        // ln 10⁹ · 2²⁴ = 20.72326584 · 16,777,216 = 347,678,707.17 → 347,678,707.
        #expect(ScaledLog.of(1) == 0)
        #expect(ScaledLog.of(2) == 11_629_080)
        #expect(ScaledLog.of(1_000_000_000) == 347_678_707)
        #expect(ScaledLog.of(0) == .min)
        #expect(ScaledLog.of(-5) == .min)
    }

    /// Every delay up to 2²⁰ ns (about a millisecond), each power of two and its neighbours, and
    /// delays drawn log-uniformly up to 2⁶³: the same value as the full log.
    @Test func sameAsTheFullLog() {
        var checked: [Int64] = Array(1...(1 << 20))
        for k in 1..<63 {
            let p = Int64(1) << k
            checked += [p - 1, p, p + 1]
        }
        checked.append(.max)
        var rng = RandomStream(seed: 41, purpose: StreamPurpose("test-scaled-log"))
        for _ in 0..<1_000_000 {
            let bits = Int(rng.below(62)) + 1
            checked.append(Int64(rng.below(UInt64(1) << bits)) + 1)
        }
        var mismatches: [Int64] = []
        for ns in checked where ScaledLog.of(ns) != ScaledLog.exact(ns) { mismatches.append(ns) }
        #expect(mismatches.isEmpty, "first: \(mismatches.prefix(5))")
    }

    /// The short log's distance from the full one, scaled, against the margin: the margin is what
    /// makes the equality above hold for every delay, not only the ones tried.
    @Test func errorFarInsideTheMargin() {
        var worst = 0.0
        var rng = RandomStream(seed: 42, purpose: StreamPurpose("test-scaled-log-error"))
        for _ in 0..<1_000_000 {
            let bits = Int(rng.below(62)) + 1
            let x = Double(Int64(rng.below(UInt64(1) << bits)) + 1)
            worst = max(worst, abs(ScaledLog.fast(x) - DeterministicMath.log(x)))
        }
        // Both logs are within a few ulp of the truth, at most ln 2⁶³ ≈ 43.7 (ulp 7.1e-15).
        #expect(worst < 1e-13)
        #expect(worst * ScaledLog.scale * 100 < ScaledLog.margin)
    }
}
