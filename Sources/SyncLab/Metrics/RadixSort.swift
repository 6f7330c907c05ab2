/// Sorts durations (non-negative integers) by their 11-bit digits, least significant first: the
/// audit sorts the 200,000 delays of each link's Monte Carlo after every run, and a comparison
/// sort took twice as long as drawing them. Integers have one sorted order, so the result is the
/// comparison sort's; an array with a negative value is left to it.
enum RadixSort {
    static let digitBits = 11

    static func sort(_ values: inout [Int64]) {
        guard values.count > 64, let largest = values.max(), values.min()! >= 0 else {
            values.sort()
            return
        }
        let bits = Int64.bitWidth - largest.leadingZeroBitCount
        var buffer = [Int64](repeating: 0, count: values.count)
        var counts = [Int](repeating: 0, count: 1 << digitBits)
        let mask = Int64(1 << digitBits - 1)
        var shift = 0
        while shift < bits {
            for k in counts.indices { counts[k] = 0 }
            for v in values { counts[Int((v >> Int64(shift)) & mask)] += 1 }
            var start = 0
            for k in counts.indices { (counts[k], start) = (start, start + counts[k]) }
            // Stable within a digit: equal digits keep the order of the pass before.
            for v in values {
                let k = Int((v >> Int64(shift)) & mask)
                buffer[counts[k]] = v
                counts[k] += 1
            }
            swap(&values, &buffer)
            shift += digitBits
        }
    }
}
