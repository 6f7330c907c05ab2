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

/// Distribution of one transition's show instants across the players who showed it.
public struct TransitionRow: Sendable, Equatable {
    /// Server time of the change, ns since the epoch.
    public var time: Int64
    public var position: Int
    public var viewers: Int
    /// Earliest and latest show instant, relative to the change (ns; negative = early).
    public var earliest: Int64
    public var latest: Int64
    /// latest − earliest: the transition gap.
    public var gap: Int64 { latest - earliest }
    /// 99th minus 1st percentile of the show instants.
    public var spread: Int64
    /// Players inside the best-placed 500 ms window.
    public var inBestWindow: Int
}

extension TransitionRow {
    /// Gap statistics from the (unsorted) show offsets of one transition.
    static func measure(time: Int64, position: Int, offsets: [Int64], window: Int64) -> TransitionRow {
        let sorted = offsets.sorted()
        let n = sorted.count
        func rank(_ q: Double) -> Int64 { sorted[max(0, min(n - 1, Int((q * Double(n)).rounded(.up)) - 1))] }
        var best = 0
        var lo = 0
        for hi in 0..<n {
            while sorted[hi] - sorted[lo] > window { lo += 1 }
            best = max(best, hi - lo + 1)
        }
        return TransitionRow(time: time, position: position, viewers: n, earliest: sorted[0],
                             latest: sorted[n - 1], spread: rank(0.99) - rank(0.01), inBestWindow: best)
    }
}
