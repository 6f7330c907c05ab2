import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct MarzulloEstimatorTests {
    static let model = MedianEstimatorTests.model
    static let ms: Int64 = .millisecond
    /// A 40 ms exchange's half-width (MedianEstimatorTests.model).
    static let w = MedianEstimatorTests.w

    @Test func defaultsAndMemory() {
        #expect(MarzulloEstimator().window == 5)
        #expect(MarzulloEstimator().name == "marzullo")
        #expect(MarzulloEstimator(window: 3).memoryWords == 13 + 3)
        #expect(MarzulloEstimator().readsEveryProbe)
    }

    /// The textbook case: [8, 12], [11, 13], [10, 12] all agree on [11, 12].
    @Test func textbookIntersection() {
        let s = MarzulloEstimator.select([8...12, 11...13, 10...12])
        #expect(s == MarzulloEstimator.Selection(lower: 11, upper: 12, agreeing: 3, of: 3))
        #expect(s.isMajority)
        #expect(s.midpoint == 11)      // 11.5 rounded toward −∞
        #expect(s.halfWidth == 1)      // ⌈0.5⌉: 11 and 12 both lie within 1 of it
        // Order does not matter.
        #expect(MarzulloEstimator.select([10...12, 8...12, 11...13]) == s)
    }

    /// Three intervals that share no point: the largest agreeing set is one of three, no majority.
    @Test func noMajority() {
        let s = MarzulloEstimator.select([0...1, 2...3, 4...5])
        #expect(s.agreeing == 1 && s.of == 3)
        #expect(!s.isMajority)
        // Two of four is not a majority either.
        #expect(!MarzulloEstimator.select([0...2, 1...3, 10...12, 11...13]).isMajority)
    }

    /// Closed intervals that touch agree at the point; two separate regions of the same count
    /// are spanned from the first's start to the last's end.
    @Test func touchingAndTies() {
        #expect(MarzulloEstimator.select([0...5, 5...10]) == MarzulloEstimator.Selection(lower: 5, upper: 5, agreeing: 2, of: 2))
        #expect(MarzulloEstimator.select([0...10, 0...3, 5...10]) == MarzulloEstimator.Selection(lower: 0, upper: 10, agreeing: 2, of: 3))
        // A larger set later replaces an earlier, smaller one.
        #expect(MarzulloEstimator.select([0...1, 4...9, 5...9, 6...8]) == MarzulloEstimator.Selection(lower: 6, upper: 8, agreeing: 3, of: 4))
    }

    /// Three servers answer a round of three probes; server 2 is 2 s ahead. The truechimers'
    /// intervals (older two carried, ± w + 1) agree on [−w − 1, w + 1]: midpoint 0, ± w + 1.
    @Test func outvotesAFalsetickerInARound() {
        let probes = [0, 0, 2_000].enumerated().map { i, a in
            combiningExchange(sent: Int64(i) * .second, ahead: Int64(a) * Self.ms, server: i)
        }
        let marzullo = MarzulloEstimator(window: 3)
        var memory = [Int64](repeating: 0, count: marzullo.memoryWords)
        let e = marzullo.estimate(probes: probes, best: 0, memory: &memory, Self.model)
        #expect(e.anchor.reading.ns == 2 * .second + 40 * Self.ms)
        #expect(e.anchor.serverTime == e.anchor.reading.ns)
        #expect(e.bound == .halfWidth(Self.w + 1))
    }

    /// Without a majority the previous selection stands; before any, the newest probe's own
    /// offset with no bound.
    @Test func withoutAMajorityKeepsThePreviousSelection() {
        let marzullo = MarzulloEstimator(window: 2)
        var memory = [Int64](repeating: 0, count: marzullo.memoryWords)
        // One interval is a majority of one: [−w, w] around 0, midpoint 0, ± w.
        let first = marzullo.estimate(for: combiningExchange(sent: 0, ahead: 0), memory: &memory, Self.model)
        #expect(first.anchor == SyncAnchor(serverTime: 40 * Self.ms, reading: ClockReading(ns: 40 * Self.ms)))
        #expect(first.bound == .halfWidth(Self.w))
        // A second server 2 s off: one of two agrees, no majority; the first selection stands.
        let second = marzullo.estimate(for: combiningExchange(sent: .minute, ahead: 2 * .second, server: 1), memory: &memory, Self.model)
        #expect(second == first)

        var fresh = [Int64](repeating: 0, count: marzullo.memoryWords)
        let probes = [combiningExchange(sent: 0, ahead: 0), combiningExchange(sent: .second, ahead: 2 * .second, server: 1)]
        let none = marzullo.estimate(probes: probes, best: 0, memory: &fresh, Self.model)
        #expect(none.anchor == NTPEstimator().anchor(for: probes[1]))
        #expect(none.bound == .unbounded)
    }

    @Test func loadsWithItsParameters() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"client": {"estimator": {"kind": "marzullo", "window": 7}}}"#),
                                          file: "ok.json")
        let m = try #require(s.client.estimator as? MarzulloEstimator)
        #expect(m.window == 7 && !m.perServer)
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"client": {"estimator": {"kind": "marzullo", "window": 65}}}"#))
        #expect(error?.keyPath == "client.estimator.window")
    }
}
