import Testing
@testable import SyncLab
import SyncLabKernel

/// NTP's on-wire offset and delay (RFC 5905 §8) on hand-worked timestamp vectors.
///
/// Each vector gives the true path (client send instant, uplink, server residence, downlink)
/// and the server clock's offset; T1…T4 are worked out by hand below, and θ, δ by hand from
/// θ = ((T2 − T1) + (T3 − T4)) / 2 and δ = (T4 − T1) − (T3 − T2). The estimator must give
/// exactly those numbers, and its anchor must be server time T4 + θ at reading T4.
@Suite struct RFC5905VectorTests {
    struct Vector {
        var t1: Int64, t2: Int64, t3: Int64, t4: Int64
        var offset: Int64, delay: Int64
        var sample: SyncSample {
            SyncSample(serverTimestamp: t2, requestSent: ClockReading(ns: t1), uploadComplete: ClockReading(ns: t1),
                       downloadComplete: ClockReading(ns: t4), serverTransmit: t3)
        }
    }

    static let ms: Int64 = .millisecond

    /// Symmetric path: client clock = true time, server clock = true + 500 ms; uplink 40 ms,
    /// residence 10 ms, downlink 40 ms, sent at 1000 ms.
    /// T1 = 1000, T2 = 1040 + 500 = 1540, T3 = 1050 + 500 = 1550, T4 = 1090 (ms).
    /// θ = ((1540 − 1000) + (1550 − 1090)) / 2 = (540 + 460) / 2 = 500 ms: exact.
    /// δ = (1090 − 1000) − (1550 − 1540) = 90 − 10 = 80 ms: the two network legs.
    static let symmetric = Vector(t1: 1_000 * ms, t2: 1_540 * ms, t3: 1_550 * ms, t4: 1_090 * ms,
                                  offset: 500 * ms, delay: 80 * ms)

    /// Asymmetric path: server = true − 250 ms; uplink 100 ms, residence 5 ms, downlink 20 ms,
    /// sent at 2000 ms. T1 = 2000, T2 = 2100 − 250 = 1850, T3 = 2105 − 250 = 1855, T4 = 2125.
    /// θ = ((1850 − 2000) + (1855 − 2125)) / 2 = (−150 − 270) / 2 = −210 ms; the true offset is
    /// −250 ms, so the error is +40 ms = (100 − 20) / 2: half the asymmetry.
    /// δ = 125 − 5 = 120 ms = 100 + 20.
    static let asymmetric = Vector(t1: 2_000 * ms, t2: 1_850 * ms, t3: 1_855 * ms, t4: 2_125 * ms,
                                   offset: -210 * ms, delay: 120 * ms)

    /// The other way round: downlink longer. Server = true; uplink 15 ms, residence 0,
    /// downlink 215 ms, sent at 10 s. T1 = 10 000, T2 = T3 = 10 015, T4 = 10 230.
    /// θ = (15 + (−215)) / 2 = −100 ms = (15 − 215) / 2 (true offset 0); δ = 230 ms.
    static let slowDownlink = Vector(t1: 10_000 * ms, t2: 10_015 * ms, t3: 10_015 * ms, t4: 10_230 * ms,
                                     offset: -100 * ms, delay: 230 * ms)

    /// Large timestamps (unix nanoseconds around 2023-11-14, like a real client's readings), a
    /// server 3.000000123 s ahead, uplink 12.5 ms, residence 0.25 ms, downlink 12.5 ms:
    /// T1 = 1 700 000 000 000 000 000, T2 = T1 + 12 500 000 + 3 000 000 123,
    /// T3 = T2 + 250 000, T4 = T1 + 25 250 000.
    /// θ = (3 012 500 123 + (3 012 750 123 − 25 250 000)) / 2 = (3 012 500 123 + 2 987 500 123) / 2
    ///   = 6 000 000 246 / 2 = 3 000 000 123; δ = 25 250 000 − 250 000 = 25 000 000.
    static let large = Vector(t1: 1_700_000_000_000_000_000, t2: 1_700_000_003_012_500_123,
                              t3: 1_700_000_003_012_750_123, t4: 1_700_000_000_025_250_000,
                              offset: 3_000_000_123, delay: 25_000_000)

    /// An odd sum: T1 = 0, T2 = 1, T3 = 2, T4 = 4 (ns): θ = (1 + (−2)) / 2 = −0.5 → −1 (floor,
    /// so the rounding never depends on the sign convention of `/`); δ = 4 − 1 = 3.
    static let odd = Vector(t1: 0, t2: 1, t3: 2, t4: 4, offset: -1, delay: 3)

    /// Whole-second stamps (`REQUEST_TIME`): client = server = true time; sent at 6.95 s, uplink
    /// 60 ms, no residence, downlink 40 ms. Arrival 7.01 s → T2 = 7 s, T3 = 7 s, T4 = 7.05 s.
    /// θ = ((7 − 6.95) + (7 − 7.05)) / 2 = 0; δ = 100 ms. By the error law, (x − y)/2 − (a + b)/2
    /// = (60 − 40)/2 − (10 + 10)/2 = 0: here the asymmetry and the truncation cancel.
    static let wholeSecond = Vector(t1: 6_950 * ms, t2: 7_000 * ms, t3: 7_000 * ms, t4: 7_050 * ms,
                                    offset: 0, delay: 100 * ms)

    static let all: [Vector] = [symmetric, asymmetric, slowDownlink, large, odd, wholeSecond]

    @Test(arguments: all.indices)
    func offsetAndDelayAreExact(_ i: Int) {
        let v = Self.all[i]
        #expect(NTPEstimator.offset(v.sample) == v.offset)
        #expect(NTPEstimator.delay(v.sample) == v.delay)
        let anchor = NTPEstimator().anchor(for: v.sample)
        #expect(anchor == SyncAnchor(serverTime: v.t4 + v.offset, reading: ClockReading(ns: v.t4)))
    }

    /// The asymmetry law over many paths: with exact stamps, θ − true offset = (uplink − downlink) / 2
    /// (rounded toward −∞), and δ = uplink + downlink, whatever the residence and offset.
    @Test func offsetErrorIsHalfTheAsymmetry() {
        var rng = RandomStream(seed: 5905, purpose: StreamPurpose("test-rfc5905"))
        for _ in 0..<2_000 {
            let t1 = Int64(rng.below(1 << 50))
            let up = Int64(rng.below(3 * UInt64(Nanoseconds.second)))
            let down = Int64(rng.below(3 * UInt64(Nanoseconds.second)))
            let residence = Int64(rng.below(UInt64(Nanoseconds.second)))
            let offset = Int64(rng.below(2 * UInt64(Nanoseconds.hour))) - .hour
            let v = Vector(t1: t1, t2: t1 + up + offset, t3: t1 + up + residence + offset, t4: t1 + up + residence + down,
                           offset: 0, delay: 0)
            #expect(NTPEstimator.offset(v.sample) - offset == floorDiv(up - down, 2))
            #expect(NTPEstimator.delay(v.sample) == up + down)
        }
    }

    /// With a symmetric path the anchor is exact at T4 whatever the server's residence time:
    /// the server time in hand excludes the residence (which Cristian's RTT/2 does not).
    @Test func symmetricPathGivesTheTrueServerTimeAtT4() {
        for residence in [Int64(0), 10 * Self.ms, 900 * Self.ms] {
            let t1: Int64 = 5 * .second, leg: Int64 = 70 * Self.ms, serverAhead: Int64 = 123_456_789
            let t4 = t1 + 2 * leg + residence
            let s = SyncSample(serverTimestamp: t1 + leg + serverAhead, requestSent: ClockReading(ns: t1),
                               uploadComplete: ClockReading(ns: t1), downloadComplete: ClockReading(ns: t4),
                               serverTransmit: t1 + leg + residence + serverAhead)
            #expect(NTPEstimator().anchor(for: s).serverTime == t4 + serverAhead)
            // Cristian halves the whole round trip, residence included: off by residence / 2.
            #expect(CristianEstimator().anchor(for: s).serverTime == t4 + serverAhead - residence / 2)
        }
    }
}
