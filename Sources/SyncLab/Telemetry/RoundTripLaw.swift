import SyncLabKernel

/// The law of a link's round trip in the lab — its uplink delay plus its downlink delay, each
/// held at its floor, drawn independently — worked out numerically, not sampled, so a fitted
/// profile's quantiles and its distance from the telemetry carry no sampling noise of their own.
///
/// P(U + D ≤ r) = E[F_U(r − D)]: the expectation over the downlink is a sum over its quantiles
/// at Φ(z) for z every 0.01 from −8 to 8, weighted by φ(z) (so the tails, where a quantile grid
/// in probability would leave 1/N of the mass to one point, are as finely cut as the body). The
/// distribution function is tabulated on 1,500 round trips spaced evenly in log from the least
/// possible to the downlink's and uplink's 1 − 10⁻¹² quantiles, and read between them linearly in
/// log (the uplink's own, on 8,000); a quantile inverts the table. Laws correlated in time keep this marginal (`AR1Delays`).
public struct RoundTripLaw: Sendable {
    public let uplink: LognormalMixture
    public let downlink: LognormalMixture
    public let uplinkFloor: Double
    public let downlinkFloor: Double
    /// The tabulated round trips (ns, increasing) and their distribution function.
    let points: [Double]
    let cdfs: [Double]

    static let zLimit = 8.0

    /// How finely the law is worked out: the downlink's quadrature step in z, the round trips
    /// tabulated and the uplink's table.
    public struct Resolution: Sendable {
        var zStep: Double, tablePoints: Int, uplinkPoints: Int
        /// The resolution of every figure a report shows.
        public static let full = Resolution(zStep: 0.01, tablePoints: 1_500, uplinkPoints: 8_000)
        /// A twelfth of the sum's work, for a search that evaluates the law hundreds of times
        /// (`DirectionSplit.Correction`); its quantiles are within 0.5% of `full`'s.
        public static let coarse = Resolution(zStep: 0.04, tablePoints: 500, uplinkPoints: 2_000)
    }

    public init(uplink: LognormalMixture, downlink: LognormalMixture, uplinkFloor: Double = 0, downlinkFloor: Double = 0) {
        self.init(uplink: uplink, downlink: downlink, uplinkFloor: uplinkFloor, downlinkFloor: downlinkFloor, resolution: .full)
    }

    public init(uplink: LognormalMixture, downlink: LognormalMixture, uplinkFloor: Double = 0, downlinkFloor: Double = 0,
                resolution: Resolution) {
        self.uplink = uplink
        self.downlink = downlink
        self.uplinkFloor = uplinkFloor
        self.downlinkFloor = downlinkFloor
        // The downlink's quadrature: its delays (floored) and their weights, summing to 1.
        var delays: [Double] = [], weights: [Double] = []
        var z = -Self.zLimit
        while z <= Self.zLimit + 1e-9 {
            // Above the median from the upper side, where a probability near 1 has lost its digits.
            let d = z > 0 ? downlink.upperQuantile(NormalLaw.cdf(-z)) : downlink.quantile(NormalLaw.cdf(z))
            delays.append(max(downlinkFloor, d))
            weights.append(DeterministicMath.exp(-0.5 * z * z))
            z += resolution.zStep
        }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        let least = max(uplinkFloor + downlinkFloor, 1)
        let most = uplink.upperQuantile(1e-12) + downlink.upperQuantile(1e-12) + uplinkFloor + downlinkFloor
        let lo = DeterministicMath.log(least), hi = DeterministicMath.log(max(most, least * 2))
        // The uplink's distribution function, tabulated finely in log and read between points
        // (the sum below reads it 3 million times; exactly, that is 6 million error functions).
        let upLo = DeterministicMath.log(max(uplinkFloor, 1)), upHi = max(hi, upLo + 1e-6)
        let upCount = resolution.uplinkPoints
        let upStep = (upHi - upLo) / Double(upCount - 1)
        let upTable = (0..<upCount).map { uplink.cdf(DeterministicMath.exp(upLo + Double($0) * upStep)) }
        func upCDF(_ x: Double) -> Double {
            guard x >= uplinkFloor, x > 0 else { return 0 }
            let k = (DeterministicMath.log(x) - upLo) / upStep
            guard k > 0 else { return upTable[0] }
            guard k < Double(upCount - 1) else { return upTable[upCount - 1] }
            let i = Int(k), t = k - Double(i)
            return upTable[i] + t * (upTable[i + 1] - upTable[i])
        }
        var points: [Double] = [], cdfs: [Double] = []
        for i in 0..<resolution.tablePoints {
            let r = DeterministicMath.exp(lo + (hi - lo) * Double(i) / Double(resolution.tablePoints - 1))
            var f = 0.0
            for (d, w) in zip(delays, weights) where d < r { f += w * upCDF(r - d) }
            points.append(r)
            cdfs.append(min(max(f, 0), 1))
        }
        // Held non-decreasing against rounding.
        for i in 1..<cdfs.count where cdfs[i] < cdfs[i - 1] { cdfs[i] = cdfs[i - 1] }
        self.points = points
        self.cdfs = cdfs
    }

    /// The law of `link`'s round trip; nil for a link whose delays are not lognormal mixtures or
    /// lognormals (a trace-driven link, a constant).
    public init?(_ link: LinkProfile) {
        func mixture(_ d: Distribution) -> LognormalMixture? {
            switch d {
            case .lognormalMixture(let m): return m
            case .lognormal(let median, let sigma):
                return LognormalMixture(bodyMedian: median, bodySigma: sigma, tailShare: 0, tailMedian: median, tailSigma: sigma)
            default: return nil
            }
        }
        guard link.trace == nil, let up = mixture(link.uplink), let down = mixture(link.downlink) else { return nil }
        self.init(uplink: up, downlink: down, uplinkFloor: Double(link.floor(.uplink)), downlinkFloor: Double(link.floor(.downlink)))
    }

    /// P(round trip ≤ r), r in ns.
    public func cdf(_ r: Double) -> Double {
        guard r >= points[0] else { return r >= uplinkFloor + downlinkFloor && points[0] == r ? cdfs[0] : 0 }
        guard r < points[points.count - 1] else { return 1 }
        // The first point above r, by bisection.
        var lo = 0, hi = points.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if points[mid] <= r { lo = mid } else { hi = mid }
        }
        let a = DeterministicMath.log(points[lo]), b = DeterministicMath.log(points[hi])
        let t = (DeterministicMath.log(r) - a) / (b - a)
        return cdfs[lo] + t * (cdfs[hi] - cdfs[lo])
    }

    /// The round trip at probability p, ns.
    public func quantile(_ p: Double) -> Double {
        guard p > cdfs[0] else { return points[0] }
        guard p < cdfs[cdfs.count - 1] else { return points[points.count - 1] }
        var lo = 0, hi = cdfs.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if cdfs[mid] < p { lo = mid } else { hi = mid }
        }
        let span = cdfs[hi] - cdfs[lo]
        let t = span > 0 ? (p - cdfs[lo]) / span : 0
        let a = DeterministicMath.log(points[lo]), b = DeterministicMath.log(points[hi])
        return DeterministicMath.exp(a + t * (b - a))
    }
}
