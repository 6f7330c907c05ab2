/// A log-linear histogram of non-negative integer values (HdrHistogram's layout).
///
/// Values below 2^subBits are counted exactly; above, each power-of-two range is split into
/// 2^(subBits−1) equal buckets, so any reported quantile is within 2^−(subBits−1) relative error
/// (0.2% with the default 10 bits) of a value actually recorded. Minimum, maximum, count and sum
/// are exact. Histograms merge by addition, so per-shard or per-thread results combine exactly.
public struct Histogram: Sendable, Equatable {
    public let subBits: Int
    public private(set) var counts: [UInt64]
    public private(set) var count: UInt64 = 0
    public private(set) var min: Int64 = .max
    public private(set) var max: Int64 = .min
    /// Exact sum of recorded values (as a wide integer so it cannot overflow).
    public private(set) var sumHigh: Int64 = 0
    public private(set) var sumLow: UInt64 = 0

    public init(subBits: Int = 10) {
        precondition(subBits >= 2 && subBits <= 20)
        self.subBits = subBits
        counts = [UInt64](repeating: 0, count: (1 << subBits) + (64 - subBits) << (subBits - 1))
    }

    /// A histogram from its parts (used by `HistogramBank`).
    init(subBits: Int, counts: [UInt64], count: UInt64, min: Int64, max: Int64, sumHigh: Int64, sumLow: UInt64) {
        self.subBits = subBits
        self.counts = counts
        self.count = count
        self.min = min
        self.max = max
        self.sumHigh = sumHigh
        self.sumLow = sumLow
    }

    public var isEmpty: Bool { count == 0 }

    @inlinable func bucketIndex(_ v: UInt64) -> Int { Histogram.bucketIndex(v, subBits: subBits) }

    /// The bucket of `v` for a layout of `subBits`.
    @inlinable @inline(__always)
    public static func bucketIndex(_ v: UInt64, subBits: Int) -> Int {
        let linear = UInt64(1) &<< UInt64(truncatingIfNeeded: subBits)
        if v < linear { return Int(truncatingIfNeeded: v) }
        let magnitude = 64 &- v.leadingZeroBitCount          // bits needed, > subBits
        let shift = magnitude &- subBits
        let sub = Int(truncatingIfNeeded: v &>> UInt64(truncatingIfNeeded: shift))   // in [2^(subBits-1), 2^subBits)
        let half = 1 &<< (subBits &- 1)
        return Int(truncatingIfNeeded: linear) &+ (shift &- 1) &* half &+ (sub &- half)
    }

    /// The lowest value that falls in bucket `i`.
    func bucketLowerBound(_ i: Int) -> UInt64 {
        let linear = 1 << subBits
        if i < linear { return UInt64(i) }
        let half = 1 << (subBits - 1)
        let shift = (i - linear) / half + 1
        let sub = (i - linear) % half + half
        return UInt64(sub) << UInt64(shift)
    }

    /// Records one value (negative values are recorded as 0; record magnitudes).
    public mutating func record(_ value: Int64, times: UInt64 = 1) {
        guard times > 0 else { return }
        let v = value < 0 ? 0 : value
        counts[bucketIndex(UInt64(v))] &+= times
        count &+= times
        if v < min { min = v }
        if v > max { max = v }
        let add = UInt64(v).multipliedFullWidth(by: times)
        let (low, carry) = sumLow.addingReportingOverflow(add.low)
        sumLow = low
        sumHigh &+= Int64(add.high) &+ (carry ? 1 : 0)
    }

    public mutating func merge(_ other: Histogram) {
        precondition(other.subBits == subBits)
        guard other.count > 0 else { return }
        for i in counts.indices { counts[i] &+= other.counts[i] }
        count &+= other.count
        if other.min < min { min = other.min }
        if other.max > max { max = other.max }
        let (low, carry) = sumLow.addingReportingOverflow(other.sumLow)
        sumLow = low
        sumHigh &+= other.sumHigh &+ (carry ? 1 : 0)
    }

    /// Mean of recorded values, nil when empty.
    public var mean: Double? {
        guard count > 0 else { return nil }
        let sum = Double(sumHigh) * 0x1.0p64 + Double(sumLow)
        return sum / Double(count)
    }

    /// The value at quantile q in [0, 1] (nearest-rank); exact min at 0 and max at 1.
    /// Within a bucket the bucket's lower bound is reported, clamped to [min, max].
    public func quantile(_ q: Double) -> Int64? {
        guard count > 0 else { return nil }
        if q <= 0 { return min }
        if q >= 1 { return max }
        let rank = UInt64((q * Double(count)).rounded(.up))
        var seen: UInt64 = 0
        for (i, c) in counts.enumerated() where c > 0 {
            seen += c
            if seen >= Swift.max(rank, 1) {
                let v = Int64(bucketLowerBound(i))
                return Swift.min(Swift.max(v, min), max)
            }
        }
        return max
    }

    /// Number of recorded values ≤ `value` (exact for values below 2^subBits, otherwise
    /// bucket-resolution).
    public func countAtOrBelow(_ value: Int64) -> UInt64 {
        if value < 0 { return 0 }
        let limit = bucketIndex(UInt64(value))
        var total: UInt64 = 0
        for i in 0...limit { total &+= counts[i] }
        return total
    }
}
