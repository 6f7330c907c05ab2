/// A lognormal body with a slower lognormal tail: a draw comes from the tail component with
/// chance `tailShare`, else from the body.
///
/// Round trips measured from phones have a narrow body and a long tail (Catchpoint's week of LTE
/// pings: median 55 ms, standard deviation 132 ms). One lognormal cannot give both: the σ that
/// reaches that spread (about 1.3 for a round trip) also spreads the body, putting a tenth of
/// round trips under 10 ms. A second component with a small weight carries the tail (radio
/// retransmissions, scheduling stalls, handovers) and leaves the body alone. Every moment has a
/// closed form; the median and other quantiles are found from the closed-form CDF.
///
/// An optional third part, the outage (`outageShare`, 0 unless given), carries a far cluster
/// that a tail fitted to a shoulder of short waits cannot reach: the Saturator traces' LTE and
/// EVDO links hold 1–2% of round trips from half a second to seconds (docs/links.md). With no
/// outage every draw, CDF and quantile is the two-part mixture's, bit for bit.
public struct LognormalMixture: Sendable, Hashable {
    /// The body: exp(N(ln bodyMedian, bodySigma²)).
    public var bodyMedian: Double
    public var bodySigma: Double
    /// The chance a draw comes from the tail component, in [0, 1].
    public var tailShare: Double
    /// The tail: exp(N(ln tailMedian, tailSigma²)).
    public var tailMedian: Double
    public var tailSigma: Double
    /// The chance a draw comes from the outage part (0: a two-part mixture); the body's share is
    /// 1 − tailShare − outageShare.
    public var outageShare: Double
    /// The outage part: exp(N(ln outageMedian, outageSigma²)).
    public var outageMedian: Double
    public var outageSigma: Double

    public init(bodyMedian: Double, bodySigma: Double, tailShare: Double, tailMedian: Double, tailSigma: Double) {
        self.bodyMedian = bodyMedian
        self.bodySigma = bodySigma
        self.tailShare = tailShare
        self.tailMedian = tailMedian
        self.tailSigma = tailSigma
        self.outageShare = 0
        self.outageMedian = tailMedian
        self.outageSigma = tailSigma
    }

    /// A three-part mixture: body, tail (a shoulder of short waits) and outage.
    public init(bodyMedian: Double, bodySigma: Double, tailShare: Double, tailMedian: Double, tailSigma: Double,
                outageShare: Double, outageMedian: Double, outageSigma: Double) {
        self.init(bodyMedian: bodyMedian, bodySigma: bodySigma, tailShare: tailShare, tailMedian: tailMedian, tailSigma: tailSigma)
        self.outageShare = outageShare
        self.outageMedian = outageMedian
        self.outageSigma = outageSigma
    }

    /// The body's share of draws, 1 − tailShare − outageShare.
    public var bodyShare: Double { outageShare > 0 ? 1 - tailShare - outageShare : 1 - tailShare }

    /// One draw: a unit draw picks the component (tail below tailShare, outage in the next
    /// outageShare, else body), then that component's lognormal draws.
    @inlinable public func sample(_ rng: inout RandomStream) -> Double {
        let u = rng.unit()
        let fromTail = u < tailShare
        if !fromTail && outageShare > 0 && u < tailShare + outageShare {
            return outageMedian * DeterministicMath.exp(outageSigma * Distribution.standardNormal(&rng))
        }
        let median = fromTail ? tailMedian : bodyMedian
        let sigma = fromTail ? tailSigma : bodySigma
        return median * DeterministicMath.exp(sigma * Distribution.standardNormal(&rng))
    }

    /// E[X^k] = (1 − w − v)·m₁^k·e^(k²σ₁²/2) + w·m₂^k·e^(k²σ₂²/2) + v·m₃^k·e^(k²σ₃²/2).
    public func rawMoment(_ k: Int) -> Double {
        let k = Double(k)
        func part(_ m: Double, _ s: Double) -> Double { DeterministicMath.exp(k * DeterministicMath.log(m) + k * k * s * s / 2) }
        guard outageShare > 0 else { return (1 - tailShare) * part(bodyMedian, bodySigma) + tailShare * part(tailMedian, tailSigma) }
        return bodyShare * part(bodyMedian, bodySigma) + tailShare * part(tailMedian, tailSigma)
            + outageShare * part(outageMedian, outageSigma)
    }

    public var mean: Double { rawMoment(1) }

    public var variance: Double {
        let m = mean
        return rawMoment(2) - m * m
    }

    /// E[(X − mean)⁴], from the raw moments.
    public var fourthCentralMoment: Double {
        let m = mean
        return rawMoment(4) - 4 * m * rawMoment(3) + 6 * m * m * rawMoment(2) - 3 * m * m * m * m
    }

    /// P(X ≤ x).
    public func cdf(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        let z = DeterministicMath.log(x)
        guard outageShare > 0 else {
            return (1 - tailShare) * Self.lognormalCDF(z, bodyMedian, bodySigma) + tailShare * Self.lognormalCDF(z, tailMedian, tailSigma)
        }
        return bodyShare * Self.lognormalCDF(z, bodyMedian, bodySigma) + tailShare * Self.lognormalCDF(z, tailMedian, tailSigma)
            + outageShare * Self.lognormalCDF(z, outageMedian, outageSigma)
    }

    /// P(X > x), computed as itself (not 1 − cdf) so far-tail values keep their precision.
    public func survival(_ x: Double) -> Double {
        guard x > 0 else { return 1 }
        let z = DeterministicMath.log(x)
        guard outageShare > 0 else {
            return (1 - tailShare) * Self.lognormalCDF(-z, 1 / bodyMedian, bodySigma)
                + tailShare * Self.lognormalCDF(-z, 1 / tailMedian, tailSigma)
        }
        return bodyShare * Self.lognormalCDF(-z, 1 / bodyMedian, bodySigma)
            + tailShare * Self.lognormalCDF(-z, 1 / tailMedian, tailSigma)
            + outageShare * Self.lognormalCDF(-z, 1 / outageMedian, outageSigma)
    }

    /// The x with P(X ≤ x) = p, for p in (0, 1).
    public func quantile(_ p: Double) -> Double { solve(p, upper: false) }

    /// The x with P(X > x) = q, for q in (0, 1): the far upper tail without rounding p to 1.
    public func upperQuantile(_ q: Double) -> Double { solve(q, upper: true) }

    public var median: Double { quantile(0.5) }

    /// P(ln X ≤ z) for one component: Φ((z − ln m)/σ), a step at ln m when σ = 0.
    static func lognormalCDF(_ z: Double, _ m: Double, _ s: Double) -> Double {
        let d = z - DeterministicMath.log(m)
        if s == 0 { return d < 0 ? 0 : 1 }
        return NormalLaw.cdf(d / s)
    }

    /// Solves cdf(x) = target (or survival(x) = target) for ln x: Newton steps on ln x, kept
    /// inside a bracket that bisection shrinks whenever a step would leave it. The CDF is
    /// continuous and increasing wherever both σ are positive, so the bracket always holds the root.
    func solve(_ target: Double, upper: Bool) -> Double {
        guard target > 0 && target < 1 else { return target <= 0 ? (upper ? .infinity : 0) : (upper ? 0 : .infinity) }
        let lnBody = DeterministicMath.log(bodyMedian), lnTail = DeterministicMath.log(tailMedian)
        let lnOutage = outageShare > 0 ? DeterministicMath.log(outageMedian) : lnTail
        let spread = 40 * max(bodySigma, tailSigma, outageShare > 0 ? outageSigma : 0) + 1
        var lo = min(lnBody, lnTail, lnOutage) - spread, hi = max(lnBody, lnTail, lnOutage) + spread
        /// How far F(e^z) is above the target (for the upper form, how far S is below it).
        func excess(_ z: Double) -> Double {
            upper ? target - survival(DeterministicMath.exp(z)) : cdf(DeterministicMath.exp(z)) - target
        }
        /// dF/dz: the mixture's density in ln x.
        func slope(_ z: Double) -> Double {
            func part(_ lnm: Double, _ s: Double) -> Double {
                guard s > 0 else { return 0 }
                let u = (z - lnm) / s
                return DeterministicMath.exp(-u * u / 2) / (s * 2.506_628_274_631_000_5)
            }
            guard outageShare > 0 else { return (1 - tailShare) * part(lnBody, bodySigma) + tailShare * part(lnTail, tailSigma) }
            return bodyShare * part(lnBody, bodySigma) + tailShare * part(lnTail, tailSigma) + outageShare * part(lnOutage, outageSigma)
        }
        var z = tailShare < 0.5 ? lnBody : lnTail
        for _ in 0..<200 {
            let e = excess(z)
            if e == 0 { break }
            if e > 0 { hi = z } else { lo = z }
            let d = slope(z)
            var next = d > 0 ? z - e / d : (lo + hi) / 2
            if !(next > lo && next < hi) { next = (lo + hi) / 2 }
            if abs(next - z) <= 1e-14 * max(1, abs(z)) { z = next; break }
            z = next
        }
        return DeterministicMath.exp(z)
    }
}

/// The standard normal law's CDF, from our own complementary error function (only IEEE
/// arithmetic and `DeterministicMath.exp`), so every machine computes the same values.
public enum NormalLaw {
    /// Φ(z) = erfc(−z/√2)/2.
    public static func cdf(_ z: Double) -> Double { erfc(-z * 0.707_106_781_186_547_5) / 2 }

    /// erfc(x) = 1 − erf(x). For |x| < 3, erf from its series of positive terms
    /// erf(x) = (2/√π)·e^(−x²)·Σ 2ⁿx^(2n+1)/(1·3·…·(2n+1)) (Abramowitz & Stegun 7.1.6), which
    /// has no cancellation; from 3 up, Laplace's continued fraction for erfc (A&S 7.1.14),
    /// evaluated from its 80th term back, which keeps the far tail's relative precision.
    public static func erfc(_ x: Double) -> Double {
        if x < 0 { return 2 - erfc(-x) }
        let invSqrtPi = 0.564_189_583_547_756_3
        let gauss = DeterministicMath.exp(-x * x)
        if x < 3 {
            var term = x, sum = x, n = 0.0
            while term > 1e-17 * sum {
                term *= 2 * x * x / (2 * n + 3)
                sum += term
                n += 1
            }
            return 1 - 2 * invSqrtPi * gauss * sum
        }
        var t = x
        for k in stride(from: 80, through: 1, by: -1) { t = x + (Double(k) / 2) / t }
        return invSqrtPi * gauss / t
    }
}
