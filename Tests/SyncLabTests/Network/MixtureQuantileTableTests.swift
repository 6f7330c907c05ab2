import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// Known answers for the tabulated quantile (`MixtureQuantileTable`) against the exact inverse of
/// the mixture's CDF, and for AR(1) draws through it on the presets.
@Suite struct MixtureQuantileTableTests {
    /// Every correlated preset's mixtures, per direction (the ones whose tables ship built).
    static func presetMixtures() -> [(String, LognormalMixture)] {
        ShippedQuantileTables.presetMixtures.map { ($0.name, $0.mixture) }
    }

    /// Linear interpolation of g(z) = ln Q(Φ(z)) errs by at most h²/8·max|g″| between grid
    /// points (h = 17/8192: 5.4e-7·max|g″|), largest near a midpoint; the grid values carry the
    /// root search's own error besides. Rather than bound g″ by hand we check every midpoint and
    /// every grid point of every preset's table against the exact inverse: the worst is
    /// 1.4e-4 in ln-delay, on every preset at z ≈ 2.06, where Φ(z) = 0.98 = 1 − tail share and g
    /// bends sharply from the body's quantiles to the tail's; so we hold the table to 2e-4 — a relative 0.02%, 11 µs on
    /// LTE's 55 ms median, far below the spread the presets are calibrated to within (1%).
    @Test func tableMatchesTheExactInverseAtEveryMidpoint() throws {
        let h = MixtureQuantileTable.step
        let bound = 2e-4
        for (name, mixture) in Self.presetMixtures() {
            let table = MixtureQuantileTable(mixture)
            var worst = 0.0, worstZ = 0.0
            for k in 0..<MixtureQuantileTable.intervals {
                let z = MixtureQuantileTable.gridPoint(k)
                for w in [z, z + h / 2] {
                    let exact = MixtureQuantileTable.exactQuantile(mixture, at: w)
                    let error = abs(Foundation.log(table.quantile(at: w) / exact))
                    if error > worst { (worst, worstZ) = (error, w) }
                }
            }
            #expect(worst < bound, "\(name): worst ln-error \(worst) at z \(worstZ), bound \(bound)")
            print(String(format: "quantile table %@: worst |ln error| %.2e at z %.4f (bound %.0e)", name, worst, worstZ, bound))
        }
    }

    /// Outside the grid the exact inverse answers, so the far tails are the mixture's own.
    @Test func outsideTheGridTheExactInverseAnswers() throws {
        let (_, mixture) = try #require(Self.presetMixtures().first)
        let table = MixtureQuantileTable(mixture)
        for z in [-9.0, -8.5 - 1e-9, 8.5, 9.0, 12.0] {
            #expect(table.quantile(at: z) == MixtureQuantileTable.exactQuantile(mixture, at: z))
        }
    }

    /// A single lognormal as a mixture (tail share 0): g(z) = ln m + σz is straight, so the
    /// table is exact up to rounding (1e-11 relative) at any z, on or off the grid.
    @Test func aSingleLognormalIsInterpolatedExactly() {
        let mixture = LognormalMixture(bodyMedian: 40e6, bodySigma: 0.6, tailShare: 0, tailMedian: 400e6, tailSigma: 0.7)
        let table = MixtureQuantileTable(mixture)
        for z in stride(from: -8.4, through: 8.4, by: 0.0137) {
            let closedForm = 40e6 * Foundation.exp(0.6 * z)
            #expect(abs(table.quantile(at: z) / closedForm - 1) < 1e-11, "z \(z)")
        }
    }

    /// A preset draws through its tables once a scenario uses it (the presets themselves come
    /// untabulated, so naming them builds nothing): AR(1) on the lte uplink, spaced 0.2 s (τ = 2 s),
    /// keeps the mixture's law (the share at or below the mixture's p-quantile is p within 5
    /// standard errors inflated by (1+ρ)/(1−ρ), as in `DelayProcessTests`) and each delay is
    /// the tabulated quantile of the stored x, within the table's bound of the exact one. Draws
    /// τ apart correlate at exp(−1) in x (5 standard errors √((1−ρ²)/N)).
    @Test func presetDrawsThroughTheTableKeepTheLawAndTheCorrelation() throws {
        let scenario = try ScenarioLoader().load(text: try ScenarioFixtures.variant(
            #"{"network": {"profiles": [{"preset": "lte", "share": 1}]}}"#))
        let lte = scenario.links[0]
        #expect((LinkPresets.named("lte")?.correlation as? AR1Delays)?.uplinkQuantiles == nil)
        let p = try #require(lte.correlation as? AR1Delays)
        let table = try #require(p.uplinkQuantiles)
        guard case .lognormalMixture(let mixture) = lte.uplink else { Issue.record("lte uplink is not a mixture"); return }
        #expect(table.mixture == mixture)
        for (spacing, n) in [(200 * Int64.millisecond, 100_000), (2 * Int64.second, 40_000)] {
            let rho = Foundation.exp(-Double(spacing) / Double(p.tau))
            var memory = LinkMemory()
            var rng = RandomStream(seed: 27, purpose: StreamPurpose("quantile-table-test"))
            var xs: [Double] = [], ds: [Double] = []
            for k in 0..<n {
                let d = p.delay(.uplink, on: lte, memory: &memory, at: SimTime(ns: Int64(k) * spacing), player: 0, seed: 27, &rng)
                let x = Double(Float(bitPattern: memory[.uplink]))
                xs.append(x)
                ds.append(d)
                if k < 500 {
                    #expect(d == table.quantile(at: x))
                    #expect(abs(Foundation.log(d / MixtureQuantileTable.exactQuantile(mixture, at: x))) < 2e-4)
                }
            }
            let N = Double(n)
            #expect(abs(DelayProcessTests.lag1(xs) - rho) < 5 * ((1 - rho * rho) / N).squareRoot(), "lag-1 \(DelayProcessTests.lag1(xs)), ρ \(rho)")
            for q in [0.1, 0.5, 0.9, 0.99] {
                let level = mixture.quantile(q)
                let share = Double(ds.lazy.filter { $0 <= level }.count) / N
                let se = (q * (1 - q) / N * (1 + rho) / (1 - rho)).squareRoot()
                #expect(abs(share - q) < 5 * se, "share below the \(q) quantile: \(share)")
            }
        }
    }

    /// The table is a function of the mixture: two builds hold the same bits, and so does the
    /// process's shared copy, whether built by this call or an earlier one.
    @Test func buildsAreIdentical() throws {
        let (_, mixture) = try #require(Self.presetMixtures().first)
        let built = MixtureQuantileTable(mixture).logQuantiles
        #expect(built == MixtureQuantileTable(mixture).logQuantiles)
        #expect(MixtureQuantileTable.shared(mixture).logQuantiles == built)
        #expect(MixtureQuantileTable.shared(mixture).logQuantiles == built)
        var other = mixture
        other.tailShare = 0.05
        #expect(MixtureQuantileTable.shared(other).logQuantiles == MixtureQuantileTable(other).logQuantiles)
        #expect(MixtureQuantileTable.shared(other).logQuantiles != built)
    }
}
