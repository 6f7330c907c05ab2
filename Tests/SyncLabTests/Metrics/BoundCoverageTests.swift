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
}
