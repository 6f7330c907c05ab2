import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct BoundCoverageTests {
    @Test func countsSharesAndMerges() {
        var a = BoundCoverage(links: 2)
        #expect(a.share == nil && a.share(link: 0) == nil)
        a.record(inside: true, bound: 100 * .millisecond, link: 0)
        a.record(inside: false, bound: 300 * .millisecond, link: 0)
        a.record(inside: true, bound: 200 * .millisecond, link: 1)
        #expect(a.samples == 3 && a.inside == 2)
        #expect(a.share == 2.0 / 3.0)
        #expect(a.share(link: 0) == 0.5 && a.share(link: 1) == 1)
        var b = BoundCoverage(links: 2)
        b.record(inside: false, bound: 400 * .millisecond, link: 1)
        var merged = a
        merged.merge(b)
        #expect(merged.samples == 4 && merged.inside == 2)
        #expect(merged.share(link: 1) == 0.5)
        #expect(merged.width.count == 4 && merged.width.max == 400 * .millisecond)
        // Merging is order-independent (shards).
        var other = b
        other.merge(a)
        #expect(other == merged)
    }

    /// The recorder's bank gives the value record-by-record would, merged included.
    @Test func bankMatchesRecordByRecord() {
        var rng = RandomStream(seed: 9, purpose: StreamPurpose("test-bound-bank"))
        var direct = [BoundCoverage(links: 3), BoundCoverage(links: 3)]
        let banks = [BoundBank(links: 3), BoundBank(links: 3)]
        for i in 0..<2_000 {
            let shard = i % 2
            let inside = rng.below(3) != 0
            let bound = Int64(rng.below(UInt64(5 * Int64.second)))
            let link = Int(rng.below(3))
            direct[shard].record(inside: inside, bound: bound, link: link)
            banks[shard].record(inside: inside, bound: bound, link: link)
        }
        #expect(banks[0].coverage == direct[0])
        var merged = direct[0]
        merged.merge(direct[1])
        banks[0].merge(banks[1])
        #expect(banks[0].coverage == merged)
        #expect(BoundBank(links: 2).coverage == BoundCoverage(links: 2))
    }
}
