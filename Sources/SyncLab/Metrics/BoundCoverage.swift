import SyncLabKernel

/// How often the truth lies inside the ± bound the client's estimator claims (honest
/// uncertainty): at every error sample of a player with a sync, whether |estimate error| ≤ the
/// bound at that instant, overall and per link profile, and the distribution of the bound itself.
public struct BoundCoverage: Sendable, Equatable {
    public var samples: UInt64 = 0
    public var inside: UInt64 = 0
    /// Per link profile, in scenario order.
    public var samplesByLink: [UInt64]
    public var insideByLink: [UInt64]
    /// The claimed ± bound, ns (6% quantile precision is plenty for a width).
    public var width = Histogram(subBits: BoundCoverage.widthLayout)
    static let widthLayout = 7

    public init(links: Int) {
        samplesByLink = [UInt64](repeating: 0, count: links)
        insideByLink = samplesByLink
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
        for i in samplesByLink.indices {
            samplesByLink[i] += o.samplesByLink[i]
            insideByLink[i] += o.insideByLink[i]
        }
        width.merge(o.width)
    }

    /// Share of samples inside the bound (nil: none).
    public var share: Double? { samples == 0 ? nil : Double(inside) / Double(samples) }
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
    /// Per link: samples, then samples inside the bound.
    private let counts: UnsafeMutablePointer<UInt64>
    private let width = HistogramBank(slots: 1, subBits: BoundCoverage.widthLayout)

    init(links: Int) {
        self.links = links
        counts = .allocate(capacity: 2 * max(links, 1))
        counts.initialize(repeating: 0, count: 2 * max(links, 1))
    }

    deinit { counts.deallocate() }

    /// An independent bank with the same contents.
    func copy() -> BoundBank {
        let other = BoundBank(links: links)
        other.merge(self)
        return other
    }

    @inline(__always) func record(inside: Bool, bound: Nanoseconds, link: Int) {
        counts[2 &* link] &+= 1
        if inside { counts[2 &* link &+ 1] &+= 1 }
        width.record(0, bound, layout: BoundCoverage.widthLayout)
    }

    func merge(_ o: BoundBank) {
        for i in 0..<(2 * links) { counts[i] &+= o.counts[i] }
        width.merge(o.width)
    }

    var coverage: BoundCoverage {
        var c = BoundCoverage(links: links)
        for link in 0..<links {
            c.samplesByLink[link] = counts[2 * link]
            c.insideByLink[link] = counts[2 * link + 1]
        }
        c.samples = c.samplesByLink.reduce(0, +)
        c.inside = c.insideByLink.reduce(0, +)
        c.width = width.histogram(0)
        return c
    }
}

extension MetricsRecorder {
    @inline(__always)
    mutating func boundSample(inside: Bool, bound: Nanoseconds, link: Int) {
        bounds.record(inside: inside, bound: bound, link: link)
    }
}

extension RunResult {
    /// Figure keys of the bound coverage (budgets may name them).
    static func boundFigureKeys(for scenario: Scenario) -> [String] {
        ["boundCoverageShare", "boundMs.p50", "boundMs.p99"]
            + scenario.links.map { "boundCoverageShare.byLink.\($0.name)" }
    }

    func addBoundFigures(_ f: inout [String: Double?]) {
        f["boundCoverageShare"] = bounds.share
        f["boundMs.p50"] = bounds.width.quantile(0.5).map(RunResult.ms)
        f["boundMs.p99"] = bounds.width.quantile(0.99).map(RunResult.ms)
        for (i, link) in scenario.links.enumerated() {
            f["boundCoverageShare.byLink.\(link.name)"] = bounds.share(link: i)
        }
    }
}
