import Testing
import SyncLabKernel

/// `BinaryHeapQueue.replaceFirst`: the same as popping the earliest event and scheduling the new
/// one, on seeded random walks with many ties (the order is (time, sequence) either way, and
/// both take one sequence number).
@Suite struct BinaryHeapTests {
    @Test(arguments: [1 as UInt64, 2, 3])
    func replacingTheFirstIsAPopAndASchedule(seed: UInt64) {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("heap-replace-first"))
        var replaced = BinaryHeapQueue<Int>(), reference = BinaryHeapQueue<Int>()
        for label in 0..<8 {
            let t = SimTime(ns: Int64(rng.below(20)))
            replaced.schedule(label, at: t)
            reference.schedule(label, at: t)
        }
        var mismatches = 0
        for label in 8..<5_000 {
            // Later than the earliest by 0 to 19 ns (ties with it and with others), sometimes earlier.
            let first = replaced.nextTime!.ns
            let t = SimTime(ns: first + Int64(rng.below(20)) - (rng.below(8) == 0 ? 5 : 0))
            replaced.replaceFirst(with: label, at: t)
            _ = reference.pop()
            reference.schedule(label, at: t)
            if replaced.nextTime != reference.nextTime || replaced.count != reference.count { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(replaced.count == 8 && replaced.scheduledCount == reference.scheduledCount)
        var order: [Int] = [], expected: [Int] = []
        while let e = replaced.pop() { order.append(e.payload) }
        while let e = reference.pop() { expected.append(e.payload) }
        #expect(order == expected)
    }
}
