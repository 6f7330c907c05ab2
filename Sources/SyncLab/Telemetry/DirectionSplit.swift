import SyncLabKernel

/// How a round trip's law is split into an uplink's and a downlink's (docs/telemetry.md, "Up
/// and down").
///
/// A round trip cannot say how it divides between the two directions: t1–t4 confound the split
/// with the offset of the two clocks (RFC 5905 §8), and a round trip alone has no split at all.
/// So the split is a stated rule, in the presets' own form: both directions are lognormal
/// mixtures with the same spreads and the same tail share, and each direction's medians are a
/// fixed share of the round trip's (`uplinkShare`, default 0.55: every preset's medians are
/// split 0.55 : 0.45 up to down, the asymmetry of the LTE recording they were fitted to).
///
/// The lab draws the two directions independently and adds them, so the directions are not the
/// round trip's mixture scaled: a sum of two independent lognormals is narrower than either. Each
/// part is matched by its first two moments (Fenton and Wilkinson 1960, run backwards):
/// - the body: two independent lognormals with medians s·B and (1 − s)·B and spread σ add to a
///   law of mean B·e^{σ²/2} and relative variance (s² + (1 − s)²)(e^{σ²} − 1); equal to the
///   round trip's body (median m, spread σ_rt) when
///   σ² = ln(1 + (e^{σ_rt²} − 1) / (s² + (1 − s)²)) and B = m·e^{(σ_rt² − σ²)/2};
/// - the tail share: a round trip is slow when either direction is, so a share q of slow round
///   trips needs p = 1 − √(1 − q) in each direction;
/// - the tail: a slow round trip is one direction's tail plus the other's body (p(1 − p) each
///   way) or both tails (p²); the tail scale T and spread σ_t are the ones whose mixture of
///   those sums has the round trip's tail mean and second moment (found by bisection, T inside σ_t).
/// The moment matching is not exact (the round trip's two parts are not lognormal, and the EM
/// sees them overlap), so its error at the fitted point is measured and taken off
/// (`Correction`, one step of indirect inference): the split directions' exact round-trip law
/// (`RoundTripLaw`) is binned as the data are, fitted and split again, and what comes back
/// differs from what went in by the method's own error there.
public struct DirectionSplit: Sendable, Equatable {
    public var uplinkShare: Double
    public var uplink: LognormalMixture
    public var downlink: LognormalMixture

    public static let defaultUplinkShare = 0.55

    public init(_ m: RoundTripMixture, uplinkShare s: Double) {
        uplinkShare = s
        let k = s * s + (1 - s) * (1 - s)
        let rtBody = m.bodySigma * m.bodySigma
        let bodyVariance = DeterministicMath.log(1 + (DeterministicMath.exp(rtBody) - 1) / k)
        let sigma = bodyVariance.squareRoot()
        let body = m.bodyMedian * DeterministicMath.exp((rtBody - bodyVariance) / 2)
        guard m.tailShare > 0 else {
            uplink = LognormalMixture(bodyMedian: s * body, bodySigma: sigma, tailShare: 0, tailMedian: s * body, tailSigma: sigma)
            downlink = LognormalMixture(bodyMedian: (1 - s) * body, bodySigma: sigma, tailShare: 0, tailMedian: (1 - s) * body, tailSigma: sigma)
            return
        }
        let p = 1 - (1 - m.tailShare).squareRoot()
        let (scale, tailSigma) = Self.tail(m, share: s, tailShare: p, body: body, bodySigma: sigma)
        uplink = LognormalMixture(bodyMedian: s * body, bodySigma: sigma, tailShare: p, tailMedian: s * scale, tailSigma: tailSigma)
        downlink = LognormalMixture(bodyMedian: (1 - s) * body, bodySigma: sigma, tailShare: p, tailMedian: (1 - s) * scale,
                                    tailSigma: tailSigma)
        guard m.outageShare > 0 else { return }
        // The outage by the tail's rule: an outage round trip is one direction's outage plus the
        // other's body (the outage is seconds, the body tens of milliseconds).
        let po = 1 - (1 - m.outageShare).squareRoot()
        let asTail = RoundTripMixture(bodyMedian: m.bodyMedian, bodySigma: m.bodySigma, tailShare: m.outageShare,
                                      tailMedian: m.outageMedian, tailSigma: m.outageSigma)
        let (outageScale, outageSigma) = Self.tail(asTail, share: s, tailShare: po, body: body, bodySigma: sigma)
        for (k, part) in [s, 1 - s].enumerated() {
            var d = k == 0 ? uplink : downlink
            d.outageShare = po
            d.outageMedian = part * outageScale
            d.outageSigma = outageSigma
            if k == 0 { uplink = d } else { downlink = d }
        }
    }

    /// The tail's scale T and spread whose slow round trips have the mean and second moment of
    /// the round trip's tail part.
    static func tail(_ m: RoundTripMixture, share s: Double, tailShare p: Double, body b: Double, bodySigma: Double)
        -> (scale: Double, sigma: Double) {
        let q = 1 - (1 - p) * (1 - p)
        let v = m.tailSigma * m.tailSigma
        let targetMean = m.tailMedian * DeterministicMath.exp(v / 2)
        let targetSecond = m.tailMedian * m.tailMedian * DeterministicMath.exp(2 * v)
        let bodySq = bodySigma * bodySigma
        let b1 = b * DeterministicMath.exp(bodySq / 2), b2 = b * b * DeterministicMath.exp(2 * bodySq)
        let one = p * (1 - p) / q, both = p * p / q
        func moments(_ t: Double, _ sigma: Double) -> (Double, Double) {
            let t1 = t * DeterministicMath.exp(sigma * sigma / 2), t2 = t * t * DeterministicMath.exp(2 * sigma * sigma)
            // Up slow, down not: s·T·X + (1 − s)·B·Y; down slow: (1 − s)·T·X + s·B·Y; both: s·T·X + (1 − s)·T·X'.
            let upMean = s * t1 + (1 - s) * b1, downMean = (1 - s) * t1 + s * b1
            let upSecond = s * s * t2 + 2 * s * (1 - s) * t1 * b1 + (1 - s) * (1 - s) * b2
            let downSecond = (1 - s) * (1 - s) * t2 + 2 * s * (1 - s) * t1 * b1 + s * s * b2
            let bothMean = t1, bothSecond = (s * s + (1 - s) * (1 - s)) * t2 + 2 * s * (1 - s) * t1 * t1
            return (one * (upMean + downMean) + both * bothMean, one * (upSecond + downSecond) + both * bothSecond)
        }
        // The mean grows with T at a given spread: T by bisection on it.
        func scale(_ sigma: Double) -> Double {
            var lo = 0.0, hi = 10 * targetMean + 10 * b1
            for _ in 0..<200 {
                let mid = (lo + hi) / 2
                if moments(mid, sigma).0 < targetMean { lo = mid } else { hi = mid }
            }
            return (lo + hi) / 2
        }
        // With the mean held, the second moment grows with the spread: the spread by bisection.
        var lo = RoundTripMixture.leastSigma, hi = 3.0
        for _ in 0..<100 {
            let mid = (lo + hi) / 2
            if moments(scale(mid), mid).1 < targetSecond { lo = mid } else { hi = mid }
        }
        let sigma = (lo + hi) / 2
        return (scale(sigma), sigma)
    }

    /// The method's own error at a fitted point, to take off this split and its resamples'
    /// (in log for medians, as differences for spreads and the tail share).
    public struct Correction: Sendable, Equatable {
        public var bodyMedian = 0.0, bodySigma = 0.0, tailShare = 0.0, tailMedian = 0.0, tailSigma = 0.0
        public var outageShare = 0.0, outageMedian = 0.0, outageSigma = 0.0
        public static let none = Correction()

        /// The error of fitting and splitting the exact law of `split`'s directions (floored as
        /// the fitted profile floors them), then refined until the directions' sum has the round
        /// trip's quantiles (`refine`).
        public init(measuredAt split: DirectionSplit, roundTrip m: RoundTripMixture, floor: Double) {
            self.init(oneStep: split, roundTrip: m, floor: floor)
            refine(split, roundTrip: m, floor: floor)
        }

        /// One step of indirect inference in the parameters: the refit's error at `split`.
        init(oneStep split: DirectionSplit, roundTrip m: RoundTripMixture, floor: Double) {
            let s = split.uplinkShare
            let law = RoundTripLaw(uplink: split.uplink, downlink: split.downlink, uplinkFloor: s * floor, downlinkFloor: (1 - s) * floor)
            var bins = [Double](repeating: 0, count: LogBins.count)
            var below = 0.0
            for k in 0..<LogBins.count {
                let edge = law.cdf(DeterministicMath.exp(LogBins.lowest + Double(k + 1) * LogBins.width))
                bins[k] = (edge - below) * 1e6
                below = edge
            }
            guard let again = m.outageShare > 0 ? RoundTripMixture.fitWithOutage(bins, start: m) : RoundTripMixture.fit(bins, start: m)
            else { return }
            let back = DirectionSplit(again, uplinkShare: s)
            let a = split.uplink, b = back.uplink
            bodyMedian = DeterministicMath.log(b.bodyMedian / a.bodyMedian)
            bodySigma = b.bodySigma - a.bodySigma
            tailShare = b.tailShare - a.tailShare
            tailMedian = DeterministicMath.log(b.tailMedian / a.tailMedian)
            tailSigma = b.tailSigma - a.tailSigma
            if a.outageShare > 0 && b.outageShare > 0 {
                outageShare = b.outageShare - a.outageShare
                outageMedian = DeterministicMath.log(b.outageMedian / a.outageMedian)
                outageSigma = b.outageSigma - a.outageSigma
            }
        }

        init() {}

        /// The round trip's probabilities whose quantiles the split's sum is held to: those the
        /// round trip's law was fitted over. The upper half for three parts (that fit censors
        /// the lower half), and the lower half's too for two.
        public static let heldProbabilities = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999]
        public static let heldBelowTheMedian = [0.05, 0.1, 0.2, 0.3, 0.4]
        /// The probabilities held for the round trip's law `m`.
        public static func held(_ m: RoundTripMixture) -> [Double] {
            m.outageShare > 0 ? heldProbabilities : heldBelowTheMedian + heldProbabilities
        }
        /// A split whose sum misses none of them by more than this (in log: 2%, a fifth of the
        /// agreement rule's factor 1.10) is kept as it is.
        public static let quantileTolerance = 0.02
        /// The refinement's most evaluations of the sum's law.
        static let maximumEvaluations = 400

        /// The worst miss, in log, of the corrected split's sum against the round trip's quantiles
        /// at `held(m)`, as the coarse law works it out.
        public private(set) var worstMiss = 0.0

        /// The parameter step cannot see where two parts overlap: with the shoulder at the body's
        /// own median (a fast LTE link) the refit trades one part's share for the other's spread,
        /// and the corrected split's sum can miss the round trip's p90 by 14% while every
        /// parameter comes back. So the correction is refined on what a run uses, the quantiles:
        /// Nelder–Mead (1965) over the correction's figures, on the sum of squared log misses,
        /// from the parameter step, until no quantile misses by more than `quantileTolerance` or
        /// after `maximumEvaluations`. A split that already holds is not touched.
        mutating func refine(_ split: DirectionSplit, roundTrip m: RoundTripMixture, floor: Double) {
            let law = m.law
            let held = Self.held(m)
            let target = held.map { DeterministicMath.log(law.quantile($0)) }
            let s = split.uplinkShare
            let outage = split.uplink.outageShare > 0
            func misses(_ c: Correction) -> [Double] {
                let x = split.corrected(c)
                let sum = RoundTripLaw(uplink: x.uplink, downlink: x.downlink, uplinkFloor: s * floor, downlinkFloor: (1 - s) * floor,
                                       resolution: .coarse)
                return zip(held, target).map { DeterministicMath.log(sum.quantile($0)) - $1 }
            }
            let start = misses(self)
            worstMiss = start.map(abs).max() ?? 0
            guard worstMiss > Self.quantileTolerance, start.allSatisfy(\.isFinite) else { return }
            // The figures searched, and the first simplex's step in each.
            let p = split.uplink.tailShare, po = split.uplink.outageShare
            var steps = [0.05, 0.02, 0.2 * p, 0.1, 0.05]
            if outage { steps += [0.2 * po, 0.1, 0.05] }
            func correction(_ v: [Double]) -> Correction {
                var c = Correction()
                (c.bodyMedian, c.bodySigma, c.tailShare, c.tailMedian, c.tailSigma) = (v[0], v[1], v[2], v[3], v[4])
                if outage { (c.outageShare, c.outageMedian, c.outageSigma) = (v[5], v[6], v[7]) }
                return c
            }
            var base = [bodyMedian, bodySigma, tailShare, tailMedian, tailSigma]
            if outage { base += [outageShare, outageMedian, outageSigma] }
            let best = NelderMead.minimise(from: base, steps: steps, maximumEvaluations: Self.maximumEvaluations) { v -> (Double, Bool) in
                let miss = misses(correction(v))
                let worst = miss.map(abs).max() ?? .infinity
                guard worst.isFinite else { return (.infinity, false) }
                return (miss.reduce(0) { $0 + $1 * $1 }, worst <= Self.quantileTolerance)
            }
            let refined = correction(best)
            let worst = misses(refined).map(abs).max() ?? .infinity
            guard worst < worstMiss else { return }
            self = refined
            worstMiss = worst
        }

        func applied(to m: LognormalMixture) -> LognormalMixture {
            let share = min(max(m.tailShare - tailShare, 0), 0.5)
            guard m.outageShare > 0 else { return twoParts(m, share) }
            var c = twoParts(m, share)
            c.outageShare = min(max(m.outageShare - outageShare, 0), 0.5 - share)
            c.outageMedian = max(m.outageMedian * DeterministicMath.exp(-outageMedian), c.tailMedian)
            c.outageSigma = max(m.outageSigma - outageSigma, RoundTripMixture.leastSigma)
            return c
        }

        /// The body and tail corrected, the tail held at least at the body's median: a scenario's
        /// tail is the slower part (a broad tail centred near the body can come out a little under it).
        private func twoParts(_ m: LognormalMixture, _ share: Double) -> LognormalMixture {
            let body = m.bodyMedian * DeterministicMath.exp(-bodyMedian)
            let bodySpread = max(m.bodySigma - bodySigma, RoundTripMixture.leastSigma)
            return LognormalMixture(bodyMedian: body, bodySigma: bodySpread, tailShare: share,
                                    tailMedian: share > 0 ? max(m.tailMedian * DeterministicMath.exp(-tailMedian), body) : body,
                                    tailSigma: share > 0 ? max(m.tailSigma - tailSigma, RoundTripMixture.leastSigma) : bodySpread)
        }
    }

    /// This split with `correction` taken off both directions.
    public func corrected(_ correction: Correction) -> DirectionSplit {
        var s = self
        s.uplink = correction.applied(to: uplink)
        s.downlink = correction.applied(to: downlink)
        return s
    }
}
