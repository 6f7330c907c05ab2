import SyncLabKernel

/// Whether a link's round trips in the lab look like the round trips an app's telemetry
/// recorded on that link (docs/telemetry.md, "When a run agrees").
///
/// A goodness-of-fit test alone cannot be the rule: at the sizes telemetry brings (10⁵ rows and
/// more) the Kolmogorov–Smirnov test rejects every parametric model, however close, because its
/// critical value 1.63/√n falls below any model's small, harmless misfit. So the rule is an
/// effect size with the sampling noise as its floor:
/// - the KS distance (the largest gap between the two distribution functions) is at most
///   `distanceTolerance` (0.05: no round trip's share-below differs by more than 5 points), or
///   the test's critical value at 1% when the samples are too small to tell 5 points apart;
/// - the lab's p50 and p90 are each within a factor `bodyTolerance` (1.10) of the telemetry's,
///   and its p99 within `tailTolerance` (1.25), each measured from the edge of the telemetry
///   quantile's distribution-free 99% confidence interval (its order statistics), so a few
///   hundred rows are not held to more than they can say.
/// The factors are the accuracy the lab holds its own trace-driven calibration to (docs/links.md):
/// a fitted model of a recorded link meets them on held-out rows, another link's does not.
/// p99.9 is shown, not judged: a two-part mixture does not follow every link that far out.
public enum TelemetryAgreement {
    public static let probabilities = [0.5, 0.9, 0.99, 0.999]
    public static let distanceTolerance = 0.05
    public static let bodyTolerance = 1.10
    public static let tailTolerance = 1.25
    /// The normal quantile of the 99% intervals (two-sided).
    static let z99 = 2.5758293035489004
    /// The KS statistic's 1% point, asymptotically: c(α) = √(−ln(α/2)/2).
    static let ksCoefficient = 1.6276236115189478

    /// The two laws compared, for one link.
    public struct Link: Sendable, Equatable {
        public var link: String
        /// Round trips the telemetry holds for the link, and the lab's (nil when the lab's law is
        /// exact, as a fitted profile's is).
        public var telemetryCount: Int
        public var modelCount: Int?
        /// At `probabilities`, ns.
        public var telemetryQuantiles: [Double]
        public var modelQuantiles: [Double]
        public var distance: Double
        /// The KS test's critical value at 1% for these sizes.
        public var criticalValue: Double
        /// What the distance is held to: the larger of `distanceTolerance` and `criticalValue`.
        public var tolerance: Double { max(TelemetryAgreement.distanceTolerance, criticalValue) }
        /// Which of p50, p90, p99 are within their factor (the 99% interval's edge included).
        public var quantilesAgree: [Bool]
        public var agrees: Bool { distance <= tolerance && quantilesAgree.allSatisfy { $0 } }
    }

    /// Compares the telemetry's round trips (`telemetry`, sorted, ns) with a law given by its
    /// distribution function `cdf` and quantile function `quantile` (ns). `modelCount` is the
    /// size of the sample the law was read from (nil: an exact law).
    public static func compare(link: String, telemetry: [Double], modelCount: Int?,
                               cdf: (Double) -> Double, quantile: (Double) -> Double) -> Link {
        precondition(!telemetry.isEmpty)
        let n = Double(telemetry.count)
        var distance = 0.0
        var i = 0
        while i < telemetry.count {
            // Ties move the empirical function in one step.
            var j = i
            while j + 1 < telemetry.count && telemetry[j + 1] == telemetry[i] { j += 1 }
            let f = cdf(telemetry[i])
            distance = max(distance, abs(f - Double(i) / n), abs(f - Double(j + 1) / n))
            i = j + 1
        }
        let critical: Double
        if let m = modelCount.map(Double.init), m > 0 {
            critical = ksCoefficient * ((n + m) / (n * m)).squareRoot()
        } else {
            critical = ksCoefficient / n.squareRoot()
        }
        let factors = [bodyTolerance, bodyTolerance, tailTolerance]
        var agreeing: [Bool] = []
        for (p, factor) in zip(probabilities, factors) {
            let (low, high) = quantileInterval(telemetry, p)
            let model = quantile(p)
            agreeing.append(model >= low / factor && model <= high * factor)
        }
        return Link(link: link, telemetryCount: telemetry.count, modelCount: modelCount,
                    telemetryQuantiles: probabilities.map { LinkStatistics.quantile(telemetry, $0) },
                    modelQuantiles: probabilities.map(quantile), distance: distance, criticalValue: critical,
                    quantilesAgree: agreeing)
    }

    /// The distribution-free 99% confidence interval of the `p`-quantile of sorted values: the
    /// order statistics at ranks n·p ∓ z·√(n·p·(1−p)) (the binomial count below the quantile, by
    /// its normal approximation), held to the sample's ends.
    public static func quantileInterval(_ sorted: [Double], _ p: Double) -> (Double, Double) {
        let n = Double(sorted.count)
        let centre = n * p, spread = z99 * (n * p * (1 - p)).squareRoot()
        let low = Int((centre - spread).rounded(.down)), high = Int((centre + spread).rounded(.up))
        return (sorted[min(max(low, 1), sorted.count) - 1], sorted[min(max(high, 1), sorted.count) - 1])
    }

    /// Compares telemetry with a histogram of the lab's round trips (ns), as a run records them
    /// (its distribution function to the histogram's bucket, summed once).
    public static func compare(link: String, telemetry: [Double], run: Histogram) -> Link {
        let total = Double(run.count)
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(run.counts.count)
        var sum: UInt64 = 0
        for c in run.counts { sum &+= c; cumulative.append(sum) }
        return compare(link: link, telemetry: telemetry, modelCount: Int(run.count),
                       cdf: { x in
                           guard total > 0, x >= 0 else { return 0 }
                           let i = Histogram.bucketIndex(UInt64(min(x, 0x1p62)), subBits: run.subBits)
                           return Double(cumulative[min(i, cumulative.count - 1)]) / total
                       },
                       quantile: { p in Double(run.quantile(p) ?? 0) })
    }
}
