import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The search's sequential confirmation on closed forms: the t distribution's CDF against its
/// forms for ν = 1 and 2 and against printed quantiles, the binomial tail, the prediction of a
/// further seed's margin worked by hand, and a search that stops short exactly when the rule says.
@Suite struct SequentialConfirmationTests {
    @Test func theArcTangentAgreesWithTheCLibraryToAFewUlps() {
        #expect(DeterministicAngle.atan(0) == 0)
        #expect(DeterministicAngle.atan(1) == Double.pi / 4)
        #expect(DeterministicAngle.atan(.infinity) == Double.pi / 2)
        #expect(DeterministicAngle.atan(-2) == -DeterministicAngle.atan(2))
        var random = RandomStream(state: 5)
        for _ in 0..<10_000 {
            // Magnitudes from 10⁻⁶ to 10⁶.
            let x = Foundation.pow(10, 12 * random.unit() - 6)
            let expected = Foundation.atan(x)
            #expect(abs(DeterministicAngle.atan(x) - expected) <= 4 * expected.ulp, "x = \(x)")
        }
    }

    @Test func theTCDFMatchesItsClosedFormsAndPrintedQuantiles() {
        for t in stride(from: -30.0, through: 30.0, by: 0.37) {
            // ν = 1 is Cauchy's law: 1/2 + atan(t)/π.
            #expect(abs(StudentT.cdf(t, degrees: 1) - (0.5 + Foundation.atan(t) / Double.pi)) < 1e-15, "t = \(t)")
            // ν = 2: 1/2 + t / (2√(2 + t²)).
            #expect(abs(StudentT.cdf(t, degrees: 2) - (0.5 + t / (2 * (2 + t * t).squareRoot()))) < 1e-15, "t = \(t)")
        }
        // Two-sided 95% and one-sided 95% quantiles as tables print them (6 figures).
        for (t, nu, p) in [(12.706205, 1, 0.975), (2.776445, 4, 0.975), (2.570582, 5, 0.975), (1.729133, 19, 0.95),
                           (2.093024, 19, 0.975), (1.660234, 100, 0.95)] {
            #expect(abs(StudentT.cdf(t, degrees: nu) - p) < 1e-6, "t = \(t), ν = \(nu)")
            #expect(abs(StudentT.cdf(-t, degrees: nu) - (1 - p)) < 1e-6)
        }
        #expect(StudentT.cdf(0, degrees: 7) == 0.5)
        #expect(StudentT.cdf(.infinity, degrees: 3) == 1 && StudentT.cdf(-.infinity, degrees: 3) == 0)
    }

    @Test func theBinomialTailIsItsClosedForm() {
        let q = 0.01
        // No further failure allowed: 1 − (1 − q)^r.
        #expect(abs(SequentialConfirmation.moreFailuresChance(remaining: 15, missChance: q, allowedMore: 0) - (1 - Foundation.pow(0.99, 15))) < 1e-15)
        // One: 1 − (1 − q)^r − r q (1 − q)^(r−1).
        let one = 1 - Foundation.pow(0.99, 15) - 15 * q * Foundation.pow(0.99, 14)
        #expect(abs(SequentialConfirmation.moreFailuresChance(remaining: 15, missChance: q, allowedMore: 1) - one) < 1e-15)
        #expect(SequentialConfirmation.moreFailuresChance(remaining: 3, missChance: 0.5, allowedMore: 3) == 0)
        #expect(SequentialConfirmation.moreFailuresChance(remaining: 3, missChance: 0, allowedMore: 0) == 0)
        #expect(SequentialConfirmation.moreFailuresChance(remaining: 3, missChance: 1, allowedMore: 2) == 1)
    }

    @Test func aFurtherSeedsMissChanceIsWorkedByHand() {
        // Margins 0.1 and 0.3: mean 0.2, sample sd √0.02, so the prediction's scale is
        // √0.02 · √(1 + 1/2) = √0.03 and t = −0.2/√0.03 = −2/√3, with 1 degree of freedom:
        // 1/2 − atan(2/√3)/π.
        let expected = 0.5 - Foundation.atan(2 / 3.0.squareRoot()) / Double.pi
        #expect(abs(SequentialConfirmation.missChance([0.1, 0.3]) - expected) < 1e-12)
        #expect(SequentialConfirmation.missChance([0.2, 0.2, 0.2]) == 0)
        #expect(SequentialConfirmation.missChance([-0.1, -0.1]) == 1)
        #expect(SequentialConfirmation.missChance([0.5, -.infinity]) == 1)
    }

    /// k margins with mean exactly z·s and sample sd s (s = 0.01): a symmetric pattern ±a, with 0
    /// for an odd k, whose sample sd is a·√(2⌊k/2⌋/(k − 1)).
    static func margins(_ k: Int, z: Double) -> [Double] {
        let s = 0.01
        let a = s * (Double(k - 1) / Double(2 * (k / 2))).squareRoot()
        return (0..<k).map { i in z * s + (i < k / 2 ? a : i < 2 * (k / 2) ? -a : 0) }
    }

    /// When a design sitting z sample deviations above its limit stops, by the rule, out of 20
    /// seeds: the first k ≥ 5 with 1 − (1 − F₍ₖ₋₁₎(−z/√(1 + 1/k)))^(20 − k) ≤ 0.05.
    @Test func theStoppingSeedFollowsTheMarginInDeviations() {
        let rule = SequentialConfirmation()
        func stop(_ z: Double) -> Int {
            for k in rule.minimumSeeds...20 where rule.passIsClear(margins: [Self.margins(k, z: z), Self.margins(k, z: 50)],
                                                                    failing: 0, allowed: 0, remaining: 20 - k) { return k }
            return 20
        }
        // Worked with the same formula in double precision, outside the lab: 19, 13, 8, 6, 5.
        #expect(stop(2) == 19)
        #expect(stop(3) == 13)
        #expect(stop(4) == 8)
        #expect(stop(5) == 6)
        #expect(stop(6) == 5)
        // Fewer seeds than the least never stop; a failing seed over the allowance never passes.
        #expect(!rule.passIsClear(margins: [Self.margins(4, z: 50)], failing: 0, allowed: 0, remaining: 16))
        #expect(!rule.passIsClear(margins: [Self.margins(9, z: 50)], failing: 1, allowed: 0, remaining: 11))
    }

    /// A search on a closed form: a design whose margins sit far above the limit is confirmed on
    /// 5 seeds of 20 and still wins; one near the limit runs every seed; the outcome decides
    /// from the runs alone exactly as the search did.
    @Test func aSearchStopsShortOnlyWhenThePassIsClear() {
        let number = { (n: Int) in JSONValue.number(Double(n), literal: String(n)) }
        let plan = SearchPlan(knobs: [SearchKnob(keyPath: "client.probes", values: [number(1), number(2)]),
                                      SearchKnob(keyPath: "server.fleet.servers", values: [number(4), number(8)], monotone: true)],
                              constraints: [Budget(name: "bare", metric: "bareShare", comparison: .atMost, limit: 0.01)],
                              objective: .servers, seeds: Array(1...20), maxFailingSeeds: 0, screen: nil,
                              sequential: SequentialConfirmation())
        // bareShare: 1 probe far below the limit (margin 0.5 ± 0.01), 2 probes near it (0.01 ± 0.01),
        // the same whatever the servers; the seed moves it by ±0.01 relative.
        func figures(_ c: Int, _ seed: UInt64) -> [Double?] {
            let v = plan.values(of: c)
            let margin = (v[0].intValue == 1 ? 0.5 : 0.01) + (seed % 2 == 0 ? 0.01 : -0.01)
            return plan.figures.map { $0 == "servers" ? Double(v[1].intValue) : $0 == "bareShare" ? 0.01 * (1 - margin) : 1 }
        }
        var runs: [SearchRun] = []
        for g in 0..<plan.groups { runs += plan.search(group: g) { c, _, seed in figures(c, seed) } }
        let outcome = plan.outcome(runs)
        let far = outcome.fates.filter { plan.values(of: $0.candidate)[0].intValue == 1 && $0.verdict == .meets }
        let near = outcome.fates.filter { plan.values(of: $0.candidate)[0].intValue == 2 && $0.verdict == .meets }
        // Each group confirms 8 servers, then bisects to 4: both meet.
        #expect(far.count == 2 && far.allSatisfy { $0.seedsRun == 5 && $0.reason.contains("its pass clear after 5 of 20") }, "\(far)")
        #expect(near.count == 2 && near.allSatisfy { $0.seedsRun == 20 && !$0.reason.contains("clear after") }, "\(near)")
        // Equal servers: the larger margin, the far design, wins.
        #expect(outcome.winner.map { plan.values(of: $0).map(\.intValue) } == [1, 4])
        // Without the rule every confirmation runs all 20 seeds.
        var plain = plan
        plain.sequential = nil
        var all: [SearchRun] = []
        for g in 0..<plain.groups { all += plain.search(group: g) { c, _, seed in figures(c, seed) } }
        #expect(plain.outcome(all).fates.filter { $0.verdict == .meets }.allSatisfy { $0.seedsRun == 20 })
        #expect(all.count > runs.count)
    }
}
