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
        LognormalMixture(bodyMedian: bodyMedian, bodySigma: bodySigma, tailShare: tailShare, tailMedian: tailMedian, tailSigma: tailSigma)
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
