import Testing
@testable import SyncLab
import SyncLabKernel

/// The recorder's error bank: a slot is what `ErrorStats` would hold, and merged slots are what
/// one slot fed every value would hold (the overall error rows are the per-link rows merged).
@Suite struct ErrorStatsTests {
    @Test func mergedSlotsEqualOneSlotFedEverything() {
        let bank = ErrorBank(slots: 4)
        var all = ErrorStats()
        var rng = RandomStream(seed: 11, purpose: StreamPurpose("test-error-bank"))
        for _ in 0..<5_000 {
            let error = Int64(rng.below(UInt64(4 * Int64.second))) - 2 * .second
            bank.record(1 + Int(rng.below(3)), error)
            all.record(error)
        }
        bank.record(3, 0)
        all.record(0)
        #expect(bank.stats(merging: 1..<4) == all)
        #expect(bank.stats(merging: 0..<1) == ErrorStats())
        #expect(bank.stats(0) == ErrorStats())
        // A slot alone is the same as recording its values into an ErrorStats.
        let single = ErrorBank(slots: 1)
        var direct = ErrorStats()
        for error: Int64 in [-1_500, 0, 7, -7, .max / 2, 999, -1_000] {
            single.record(0, error)
            direct.record(error)
        }
        #expect(single.stats(0) == direct)
        #expect(direct.aheadShare == 3.0 / 7.0)
    }
}
