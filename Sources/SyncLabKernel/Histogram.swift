/// A log-linear histogram of non-negative integer values (HdrHistogram's layout).
///
/// Values below 2^subBits are counted exactly; above, each power-of-two range is split into
/// 2^(subBits−1) equal buckets (0.2% wide with the default 10 bits). A quantile is placed by
/// rank inside its bucket (`quantile(_:)`), so it is within one bucket's width of the true order
/// statistic and moves when the counts inside the bucket do. Minimum, maximum, count and sum
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

    /// The highest value that falls in bucket `i` (its lower bound plus its width, less one).
    func bucketUpperBound(_ i: Int) -> UInt64 {
        let linear = 1 << subBits
        if i < linear { return UInt64(i) }
        let shift = (i - linear) / (1 << (subBits - 1)) + 1
        return bucketLowerBound(i) + (UInt64(1) << UInt64(shift) - 1)
    }

    /// The value at quantile q in [0, 1]: the value of nearest rank ⌈q·n⌉ (at least 1); exact
    /// min at 0 and max at 1.
    ///
    /// Within a bucket holding c values, the k-th of them is placed by rank, linearly across the
    /// bucket's occupied range [a, b]: a is the bucket's lower bound, or the exact minimum if the
    /// bucket holds it, b its upper bound or the exact maximum. A known end is where its rank sits
    /// (k = 1 at the minimum, k = c at the maximum); an unknown end is half a slot away, so the
    /// c values fill c equal slots (rank k at the middle of slot k when neither end is known):
    ///
    ///     value = a + (b − a)·(k − 1 + α) / (c − 1 + α + β),   α, β = 0 at a known end, ½ otherwise
    ///
    /// rounded down to an integer. So a quantile is exact below 2^subBits (one value per bucket),
    /// for a single value, for values spread evenly inside one bucket, and at the extremes; it is
    /// otherwise within the bucket's width (2^−(subBits−1) of the value) of the true order
    /// statistic, and moves with the counts inside the bucket instead of sticking to its edge.
    /// Integer arithmetic only: the same counts give the same value on every machine.
    public func quantile(_ q: Double) -> Int64? {
        guard count > 0 else { return nil }
        if q <= 0 { return min }
        if q >= 1 { return max }
        let rank = Swift.max(UInt64((q * Double(count)).rounded(.up)), 1)
        var seen: UInt64 = 0
        for (i, c) in counts.enumerated() where c > 0 {
            guard seen + c >= rank else { seen += c; continue }
            let k = rank - seen                                      // 1...c
            let lower = bucketLowerBound(i), upper = bucketUpperBound(i)
            let holdsMin = UInt64(min) >= lower, holdsMax = UInt64(max) <= upper
            let a = holdsMin ? UInt64(min) : lower, b = holdsMax ? UInt64(max) : upper
            // In halves, so α and β stay integers: (2k − 2 + 2α) / (2c − 2 + 2α + 2β).
            let numerator = 2 * (k - 1) + (holdsMin ? 0 : 1)
            let denominator = 2 * (c - 1) + (holdsMin ? 0 : 1) + (holdsMax ? 0 : 1)
            guard denominator > 0, b > a else { return Int64(a) }   // one value, min = max
            // (b − a)·numerator / denominator < b − a: the 128-bit quotient fits in 64 bits.
            let product = (b - a).multipliedFullWidth(by: numerator)
            let offset = denominator.dividingFullWidth((high: product.high, low: product.low)).quotient
            return Int64(a + offset)
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
