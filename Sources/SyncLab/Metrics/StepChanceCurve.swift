import SyncLabKernel

/// A step chance read off a curve through a few clock spreads instead of worked out at every
/// one: the shortcut behind the wall clock's step share (`ModelAudit.stepChanceTable`).
///
/// A first correction at true time t finds the wall clock off by O + r·t, normal with spread
/// σ(t) = √(σ_O² + σ_r²t²). When the mean does not move, the chance that it steps depends on t
/// through σ alone, and as a function of log σ it is smooth (each error's chance is the normal
/// law's two tails at (±step − mean − e)/σ). A Monte Carlo of 10,000 errors at every minute
/// boundary of a day takes 1,441 evaluations a link. The curve takes its values at the
/// Chebyshev–Lobatto points of log σ over the boundaries' range and interpolates them
/// (barycentric form), with 17 points, then 33, 65, ... (each set holds the one before). It is
/// kept once the curve through n points and the one through 2n − 1 agree within `agreement` at
/// every spread asked for, in the chance and in its Monte Carlo error. Then the finer one is
/// used, whose own error is far below that difference. A set that would need as many points
/// as there are spreads gives no curve, and the caller works out each one.
///
/// The values differ from the direct ones by less than `agreement` (10⁻¹⁰). The step share's
/// tolerance carries half a phone in its count, so that difference is covered many times
/// over for any number of phones the lab simulates.
struct StepChanceCurve {
    /// At each spread asked for, in order: the chance and its Monte Carlo standard error.
    var values: [(chance: Double, error: Double)]
    /// The points the chance was worked out at.
    var evaluations: Int

    /// The largest difference between two successive curves for the finer to be kept.
    static let agreement = 1e-10
    /// The points of the first curve.
    static let firstPoints = 17

    /// The curve through `chance` (a function of the spread) that gives its value at every one
    /// of `spreads` (all positive), or nil when none is cheaper than working each out.
    static func fit(spreads: [Double], threads: Int?,
                    _ chance: @Sendable (Double) -> (chance: Double, error: Double)) -> StepChanceCurve? {
        guard let low = spreads.min(), let high = spreads.max(), low > 0 else { return nil }
        let at = spreads.map { DeterministicMath.log($0) }
        let a = DeterministicMath.log(low), b = DeterministicMath.log(high)
        guard b > a else { return nil }
        let middle = (a + b) / 2, half = (b - a) / 2
        func node(_ j: Int, of n: Int) -> Double { middle + half * cosPi(j, n - 1) }
        func evaluate(_ indices: [Int], of n: Int) -> [(chance: Double, error: Double)] {
            let points = indices.map { DeterministicMath.exp(node($0, of: n)) }
            return concurrentMap(points.count, threads: threads) { chance(points[$0]) }
        }
        var n = firstPoints
        var coarse = evaluate(Array(0..<n), of: n)
        while true {
            let m = 2 * n - 1
            guard m < spreads.count else { return nil }
            let added = evaluate(Array(stride(from: 1, to: m, by: 2)), of: m)
            var fine = [(chance: Double, error: Double)]()
            fine.reserveCapacity(m)
            for j in 0..<m { fine.append(j % 2 == 0 ? coarse[j / 2] : added[j / 2]) }
            let coarseNodes = (0..<n).map { node($0, of: n) }, fineNodes = (0..<m).map { node($0, of: m) }
            var worst = 0.0
            for u in at {
                let c = interpolate(u, nodes: coarseNodes, values: coarse), f = interpolate(u, nodes: fineNodes, values: fine)
                worst = max(worst, abs(c.chance - f.chance), abs(c.error - f.error))
            }
            if worst <= agreement {
                let values = at.map { u -> (chance: Double, error: Double) in
                    let f = interpolate(u, nodes: fineNodes, values: fine)
                    return (min(1, max(0, f.chance)), max(0, f.error))
                }
                return StepChanceCurve(values: values, evaluations: m)
            }
            n = m
            coarse = fine
        }
    }

    /// The polynomial through `values` at the Chebyshev–Lobatto `nodes`, at u (barycentric
    /// form: weights ±1, halved at the ends).
    static func interpolate(_ u: Double, nodes: [Double], values: [(chance: Double, error: Double)])
        -> (chance: Double, error: Double) {
        var chance = 0.0, error = 0.0, weights = 0.0
        for j in nodes.indices {
            let d = u - nodes[j]
            if d == 0 { return values[j] }
            var w = j % 2 == 0 ? 1.0 : -1.0
            if j == 0 || j == nodes.count - 1 { w /= 2 }
            w /= d
            chance += w * values[j].chance
            error += w * values[j].error
            weights += w
        }
        return (chance / weights, error / weights)
    }

    /// cos(πk/n) for 0 ≤ k ≤ n, by additions and multiplications only (the same bits on every
    /// machine), and the same for equal fractions: a point of one set is the same point in the
    /// next.
    static func cosPi(_ k: Int, _ n: Int) -> Double {
        var (p, q) = (k, n), (x, y) = (k, n)
        while y != 0 { (x, y) = (y, x % y) }
        p /= x
        q /= x
        if 2 * p > q { return -cosPi(q - p, q) }   // cos(π − θ) = −cos θ
        let theta = Double.pi * Double(p) / Double(q), square = theta * theta
        // Taylor's series for θ ≤ π/2: the terms after θ²⁶/26! are below 10⁻²⁰.
        var term = 1.0, sum = 1.0
        for i in stride(from: 2, through: 26, by: 2) {
            term *= -square / Double((i - 1) * i)
            sum += term
        }
        return sum
    }
}
