import Testing
@testable import SyncLab
import SyncLabKernel

/// The audit's sort of durations gives the comparison sort's order.
@Suite struct RadixSortTests {
    /// By hand: three digits' worth of values, with a tie and a zero; arrays too short for the
    /// digits, and one with a negative value, go to the comparison sort.
    @Test func handWorkedCases() {
        var values: [Int64] = (0..<100).map { Int64(($0 * 7_919) % 100) << 22 }   // digits above the first two
        values += [5, 0, 5, 1 << 40, 2_047, 2_048]
        var expected = values
        expected.sort()
        RadixSort.sort(&values)
        #expect(values == expected)
        var short: [Int64] = [3, -1, 2]
        RadixSort.sort(&short)
        #expect(short == [-1, 2, 3])
        var negative = (0..<100).map { Int64(50 - $0) }
        RadixSort.sort(&negative)
        #expect(negative == (0..<100).map { Int64($0 - 49) })
    }

    /// Keyed random arrays over the widths a delay takes (up to a day in ns), with many ties.
    @Test func agreesWithTheComparisonSort() {
        var rng = RandomStream(seed: 11, purpose: StreamPurpose("radix-sort-test"))
        for bound in [UInt64(1_000), 1 << 22, 86_400_000_000_000, UInt64(Int64.max)] {
            var values = (0..<5_000).map { _ in Int64(rng.below(bound)) }
            var expected = values
            expected.sort()
            RadixSort.sort(&values)
            #expect(values == expected, "bound \(bound)")
        }
    }
}
