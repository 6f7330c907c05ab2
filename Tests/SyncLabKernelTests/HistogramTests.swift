import Testing
import SyncLabKernel

/// The half-open value range of the bucket holding `v`, derived from the layout in the type's
/// doc comment (exact below 2^subBits; above, 2^(subBits−1) equal buckets per power of two).
private func bucketRange(_ v: Int64, subBits s: Int) -> (lower: Int64, upper: Int64) {
    if v < Int64(1) << Int64(s) { return (v, v + 1) }
    let bits = 64 - v.leadingZeroBitCount
    let shift = Int64(bits - s)
    let lower = (v >> shift) << shift
    return (lower, lower &+ (Int64(1) << shift))   // upper may wrap to Int64.min at the very top
}

/// Nearest-rank quantile of sorted data, rank ⌈q·n⌉ (at least 1), as the type documents.
private func nearestRank(_ sorted: [Int64], _ q: Double) -> Int64 {
    if q <= 0 { return sorted.first! }
    if q >= 1 { return sorted.last! }
    let rank = Swift.max(1, Int((q * Double(sorted.count)).rounded(.up)))
    return sorted[rank - 1]
}

/// Values spread log-uniformly over all magnitudes up to 2^63, plus some small ones.
private func wideData(count: Int, seed: UInt64) -> [Int64] {
    var rng = RandomStream(seed: seed, purpose: StreamPurpose("histogram-data"))
    return (0..<count).map { i in
        i % 10 == 0 ? Int64(rng.below(3000)) : Int64(rng.next() >> (1 + rng.below(63)))
    }
}

private func histogram(_ values: [Int64], subBits: Int = 10) -> Histogram {
    var h = Histogram(subBits: subBits)
    for v in values { h.record(v) }
    return h
}

private let quantiles: [Double] = (1..<200).map { Double($0) / 200 } + [0.001, 0.0001, 0.999, 0.9999, 1e-9, 1 - 1e-9]

@Suite("Histogram (log-linear, HDR layout)")
struct HistogramTests {

    @Test("An empty histogram has no quantiles and no mean")
    func empty() {
        let h = Histogram()
        #expect(h.isEmpty)
        #expect(h.count == 0)
        #expect(h.mean == nil)
        for q in [0.0, 0.5, 1.0] { #expect(h.quantile(q) == nil) }
        #expect(h.countAtOrBelow(Int64.max) == 0)
        #expect(h.counts.allSatisfy { $0 == 0 })
        #expect(h == Histogram(subBits: 10))
    }

    @Test("Bucket array size follows the layout", arguments: [2, 4, 10, 20])
    func layoutSize(subBits: Int) {
        // 2^s exact buckets, then 2^(s−1) buckets for each of the (64 − s) higher powers of two.
        #expect(Histogram(subBits: subBits).counts.count == (1 << subBits) + (64 - subBits) * (1 << (subBits - 1)))
    }

    @Test("Values below 2^subBits give exact quantiles", arguments: [4, 10])
    func exactSmallValues(subBits: Int) {
        var rng = RandomStream(seed: 21, purpose: StreamPurpose("histogram-small"))
        let data = (0..<10_000).map { _ in Int64(rng.below(UInt64(1) << UInt64(subBits))) }
        let h = histogram(data, subBits: subBits)
        let sorted = data.sorted()
        for k in 0...1000 {
            let q = Double(k) / 1000
            #expect(h.quantile(q) == nearestRank(sorted, q), "q = \(q)")
        }
        #expect(h.quantile(0) == sorted.first)
        #expect(h.quantile(1) == sorted.last)
        #expect(h.quantile(-1) == sorted.first)
        #expect(h.quantile(2) == sorted.last)
    }

    @Test("Large-value quantiles are within 2^-(subBits-1) of the exact nearest-rank value", arguments: [2, 4, 7, 10])
    func largeValueQuantiles(subBits: Int) {
        let data = wideData(count: 50_000, seed: UInt64(subBits))
        let h = histogram(data, subBits: subBits)
        let sorted = data.sorted()
        var previous = Int64.min
        for q in quantiles.sorted() {
            let exact = nearestRank(sorted, q)
            guard let got = h.quantile(q) else { Issue.record("nil quantile"); continue }
            // Placed by rank inside the exact value's bucket (narrowed to [min, max]): off by less
            // than the bucket width 2^shift ≤ exact / 2^(subBits−1) (the documented bound).
            let (lower, upper) = bucketRange(exact, subBits: subBits)
            #expect(got >= Swift.max(lower, sorted.first!), "q = \(q): \(got) vs \(exact)")
            #expect(got <= Swift.min(upper &- 1 == Int64.max ? Int64.max : upper &- 1, sorted.last!), "q = \(q)")
            #expect(abs(exact - got) <= exact >> Int64(subBits - 1), "q = \(q): \(got) vs \(exact)")
            #expect(got >= previous, "quantiles are monotone")
            previous = got
        }
        #expect(h.quantile(0) == sorted.first)
        #expect(h.quantile(1) == sorted.last)
    }

    @Test("A single value is reported exactly at every quantile (clamping to [min, max])")
    func singleValueClamped() {
        var h = Histogram(subBits: 4)
        h.record(123_456_789)
        for q in [0.0, 0.01, 0.5, 0.99, 1.0] { #expect(h.quantile(q) == 123_456_789) }
        // Its bucket's lower bound is lower than the value: the clamp is what makes it exact.
        #expect(bucketRange(123_456_789, subBits: 4).lower < 123_456_789)
    }

    /// The bucket of the issue's tie: 82,837,504 ns = 632 · 2^17 is a bucket's lower bound with 10
    /// sub-bits (27 bits, shift 17), so the bucket is [82,837,504, 82,968,576), 131,072 ns wide.
    static let tieBucket: (lower: Int64, width: Int64) = (82_837_504, 131_072)

    @Test("Values spread evenly inside one bucket come back exactly at every rank")
    func evenlySpreadInOneBucket() {
        // 100 values 1,024 ns apart inside the bucket: the minimum and the maximum are known, so
        // rank k sits at min + (max − min)(k − 1)/99 = min + 1,024·(k − 1), the k-th value itself.
        let (lower, width) = Self.tieBucket
        let data = (0..<100).map { lower + 1_000 + Int64($0) * 1_024 }
        #expect(data.last! < lower + width)
        let h = histogram(data)
        for q in quantiles { #expect(h.quantile(q) == nearestRank(data, q), "q = \(q)") }
    }

    @Test("A bucket with neither extreme places rank k at the middle of its k-th slot")
    func slotMiddlesWithoutExtremes() {
        // 64 values anywhere in the bucket, the minimum below it and the maximum above: rank k of
        // the bucket's 64 sits at lower + (width − 1)(2k − 1)/128, rounded down. With one value
        // below, overall rank r is the bucket's k = r − 1.
        let (lower, width) = Self.tieBucket
        var h = Histogram()
        h.record(1_000)
        for j in 0..<64 { h.record(lower + Int64(j * 37 % 64) * 2_000) }
        h.record(1_000_000_000)
        #expect(h.count == 66)
        for r in 2...65 {
            let q = Double(r) / 66
            let k = Int64(r - 1)
            #expect(h.quantile(q) == lower + (width - 1) * (2 * k - 1) / 128, "rank \(r)")
        }
    }

    @Test("Uniform values in one bucket: the quantile is the order statistic within its sampling spread")
    func uniformInOneBucket() {
        // 20,000 values uniform on the bucket, one far below and one far above. The k-th of c
        // uniform order statistics has standard deviation ≤ width·½/√c ≈ 463 ns; placed by rank
        // the estimate lies within 5 of those of the exact order statistic, where the bucket's
        // lower edge would be off by up to its whole width (0.99 of it at the 99th percentile).
        let (lower, width) = Self.tieBucket
        var rng = RandomStream(seed: 7, purpose: StreamPurpose("histogram-uniform"))
        let inside = (0..<20_000).map { _ in lower + Int64(rng.below(UInt64(width))) }
        let data = ([1_000] + inside + [1_000_000_000]).sorted()
        let h = histogram(data)
        let sigma = Double(width) * 0.5 / Double(20_000).squareRoot()
        for q in [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99] {
            let exact = nearestRank(data, q), got = h.quantile(q)!
            #expect(Double(abs(got - exact)) <= 5 * sigma, "q = \(q): \(got) vs \(exact)")
        }
        let p99 = h.quantile(0.99)!
        #expect(p99 - lower > width * 9 / 10)
    }

    @Test("Two samples whose p99 falls in one bucket with different counts there get different p99s")
    func samplesThatDifferInsideABucket() {
        // Each: 980 values of 10 ms, then 20 values in the tie bucket, then 1 s values: A has 5
        // of those, B 10. The p99 has rank ⌈0.99·n⌉: A (n = 1,005) rank 995, the 15th of the
        // bucket's 20; B (n = 1,010) rank 1,000, the 20th. Neither end of the bucket is known:
        // value = lower + ⌊(width − 1)(2k − 1)/40⌋, so A gives +95,026 ns (k = 15), B +127,794 ns
        // (k = 20). The bucket's lower edge, reported before, was 82,837,504 ns for both.
        let (lower, width) = Self.tieBucket
        func sample(tail: Int) -> Histogram {
            var h = Histogram()
            h.record(10_000_000, times: 980)
            for j in 0..<20 { h.record(lower + Int64(j) * 6_000) }
            h.record(1_000_000_000, times: UInt64(tail))
            return h
        }
        let a = sample(tail: 5).quantile(0.99)!, b = sample(tail: 10).quantile(0.99)!
        #expect(a == lower + (width - 1) * 29 / 40)
        #expect(b == lower + (width - 1) * 39 / 40)
        #expect(a == 82_932_530 && b == 82_965_298)
        #expect(bucketRange(a, subBits: 10).lower == bucketRange(b, subBits: 10).lower)
    }

    @Test("A few values in buckets of their own: the extremes are exact, the rest within a bucket")
    func smallSampleInOwnBuckets() {
        let data: [Int64] = [3, 700, 5_000, 123_456, 9_876_543, 80_000_000_000]
        let h = histogram(data)
        // 3 and 700 are below 2^10 (exact buckets); the last is the maximum.
        for (r, v) in data.enumerated() {
            let got = h.quantile(Double(r + 1) / Double(data.count))!
            let (lower, upper) = bucketRange(v, subBits: 10)
            if v < 1_024 || r == data.count - 1 { #expect(got == v) } else { #expect(got >= lower && got < upper) }
        }
    }

    @Test("min, max, count, sum and mean are exact")
    func exactSummaries() {
        let data = wideData(count: 20_000, seed: 31)
        let h = histogram(data)
        #expect(h.count == UInt64(data.count))
        #expect(h.min == data.min())
        #expect(h.max == data.max())
        let sum = data.reduce(UInt128(0)) { $0 + UInt128($1) }
        #expect(UInt128(UInt64(bitPattern: h.sumHigh)) << 64 | UInt128(h.sumLow) == sum)
        // Mean: Double(sumHigh)·2^64 + Double(sumLow) rounds twice, then divides once: within
        // 3 half-ulps, written as 2^-52 relative.
        let exactMean = Double(sum) / Double(data.count)
        #expect(abs(h.mean! - exactMean) / exactMean <= 0x1.0p-52)

        // Small data: the sum fits in 53 bits, so the mean is the correctly rounded quotient.
        let small = histogram([1, 2, 3, 4, 1000, 1_000_000_007])
        #expect(small.mean == 1_000_001_017.0 / 6)
        #expect(small.min == 1)
        #expect(small.max == 1_000_000_007)
        #expect(small.sumHigh == 0 && small.sumLow == 1_000_001_017)
    }

    @Test("The sum is carried into the high word instead of overflowing")
    func wideSum() {
        var h = Histogram()
        h.record(Int64.max, times: 4)
        #expect(h.count == 4)
        #expect(h.sumHigh == 1)
        #expect(h.sumLow == UInt64.max - 3)                       // 4·(2^63 − 1) = 2^65 − 4
        #expect(h.mean == 0x1.0p63)
        #expect(h.quantile(0.5) == Int64.max)
        var g = Histogram()
        g.record(Int64.max, times: 2)
        var g2 = g
        g2.merge(g)
        #expect(g2 == h)
    }

    @Test("Negative values are recorded as zero")
    func negativesAsZero() {
        var h = Histogram()
        h.record(-5)
        h.record(Int64.min)
        h.record(3)
        #expect(h.count == 3)
        #expect(h.min == 0)
        #expect(h.max == 3)
        #expect(h.sumLow == 3 && h.sumHigh == 0)
        #expect(h.quantile(0.5) == 0)
        #expect(h.countAtOrBelow(0) == 2)
    }

    @Test("record(times:) equals repeated records")
    func recordTimes() {
        var a = Histogram(), b = Histogram()
        a.record(7, times: 3)
        a.record(5_000_000, times: 2)
        for _ in 0..<3 { b.record(7) }
        for _ in 0..<2 { b.record(5_000_000) }
        #expect(a == b)
    }

    @Test("Merging shards equals recording everything into one histogram", arguments: [4, 10])
    func merge(subBits: Int) {
        let data = wideData(count: 30_000, seed: 41)
        let whole = histogram(data, subBits: subBits)
        var shards = [Histogram](repeating: Histogram(subBits: subBits), count: 3)
        for (i, v) in data.enumerated() { shards[i % 3].record(v) }
        var merged = Histogram(subBits: subBits)
        for s in shards { merged.merge(s) }
        #expect(merged == whole)
        // Order does not matter, and merging an empty histogram changes nothing.
        var reversed = shards[2]
        reversed.merge(shards[1])
        reversed.merge(shards[0])
        reversed.merge(Histogram(subBits: subBits))
        #expect(reversed == whole)
        var intoEmpty = Histogram(subBits: subBits)
        intoEmpty.merge(whole)
        #expect(intoEmpty == whole)
        for q in [0.01, 0.5, 0.99] { #expect(merged.quantile(q) == whole.quantile(q)) }
    }

    @Test("countAtOrBelow is exact below 2^subBits and bucket-resolution above", arguments: [4, 10])
    func countAtOrBelow(subBits: Int) {
        let data = wideData(count: 20_000, seed: 51)
        let h = histogram(data, subBits: subBits)
        let sorted = data.sorted()
        /// Number of data values < x.
        func below(_ x: Int64) -> UInt64 {
            var lo = 0, hi = sorted.count
            while lo < hi { let m = (lo + hi) / 2; if sorted[m] < x { lo = m + 1 } else { hi = m } }
            return UInt64(lo)
        }
        #expect(h.countAtOrBelow(-1) == 0)
        #expect(h.countAtOrBelow(Int64.min) == 0)
        #expect(h.countAtOrBelow(Int64.max) == UInt64(data.count))
        for v in Int64(0)..<(Int64(1) << Int64(subBits)) {
            #expect(h.countAtOrBelow(v) == below(v + 1), "v = \(v)")
        }
        // Above: everything in v's bucket counts, i.e. the number of values below the bucket's end.
        var probes = Array(sorted.striding(by: 97)) + [Int64(1) << Int64(subBits), 3000, 1 << 40, (1 << 40) - 1]
        probes += probes.map { $0 + 1 }
        for v in probes where v >= Int64(1) << Int64(subBits) && v < Int64.max / 2 {
            let upper = bucketRange(v, subBits: subBits).upper
            #expect(h.countAtOrBelow(v) == below(upper), "v = \(v)")
            #expect(h.countAtOrBelow(v) >= below(v + 1))
        }
    }

    @Test("Recording a value zero times leaves the histogram unchanged")
    func recordZeroTimes() {
        var h = Histogram()
        h.record(5, times: 0)
        #expect(h.count == 0)
        #expect(h.isEmpty)
        #expect(h.min == Int64.max)   // actual: 5 (the empty sentinel is Int64.max)
        #expect(h.max == Int64.min)   // actual: 5
        var g = h
        g.record(100)
        #expect(g.min == 100)   // actual: 5, a value never recorded
        #expect(g.quantile(0) == 100)
    }
}

private extension Array {
    func striding(by step: Int) -> [Element] {
        Swift.stride(from: 0, to: count, by: step).map { self[$0] }
    }
}
