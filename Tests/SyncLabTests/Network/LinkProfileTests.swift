import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct LinkProfileTests {
    @Test func exactTransferTimes() {
        // 20 000 B at 2 MB/s = 0.01 s = 10 ms exactly (2e13 / 2e6 = 1e7 is exact in binary floating point).
        #expect(LinkProfile.transferTime(bytes: 20_000, bytesPerSecond: 2e6) == 10 * .millisecond)
        // 1500 B at 1.5 MB/s = 1 ms; exact results are not bumped up.
        #expect(LinkProfile.transferTime(bytes: 1_500, bytesPerSecond: 1.5e6) == .millisecond)
        #expect(LinkProfile.transferTime(bytes: 12_484, bytesPerSecond: 1e9) == 12_484)
        #expect(LinkProfile.transferTime(bytes: 0, bytesPerSecond: 1e3) == 0)
    }

    @Test func nonIntegralTimesRoundUp() {
        // 1 B at 3 B/s = 333 333 333.3… ns → 333 333 334.
        #expect(LinkProfile.transferTime(bytes: 1, bytesPerSecond: 3) == 333_333_334)
        // 1000 B at 3 MB/s = 333 333.3… ns → 333 334.
        #expect(LinkProfile.transferTime(bytes: 1_000, bytesPerSecond: 3e6) == 333_334)
        // 4 B at 3 B/s = 1 333 333 333.3… ns → 1 333 333 334 (up, where nearest would give …333);
        // 1 B at 7 GB/s = 0.142… ns → 1.
        #expect(LinkProfile.transferTime(bytes: 4, bytesPerSecond: 3) == 1_333_333_334)
        #expect(LinkProfile.transferTime(bytes: 1, bytesPerSecond: 7e9) == 1)
        // 12 484 B at 1 Mbit/s (125 000 B/s) = 99.872 ms exactly.
        #expect(LinkProfile.transferTime(bytes: 12_484, bytesPerSecond: 125_000) == 99_872_000)
        // 12 484e9 / 1 000 001 = 12 483 987.516… → 12 483 988.
        #expect(LinkProfile.transferTime(bytes: 12_484, bytesPerSecond: 1_000_001) == 12_483_988)
    }

    @Test func roundsUpAsTheLibraryDoesOverEveryScale() {
        // Against `rounded(.up)`: times from under a nanosecond to ~30 years (either side of 2^52
        // ns, where doubles become whole), and ties of the nearest-integer step it starts from.
        var rng = RandomStream(seed: 11, purpose: StreamPurpose("transfer"))
        var cases: [(Int, Double)] = [(1, 2e9), (3, 2e9), (5, 2e9), (1, 1e9 / 2.5), (1, 1e9 / 3.5),
                                      (1 << 52, 1e9), ((1 << 52) - 1, 1e9), ((1 << 52) + 1, 1e9)]
        for _ in 0..<50_000 {
            let bytes = Int(rng.below(1 << UInt64(1 + rng.below(50))))
            let rate = 2e9 * Double(sign: .plus, exponent: -Int(rng.below(40)), significand: 1 + rng.unit())
            cases.append((bytes, rate))
        }
        for (bytes, rate) in cases {
            let ns = Double(bytes) * 1e9 / rate
            guard ns < 1e18, bytes > 0 else { continue }
            #expect(LinkProfile.transferTime(bytes: bytes, bytesPerSecond: rate) == Int64(ns.rounded(.up)),
                    "\(bytes) B at \(rate) B/s")
        }
    }

    @Test func noBandwidthMeansNeverInPractice() {
        #expect(LinkProfile.transferTime(bytes: 100, bytesPerSecond: 0) == .max / 4)
        #expect(LinkProfile.transferTime(bytes: 100, bytesPerSecond: -5) == .max / 4)
        #expect(LinkProfile.transferTime(bytes: 0, bytesPerSecond: 0) == .max / 4)
        // 1e18 ns (about 32 years) and beyond is "never"; just below it is a real, whole time.
        #expect(LinkProfile.transferTime(bytes: 1_000_000_000, bytesPerSecond: 1) == .max / 4)
        #expect(LinkProfile.transferTime(bytes: 999_999_999, bytesPerSecond: 1) == 999_999_999_000_000_000)
        #expect(LinkProfile.transferTime(bytes: 1 << 40, bytesPerSecond: 1.1) == .max / 4)
        // Past 2^53 ns every double is whole, so the quotient is not rounded up again: 10^7 B at
        // 1.1 B/s is 9 090 909 090 909 090.9… ns, whose nearest double is 9 090 909 090 909 090.
        #expect(LinkProfile.transferTime(bytes: 10_000_000, bytesPerSecond: 1.1) == 9_090_909_090_909_090)
    }

    @Test func seededTransferTimesAreTheExactCeiling() {
        // For bytes ≤ 9000 the product bytes × 1e9 is exact in a Double, and with integer bandwidths in
        // [1e5, 1e7] B/s the quotient's fractional part (a multiple of 1/bandwidth ≥ 1e-7) is far above
        // its rounding error (< 1e-8), so the result must be the exact integer ceiling.
        var rng = RandomStream(seed: 9, purpose: StreamPurpose("test-link-profile"))
        for _ in 0..<5_000 {
            let bytes = Int(rng.below(9_001))
            let bps = Int64(100_000 + rng.below(9_900_001))
            let numerator = Int64(bytes) * 1_000_000_000
            let expected = ceilDiv(numerator, bps)
            #expect(LinkProfile.transferTime(bytes: bytes, bytesPerSecond: Double(bps)) == expected,
                    "\(bytes) B at \(bps) B/s")
        }
    }

    @Test func profileStoresItsParameters() {
        let p = LinkProfile(name: "lte", share: 0.4, uplink: .lognormal(median: 30e6, sigma: 0.5),
                            downlink: .constant(20e6), bandwidth: .constant(2e6), failure: 0.01,
                            timeout: 30 * .second)
        #expect(p.name == "lte" && p.share == 0.4 && p.failure == 0.01 && p.timeout == 30 * .second)
        #expect(p.downlink == .constant(20e6) && p.bandwidth == .constant(2e6))
    }
}

@Suite struct LinkProfileSaturationTests {
    /// A positive bandwidth so small that bytes × 1e9 / bandwidth exceeds Int64.max saturates to the
    /// same finite "never" as a zero bandwidth, instead of trapping in `Int64(_:)`.
    /// 1 B at 1e-12 B/s = 1e21 ns > 9.22e18 ns.
    @Test func vanishingBandwidthSaturatesInsteadOfTrapping() {
        #expect(LinkProfile.transferTime(bytes: 1, bytesPerSecond: 1e-12) == Int64.max / 4)
        #expect(LinkProfile.transferTime(bytes: 1, bytesPerSecond: 0) == Int64.max / 4)
    }
}
