import Testing
import SyncLabKernel
@testable import SyncLab

/// The per-second load's quantiles by tally against the nearest rank of the sorted counts.
@Suite("RunResult load ranks")
struct RunResultRankTests {
    static let quantiles = [0, 0.001, 0.5, 0.9, 0.99, 0.999, 1]

    func bySorting(_ counts: [UInt32]) -> [Int64?] {
        let sorted = counts.map(Int64.init).sorted()
        return Self.quantiles.map { RunResult.rank(sorted, $0) }
    }

    @Test("hand cases: nothing, one second, a flat day, one spike")
    func handCases() {
        #expect(RunResult.ranks(ofCounts: [], Self.quantiles) == Self.quantiles.map { _ in nil })
        #expect(RunResult.ranks(ofCounts: [7], [0.5, 0.99, 1]) == [7, 7, 7])
        #expect(RunResult.ranks(ofCounts: [UInt32](repeating: 3, count: 1000), [0.5, 1]) == [3, 3])
        // 1,000 seconds of 1 request and one of 500: the 99th percentile (rank 991 of 1,001) is
        // 1, the 99.9th (rank 1,000) is 1, the peak is 500.
        var spike = [UInt32](repeating: 1, count: 1000)
        spike.insert(500, at: 400)
        #expect(RunResult.ranks(ofCounts: spike, [0.99, 0.999, 1]) == [1, 1, 500])
        // Ten seconds holding 1…10: the p50 is the 5th smallest, the p99 the 10th.
        #expect(RunResult.ranks(ofCounts: (1...10).map(UInt32.init).reversed(), [0.5, 0.99]) == [5, 10])
    }

    @Test("agrees with the sorted ranks on random days, small and past the tally's range")
    func agreesWithSorting() {
        var rng = RandomStream(state: 2026)
        for trial in 0..<200 {
            let seconds = 1 + Int(rng.below(3000))
            // Small counts (tallied) in most trials; counts up to 2^31 (sorted) in every tenth.
            let ceiling: UInt64 = trial % 10 == 0 ? 1 << 31 : 1 + rng.below(5000)
            let counts = (0..<seconds).map { _ in UInt32(rng.below(ceiling)) }
            #expect(RunResult.ranks(ofCounts: counts, Self.quantiles) == bySorting(counts), "trial \(trial)")
        }
    }
}
