import Testing
import SyncLab
@testable import AppSync

/// The estimator by hand: offsets, the median of the kept syncs, the ring of memory.
@Suite struct KronosEstimatorTests {
    static let model = BoundModel(serverResolution: 1, clockResolution: 1, maxDriftPPB: 0)

    /// One exchange sent at reading `sent`: stamped `offset + sent + up` by the server, received
    /// `up + down` later. Its NTP offset is `offset + (up − down) / 2`.
    static func exchange(sent: Int64, offset: Int64, up: Int64, down: Int64) -> SyncSample {
        SyncSample(serverTimestamp: offset + sent + up, requestSent: ClockReading(ns: sent), uploadComplete: ClockReading(ns: sent),
                   downloadComplete: ClockReading(ns: sent + up + down))
    }

    @Test func theMedianOfTheLastSyncsOffsets() {
        let kronos = KronosEstimator(servers: 3)
        var memory = [Int64](repeating: 0, count: kronos.memoryWords)
        #expect(memory.count == 4)
        let ms = Int64.millisecond
        // Offsets 1 s + (up − down)/2: +10 ms, −40 ms, +4 ms, then −100 ms.
        let syncs = [(20 * ms, 0 * ms), (10 * ms, 90 * ms), (30 * ms, 22 * ms), (0 * ms, 200 * ms)]
        var estimates: [SyncEstimate] = []
        for (i, (up, down)) in syncs.enumerated() {
            let s = Self.exchange(sent: Int64(i) * .minute, offset: .second, up: up, down: down)
            estimates.append(kronos.estimate(for: s, memory: &memory, Self.model))
        }
        func offset(_ e: SyncEstimate) -> Int64 { e.anchor.serverTime - e.anchor.reading.ns }
        // One sync: its own. Two: the mean of both, (10 − 40)/2 = −15 ms. Three: the middle, +4 ms.
        // Four: the first is dropped from the ring, the median of −40, +4, −100 is −40 ms.
        #expect(estimates.map(offset) == [.second + 10 * ms, .second - 15 * ms, .second + 4 * ms, .second - 40 * ms])
        // Each anchored at its own download-complete reading, with no bound claimed.
        #expect(estimates[3].anchor.reading == ClockReading(ns: 3 * .minute + 200 * ms))
        #expect(estimates.allSatisfy { $0.bound == .unbounded })
        #expect(memory == [4, .second - 100 * ms, .second - 40 * ms, .second + 4 * ms])
    }

    /// With one server it is NTP's estimate with a window of one, exchange for exchange.
    @Test func oneServerIsNTPsOneExchange() {
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("kronos-vs-ntp"))
        var k = [Int64](repeating: 0, count: KronosEstimator(servers: 1).memoryWords)
        var n = [Int64](repeating: 0, count: NTPEstimator(window: 1).memoryWords)
        for i in 0..<200 {
            let s = Self.exchange(sent: Int64(i) * .minute, offset: Int64(rng.below(1 << 40)),
                                  up: Int64(rng.below(1 << 30)), down: Int64(rng.below(1 << 30)))
            let kronos = KronosEstimator(servers: 1).estimate(for: s, memory: &k, Self.model)
            let ntp = NTPEstimator(window: 1).estimate(for: s, memory: &n, Self.model)
            #expect(kronos.anchor == ntp.anchor)
        }
    }

    /// The median without sorting, for odd and even counts and ties: the memory holds the
    /// syncs so far and their offsets; a new sync with offset 0 joins them.
    @Test(arguments: [
        ([], 0),                            // alone: 0
        ([9, 3], 3),                        // 0, 3, 9
        ([9, 3, 7], 5),                     // 0, 3, 7, 9: (3 + 7) / 2
        ([3, 3, -2], 1),                    // −2, 0, 3, 3: ⌊(0 + 3) / 2⌋
        ([-3, -1, 11, 4], 0),               // −3, −1, 0, 4, 11
        ([-1, -2], -1),                     // −2, −1, 0
        ([-1], -1),                         // −1, 0: ⌊−1 / 2⌋
    ] as [([Int64], Int64)])
    func medianOfTheKeptOffsets(kept: [Int64], median: Int64) {
        let kronos = KronosEstimator(servers: 5)
        // The ring after `kept.count` syncs; the next goes in slot `kept.count`.
        var memory = [Int64(kept.count)] + kept + [Int64](repeating: 0, count: 5 - kept.count)
        let s = Self.exchange(sent: .minute, offset: 0, up: 50 * .millisecond, down: 50 * .millisecond)
        let e = kronos.estimate(for: s, memory: &memory, Self.model)
        #expect(e.anchor.serverTime - e.anchor.reading.ns == median)
    }

    @Test func readsItsParametersByKeyPath() throws {
        let base = #"{"extends": "r1.json", "name": "k", "client": {"estimator": "#
        let s = try AppPlugins.loader.load(text: base + #"{"kind": "kronos", "servers": 7}}}"#, file: "k.json",
                                           resolver: ShippedScenarios.resolver)
        #expect(s.client.estimator as? KronosEstimator == KronosEstimator(servers: 7))
        let bare = try AppPlugins.loader.load(text: base + #""kronos"}}"#, file: "k.json", resolver: ShippedScenarios.resolver)
        #expect(bare.client.estimator as? KronosEstimator == KronosEstimator(servers: 5))
        #expect(throws: InputError(file: "k.json", keyPath: "client.estimator.servers", message: "must be between 1 and 16; got 17")) {
            try AppPlugins.loader.load(text: base + #"{"kind": "kronos", "servers": 17}}}"#, file: "k.json",
                                       resolver: ShippedScenarios.resolver)
        }
    }
}
