import SyncLabKernel

/// How often the truth lies inside the ± bound the client's estimator claims (honest
/// uncertainty): at every error sample of a player with a sync, whether |estimate error| ≤ the
/// bound at that instant, overall and per link profile, and the distribution of the bound itself.
///
/// A sample whose estimate claims no bound (`SyncBound.unbounded`) is counted apart, in
/// `unbounded`: it is neither inside nor outside, and a budget on these figures fails when
/// there is one (`RunResult.budgetVerdicts`).
public struct BoundCoverage: Sendable, Equatable {
    /// Samples with a bound, and those of them inside it.
    public var samples: UInt64 = 0
    public var inside: UInt64 = 0
    /// Samples whose estimate claimed no bound.
    public var unbounded: UInt64 = 0
    /// Per link profile, in scenario order.
    public var samplesByLink: [UInt64]
    public var insideByLink: [UInt64]
    public var unboundedByLink: [UInt64]
    /// The claimed ± bound, ns (6% quantile precision is plenty for a width).
    public var width = Histogram(subBits: BoundCoverage.widthLayout)
    static let widthLayout = 7

    public init(links: Int) {
        samplesByLink = [UInt64](repeating: 0, count: links)
        insideByLink = samplesByLink
        unboundedByLink = samplesByLink
    }

    /// Records one sample with the bound at that instant and the estimate's error then.
    public mutating func record(_ bound: SyncBound, estimateError: Int64, link: Int) {
        guard let width = bound.nanoseconds else {
            unbounded += 1
            unboundedByLink[link] += 1
            return
        }
        record(inside: bound.contains(estimateError), bound: width, link: link)
    }

    public mutating func record(inside isInside: Bool, bound: Nanoseconds, link: Int) {
        samples += 1
        samplesByLink[link] += 1
        width.record(bound)
        if isInside {
            inside += 1
            insideByLink[link] += 1
        }
    }

    public mutating func merge(_ o: BoundCoverage) {
        samples += o.samples
        inside += o.inside
        unbounded += o.unbounded
        for i in samplesByLink.indices {
            samplesByLink[i] += o.samplesByLink[i]
            insideByLink[i] += o.insideByLink[i]
            unboundedByLink[i] += o.unboundedByLink[i]
        }
        width.merge(o.width)
    }

    /// Share of the samples with a bound that lie inside it (nil: none had one).
    public var share: Double? { samples == 0 ? nil : Double(inside) / Double(samples) }
    /// Share of all samples whose estimate claimed no bound (nil: no samples).
    public var unboundedShare: Double? {
        samples + unbounded == 0 ? nil : Double(unbounded) / Double(samples + unbounded)
    }
    public func share(link: Int) -> Double? {
        samplesByLink[link] == 0 ? nil : Double(insideByLink[link]) / Double(samplesByLink[link])
    }
}

/// `BoundCoverage` as the recorder accumulates it, one per sample: counts in a block and the
/// width in a histogram bank, so a record pays no copy-on-write or bounds checks. A reference
/// type like `ErrorBank`: the recorder
/// that owns it is its only writer. `coverage` gives the same value record-by-record would.
final class BoundBank: @unchecked Sendable {
    let links: Int
    /// Per link: samples with a bound, those inside it, samples without a bound.
    private let counts: UnsafeMutablePointer<UInt64>
    private let width = HistogramBank(slots: 1, subBits: BoundCoverage.widthLayout)

    init(links: Int) {
        self.links = links
        counts = .allocate(capacity: 3 * max(links, 1))
        counts.initialize(repeating: 0, count: 3 * max(links, 1))
    }

    deinit { counts.deallocate() }

    /// An independent bank with the same contents.
    func copy() -> BoundBank {
        let other = BoundBank(links: links)
        other.merge(self)
        return other
    }

    @inline(__always) func record(_ bound: SyncBound, estimateError: Int64, link: Int) {
        guard let width = bound.nanoseconds else {
            counts[3 &* link &+ 2] &+= 1
            return
        }
        counts[3 &* link] &+= 1
        if bound.contains(estimateError) { counts[3 &* link &+ 1] &+= 1 }
        self.width.record(0, width, layout: BoundCoverage.widthLayout)
    }

    func merge(_ o: BoundBank) {
        for i in 0..<(3 * links) { counts[i] &+= o.counts[i] }
        width.merge(o.width)
    }

    var coverage: BoundCoverage {
        var c = BoundCoverage(links: links)
        for link in 0..<links {
            c.samplesByLink[link] = counts[3 * link]
            c.insideByLink[link] = counts[3 * link + 1]
            c.unboundedByLink[link] = counts[3 * link + 2]
        }
        c.samples = c.samplesByLink.reduce(0, +)
        c.inside = c.insideByLink.reduce(0, +)
        c.unbounded = c.unboundedByLink.reduce(0, +)
        c.width = width.histogram(0)
        return c
    }
}

extension MetricsRecorder {
    @inline(__always)
    mutating func boundSample(_ bound: SyncBound, estimateError: Int64, link: Int) {
        bounds.record(bound, estimateError: estimateError, link: link)
    }
}

extension RunResult {
    /// Why a budget on bound figure `metric` cannot pass, or nil: the estimator claimed no bound
    /// at some samples, so coverage is not the share of all samples it would claim to be.
    func unboundedReason(_ metric: String) -> String? {
        let boundFigures = [Figure.boundCoverageShare, Figure.boundCoverageShareByLink, Figure.boundMsP50, Figure.boundMsP99]
        guard bounds.unbounded > 0, boundFigures.contains(where: { $0.matches(metric) }) else { return nil }
        let estimator = "the estimator `\(scenario.client.estimator.name)`"
        guard bounds.samples > 0 else {
            return "\(estimator) claims no ± bound, so its bound coverage cannot be measured and the budget fails"
        }
        return "\(estimator) claimed no ± bound at \(bounds.unbounded) of \(bounds.unbounded + bounds.samples) samples, "
            + "so its bound coverage is not that of every sample and the budget fails"
    }

    func addBoundFigures(_ f: inout [String: Double?]) {
        f[Figure.boundCoverageShare.key] = bounds.share
        f[Figure.boundMsP50.key] = bounds.width.quantile(0.5).map(RunResult.ms)
        f[Figure.boundMsP99.key] = bounds.width.quantile(0.99).map(RunResult.ms)
        for (i, link) in scenario.links.enumerated() {
            f[Figure.boundCoverageShareByLink.key(for: link.name)] = bounds.share(link: i)
        }
    }
}
