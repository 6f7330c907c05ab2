import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct ShowRecordsTests {
    /// Interleaved appends to many transitions (across chunk and page boundaries), then a merge of
    /// a second shard's records: every transition gives back exactly its values, this shard's first.
    @Test func chunkedRecordsGiveBackEveryValueInOrder() {
        var rng = RandomStream(seed: 9, purpose: StreamPurpose("test-show-records"))
        let transitions = 40
        var a = ShowRecords(transitions: transitions), b = ShowRecords(transitions: transitions)
        var expectedA = [[Int64]](repeating: [], count: transitions), expectedB = expectedA
        // 150,000 values in 15-value chunks: more than one 8,192-chunk page.
        for _ in 0..<150_000 {
            let i = Int(rng.below(UInt64(transitions - 2)))   // the last two stay empty in `a`
            let v = Int64(bitPattern: rng.next())
            a.append(v, to: i)
            expectedA[i].append(v)
        }
        for k in 0..<100 {
            let i = transitions - 1 - k % 3
            b.append(Int64(k), to: i)
            expectedB[i].append(Int64(k))
        }
        for i in 0..<transitions { #expect(a.offsets(i) == expectedA[i]) }
        #expect(a.isEmpty(transitions - 1) && !a.isEmpty(0))
        a.merge(b)
        for i in 0..<transitions {
            #expect(a.offsets(i) == expectedA[i] + expectedB[i])
            #expect(a.isEmpty(i) == (expectedA[i].isEmpty && expectedB[i].isEmpty))
        }
    }
}
