import SyncLabKernel

/// The round trip's law as the fit first sees it: a two-part lognormal mixture (a body and a
/// slower tail), fitted by maximum likelihood to log round trips counted in narrow bins.
///
/// Maximum likelihood by expectation–maximisation (Dempster, Laird and Rubin 1977): each bin's
/// rows are shared between the parts by the chance each part gives them, then each part's
/// median, spread and share are the weighted ones. Every step raises the likelihood. It stops
/// when a step raises the mean log-likelihood per row by less than 10⁻¹⁰ (a relative change of
/// the parameters far below their sampling error at any size telemetry comes in), or after
/// `maximumIterations`.
///
/// Counting in bins 1% wide (`LogBins`) keeps the fit's cost independent of the rows (a week of
/// ten million rows is 2,300 bins) and makes a resample of devices cheap; rounding a log to its
/// bin's centre adds h²/12 = 8·10⁻⁶ to a part's variance (Sheppard), against a body's 0.1.
public struct RoundTripMixture: Sendable, Equatable {
    public var bodyMedian: Double
    public var bodySigma: Double
    /// The share of round trips from the tail (0: a single lognormal).
    public var tailShare: Double
    public var tailMedian: Double
    public var tailSigma: Double
    /// The share of round trips from a third, slowest part, the outage (0: none; `fitWithOutage`).
    public var outageShare = 0.0
    public var outageMedian = 0.0
    public var outageSigma = 0.0
    /// EM steps taken.
    public var iterations = 0

    public init(bodyMedian: Double, bodySigma: Double, tailShare: Double, tailMedian: Double, tailSigma: Double) {
        self.bodyMedian = bodyMedian
        self.bodySigma = bodySigma
        self.tailShare = tailShare
        self.tailMedian = tailMedian
        self.tailSigma = tailSigma
    }

    public static let maximumIterations = 2_000
    /// Each part's spread is held at least one bin's width: finer cannot be told apart.
    public static let leastSigma = LogBins.width
    /// A tail holding less than this share of the rows is dropped (the law is one lognormal).
    public static let leastTailShare = 1e-4

    /// The mixture as the lab's distribution type.
    public var law: LognormalMixture {
        guard outageShare > 0 else {
            return LognormalMixture(bodyMedian: bodyMedian, bodySigma: bodySigma, tailShare: tailShare, tailMedian: tailMedian, tailSigma: tailSigma)
        }
        return LognormalMixture(bodyMedian: bodyMedian, bodySigma: bodySigma, tailShare: tailShare, tailMedian: tailMedian,
                                tailSigma: tailSigma, outageShare: outageShare, outageMedian: outageMedian, outageSigma: outageSigma)
    }

    /// The maximum-likelihood mixture of the round trips counted in `bins` (`LogBins`), from
    /// `start` (a resample starts from the whole sample's fit) or from the data's quantiles.
    public static func fit(_ bins: [Double], start: RoundTripMixture? = nil) -> RoundTripMixture? {
        var occupied: [(y: Double, count: Double)] = []
        var total = 0.0
        for (k, c) in bins.enumerated() where c > 0 {
            occupied.append((LogBins.centre(k), c))
            total += c
        }
        guard total > 0 else { return nil }
        var m = start ?? initial(occupied, total)
        var q = m.tailShare
        var mb = DeterministicMath.log(m.bodyMedian), sb = max(m.bodySigma, leastSigma)
        var mt = DeterministicMath.log(m.tailMedian), st = max(m.tailSigma, leastSigma)
        if q < leastTailShare { q = 0.01; mt = mb + 2 * sb; st = sb }
        var previous = -Double.infinity
        var iteration = 0
        while iteration < maximumIterations {
            iteration += 1
            var logLikelihood = 0.0
            var wb = 0.0, wt = 0.0, sumB = 0.0, sumT = 0.0, sqB = 0.0, sqT = 0.0
            for (y, c) in occupied {
                let zb = (y - mb) / sb, zt = (y - mt) / st
                let pb = (1 - q) / sb * DeterministicMath.exp(-0.5 * zb * zb)
                let pt = q / st * DeterministicMath.exp(-0.5 * zt * zt)
                let both = pb + pt
                guard both > 0 else { continue }   // past 38 σ of both parts: no weight to share
                logLikelihood += c * DeterministicMath.log(both)
                let r = pt / both
                wt += c * r; sumT += c * r * y; sqT += c * r * y * y
                wb += c * (1 - r); sumB += c * (1 - r) * y; sqB += c * (1 - r) * y * y
            }
            let perRow = logLikelihood / total
            if perRow - previous < 1e-10 && iteration > 1 { break }
            previous = perRow
            q = wt / total
            if wb > 0 { mb = sumB / wb; sb = max(((sqB / wb) - mb * mb).squareRoot(), leastSigma) }
            if wt > 0 { mt = sumT / wt; st = max(((sqT / wt) - mt * mt).squareRoot(), leastSigma) }
            if !(sb.isFinite && st.isFinite) { sb = max(sb.isFinite ? sb : leastSigma, leastSigma); st = max(st.isFinite ? st : leastSigma, leastSigma) }
        }
        // The body is the faster part.
        if mt < mb { swap(&mb, &mt); swap(&sb, &st); q = 1 - q }
        if q < leastTailShare { q = 0; mt = mb; st = sb }
        m = RoundTripMixture(bodyMedian: DeterministicMath.exp(mb), bodySigma: sb, tailShare: q,
                             tailMedian: DeterministicMath.exp(mt), tailSigma: st)
        m.iterations = iteration
        return m
    }

    /// A start from the data's quantiles: the body at the median with the spread of the middle
    /// half, a tail of 5% at the 99th percentile.
    static func initial(_ occupied: [(y: Double, count: Double)], _ total: Double) -> RoundTripMixture {
        func quantile(_ p: Double) -> Double {
            var seen = 0.0
            for (y, c) in occupied {
                seen += c
                if seen >= p * total { return y }
            }
            return occupied.last!.y
        }
        let median = quantile(0.5)
        let spread = max((quantile(0.75) - quantile(0.25)) / 1.349 * 0.8, leastSigma)
        return RoundTripMixture(bodyMedian: DeterministicMath.exp(median), bodySigma: spread, tailShare: 0.05,
                                tailMedian: DeterministicMath.exp(max(quantile(0.99), median + spread)), tailSigma: max(spread, 0.5))
    }
}

extension RoundTripMixture {
    /// An outage part holding less than this share of the rows is dropped.
    public static let leastOutageShare = 1e-3
    /// The three-part EM's most steps: with the lower half censored it creeps where parts overlap.
    public static let maximumCensoredIterations = 5_000

    /// The mixture with a third, slowest part (the outage) when the data support one, else the
    /// two-part `fit`.
    ///
    /// Maximum likelihood with the rows below the median censored: the fit counts how many round
    /// trips fall below the lower edge L of the bin that holds the median, not where. Below the
    /// median lie the link's floor and waits of a few milliseconds counted in whole milliseconds,
    /// a shape no lognormal part has; a likelihood over each of those bins spends a part on it
    /// (on the Saturator traces a full-data three-part fit splits the body in two and leaves the
    /// outages to a broad third part, p99 38% short). Censored, the parts are fitted to the shape
    /// of the upper half, where the shoulder and the outages are, and the body's mass below L
    /// still pins its median. EM for a censored mixture: a censored row is shared between the
    /// parts by each part's chance below L, qₖ·Φ((L − μₖ)/σₖ), and brings a part the mean and
    /// second moment of its normal truncated above at L.
    ///
    /// Start: a body of 80% at the median with spread 0.1, a shoulder of 18% at twice the median
    /// with spread 0.6, an outage of 2% at the 99.5th percentile with spread 0.5. Stop: a step
    /// raising the log-likelihood per row by less than 10⁻¹⁰, or `maximumCensoredIterations`.
    /// The outage is kept when its share is at least `leastOutageShare`, its median is above the
    /// shoulder's, and the Bayesian information criterion prefers three parts to two fitted the
    /// same censored way (from the two-part `fit`): twice the log-likelihood gained must exceed
    /// 3·ln n (three more parameters on n rows). Otherwise the plain two-part `fit` is the answer.
    /// A resample (given the whole sample's fit as `start`) keeps the whole sample's choice and
    /// fits from it, so its spread is the parameters' own.
    public static func fitWithOutage(_ bins: [Double], start: RoundTripMixture? = nil) -> RoundTripMixture? {
        let all = occupied(bins)
        let total = all.reduce(0) { $0 + $1.count }
        guard total > 0 else { return nil }
        if let start, start.outageShare <= 0 { return fit(bins, start: start) }
        // The censoring point: the lower edge of the median's bin.
        var seen = 0.0, medianIndex = 0
        for (i, (_, c)) in all.enumerated() {
            seen += c
            if seen >= 0.5 * total { medianIndex = i; break }
        }
        let cut = all[medianIndex].y - LogBins.width / 2
        let upper = Array(all[medianIndex...])
        let censored = all[..<medianIndex].reduce(0) { $0 + $1.count }
        let data = Censored(upper: upper, censored: censored, below: cut, total: total)
        if let start {
            return censoredEM(data, [(start.bodyShare, DeterministicMath.log(start.bodyMedian), start.bodySigma),
                                     (start.tailShare, DeterministicMath.log(start.tailMedian), start.tailSigma),
                                     (start.outageShare, DeterministicMath.log(start.outageMedian), start.outageSigma)]).mixture
        }
        guard let two = fit(bins), two.tailShare > 0 else { return fit(bins) }
        seen = 0
        var far = all.last!.y
        for (y, c) in all {
            seen += c
            if seen >= 0.995 * total { far = y; break }
        }
        let median = all[medianIndex].y, ln2 = DeterministicMath.log(2)
        let three = censoredEM(data, [(0.8, median, 0.1), (0.18, median + ln2, 0.6), (0.02, far, 0.5)])
        let twoCensored = censoredEM(data, [(1 - two.tailShare, DeterministicMath.log(two.bodyMedian), two.bodySigma),
                                            (two.tailShare, DeterministicMath.log(two.tailMedian), two.tailSigma)])
        let m = three.mixture
        guard m.outageShare >= leastOutageShare, m.outageMedian > m.tailMedian,
              2 * (three.logLikelihood - twoCensored.logLikelihood) > 3 * DeterministicMath.log(total) else { return two }
        return m
    }

    /// The body's share, 1 − tail − outage.
    public var bodyShare: Double { 1 - tailShare - outageShare }

    static func occupied(_ bins: [Double]) -> [(y: Double, count: Double)] {
        var occupied: [(y: Double, count: Double)] = []
        for (k, c) in bins.enumerated() where c > 0 { occupied.append((LogBins.centre(k), c)) }
        return occupied
    }

    /// Binned log round trips at or above `below`, and the number of rows under it.
    struct Censored {
        var upper: [(y: Double, count: Double)]
        var censored: Double
        var below: Double
        var total: Double
    }

    /// EM for a mixture of two or three normal parts in log round trip, the rows under
    /// `data.below` censored, from `parts` (share, log median, spread); on the way out the
    /// slowest of three parts is the outage and the narrower of the others the body. The log-likelihood leaves out the terms that
    /// do not depend on the parameters (the bins' width, √(2π)).
    static func censoredEM(_ data: Censored, _ parts: [(share: Double, mu: Double, sigma: Double)])
        -> (mixture: RoundTripMixture, logLikelihood: Double) {
        let k = parts.count
        var q = parts.map(\.share), mu = parts.map(\.mu), sd = parts.map { max($0.sigma, leastSigma) }
        let sqrtTwoPi = 2.506_628_274_631_000_5
        var previous = -Double.infinity, logLikelihood = -Double.infinity
        var iteration = 0
        while iteration < maximumCensoredIterations {
            iteration += 1
            var w = [Double](repeating: 0, count: k), sum = w, sq = w
            var ll = 0.0
            var p = [Double](repeating: 0, count: k)
            for (y, c) in data.upper {
                var all = 0.0
                for j in 0..<k {
                    let z = (y - mu[j]) / sd[j]
                    p[j] = q[j] / sd[j] * DeterministicMath.exp(-0.5 * z * z)
                    all += p[j]
                }
                guard all > 0 else { continue }
                ll += c * DeterministicMath.log(all)
                for j in 0..<k {
                    let r = c * p[j] / all
                    w[j] += r; sum[j] += r * y; sq[j] += r * y * y
                }
            }
            if data.censored > 0 {
                // Each part's chance below the cut, and its truncated normal's moments there.
                var all = 0.0
                var below = [Double](repeating: 0, count: k), m1 = below, m2 = below
                for j in 0..<k {
                    let b = (data.below - mu[j]) / sd[j]
                    let mass = NormalLaw.cdf(b)
                    below[j] = q[j] * mass
                    all += below[j]
                    let ratio = mass > 0 ? DeterministicMath.exp(-0.5 * b * b) / sqrtTwoPi / mass : -b
                    m1[j] = mu[j] - sd[j] * ratio
                    m2[j] = sd[j] * sd[j] * max(0, 1 - b * ratio - ratio * ratio) + m1[j] * m1[j]
                }
                if all > 0 {
                    ll += data.censored * DeterministicMath.log(all)
                    for j in 0..<k {
                        let r = data.censored * below[j] / all
                        w[j] += r; sum[j] += r * m1[j]; sq[j] += r * m2[j]
                    }
                }
            }
            logLikelihood = ll
            if ll / data.total - previous < 1e-10 && iteration > 1 { break }
            previous = ll / data.total
            for j in 0..<k {
                q[j] = w[j] / data.total
                guard w[j] > 0 else { continue }
                mu[j] = sum[j] / w[j]
                let v = sq[j] / w[j] - mu[j] * mu[j]
                sd[j] = v > 0 && v.isFinite ? max(v.squareRoot(), leastSigma) : leastSigma
            }
        }
        // The outage is the slowest part; of the others the body is the narrower (a broad part can
        // sit at the body's own median once the lower half is censored: it is the shoulder).
        var order = (0..<k).sorted { mu[$0] < mu[$1] || (mu[$0] == mu[$1] && $0 < $1) }
        if k > 2 && sd[order[1]] < sd[order[0]] { order.swapAt(0, 1) }
        let b = order[0], t = order[min(1, k - 1)]
        var m = RoundTripMixture(bodyMedian: DeterministicMath.exp(mu[b]), bodySigma: sd[b], tailShare: k > 1 ? q[t] : 0,
                                 tailMedian: DeterministicMath.exp(mu[t]), tailSigma: sd[t])
        if k > 2 {
            let o = order[2]
            m.outageShare = q[o]
            m.outageMedian = DeterministicMath.exp(mu[o])
            m.outageSigma = sd[o]
        }
        m.iterations = iteration
        return (m, logLikelihood)
    }
}

/// Bins of log round trip (ns), 1% wide, from 1 µs to 10⁴ s.
public enum LogBins {
    public static let width = 0.01
    public static let lowest = 6.907755278982137   // ln 1,000
    public static let count = 2_303                // to ln 10¹³
    /// The bin of a round trip of `ns` (held to the first and last bins).
    @inline(__always)
    public static func bin(_ ns: Double) -> Int {
        let k = (DeterministicMath.log(max(ns, 1)) - lowest) / width
        return Int(max(0, min(Double(count - 1), k.rounded(.down))))
    }
    public static func centre(_ k: Int) -> Double { lowest + (Double(k) + 0.5) * width }
}
