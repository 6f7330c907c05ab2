import Testing
@testable import SyncLabKernel

/// The log's split of x into exponent and significand, read from x's bits for a normal x, is
/// the library's `exponent` and `significand` for every finite x > 0.
@Suite struct DeterministicMathBinadeTests {
    static func libraryBinade(_ x: Double) -> (Int, Double) {
        (Int(x.exponent), Double(sign: .plus, exponent: 0, significand: x.significand))
    }

    /// By hand: 1 = 1 · 2^0, 6 = 1.5 · 2^2, 0.375 = 1.5 · 2^−2; the edges of the normal range;
    /// the subnormals (the library's getters: 2^−1074 = 1 · 2^−1074).
    @Test func handWorkedValues() {
        #expect(DeterministicMath.binade(1) == (0, 1))
        #expect(DeterministicMath.binade(6) == (2, 1.5))
        #expect(DeterministicMath.binade(0.375) == (-2, 1.5))
        #expect(DeterministicMath.binade(.leastNormalMagnitude) == (-1022, 1))
        #expect(DeterministicMath.binade(.greatestFiniteMagnitude) == (1023, Double(bitPattern: 0x3FFF_FFFF_FFFF_FFFF)))
        #expect(DeterministicMath.binade(.leastNonzeroMagnitude) == (-1074, 1))
        #expect(DeterministicMath.binade(.leastNormalMagnitude / 2) == (-1023, 1))
    }

    /// Keyed random bit patterns over every binade, subnormals included.
    @Test func agreesWithTheLibraryOverRandomBits() {
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("binade-test"))
        for _ in 0..<100_000 {
            let x = Double(bitPattern: rng.below(0x7FF0_0000_0000_0000))   // finite, ≥ 0
            guard x > 0 else { continue }
            let (e, m) = DeterministicMath.binade(x)
            let (le, lm) = Self.libraryBinade(x)
            #expect(e == le && m.bitPattern == lm.bitPattern, "\(x)")
        }
    }
}
