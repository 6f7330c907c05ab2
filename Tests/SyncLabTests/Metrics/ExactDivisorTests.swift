import Testing
@testable import SyncLab
import SyncLabKernel

/// The audit's division by one multiplication agrees with the hardware's `%` and `/`.
@Suite struct ExactDivisorTests {
    /// Hand-picked cases: 12 = 4·3, 13 = 4·3 + 1; the dividend's 32-bit edge for the largest
    /// divisor (2³² − 1 divides itself once) and the smallest (1 divides everything).
    @Test func handWorkedCases() {
        let four = ExactDivisor(4)
        #expect(four.divides(12) && four.quotient(12) == 3)
        #expect(!four.divides(13) && four.quotient(13) == 3)
        #expect(four.divides(0) && four.quotient(0) == 0)
        let largest = ExactDivisor((1 << 32) - 1)
        #expect(largest.divides((1 << 32) - 1) && largest.quotient((1 << 32) - 1) == 1)
        #expect(!largest.divides((1 << 32) - 2) && largest.quotient((1 << 32) - 2) == 0)
        let one = ExactDivisor(1)
        #expect(one.divides(7) && one.quotient(7) == 7)
        #expect(one.divides((1 << 32) - 1) && one.quotient((1 << 32) - 1) == (1 << 32) - 1)
    }

    /// Every dividend below 5,000 for every divisor up to 300 (the audit's strides at the
    /// population limit are at most 800), and keyed random pairs over the whole 32-bit range and
    /// past it, where the hardware division takes over.
    @Test func agreesWithDivision() {
        for d in 1...300 {
            let divisor = ExactDivisor(d)
            for n in 0..<5_000 where divisor.divides(n) != (n % d == 0) || divisor.quotient(n) != n / d {
                Issue.record("d \(d), n \(n)")
                return
            }
        }
        var rng = RandomStream(seed: 7, purpose: StreamPurpose("exact-divisor-test"))
        var mismatches = 0
        for _ in 0..<200_000 {
            let d = Int(rng.below((1 << 32) - 1)) + 1
            let n = Int(rng.below(1 << 33))
            let divisor = ExactDivisor(d)
            if divisor.divides(n) != (n % d == 0) || divisor.quotient(n) != n / d { mismatches += 1 }
            // Multiples, which random pairs seldom hit.
            let m = d * Int(rng.below(UInt64((1 << 33) / d + 1)))
            if !divisor.divides(m) || divisor.quotient(m) != m / d { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}
