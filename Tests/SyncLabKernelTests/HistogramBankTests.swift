import Testing
import SyncLabKernel

/// A bank's slots are histograms recorded in place: each must equal a `Histogram` given the same
/// values, whichever way a value is recorded (with the bank's layout read at run time, or passed
/// as a constant by a caller that knows it), and banks merge and copy as histograms do.
@Suite struct HistogramBankTests {
    /// Negative, zero, exact (below 2^subBits), every magnitude up to 2^63 − 1, and the extremes.
    static func values(seed: UInt64) -> [Int64] {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("bank-values"))
        var v: [Int64] = [-1, .min, 0, 1, 31, 32, 127, 128, 1023, 1024, 1025, .max, .max - 1]
        for _ in 0..<5_000 { v.append(Int64(bitPattern: rng.next()) >> Int64(rng.below(64))) }
        return v
    }

    /// Slot k gets every third value from the k-th on; each slot equals its own histogram.
    @Test(arguments: [4, 5, 7, 10])
    func slotsEqualHistogramsOfTheSameValues(subBits: Int) {
        let values = Self.values(seed: UInt64(subBits))
        let bank = HistogramBank(slots: 3, subBits: subBits)
        var expected = [Histogram](repeating: Histogram(subBits: subBits), count: 3)
        for (i, v) in values.enumerated() {
            bank.record(i % 3, v)
            expected[i % 3].record(v)
        }
        for k in 0..<3 { #expect(bank.histogram(k) == expected[k], "subBits \(subBits), slot \(k)") }
    }

    /// The layout passed as a constant (as the recorder does for 5, 7 and 10) records exactly
    /// what the bank's own layout does.
    @Test func aLayoutKnownToTheCallerRecordsTheSame() {
        let values = Self.values(seed: 99)
        let read5 = HistogramBank(slots: 2, subBits: 5), known5 = HistogramBank(slots: 2, subBits: 5)
        let read7 = HistogramBank(slots: 2, subBits: 7), known7 = HistogramBank(slots: 2, subBits: 7)
        let read10 = HistogramBank(slots: 2, subBits: 10), known10 = HistogramBank(slots: 2, subBits: 10)
        for (i, v) in values.enumerated() {
            read5.record(i & 1, v)
            known5.record(i & 1, v, layout: 5)
            read7.record(i & 1, v)
            known7.record(i & 1, v, layout: 7)
            read10.record(i & 1, v)
            known10.record(i & 1, v, layout: 10)
        }
        for k in 0..<2 {
            #expect(known5.histogram(k) == read5.histogram(k))
            #expect(known7.histogram(k) == read7.histogram(k))
            #expect(known10.histogram(k) == read10.histogram(k))
            #expect(known10.histogram(k).count == UInt64((values.count + 1 - k) / 2))
        }
    }

    /// A slot never recorded is the empty histogram (its minimum and maximum the empty ones,
    /// though the bank starts as zeros), and stays so through a merge and a copy; a slot that
    /// records only zeros has minimum and maximum 0.
    @Test(arguments: [5, 10])
    func anUnrecordedSlotIsTheEmptyHistogram(subBits: Int) {
        let a = HistogramBank(slots: 3, subBits: subBits), b = HistogramBank(slots: 3, subBits: subBits)
        for k in 0..<3 { #expect(a.histogram(k) == Histogram(subBits: subBits)) }
        a.record(0, 0)
        b.record(2, 7)
        b.record(2, -4)
        a.merge(b)
        let copy = a.copy()
        var zero = Histogram(subBits: subBits), seven = Histogram(subBits: subBits)
        zero.record(0)
        seven.record(7)
        seven.record(0)
        for bank in [a, copy] {
            #expect(bank.histogram(0) == zero)
            #expect(bank.histogram(0).min == 0 && bank.histogram(0).max == 0)
            #expect(bank.histogram(1) == Histogram(subBits: subBits))
            #expect(bank.histogram(2) == seven)
            #expect(bank.histogram(2).min == 0 && bank.histogram(2).max == 7)
        }
    }

    /// Two banks merged equal one bank given all the values; a copy is independent of its original.
    @Test func mergeAndCopyAreThoseOfHistograms() {
        let values = Self.values(seed: 3)
        let all = HistogramBank(slots: 2), a = HistogramBank(slots: 2), b = HistogramBank(slots: 2)
        for (i, v) in values.enumerated() {
            all.record(i & 1, v)
            (i < values.count / 3 ? a : b).record(i & 1, v)
        }
        let before = a.copy()
        a.merge(b)
        for k in 0..<2 { #expect(a.histogram(k) == all.histogram(k)) }
        b.record(0, 5)
        #expect(before.histogram(0) != a.histogram(0))
        #expect(a.histogram(0) == all.histogram(0))
    }
}
