/// The downhill simplex of Nelder and Mead (1965), for a handful of figures and an objective
/// with no gradient to hand (a law worked out numerically). Reflection 1, expansion 2,
/// contraction ½, shrink ½; deterministic: ties keep the earlier vertex.
enum NelderMead {
    /// The point of least `objective` found from `start`, the first simplex `start` and
    /// `start` moved by `steps[i]` in figure i. Stops when the objective says a point is good
    /// enough, after `maximumEvaluations`, or when the simplex's values agree to 10⁻¹⁴.
    static func minimise(from start: [Double], steps: [Double], maximumEvaluations: Int,
                         _ objective: ([Double]) -> (value: Double, goodEnough: Bool)) -> [Double] {
        let n = start.count
        var evaluations = 0
        var done = false
        func f(_ x: [Double]) -> Double {
            evaluations += 1
            let (value, good) = objective(x)
            if good { done = true }
            return value
        }
        var points = [start]
        for i in 0..<n {
            var x = start
            x[i] += steps[i] == 0 ? 1e-3 : steps[i]
            points.append(x)
        }
        var values = points.map(f)
        func combine(_ a: [Double], _ b: [Double], _ t: Double) -> [Double] { zip(a, b).map { $0 + t * ($1 - $0) } }
        while !done && evaluations < maximumEvaluations {
            let order = (0...n).sorted { values[$0] < values[$1] || (values[$0] == values[$1] && $0 < $1) }
            points = order.map { points[$0] }
            values = order.map { values[$0] }
            if values[n] - values[0] <= 1e-14 * max(1, abs(values[0])) { break }
            var centroid = [Double](repeating: 0, count: n)
            for x in points.prefix(n) { for i in 0..<n { centroid[i] += x[i] / Double(n) } }
            let reflected = combine(centroid, points[n], -1)
            let fr = f(reflected)
            if fr < values[0] {
                let expanded = combine(centroid, points[n], -2)
                let fe = f(expanded)
                (points[n], values[n]) = fe < fr ? (expanded, fe) : (reflected, fr)
            } else if fr < values[n - 1] {
                (points[n], values[n]) = (reflected, fr)
            } else {
                let inside = fr < values[n]
                let contracted = combine(centroid, inside ? reflected : points[n], 0.5)
                let fc = f(contracted)
                if fc < min(fr, values[n]) {
                    (points[n], values[n]) = (contracted, fc)
                } else {
                    for k in 1...n {
                        points[k] = combine(points[0], points[k], 0.5)
                        values[k] = f(points[k])
                    }
                }
            }
        }
        let best = values.indices.min { values[$0] < values[$1] || (values[$0] == values[$1] && $0 < $1) }!
        return points[best]
    }
}
