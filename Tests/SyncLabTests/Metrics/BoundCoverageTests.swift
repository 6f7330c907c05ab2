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

    /// "No bound" is counted apart: neither inside nor outside, and not a width.
    @Test func anUnboundedSampleIsCountedApart() {
        var c = BoundCoverage(links: 2)
        c.record(.unbounded, estimateError: 0, link: 1)
        #expect(c.samples == 0 && c.inside == 0 && c.unbounded == 1 && c.unboundedByLink == [0, 1])
        #expect(c.share == nil && c.unboundedShare == 1 && c.width.count == 0)
        c.record(.halfWidth(10), estimateError: -10, link: 0)
        c.record(.halfWidth(10), estimateError: 11, link: 0)
        #expect(c.samples == 2 && c.inside == 1 && c.share == 0.5 && c.unboundedShare == 1.0 / 3.0)
    }

    /// The recorder's bank gives the value record-by-record would, merged included.
    @Test func bankMatchesRecordByRecord() {
        var rng = RandomStream(seed: 9, purpose: StreamPurpose("test-bound-bank"))
        var direct = [BoundCoverage(links: 3), BoundCoverage(links: 3)]
        let banks = [BoundBank(links: 3), BoundBank(links: 3)]
        for i in 0..<2_000 {
            let shard = i % 2
            // One sample in ten claims no bound.
            let bound = rng.below(10) == 0 ? SyncBound.unbounded : .halfWidth(Int64(rng.below(UInt64(5 * Int64.second))))
            let error = Int64(rng.below(UInt64(10 * Int64.second))) - 5 * .second
            let link = Int(rng.below(3))
            direct[shard].record(bound, estimateError: error, link: link)
            banks[shard].record(bound, estimateError: error, link: link)
        }
        #expect(direct[0].unbounded > 0 && direct[0].inside > 0 && direct[0].inside < direct[0].samples)
        #expect(banks[0].coverage == direct[0])
        var merged = direct[0]
        merged.merge(direct[1])
        banks[0].merge(banks[1])
        #expect(banks[0].coverage == merged)
        #expect(BoundBank(links: 2).coverage == BoundCoverage(links: 2))
    }
}
