import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The figures `synclab trace-stats` prints, on traces small enough to work out by hand.
@Suite struct LinkStatisticsTests {
    static func trace(_ ms: [Int64]) -> DeliveryOpportunities { DeliveryOpportunities(milliseconds: ms, file: "t") }

    /// A packet a millisecond for a second, then a 2 s gap to the last opportunity at 3000 ms;
    /// the next pass starts 1 ms later. Gaps: 999 of 1 ms, one of 2000 ms, the loop's 1 ms.
    @Test func gapsIncludeTheLoop() {
        let gaps = LinkStatistics.gaps(Self.trace(Array(1...1000) + [3000]))
        #expect(gaps.count == 1001)
        #expect(gaps.filter { $0 >= 100 } == [2000])
        #expect(gaps.reduce(0, +) == 3000)
        // A trace starting at 0 adds no loop gap: its first opportunity is the last one's instant.
        #expect(LinkStatistics.gaps(Self.trace([0, 5, 5, 10])) == [5, 5])
    }

    /// One packet per millisecond both ways, entering at 0: the request leaves at 1 ms and the
    /// response, entering at 1 ms, leaves at 1 ms (its own opportunity that instant); two
    /// response packets leave at 1 and 2 ms.
    @Test func roundTripOnATraceAMillisecondApart() {
        let link = TraceLink(uplink: Self.trace([1]), downlink: Self.trace([1]), baseDelay: 0)
        let one = LinkStatistics.roundTrip(link, at: 0, requestPackets: 1, responsePackets: 1)
        #expect(one == (1 * .millisecond, 1 * .millisecond, 1 * .millisecond))
        let two = LinkStatistics.roundTrip(link, at: 0, requestPackets: 1, responsePackets: 2)
        #expect(two.last == 2 * .millisecond)
    }

    /// A pass shorter than the entry step is still entered, once, at its start.
    @Test func aPassShorterThanAStepIsEnteredOnce() {
        #expect(LinkStatistics.entries(length: 1 * .millisecond) == [0])
        #expect(LinkStatistics.entries(length: 4_999_999) == [0])
        #expect(LinkStatistics.entries(length: 10 * .millisecond).count == 2)
    }

    @Test func correlationsQuantilesAndTheLoop() {
        let x = (0..<100).map(Double.init)
        #expect(LinkStatistics.rankCorrelation(x, x.map { $0 * $0 }) == 1)
        #expect(abs(LinkStatistics.rankCorrelation(x, x.reversed()) + 1) < 1e-12)
        // 2·sin(π·ρs/6) is 1 at ρs = 1, 0 at 0 and 0.5176 at 0.5.
        #expect(abs(LinkStatistics.gaussianCorrelation(rank: 1) - 1) < 1e-12)
        #expect(abs(LinkStatistics.gaussianCorrelation(rank: 0.5) - 2 * Foundation.sin(Double.pi / 12)) < 1e-12)
        #expect(LinkStatistics.quantile(x, 0.5) == 49 && LinkStatistics.quantile(x, 0.99) == 98 && LinkStatistics.quantile(x, 1) == 99)
        #expect(abs(LinkStatistics.timeConstant(lag: .second, correlation: Foundation.exp(-0.5))! - 2) < 1e-12)
        #expect(LinkStatistics.timeConstant(lag: .second, correlation: -0.1) == nil)
        // A 140 s trace informs a 1 min lag, not a 7 min one (three passes on: the same instant).
        #expect(LinkStatistics.informs(lag: 60 * .second, length: 140 * .second))
        #expect(!LinkStatistics.informs(lag: 420 * .second, length: 140 * .second))
        // Tail persistence: pairs that move together persist; a shuffled partner does not.
        #expect(LinkStatistics.tailShare(x, x, above: 0.9) == 1)
        #expect(LinkStatistics.tailShare(x, x.reversed(), above: 0.9) == 0)
    }
}
