import Testing
@testable import SyncLab
import SyncLabKernel

/// An exchange with exact stamps: client clock = true time, server = true + `ahead`.
private func exchange(sent: Int64, up: Int64, residence: Int64 = 0, down: Int64, ahead: Int64 = 0) -> SyncSample {
    SyncSample(serverTimestamp: sent + up + ahead, requestSent: ClockReading(ns: sent), uploadComplete: ClockReading(ns: sent),
               downloadComplete: ClockReading(ns: sent + up + residence + down), serverTransmit: sent + up + residence + ahead)
}

@Suite struct NTPEstimatorTests {
    static let model = BoundModel(serverResolution: .microsecond, clockResolution: 1, maxDriftPPB: 50_000)
    static let ms: Int64 = .millisecond

    @Test func defaultsAndMemory() {
        #expect(NTPEstimator().window == 8)
        #expect(NTPEstimator().name == "ntp")
        #expect(NTPEstimator().memoryWords == 33)
        #expect(NTPEstimator(window: 1).memoryWords == 5)
    }

    /// The filter keeps the last `window` exchanges and anchors on the one with the smallest delay.
    /// Window 3; delays 300, 100, 200, 400, 500 ms (server 1 s ahead, asymmetric legs so each
    /// exchange's offset error is distinct: (up − down)/2).
    @Test func minimumDelayOverTheLastWindowSamples() {
        var memory = [Int64](repeating: 0, count: NTPEstimator(window: 3).memoryWords)
        let ntp = NTPEstimator(window: 3)
        let legs: [(Int64, Int64)] = [(200, 100), (60, 40), (150, 50), (300, 100), (250, 250)]   // ms
        var anchors: [SyncEstimate] = []
        for (i, (up, down)) in legs.enumerated() {
            let s = exchange(sent: Int64(i) * .minute, up: up * Self.ms, down: down * Self.ms, ahead: .second)
            anchors.append(ntp.estimate(for: s, memory: &memory, Self.model))
        }
        func single(_ i: Int) -> SyncAnchor {
            ntp.anchor(for: exchange(sent: Int64(i) * .minute, up: legs[i].0 * Self.ms, down: legs[i].1 * Self.ms, ahead: .second))
        }
        // 1st: only itself. 2nd: 100 ms < 300 ms. 3rd: {300, 100, 200} → 100. 4th: {100, 200, 400} → 100.
        // 5th: {200, 400, 500} → 200 (the 100 ms one has left the window).
        #expect(anchors.map(\.anchor) == [single(0), single(1), single(1), single(1), single(2)])
        #expect(memory[0] == 5)
        // The chosen sample's anchor errs by half its asymmetry: (60 − 40)/2 = +10 ms at its own T4.
        let best = anchors[3].anchor
        #expect(best.serverTime - best.reading.ns == .second + 10 * Self.ms)
        // Its bound: |δ|/2 + 1 + ρs + (ρc + ⌈d·M⌉) + (ρc + 1) with δ = M = 100 ms, d = 50 ppm:
        // 50 ms + 1 + 1 µs + (1 + 5 000) + 2.
        #expect(anchors[3].bound.nanoseconds == 50 * Self.ms + 1 + .microsecond + 5_001 + 2)
        #expect(anchors[3].boundGrowthPPB == 50_000)
    }

    /// Equal delays: the newest sample wins (it has aged least).
    @Test func tieGoesToTheNewest() {
        var memory = [Int64](repeating: 0, count: NTPEstimator(window: 4).memoryWords)
        let ntp = NTPEstimator(window: 4)
        var last = SyncEstimate(anchor: SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0)), bound: .unbounded, boundGrowthPPB: 0)
        for i in 0..<3 {
            let s = exchange(sent: Int64(i) * .minute, up: 30 * Self.ms, down: 20 * Self.ms)
            last = ntp.estimate(for: s, memory: &memory, Self.model)
        }
        #expect(last.anchor.reading.ns == 2 * .minute + 50 * Self.ms)
    }

    /// Zeroed memory (an app start) forgets every sample.
    @Test func zeroedMemoryStartsOver() {
        let ntp = NTPEstimator(window: 2)
        var memory = [Int64](repeating: 0, count: ntp.memoryWords)
        let good = exchange(sent: 0, up: 5 * Self.ms, down: 5 * Self.ms)
        let bad = exchange(sent: .minute, up: 500 * Self.ms, down: 5 * Self.ms)
        _ = ntp.estimate(for: good, memory: &memory, Self.model)
        let kept = ntp.estimate(for: bad, memory: &memory, Self.model)
        #expect(kept.anchor == ntp.anchor(for: good))
        memory = [Int64](repeating: 0, count: ntp.memoryWords)
        let fresh = ntp.estimate(for: bad, memory: &memory, Self.model)
        #expect(fresh.anchor == ntp.anchor(for: bad))
    }

    /// With whole-second stamps inside one second (T2 = T3) NTP is Cristian: T4 + θ = T2 + (T4 − T1)/2.
    @Test func equalStampsMakeItCristian() {
        var rng = RandomStream(seed: 7, purpose: StreamPurpose("test-ntp-cristian"))
        for _ in 0..<500 {
            let t1 = Int64(rng.below(1 << 45))
            let t4 = t1 + Int64(rng.below(UInt64(Nanoseconds.second)))
            let stamp = floorTo(t1 + Int64(rng.below(UInt64(t4 - t1 + 1))), .second)
            let s = SyncSample(serverTimestamp: stamp, requestSent: ClockReading(ns: t1), uploadComplete: ClockReading(ns: t1),
                               downloadComplete: ClockReading(ns: t4), serverTransmit: stamp)
            #expect(NTPEstimator().anchor(for: s) == CristianEstimator().anchor(for: s))
        }
    }

    /// The bound holds on exact stamps truncated to the server resolution, for any path:
    /// |error| ≤ |δ|/2 + ρs (+ clock terms).
    @Test func boundHoldsWithTruncatedStamps() {
        var rng = RandomStream(seed: 8, purpose: StreamPurpose("test-ntp-bound"))
        let model = BoundModel(serverResolution: .second, clockResolution: 1, maxDriftPPB: 0)
        for _ in 0..<2_000 {
            let t1 = Int64(rng.below(1 << 45)), up = Int64(rng.below(2 * UInt64(Nanoseconds.second)))
            let residence = Int64(rng.below(UInt64(Nanoseconds.second))), down = Int64(rng.below(2 * UInt64(Nanoseconds.second)))
            let s = SyncSample(serverTimestamp: floorTo(t1 + up, .second), requestSent: ClockReading(ns: t1),
                               uploadComplete: ClockReading(ns: t1), downloadComplete: ClockReading(ns: t1 + up + residence + down),
                               serverTransmit: floorTo(t1 + up + residence, .second))
            let error = NTPEstimator().anchor(for: s).serverTime - s.downloadComplete.ns
            #expect(NTPEstimator().halfWidth(for: s, model).contains(error))
        }
    }
}
