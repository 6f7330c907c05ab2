import Testing
import Foundation
import SyncLabKernel

/// Known answers for the lognormal mixture and the normal CDF under it. Reference values are
/// from 30-digit arithmetic (erfc, Φ and a root of the mixture's CDF); the closed forms are
/// written out beside each check.
@Suite struct LognormalMixtureTests {
    /// LTE's uplink preset: body 28 ms, σ 0.45; 2% from a tail of median 455 ms, σ 0.7 (ms here).
    static let lte = LognormalMixture(bodyMedian: 28, bodySigma: 0.45, tailShare: 0.02, tailMedian: 455, tailSigma: 0.7)

    static func close(_ a: Double, _ b: Double, relative: Double) -> Bool { abs(a - b) <= relative * abs(b) }

    @Test func erfcAndPhiMatchTheirTabulatedValues() {
        #expect(NormalLaw.erfc(0) == 1)
        #expect(Self.close(NormalLaw.erfc(0.5), 0.479500122186953462, relative: 1e-13))
        #expect(Self.close(NormalLaw.erfc(4), 1.54172579002800189e-8, relative: 1e-12))
        #expect(Self.close(NormalLaw.erfc(10), 2.08848758376254476e-45, relative: 1e-12))
        #expect(Self.close(NormalLaw.erfc(-0.5), 2 - 0.479500122186953462, relative: 1e-14))
        #expect(NormalLaw.cdf(0) == 0.5)
        #expect(Self.close(NormalLaw.cdf(-3), 1.34989803163009453e-3, relative: 1e-12))
        #expect(Self.close(NormalLaw.cdf(-6), 9.86587645037698141e-10, relative: 1e-12))
        #expect(Self.close(NormalLaw.cdf(1.959963984540054), 0.975, relative: 1e-14))
        // Continuous where the series hands over to the continued fraction.
        #expect(Self.close(NormalLaw.erfc(3 - 1e-12), NormalLaw.erfc(3), relative: 1e-10))
    }

    /// Moments: E[X^k] = (1 − w)·m₁^k·e^(k²σ₁²/2) + w·m₂^k·e^(k²σ₂²/2); for LTE's uplink the mean is
    /// 0.98·28·e^0.10125 + 0.02·455·e^0.245 = 41.990175 ms and the variance 10420.950 ms².
    @Test func momentsFollowTheClosedForm() {
        #expect(Self.close(Self.lte.mean, 41.9901750066265846, relative: 1e-12))
        #expect(Self.close(Self.lte.variance, 10420.9503694652389, relative: 1e-10))
        #expect(Distribution.lognormalMixture(Self.lte).mean == Self.lte.mean)
        // With no tail it is the body's lognormal: mean m·e^(σ²/2), quantiles m·e^(σ·z).
        let plain = LognormalMixture(bodyMedian: 30, bodySigma: 0.8, tailShare: 0, tailMedian: 300, tailSigma: 0.5)
        #expect(Self.close(plain.mean, Distribution.lognormal(median: 30, sigma: 0.8).mean, relative: 1e-14))
        #expect(Self.close(plain.median, 30, relative: 1e-12))
        #expect(Self.close(plain.quantile(NormalLaw.cdf(1)), 30 * exp(0.8), relative: 1e-12))
    }

    /// The CDF at two points and its inverse: the median (root of F = 1/2, 28.3241544 ms, just
    /// above the body's 28 because 2% of the mass sits in the tail) and the 99th percentile, which
    /// lands almost exactly on the tail's median (0.98 + 0.02·½ = 0.99): 455.0000113 ms.
    @Test func cdfAndQuantilesAreExact() {
        #expect(Self.close(Self.lte.cdf(100), 0.978014953638768595, relative: 1e-13))
        #expect(Self.close(Self.lte.cdf(1000), 0.997393854549331820, relative: 1e-13))
        #expect(Self.close(Self.lte.survival(1000), 1 - 0.997393854549331820, relative: 1e-10))
        #expect(Self.close(Self.lte.median, 28.3241544196672011, relative: 1e-12))
        #expect(Self.close(Self.lte.quantile(0.99), 455.000011345433348, relative: 1e-12))
        for p in [1e-9, 0.01, 0.3, 0.9, 0.999] {
            #expect(Self.close(Self.lte.cdf(Self.lte.quantile(p)), p, relative: 1e-11), "p \(p)")
            #expect(Self.close(Self.lte.survival(Self.lte.upperQuantile(p)), p, relative: 1e-11), "upper q \(p)")
        }
        // The upper form keeps precision where p would round to 1.
        let far = Self.lte.upperQuantile(1e-18)
        #expect(far > 455 * exp(0.7 * 8) && Self.close(Self.lte.survival(far), 1e-18, relative: 1e-9))
    }

    /// 200,000 draws: the share at or below three of the CDF's points within 5 binomial standard
    /// errors √(p(1−p)/n) (a false failure about once in 3.5 million runs; the seed is fixed).
    /// Each draw takes one unit draw to pick the component plus the lognormal's own draws.
    @Test func drawsFollowTheCDF() {
        let n = 200_000
        var rng = RandomStream(seed: 42, purpose: StreamPurpose("lognormal-mixture"))
        let d = Distribution.lognormalMixture(Self.lte)
        let xs = (0..<n).map { _ in d.sample(&rng) }
        for x in [20.0, 28.324, 100, 455, 1000] {
            let p = Self.lte.cdf(x)
            let observed = Double(xs.lazy.filter { $0 <= x }.count) / Double(n)
            let se = (p * (1 - p) / Double(n)).squareRoot()
            #expect(abs(observed - p) < 5 * se, "F(\(x)) = \(p), observed \(observed)")
        }
        // Component pick then a ziggurat normal (one draw ~98.8% of the time).
        var start = RandomStream(seed: 3, purpose: StreamPurpose("draw-count"))
        var counts: [Int: Int] = [:]
        for _ in 0..<100 {
            var used = start
            _ = d.sample(&used)
            var probe = start, k = 0
            while probe != used && k < 100 { _ = probe.next(); k += 1 }
            counts[k, default: 0] += 1
            start = used
        }
        #expect(counts.keys.min() == 2)
    }
}
