import Testing
@testable import SyncLab
import SyncLabKernel

/// An exchange with exact stamps and symmetric legs: client clock = true time, the answering
/// server `ahead` of true time, so its RFC 5905 offset is exactly `ahead` and its delay 2·leg.
func combiningExchange(sent: Int64, leg: Int64 = 20 * .millisecond, ahead: Int64, server: Int = 0) -> SyncSample {
    SyncSample(serverTimestamp: sent + leg + ahead, requestSent: ClockReading(ns: sent), uploadComplete: ClockReading(ns: sent),
               downloadComplete: ClockReading(ns: sent + 2 * leg), serverTransmit: sent + leg + ahead, server: server)
}

@Suite struct MedianEstimatorTests {
    /// 1 ns resolutions and no drift: a 40 ms exchange's half-width is 20 ms + 1 + ρs 1 + ε 1 +
    /// base 2 = 20 ms + 5; one carried to a later reading gains ρc = 1.
    static let model = BoundModel(serverResolution: 1, clockResolution: 1, maxDriftPPB: 0)
    static let ms: Int64 = .millisecond
    static let w = 20 * ms + 5

    @Test func defaultsAndMemory() {
        #expect(MedianEstimator().window == 5)
        #expect(!MedianEstimator().perServer)
        #expect(MedianEstimator().name == "median")
        #expect(MedianEstimator(window: 3).memoryWords == 13)
        #expect(MedianEstimator().readsEveryProbe)
    }

    /// Odd counts take the middle; even counts the mean of the middle two, rounded toward −∞.
    @Test func oddAndEvenCounts() {
        #expect(MedianEstimator.median(of: [5]) == 5)
        #expect(MedianEstimator.median(of: [5, 1, 3]) == 3)
        #expect(MedianEstimator.median(of: [4, 1, 3, 10]) == 3)          // (3 + 4) / 2 = 3.5 → 3
        #expect(MedianEstimator.median(of: [-3, -2]) == -3)              // −2.5 → −3
        #expect(MedianEstimator.median(of: [-4, 8, 2, -6]) == -1)        // (−4 + 2) / 2
        #expect(MedianEstimator.median(of: [.max, .max - 2]) == .max - 1) // no overflow
    }

    /// Window 5 over five syncs a minute apart; server 1 is 2 s off (a falseticker), the others
    /// 9…12 ms. Sorted offsets 9, 10, 11, 12, 2010 ms: the median is 11 ms, and the falseticker
    /// moves nothing. The sixth sync pushes the first (10 ms) out of the window.
    @Test func oneFalsetickerIsOutvoted() {
        let median = MedianEstimator(window: 5)
        var memory = [Int64](repeating: 0, count: median.memoryWords)
        let ahead: [Int64] = [10, 2010, 12, 11, 9, 13]
        var last: [SyncEstimate] = []
        for (i, a) in ahead.enumerated() {
            let s = combiningExchange(sent: Int64(i) * .minute, ahead: a * Self.ms, server: i == 1 ? 1 : 0)
            last.append(median.estimate(for: s, memory: &memory, Self.model))
        }
        let fifth = last[4]
        #expect(fifth.anchor.reading.ns == 4 * .minute + 40 * Self.ms)
        #expect(fifth.anchor.serverTime - fifth.anchor.reading.ns == 11 * Self.ms)
        // The widest half-width in the window: the older exchanges', carried (+1 ns).
        #expect(fifth.bound.nanoseconds == Self.w + 1)
        // {2010, 12, 11, 9, 13} → 12.
        #expect(last[5].anchor.serverTime - last[5].anchor.reading.ns == 12 * Self.ms)
        // Two probes in: {10, 2010} → the mean of both, a falseticker no majority outvotes.
        #expect(last[1].anchor.serverTime - last[1].anchor.reading.ns == 1010 * Self.ms)
    }

    /// With `perServer` each server's newest probe votes once: servers 0, 0, 0, 1 answering
    /// 1, 2, 3, 100 ms give per probe (2 + 3)/2 = 2.5 ms, per server (3 + 100)/2 = 51.5 ms.
    @Test func perServerVotesOnce() {
        let probes = [(1, 0), (2, 0), (3, 0), (100, 1)].enumerated().map { i, p in
            combiningExchange(sent: Int64(i) * .second, ahead: Int64(p.0) * Self.ms, server: p.1)
        }
        for (perServer, expected) in [(false, 2_500_000 as Int64), (true, 51_500_000)] {
            let median = MedianEstimator(window: 4, perServer: perServer)
            var memory = [Int64](repeating: 0, count: median.memoryWords)
            let e = median.estimate(probes: probes, best: 0, memory: &memory, Self.model)
            #expect(e.anchor.serverTime - e.anchor.reading.ns == expected)
            #expect(e.anchor.reading.ns == 3 * .second + 40 * Self.ms)
        }
    }

    /// One exchange alone reads as NTP's.
    @Test func oneExchangeIsNTPs() {
        let s = combiningExchange(sent: 0, ahead: 7 * Self.ms)
        #expect(MedianEstimator().anchor(for: s) == NTPEstimator().anchor(for: s))
        #expect(MedianEstimator().halfWidth(for: s, Self.model) == .halfWidth(Self.w))
    }

    @Test func loadsWithItsParameters() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"client": {"estimator": {"kind": "median", "window": 3, "perServer": true}}}"#),
                                          file: "ok.json")
        let m = try #require(s.client.estimator as? MedianEstimator)
        #expect(m.window == 3 && m.perServer)
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"client": {"estimator": {"kind": "median", "window": 0}}}"#))
        #expect(error?.keyPath == "client.estimator.window")
    }
}
