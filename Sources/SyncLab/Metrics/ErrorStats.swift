import SyncLabKernel

/// Distribution of a client's time error: the magnitude in a histogram, plus exact signed
/// figures (whether players run ahead or behind matters as much as by how much).
public struct ErrorStats: Sendable, Equatable {
    public private(set) var magnitude: Histogram
    /// Sum of signed errors in microseconds (an integer, so the sum is order-independent).
    public private(set) var signedSumMicros: Int64 = 0
    public private(set) var ahead: UInt64 = 0

    /// `subBits` sets the quantile precision: 10 gives 0.2%, 5 gives 6% in 8 KB (for series).
    public init(subBits: Int = 10) { magnitude = Histogram(subBits: subBits) }

    init(magnitude: Histogram, signedSumMicros: Int64, ahead: UInt64) {
        self.magnitude = magnitude
        self.signedSumMicros = signedSumMicros
        self.ahead = ahead
    }

    public var count: UInt64 { magnitude.count }

    public mutating func record(_ error: Nanoseconds) {
        magnitude.record(error < 0 ? -error : error)
        signedSumMicros &+= error / 1_000
        if error > 0 { ahead += 1 }
    }

    public mutating func merge(_ other: ErrorStats) {
        magnitude.merge(other.magnitude)
        signedSumMicros &+= other.signedSumMicros
        ahead &+= other.ahead
    }

    /// |error| at quantile q, in nanoseconds.
    public func quantile(_ q: Double) -> Int64? { magnitude.quantile(q) }
    /// Mean signed error in nanoseconds: positive means players run ahead of the server.
    public var meanSigned: Double? {
        count == 0 ? nil : Double(signedSumMicros) * 1_000 / Double(count)
    }
    /// Share of samples ahead of the server.
    public var aheadShare: Double? { count == 0 ? nil : Double(ahead) / Double(count) }
    /// Share of samples with |error| ≤ limit.
    public func shareWithin(_ limit: Nanoseconds) -> Double? {
        count == 0 ? nil : Double(magnitude.countAtOrBelow(limit)) / Double(count)
    }
}

/// Many `ErrorStats` in one accumulator, for the recorder's hot path (see `HistogramBank`): the
/// magnitudes in a histogram bank, the signed sums (µs) and ahead counts in a second bank-like
/// block. A reference type: the recorder that owns it is its only writer.
final class ErrorBank: @unchecked Sendable {
    let magnitudes: HistogramBank
    let signed: UnsafeMutablePointer<Int64>   // per slot: signed sum in µs, ahead count
    let slots: Int

    init(slots: Int, subBits: Int = 10) {
        self.slots = slots
        magnitudes = HistogramBank(slots: slots, subBits: subBits)
        signed = .allocate(capacity: 2 * max(slots, 1))
        signed.initialize(repeating: 0, count: 2 * max(slots, 1))
    }

    deinit { signed.deallocate() }

    /// An independent bank with the same contents.
    func copy() -> ErrorBank {
        let other = ErrorBank(slots: slots, subBits: magnitudes.subBits)
        other.magnitudes.merge(magnitudes)
        other.signed.update(from: signed, count: 2 * max(slots, 1))
        return other
    }

    /// Without a branch on the sign (half the errors are ahead, half behind: a branch on it is
    /// a coin toss for the predictor).
    @inline(__always) func record(_ slot: Int, _ error: Nanoseconds) {
        record(slot, error, layout: magnitudes.subBits)
    }

    /// The same with the bank's layout known to the caller (`HistogramBank.record(_:_:layout:)`).
    @inline(__always) func record(_ slot: Int, _ error: Nanoseconds, layout: Int) {
        let sign = error &>> 63   // 0 or −1: |error| = (error ^ sign) − sign
        magnitudes.record(slot, (error ^ sign) &- sign, layout: layout)
        signed[2 &* slot] &+= error / 1_000
        signed[2 &* slot &+ 1] &+= (0 &- error) &>> 63 & 1   // error > 0 (errors are never Int64.min)
    }

    func merge(_ other: ErrorBank) {
        magnitudes.merge(other.magnitudes)
        for i in 0..<(2 * slots) { signed[i] &+= other.signed[i] }
    }

    func stats(_ slot: Int) -> ErrorStats {
        ErrorStats(magnitude: magnitudes.histogram(slot), signedSumMicros: signed[2 * slot],
                   ahead: UInt64(signed[2 * slot + 1]))
    }

    /// The slots `range` merged into one (exact: counts, extremes and sums add).
    func stats(merging range: Range<Int>) -> ErrorStats {
        var merged = ErrorStats(subBits: magnitudes.subBits)
        for slot in range { merged.merge(stats(slot)) }
        return merged
    }
}

/// How one item change's show instants spread across the players who showed it.
///
/// The worst pair (`gap`, latest − earliest) grows with the number of viewers: it is the range
/// of a sample, and a wider sample has a wider range. The shares and quantile spreads converge
/// to the design's own figures as viewers grow, so verdicts use them (docs/metrics.md).
public struct TransitionRow: Sendable, Equatable {
    /// Server time of the change, ns since the epoch.
    public var time: Int64
    public var position: Int
    public var viewers: Int
    /// Earliest and latest show instant, relative to the change (ns; negative = early). Exact.
    public var earliest: Int64
    public var latest: Int64
    /// latest − earliest: the worst pair of viewers.
    public var gap: Int64 { latest - earliest }
    /// 99th minus 1st percentile of the show instants.
    public var spread: Int64
    /// 99.9th minus 0.1th percentile of the show instants.
    public var spread999: Int64
    /// Viewers inside the best-placed window (500 ms): the most that one window can hold.
    public var inBestWindow: Int
    /// Viewers inside the window centred on the true instant, [−250 ms, +250 ms).
    public var inCentredWindow: Int
    /// Pairs of viewers whose show instants lie within the window of each other.
    public var pairsWithin: Double
    /// All pairs of viewers, n(n − 1)/2.
    public var pairs: Double { Double(viewers) * Double(viewers - 1) / 2 }

    public var bestWindowShare: Double { Double(inBestWindow) / Double(viewers) }
    public var centredWindowShare: Double { Double(inCentredWindow) / Double(viewers) }
    /// Share of viewer pairs within the window; nil for a single viewer.
    public var pairShare: Double? { viewers < 2 ? nil : pairsWithin / pairs }
}

extension TransitionRow {
    /// The figures of one change from its shows in value order (`ShowPoints`: exact values, or
    /// counts in bins of `ShowBins`), with the exact earliest and latest.
    ///
    /// A bin's shows are taken at its middle (an exact value at itself), so with exact values
    /// every figure is exact. With bins: quantiles lie within half a bin (0.5 ms inside ±1 s,
    /// 0.1% beyond); the centred window's edges are bin edges, so its count is exact; the best
    /// window and the pairs count bins by their middles, as if the window were up to one bin
    /// (1 ms inside ±1 s) wider or narrower, and pairs inside one bin count as within.
    static func measure<Shows: ShowPoints>(time: Int64, position: Int, shows: Shows, earliest: Int64, latest: Int64,
                                           window: Int64) -> TransitionRow {
        let n = shows.viewers
        let w = Double(window)
        // Nearest rank, as `RunResult.rank`: the i-th smallest show, counting from 0.
        func rank(_ q: Double) -> Int64 {
            let i = max(0, min(n - 1, Int((q * Double(n)).rounded(.up)) - 1))
            let x = max(Double(earliest), min(Double(latest), shows.middle(ofShow: i)))
            return Int64(x.rounded())
        }
        // Best window and pairs: points [k, hi) are those whose middles lie within w above point k's.
        var best = 0, inWindow = 0, hi = 0, pairs = 0.0, centred = 0
        let half = w / 2
        for k in 0..<shows.count {
            let mk = shows.middle(k)
            while hi < shows.count && shows.middle(hi) - mk <= w {
                inWindow += shows.weight(hi)
                hi += 1
            }
            best = max(best, inWindow)
            let c = shows.weight(k)
            pairs += Double(c) * Double(c - 1) / 2 + Double(c) * Double(inWindow - c)
            inWindow -= c
            if mk >= -half && mk < half { centred += c }
        }
        return TransitionRow(time: time, position: position, viewers: n, earliest: earliest, latest: latest,
                             spread: rank(0.99) - rank(0.01), spread999: rank(0.999) - rank(0.001),
                             inBestWindow: best, inCentredWindow: centred, pairsWithin: pairs)
    }

    /// The same from plain offsets, each kept exactly.
    static func measure(time: Int64, position: Int, offsets: [Int64], window: Int64) -> TransitionRow {
        measure(time: time, position: position, shows: ExactShows(sorted: offsets.sorted()),
                earliest: offsets.min() ?? 0, latest: offsets.max() ?? 0, window: window)
    }
}

/// One change's shows in value order, as points with a weight: each exact offset once, or each
/// occupied bin at its middle with its count. `TransitionRow.measure` reads either the same way.
protocol ShowPoints {
    /// Points, in value order.
    var count: Int { get }
    func middle(_ k: Int) -> Double
    func weight(_ k: Int) -> Int
    /// Shows in all (the sum of the weights).
    var viewers: Int { get }
    /// Where the i-th smallest show (from 0) is taken to lie.
    func middle(ofShow i: Int) -> Double
}

/// Exact offsets, sorted: a point per show.
struct ExactShows: ShowPoints {
    let sorted: [Int64]
    var count: Int { sorted.count }
    var viewers: Int { sorted.count }
    @inline(__always) func middle(_ k: Int) -> Double { Double(sorted[k]) }
    @inline(__always) func weight(_ k: Int) -> Int { 1 }
    func middle(ofShow i: Int) -> Double { Double(sorted[i]) }
}

/// Occupied bins in value order (`ShowBins`), each taken at its middle.
struct BinnedShows: ShowPoints {
    let bins: [ShowBin]
    let viewers: Int
    init(_ bins: [ShowBin]) {
        self.bins = bins
        viewers = bins.reduce(0) { $0 + $1.count }
    }
    var count: Int { bins.count }
    @inline(__always) func middle(_ k: Int) -> Double { bins[k].middle }
    @inline(__always) func weight(_ k: Int) -> Int { bins[k].count }
    func middle(ofShow i: Int) -> Double {
        var below = 0
        for bin in bins {
            below += bin.count
            if below > i { return bin.middle }
        }
        return bins.last?.middle ?? 0
    }

}
