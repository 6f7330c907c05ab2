import SyncLabKernel

/// The time constant τ of the AR(1) on log-delay (`AR1Delays`), from one device's consecutive
/// exchanges on a link.
///
/// Each answered round trip is given its normal score, Φ⁻¹ of its rank among the link's round
/// trips (van der Waerden): under the lab's model, a Gaussian copula, the correlation of two
/// scores is the correlation of the process behind them, exp(−Δt/τ) for exchanges Δt apart,
/// whatever the law of the round trip. A round trip is two such processes added, though (the
/// uplink's and the downlink's, each correlated at a = exp(−Δt/τ)), and the scores of a sum
/// correlate a little less than its parts: `Attenuation` works out, for the fitted directions,
/// the round trip's score correlation f(a) for each a (by drawing 20,000 pairs through the
/// directions' quantiles at a grid of a; about 0.96·a on the presets). Pairs are grouped by
/// their gap in ranges from 50 ms to 10 min (`edges`); τ is the one whose f(exp(−Δ̄/τ)) is
/// nearest the ranges' correlations in least squares weighted by their pairs, searched over
/// 0.1 s to 30 days in log steps and refined by golden section. The data cannot tell a time
/// constant when no range with at least `leastPairs` pairs shows a correlation four standard
/// errors (4/√n) above zero (with ten ranges, a chance of 3·10⁻⁴ that an independent link is
/// called correlated): the link is then "independent".
public enum TimeCorrelation {
    /// The gap ranges' edges, s.
    public static let edges: [Double] = [0.05, 0.2, 0.5, 1, 2, 5, 10, 20, 60, 180, 600]
    public static let leastPairs = 30.0
    static let leastTau = Double(AR1Delays.minimumTimeConstant) / 1e9, mostTau = 30 * 86_400.0

    /// The range of a gap (s), or nil outside them.
    public static func gapBin(_ seconds: Double) -> Int? {
        guard seconds >= edges[0], seconds < edges[edges.count - 1] else { return nil }
        var k = 0
        while seconds >= edges[k + 1] { k += 1 }
        return k
    }

    /// Running sums of paired scores (weighted, for resamples of devices).
    public struct Sums: Sendable, Equatable {
        public var n = 0.0, a = 0.0, b = 0.0, aa = 0.0, bb = 0.0, ab = 0.0
        public init() {}
        mutating func add(_ x: Double, _ y: Double, weight w: Double) {
            n += w; a += w * x; b += w * y; aa += w * x * x; bb += w * y * y; ab += w * x * y
        }
        /// Pearson's correlation of the scores; nan with fewer than `leastPairs` pairs.
        public var correlation: Double {
            guard n >= TimeCorrelation.leastPairs else { return .nan }
            let cov = ab / n - (a / n) * (b / n)
            let va = aa / n - (a / n) * (a / n), vb = bb / n - (b / n) * (b / n)
            return va > 0 && vb > 0 ? cov / (va * vb).squareRoot() : .nan
        }
    }

    /// Each bin's normal score: Φ⁻¹ of its rows' mid-rank share, (below + half its own) / all.
    static func normalScores(_ bins: [Double]) -> [Double] {
        let total = bins.reduce(0, +)
        var scores = [Double](repeating: 0, count: bins.count)
        guard total > 0 else { return scores }
        var below = 0.0
        for (k, c) in bins.enumerated() {
            if c > 0 { scores[k] = inverseNormal((below + c / 2) / total) }
            below += c
        }
        return scores
    }

    /// Φ⁻¹(p) by bisection on the lab's Φ (60 halvings: far below a score's sampling error).
    static func inverseNormal(_ p: Double) -> Double {
        var lo = -9.0, hi = 9.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if NormalLaw.cdf(mid) < p { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    /// Each gap range's correlation with its mean gap and pairs, or nil when no range shows a
    /// correlation four standard errors (4/√n) above zero: the data cannot tell one.
    static func correlatedPoints(_ sums: [Sums], gaps: [Double]) -> [(gap: Double, rho: Double, n: Double)]? {
        var points: [(gap: Double, rho: Double, n: Double)] = []
        var shows = false
        for (s, g) in zip(sums, gaps) {
            let rho = s.correlation
            guard rho.isFinite, g.isFinite else { continue }
            points.append((g, rho, s.n))
            if rho > 4 / s.n.squareRoot() { shows = true }
        }
        return shows ? points : nil
    }

    /// The fitted τ (ns), or nil when the data cannot tell one (see the type's note).
    static func timeConstant(_ sums: [Sums], gaps: [Double], attenuation f: Attenuation) -> Nanoseconds? {
        guard let points = correlatedPoints(sums, gaps: gaps) else { return nil }
        func loss(_ logTau: Double) -> Double {
            let tau = DeterministicMath.exp(logTau)
            return points.reduce(0) { sum, p in
                let e = p.rho - f(DeterministicMath.exp(-p.gap / tau))
                return sum + p.n * e * e
            }
        }
        let lo = DeterministicMath.log(leastTau), hi = DeterministicMath.log(mostTau)
        let steps = 240
        var best = lo, bestLoss = Double.infinity
        for i in 0...steps {
            let x = lo + (hi - lo) * Double(i) / Double(steps)
            let l = loss(x)
            if l < bestLoss { bestLoss = l; best = x }
        }
        // Golden section inside the scan's neighbouring steps.
        let h = (hi - lo) / Double(steps)
        var a = max(lo, best - h), b = min(hi, best + h)
        let g = 0.6180339887498949
        var c = b - g * (b - a), d = a + g * (b - a)
        for _ in 0..<60 {
            if loss(c) < loss(d) { b = d } else { a = c }
            c = b - g * (b - a); d = a + g * (b - a)
        }
        return Nanoseconds((DeterministicMath.exp((a + b) / 2) * 1e3).rounded()) * .millisecond
    }

    /// The time constant τ (ns) and correlated share w of an AR(1) with a nugget
    /// (`NuggetAR1Delays`: each direction's latent normals Δt apart correlate at w·exp(−Δt/τ)),
    /// or nil when the data cannot tell a correlation (the rule of `timeConstant`).
    ///
    /// Least squares over the gap ranges, weighted by their pairs, of the data's correlation
    /// against f(w·exp(−Δ̄/τ)): for each τ the best w in [0, 1] by golden section (the loss is
    /// smooth in w), τ scanned over 0.1 s to 30 days in log steps and refined by golden section
    /// around the scan's best. Two parameters need at least two ranges with pairs; with one,
    /// w = 1 and τ alone is fitted.
    static func nuggetFit(_ sums: [Sums], gaps: [Double], attenuation f: Attenuation) -> (tau: Nanoseconds, weight: Double)? {
        guard let points = correlatedPoints(sums, gaps: gaps) else { return nil }
        func loss(_ logTau: Double, _ w: Double) -> Double {
            let tau = DeterministicMath.exp(logTau)
            return points.reduce(0) { sum, p in
                let e = p.rho - f(w * DeterministicMath.exp(-p.gap / tau))
                return sum + p.n * e * e
            }
        }
        let g = 0.6180339887498949
        func golden(_ lo: Double, _ hi: Double, _ l: (Double) -> Double) -> Double {
            var a = lo, b = hi
            var c = b - g * (b - a), d = a + g * (b - a)
            for _ in 0..<50 {
                if l(c) < l(d) { b = d } else { a = c }
                c = b - g * (b - a); d = a + g * (b - a)
            }
            return (a + b) / 2
        }
        func bestWeight(_ logTau: Double) -> Double { points.count < 2 ? 1 : golden(0, 1) { loss(logTau, $0) } }
        let lo = DeterministicMath.log(leastTau), hi = DeterministicMath.log(mostTau)
        let steps = 240
        var best = lo, bestLoss = Double.infinity
        for i in 0...steps {
            let x = lo + (hi - lo) * Double(i) / Double(steps)
            let l = loss(x, bestWeight(x))
            if l < bestLoss { bestLoss = l; best = x }
        }
        let h = (hi - lo) / Double(steps)
        let logTau = golden(max(lo, best - h), min(hi, best + h)) { loss($0, bestWeight($0)) }
        let w = bestWeight(logTau)
        return (Nanoseconds((DeterministicMath.exp(logTau) * 1e3).rounded()) * .millisecond, (w * 1e4).rounded() / 1e4)
    }

    /// The lag table: each range's pairs, mean gap, the data's correlation and the fitted one
    /// (f(w·exp(−gap/τ)), w = 1 for the AR(1)).
    static func rows(_ sums: [Sums], gaps: [Double], tau: Nanoseconds?, weight: Double = 1, attenuation f: Attenuation) -> [TelemetryFit.LagRow] {
        sums.indices.map { k in
            let fitted = tau.map { f(weight * DeterministicMath.exp(-gaps[k] * 1e9 / Double($0))) } ?? 0
            return TelemetryFit.LagRow(from: edges[k], to: edges[k + 1], pairs: Int(sums[k].n), meanGap: gaps[k],
                                       data: sums[k].correlation, fitted: gaps[k].isFinite ? fitted : .nan)
        }
    }

    /// The correlation of round-trip scores f(a) when each direction's process correlates at a.
    public struct Attenuation: Sendable {
        static let grid: [Double] = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1]
        static let pairs = 20_000
        let values: [Double]

        /// No attenuation: f(a) = a (a round trip that is one process).
        public static let none = Attenuation(values: grid)

        /// Normal scores of the ranks 0..<2n, worked out once.
        static let rankScores = (0..<2 * pairs).map { TimeCorrelation.inverseNormal((Double($0) + 0.5) / Double(2 * pairs)) }

        init(values: [Double]) { self.values = values }

        /// f for the directions `split` gives, drawn with common random numbers at every a.
        public init(_ split: DirectionSplit) {
            let up = MixtureQuantileTable(split.uplink), down = MixtureQuantileTable(split.downlink)
            let n = Self.pairs
            var rng = RandomStream(seed: 1, purpose: StreamPurpose("telemetry-fit-attenuation"))
            let normal = Distribution.normal(mean: 0, sd: 1)
            let draws = (0..<n).map { _ in (normal.sample(&rng), normal.sample(&rng), normal.sample(&rng), normal.sample(&rng)) }
            let scores = Self.rankScores
            var values: [Double] = []
            for a in Self.grid {
                let b = (1 - a * a).squareRoot()
                var trips: [(Double, Int)] = []
                trips.reserveCapacity(2 * n)
                for (i, (x1, y1, e1, e2)) in draws.enumerated() {
                    trips.append((up.quantile(at: x1) + down.quantile(at: y1), 2 * i))
                    trips.append((up.quantile(at: a * x1 + b * e1) + down.quantile(at: a * y1 + b * e2), 2 * i + 1))
                }
                trips.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
                var score = [Double](repeating: 0, count: 2 * n)
                for (rank, t) in trips.enumerated() { score[t.1] = scores[rank] }
                var sums = Sums()
                for i in 0..<n { sums.add(score[2 * i], score[2 * i + 1], weight: 1) }
                values.append(a == 0 ? 0 : a == 1 ? 1 : sums.correlation)
            }
            self.values = values
        }

        public func callAsFunction(_ a: Double) -> Double {
            let g = Self.grid
            guard a > 0 else { return 0 }
            guard a < 1 else { return 1 }
            var k = 0
            while g[k + 1] < a { k += 1 }
            let t = (a - g[k]) / (g[k + 1] - g[k])
            return values[k] + t * (values[k + 1] - values[k])
        }
    }
}
