import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The link presets against the round-trip measurements docs/links.md cites: the fitted form
/// reproduces each target's median and standard deviation, and round trips drawn through the
/// world's own link draws follow the fitted law (Kolmogorov–Smirnov, median, SD).
///
/// `swift test --filter LinkCalibrationTests` prints the calibration table docs/links.md shows.
@Suite struct LinkCalibrationTests {
    /// A published round trip: median and standard deviation in ms.
    struct Target {
        let preset: String
        let medianMs: Double
        let sdMs: Double
    }

    /// Wi-Fi: Catchpoint's home broadband agents; LTE: Catchpoint's 4G LTE agents (one week of
    /// pings, 2013); 3G and EDGE: HPBN's typical medians with LTE's relative spread (SD/median 2.4).
    static let targets = [
        Target(preset: "wifi", medianMs: 21, sdMs: 19),
        Target(preset: "lte", medianMs: 55, sdMs: 132),
        Target(preset: "3g", medianMs: 150, sdMs: 360),
        Target(preset: "edge", medianMs: 550, sdMs: 1320),
    ]

    /// Round trips drawn per preset: the Kolmogorov–Smirnov critical value at α = 0.001 is
    /// c/√n with c = √(−ln(α/2)/2) = 1.9495 (the asymptotic Kolmogorov law), 0.0062 here.
    static let n = 100_000

    /// The round trip uplink + downlink of independent mixtures, in ms.
    struct RoundTrip {
        let up: LognormalMixture
        let down: LognormalMixture

        init(_ link: LinkProfile) throws {
            guard case .lognormalMixture(let u) = link.uplink, case .lognormalMixture(let d) = link.downlink else {
                throw CalibrationError.notAMixture(link.name)
            }
            func ms(_ m: LognormalMixture) -> LognormalMixture {
                LognormalMixture(bodyMedian: m.bodyMedian / 1e6, bodySigma: m.bodySigma, tailShare: m.tailShare,
                                 tailMedian: m.tailMedian / 1e6, tailSigma: m.tailSigma)
            }
            (up, down) = (ms(u), ms(d))
        }

        /// Means and variances of independent parts add; the fourth central moment of a sum of
        /// independent parts is μ₄(U) + μ₄(D) + 6·Var U·Var D.
        var mean: Double { up.mean + down.mean }
        var variance: Double { up.variance + down.variance }
        var fourthCentralMoment: Double { up.fourthCentralMoment + down.fourthCentralMoment + 6 * up.variance * down.variance }

        /// P(U + D ≤ t) = ∫ f_U(u)·F_D(t − u) du, with u = e^y: composite Simpson (400 steps) over
        /// y from 14 σ below the lower component's median to ln t. The density in y is a mix of
        /// Gaussians of width σ ≥ 0.45 and the step is under 0.04, so Simpson's error, of order
        /// (step/σ)⁴, stays near 1e-5. Written with the C library's erfc and exp, independently
        /// of the kernel's `LognormalMixture.cdf`.
        func cdf(_ t: Double) -> Double {
            guard t > 0 else { return 0 }
            let lo = min(Foundation.log(up.bodyMedian) - 14 * up.bodySigma, Foundation.log(up.tailMedian) - 14 * up.tailSigma)
            let hi = Foundation.log(t)
            guard hi > lo else { return 0 }
            let steps = 400, h = (hi - lo) / Double(steps)
            let (b1, t1) = (Foundation.log(up.bodyMedian), Foundation.log(up.tailMedian))
            let (b2, t2) = (Foundation.log(down.bodyMedian), Foundation.log(down.tailMedian))
            func gauss(_ z: Double, _ s: Double) -> Double { Foundation.exp(-z * z / (2 * s * s)) / (s * (2 * Double.pi).squareRoot()) }
            func phi(_ z: Double) -> Double { Foundation.erfc(-z / 2.0.squareRoot()) / 2 }
            func f(_ y: Double) -> Double {
                let density = (1 - up.tailShare) * gauss(y - b1, up.bodySigma) + up.tailShare * gauss(y - t1, up.tailSigma)
                let rest = t - Foundation.exp(y)
                guard rest > 0 else { return 0 }
                let z = Foundation.log(rest)
                return density * ((1 - down.tailShare) * phi((z - b2) / down.bodySigma) + down.tailShare * phi((z - t2) / down.tailSigma))
            }
            var sum = f(lo) + f(hi)
            for i in 1..<steps { sum += f(lo + Double(i) * h) * (i % 2 == 1 ? 4 : 2) }
            return sum * h / 3
        }

        /// The CDF tabulated at `points` + 1 values of ln t, evenly spaced from 3 below the sum of
        /// the body medians to 6 above the sum of the tail medians (8.5 tail σ: beyond any draw
        /// of a test), for interpolation.
        func table(points: Int = 3000) -> Table {
            let lnLo = Foundation.log(up.bodyMedian + down.bodyMedian) - 3
            let lnHi = Foundation.log(up.tailMedian + down.tailMedian) + 6
            let grid = (0...points).map { lnLo + (lnHi - lnLo) * Double($0) / Double(points) }
            return Table(lnT: grid, cdf: grid.map { cdf(Foundation.exp($0)) })
        }
    }

    /// A CDF on a grid of ln t, linear in between: its curvature in ln t is small enough at a
    /// spacing of 0.004 that the interpolation error is far below 1e-5.
    struct Table {
        let lnT: [Double]
        let cdf: [Double]

        func at(_ t: Double) -> Double {
            let z = Foundation.log(t)
            guard z > lnT[0] else { return 0 }
            guard z < lnT[lnT.count - 1] else { return 1 }
            let pos = (z - lnT[0]) / (lnT[1] - lnT[0])
            let k = min(Int(pos), lnT.count - 2)
            return cdf[k] + (cdf[k + 1] - cdf[k]) * (pos - Double(k))
        }

        func quantile(_ p: Double) -> Double {
            var k = 0
            while k < cdf.count - 2 && cdf[k + 1] < p { k += 1 }
            let frac = cdf[k + 1] > cdf[k] ? (p - cdf[k]) / (cdf[k + 1] - cdf[k]) : 0
            return Foundation.exp(lnT[k] + (lnT[k + 1] - lnT[k]) * min(max(frac, 0), 1))
        }
    }

    enum CalibrationError: Error { case notAMixture(String) }

    /// `n` round trips of one player on `preset`, drawn as the world draws them: `World.linkDelay`
    /// for the uplink, then for the downlink, from the player's network stream, 40 s apart (ms).
    static func worldRoundTrips(_ preset: String, seed: Int) throws -> [Double] {
        var s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(
            #"{"seed": \#(seed), "network": {"profiles": [{"preset": "\#(preset)", "share": 1}]}}"#))
        s.population.players = 1
        var world = World(scenario: s)
        // 40 s apart: the presets' delays correlate in time, at e^−8 after 40 s on a 5 s time constant
        // (the draw times are kept to the ms in 32 bits: 10^5 draws 40 s apart stay within them).
        return (0..<n).map { k in
            let at = SimTime(ns: Int64(k) * 40 * .second)
            return Double(world.linkDelay(.uplink, 0, link: 0, at: at) + world.linkDelay(.downlink, 0, link: 0, at: at)) / 1e6
        }
    }

    /// Kolmogorov–Smirnov distance between sorted samples and a CDF: the largest gap between
    /// the empirical CDF, just below and at each sample, and the CDF.
    static func ksDistance(_ sorted: [Double], _ cdf: Table) -> Double {
        let count = Double(sorted.count)
        var d = 0.0
        for (i, x) in sorted.enumerated() {
            let f = cdf.at(x)
            d = max(d, abs(f - Double(i) / count), abs(f - Double(i + 1) / count))
        }
        return d
    }

    static func sampleMedian(_ sorted: [Double]) -> Double { (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 }
    static func sampleSD(_ x: [Double]) -> Double {
        let m = x.reduce(0, +) / Double(x.count)
        return (x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count - 1)).squareRoot()
    }

    /// The fit: the round-trip law's exact median (numerical convolution) within 3% of the target
    /// and its standard deviation (closed form) within 1% — the presets' parameters are rounded
    /// to whole milliseconds, which moves the median by up to about 1.5%.
    @Test(arguments: targets)
    func fittedRoundTripHasTheTargetMedianAndSpread(target: Target) throws {
        let trip = try RoundTrip(try #require(LinkPresets.named(target.preset)))
        let table = trip.table()
        let median = table.quantile(0.5)
        #expect(abs(median / target.medianMs - 1) < 0.03, "\(target.preset): median \(median) ms, target \(target.medianMs)")
        let sd = trip.variance.squareRoot()
        #expect(abs(sd / target.sdMs - 1) < 0.01, "\(target.preset): SD \(sd) ms, target \(target.sdMs)")
        // The body stays narrow: one lognormal with this median and SD would put far more mass
        // at the low end (its σ solves e^(σ²/2)·√(e^(σ²) − 1) = SD/median).
        #expect(table.quantile(0.1) > 0.6 * median)
    }

    /// n round trips through the world's link draws against the fitted law: KS distance under
    /// the α = 0.001 critical value; the sample median within 5 standard errors 1/(2 f(m) √n) (f
    /// the round trip's density at its median, by a central difference of the CDF); the sample SD
    /// within 5 standard errors √((μ₄ − σ⁴)/(4σ²n)) (the delta method on s², whose variance is
    /// (μ₄ − σ⁴)/n; every moment of a lognormal mixture is finite). The seed is fixed, so a run
    /// never flakes; 5 standard errors would fail by chance once in 3.5 million seeds.
    @Test(arguments: targets)
    func worldDrawsFollowTheFittedLaw(target: Target) throws {
        let trip = try RoundTrip(try #require(LinkPresets.named(target.preset)))
        let samples = try Self.worldRoundTrips(target.preset, seed: 27)
        let sorted = samples.sorted()
        let n = Double(Self.n)
        let critical = (-Foundation.log(0.001 / 2) / 2).squareRoot() / n.squareRoot()
        let table = trip.table()
        let d = Self.ksDistance(sorted, table)
        #expect(d < critical, "\(target.preset): KS D \(d), critical \(critical)")

        let median = table.quantile(0.5)
        let step = median * 0.01
        let density = (table.at(median + step) - table.at(median - step)) / (2 * step)
        let seMedian = 1 / (2 * density * n.squareRoot())
        let simulatedMedian = Self.sampleMedian(sorted)
        #expect(abs(simulatedMedian - median) < 5 * seMedian, "\(target.preset): median \(simulatedMedian) vs \(median) ± \(seMedian)")

        let variance = trip.variance
        let seSD = ((trip.fourthCentralMoment - variance * variance) / (4 * variance * n)).squareRoot()
        let simulatedSD = Self.sampleSD(samples)
        #expect(abs(simulatedSD - variance.squareRoot()) < 5 * seSD,
                "\(target.preset): SD \(simulatedSD) vs \(variance.squareRoot()) ± \(seSD)")

        let p99 = sorted[Int(0.99 * n) - 1]
        print(String(format: "calibration %@: target median %.0f ms SD %.0f ms | fitted median %.1f SD %.1f p99 %.0f ms"
                     + " | world n=%d median %.1f SD %.1f p99 %.0f ms, KS D %.4f (critical %.4f)",
                     target.preset, target.medianMs, target.sdMs, median, variance.squareRoot(), table.quantile(0.99),
                     Self.n, simulatedMedian, simulatedSD, p99, d, critical))
    }
}
