import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The curve behind the wall clock's step chances: its cosines, its interpolation, and its
/// values against the chance worked out at every spread.
@Suite struct StepChanceCurveTests {
    /// cos(πk/n) at the angles known by hand, near the platform's cosine everywhere, and the
    /// same bits for equal fractions (a point of one set of nodes is the same in the next).
    @Test func cosinesOfFractionsOfPi() {
        #expect(StepChanceCurve.cosPi(0, 8) == 1)
        #expect(StepChanceCurve.cosPi(8, 8) == -1)
        #expect(abs(StepChanceCurve.cosPi(1, 3) - 0.5) < 1e-15)
        #expect(abs(StepChanceCurve.cosPi(1, 4) - 0.5.squareRoot()) < 1e-15)
        #expect(abs(StepChanceCurve.cosPi(1, 2)) < 1e-15)
        #expect(abs(StepChanceCurve.cosPi(5, 6) + 0.75.squareRoot()) < 1e-15)
        for n in [16, 32, 64, 128, 256] {
            for k in 0...n {
                #expect(abs(StepChanceCurve.cosPi(k, n) - cos(Double.pi * Double(k) / Double(n))) < 2e-15, "\(k)/\(n)")
                #expect(StepChanceCurve.cosPi(2 * k, 2 * n).bitPattern == StepChanceCurve.cosPi(k, n).bitPattern)
            }
        }
    }

    /// Through n Chebyshev–Lobatto points the interpolant of a polynomial of degree below n is
    /// that polynomial: 2u⁴ − 3u³ + u − 5 through 9 points on [−1, 3], and at a node its value.
    @Test func interpolationReproducesAPolynomial() {
        let nodes = (0..<9).map { 1 + 2 * StepChanceCurve.cosPi($0, 8) }
        func f(_ u: Double) -> Double { 2 * u * u * u * u - 3 * u * u * u + u - 5 }
        let values = nodes.map { (mean: f($0), squares: 3 * $0) }
        for u in stride(from: -1.0, through: 3.0, by: 0.037) {
            let p = StepChanceCurve.interpolate(u, nodes: nodes, values: values)
            #expect(abs(p.mean - f(u)) < 1e-11 && abs(p.squares - 3 * u) < 1e-12, "\(u)")
        }
        #expect(StepChanceCurve.interpolate(nodes[3], nodes: nodes, values: values).mean == values[3].mean)
    }

    /// The two tails of N(0, σ²) past ±128 ms, 2·Q(0.128/σ) (a closed form), and its square,
    /// over the spreads a day of minute boundaries gives (σ_O 50 ms, σ_r 20 ppm): the curve
    /// gives every one within its agreement, from far fewer points than spreads.
    @Test func theCurveGivesEveryBoundarysChanceFromFewPoints() throws {
        let spreads = (0...1_440).map { minute -> Double in
            let t = Double(minute) * 60
            return (0.05 * 0.05 + (20e-6 * t) * (20e-6 * t)).squareRoot()
        }
        @Sendable func tails(_ sd: Double) -> (mean: Double, squares: Double) {
            let p = erfc(0.128 / sd / 2.0.squareRoot())
            return (p, p * p)
        }
        var spent = 0
        let curve = try #require(StepChanceCurve.fit(spreads: spreads, threads: 2, spent: &spent, tails))
        #expect(spent < spreads.count / 4, "\(spent)")
        for (k, sd) in spreads.enumerated() {
            let exact = tails(sd)
            #expect(abs(curve.values[k].mean - exact.mean) < 1e-9 && abs(curve.values[k].squares - exact.squares) < 1e-9, "\(sd)")
        }
    }

    /// Exchange errors all within 0.1 ms of each other: the standard error worked out from the
    /// two averages is a difference of nearly equal numbers, but the averages themselves are
    /// smooth, so a curve is still found, and its chances are the Monte Carlo's at every
    /// boundary (the standard error within the rounding that difference leaves in the direct one).
    @Test func errorsAllAlikeStillGiveACurve() throws {
        let errors = (0..<10_000).map { 20e6 + Double($0) * 10 }
        let spreads = (0...360).map { minute -> Double in
            let t = Double(minute) * 6e10
            return (50e6 * 50e6 + (20e-6 * t) * (20e-6 * t)).squareRoot()
        }
        var spent = 0
        let curve = try #require(StepChanceCurve.fit(spreads: spreads, threads: 2, spent: &spent) { sd in
            ModelAudit.stepMoments(mean: 0, sd: sd, step: 128e6, errors: errors)
        })
        #expect(spent <= spreads.count / 2, "\(spent)")
        for (k, sd) in spreads.enumerated() {
            let direct = ModelAudit.stepChance(mean: 0, sd: sd, step: 128e6, errors: errors)
            let read = ModelAudit.stepChance(curve.values[k], draws: errors.count)
            #expect(abs(read.chance - direct.chance) <= StepChanceCurve.agreement && abs(read.error - direct.error) < 1e-8,
                    "\(sd): \(read) vs \(direct)")
        }
    }

    /// No curve where it would cost as much as the spreads themselves: too few of them (none
    /// worked out), a chance that jumps (no polynomial agrees with its finer self; at most half
    /// as many points as spreads worked out), or spreads all alike.
    @Test func noCurveWhereItWouldNotBeCheaper() {
        var spent = 0
        let few = (1...60).map { 0.05 + Double($0) * 0.01 }
        #expect(StepChanceCurve.fit(spreads: few, threads: 1, spent: &spent) { ($0, $0 * $0) } == nil)
        #expect(spent == 0)
        let many = (1...1_000).map { 0.05 + Double($0) * 0.001 }
        #expect(StepChanceCurve.fit(spreads: many, threads: 1, spent: &spent) { $0 > 0.5 ? (1, 1) : (0, 0) } == nil)
        #expect(spent > 0 && spent <= many.count / 2, "\(spent)")
        spent = 0
        #expect(StepChanceCurve.fit(spreads: [Double](repeating: 0.05, count: 500), threads: 1, spent: &spent) { ($0, $0 * $0) } == nil)
        #expect(spent == 0)
        #expect(StepChanceCurve.fit(spreads: many, threads: 1, spent: &spent) { _ in (.nan, .nan) } == nil)
    }
}
