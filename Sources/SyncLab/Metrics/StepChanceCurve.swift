import SyncLabKernel

/// A step chance read off a curve through a few clock spreads instead of worked out at every
/// one: the shortcut behind the wall clock's step share (`ModelAudit.stepChanceTable`).
///
/// A first correction at true time t finds the wall clock off by O + r·t, normal with spread
/// σ(t) = √(σ_O² + σ_r²t²). When the mean does not move, the chance that it steps depends on t
/// through σ alone, and as a function of log σ it is smooth (each error's chance is the normal
/// law's two tails at (±step − mean − e)/σ). A Monte Carlo of 10,000 errors at every minute
/// boundary of a day takes 1,441 evaluations a link. The curve takes the Monte Carlo's two
/// averages, of the chance and of its square, at the Chebyshev–Lobatto points of log σ over the
/// boundaries' range and interpolates them (barycentric form), with 17 points, then 33, 65, ...
/// (each set holds the one before). It is kept once the curve through n points and the one
/// through 2n − 1 agree within `agreement` at every spread asked for, in both averages. Then
/// the finer one is used, whose own error is far below that difference: the difference
/// estimates the coarser curve's error. (Not the standard error itself: worked out from the two
/// averages, it carries the rounding of a difference of nearly equal numbers when a link's
/// errors are all alike, which two curves would never agree on within `agreement`; the caller
/// works it out from the averages read off the curve.) A curve that would need more points than
/// half the spreads is not pursued, and the caller works out each one.
///
/// The chances differ from the direct ones by far less than `agreement` (10⁻¹⁰) wherever the
/// estimate holds. The step share's tolerance carries half a phone in its count, so that
/// difference is covered many times over for any number of phones the lab simulates.
struct StepChanceCurve {
    /// At each spread asked for, in order: the averages of the chance and of its square.
    var values: [(mean: Double, squares: Double)]

    /// The largest difference between two successive curves for the finer to be kept.
    static let agreement = 1e-10
    /// The points of the first curve.
    static let firstPoints = 17

    /// The curve through `moments` (a function of the spread) that gives its averages at every
    /// one of `spreads` (all positive), or nil when none is found with at most half as many
    /// points as spreads. `spent` counts the points worked out, whether or not a curve is kept.
    static func fit(spreads: [Double], threads: Int?, spent: inout Int,
                    _ moments: @Sendable (Double) -> (mean: Double, squares: Double)) -> StepChanceCurve? {
        guard 2 * (2 * firstPoints - 1) <= spreads.count,
              let low = spreads.min(), let high = spreads.max(), low > 0 else { return nil }
        let at = spreads.map { DeterministicMath.log($0) }
        let a = DeterministicMath.log(low), b = DeterministicMath.log(high)
        guard b > a else { return nil }
        let middle = (a + b) / 2, half = (b - a) / 2
        func node(_ j: Int, of n: Int) -> Double { middle + half * cosPi(j, n - 1) }
        func evaluate(_ indices: [Int], of n: Int) -> [(mean: Double, squares: Double)] {
            let points = indices.map { DeterministicMath.exp(node($0, of: n)) }
            return concurrentMap(points.count, threads: threads) { moments(points[$0]) }
        }
        var n = firstPoints
        var coarse = evaluate(Array(0..<n), of: n)
        spent += n
        while true {
            let m = 2 * n - 1
            guard 2 * m <= spreads.count else { return nil }
            let added = evaluate(Array(stride(from: 1, to: m, by: 2)), of: m)
            spent += added.count
            var fine = [(mean: Double, squares: Double)]()
            fine.reserveCapacity(m)
            for j in 0..<m { fine.append(j % 2 == 0 ? coarse[j / 2] : added[j / 2]) }
            let coarseNodes = (0..<n).map { node($0, of: n) }, fineNodes = (0..<m).map { node($0, of: m) }
            var worst = 0.0
            for u in at {
                let c = interpolate(u, nodes: coarseNodes, values: coarse), f = interpolate(u, nodes: fineNodes, values: fine)
                // Written so a difference that is not a number (a value that is not) stays in
                // `worst` and no curve is kept.
                for d in [abs(c.mean - f.mean), abs(c.squares - f.squares)] where !(d <= worst) { worst = d }
            }
            if worst <= agreement {
                let values = at.map { u -> (mean: Double, squares: Double) in
                    let f = interpolate(u, nodes: fineNodes, values: fine)
                    return (min(1, max(0, f.mean)), min(1, max(0, f.squares)))
                }
                return StepChanceCurve(values: values)
            }
            n = m
            coarse = fine
        }
    }

    /// The polynomial through `values` at the Chebyshev–Lobatto `nodes`, at u (barycentric
    /// form: weights ±1, halved at the ends).
    static func interpolate(_ u: Double, nodes: [Double], values: [(mean: Double, squares: Double)])
        -> (mean: Double, squares: Double) {
        var mean = 0.0, squares = 0.0, weights = 0.0
        for j in nodes.indices {
            let d = u - nodes[j]
            if d == 0 { return values[j] }
            var w = j % 2 == 0 ? 1.0 : -1.0
            if j == 0 || j == nodes.count - 1 { w /= 2 }
            w /= d
            mean += w * values[j].mean
            squares += w * values[j].squares
            weights += w
        }
        return (mean / weights, squares / weights)
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
