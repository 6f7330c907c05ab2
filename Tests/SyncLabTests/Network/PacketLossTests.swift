import Testing
@testable import SyncLab
import SyncLabKernel

/// x^k by repeated products (the kernel has no Foundation).
private func pow(_ x: Double, _ k: Double) -> Double { (0..<Int(k)).reduce(1.0) { r, _ in r * x } }

/// TCP retransmission (`TCPRetransmitLoss`) against RFC 6298's time-out sequence, scripted loss
/// patterns worked out by hand, and the geometric series of a one-segment message.
@Suite struct PacketLossTests {
    static let second = Nanoseconds.second

    /// RTO = max(1 s, 3 × RTT) after one sample; then 1, 2, 4, … s, bounded at 60 s.
    @Test func timeoutSequenceDoublesUpToTheBound() {
        let loss = TCPRetransmitLoss(rate: 0.01)
        let first = loss.firstTimeout(roundTrip: 100e6)          // 3 × 100 ms < 1 s
        #expect(first == Self.second)
        let sequence = (0..<9).map { TCPRetransmitLoss.timeout($0, first: first, maximum: loss.maximumTimeout) }
        #expect(sequence == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { $0 * Self.second })
        // EDGE's 550 ms round trip: 3 × 550 ms = 1.65 s, then 3.3 s, 6.6 s, …
        let edge = loss.firstTimeout(roundTrip: 550e6)
        #expect(edge == 1_650 * .millisecond)
        #expect(TCPRetransmitLoss.timeout(2, first: edge, maximum: loss.maximumTimeout) == 6_600 * .millisecond)
        // No overflow however many doublings: still the bound.
        #expect(TCPRetransmitLoss.timeout(200, first: edge, maximum: loss.maximumTimeout) == loss.maximumTimeout)
        let linux = TCPRetransmitLoss(rate: 0.01, maximumTimeout: 120 * Self.second)
        #expect(TCPRetransmitLoss.timeout(7, first: first, maximum: linux.maximumTimeout) == 120 * Self.second)
    }

    /// Segments: ceil(bytes / MSS), at least one.
    @Test func segmentsAreBytesOverTheSegmentSize() {
        let loss = TCPRetransmitLoss(rate: 0.01)
        #expect(loss.segments(bytes: 0) == 1)
        #expect(loss.segments(bytes: 400) == 1)
        #expect(loss.segments(bytes: 1460) == 1)
        #expect(loss.segments(bytes: 1461) == 2)
        #expect(loss.segments(bytes: 14_600) == 10)
    }

    /// Scripted patterns, round trip 100 ms (RTO 1 s): a lone segment lost twice waits 1 + 2 s;
    /// a segment with three after it is resent after one round trip (fast retransmit) and its
    /// second loss waits the 1 s time-out; one with only two after it waits the time-out.
    @Test func scriptedLossPatternsGiveExactDelays() {
        let loss = TCPRetransmitLoss(rate: 0.01)
        let rtt = 100e6, ms = Nanoseconds.millisecond
        #expect(loss.recovery(losses: [0], roundTrip: rtt) == SegmentRecovery(first: 0, all: 0))
        #expect(loss.recovery(losses: [2], roundTrip: rtt) == SegmentRecovery(first: 3 * Self.second, all: 3 * Self.second))
        #expect(loss.recovery(losses: [0, 1, 0, 0, 0], roundTrip: rtt) == SegmentRecovery(first: 0, all: 100 * ms))
        #expect(loss.recovery(losses: [0, 0, 1, 0, 0], roundTrip: rtt) == SegmentRecovery(first: 0, all: Self.second))
        #expect(loss.recovery(losses: [2, 0, 0, 0], roundTrip: rtt) == SegmentRecovery(first: 1_100 * ms, all: 1_100 * ms))
        // Recoveries overlap: the message is as late as its latest segment.
        #expect(loss.recovery(losses: [1, 0, 0, 0, 0, 3], roundTrip: rtt)
                == SegmentRecovery(first: 100 * ms, all: 7 * Self.second))
    }

    /// A one-segment message with loss rate p: lost at least k times with chance p^k, so
    /// P(extra ≥ 1 s) = p and the mean extra delay is Σ_k p^k · min(2^(k−1), 60) s, i.e.
    /// Σ_{k=1..6} p^k 2^(k−1) s + 60 s · p^7 / (1 − p) (the k-th wait reaches the 60 s bound from
    /// k = 7). p = 0.1: 0.1 + 0.02 + 0.004 + 0.0008 + 0.00016 + 0.000032 + 60 × 1e-7 / 0.9
    /// = 0.1249987 s.
    ///
    /// Tolerances from the sample size n = 200,000: the share's standard error is
    /// √(p(1−p)/n) = 6.7e-4, the mean's is σ/√n with σ² = E[X²] − E[X]² summed over the same
    /// law (σ ≈ 0.48 s, so 1.1 ms); both are checked to five standard errors.
    @Test func oneSegmentExtraDelayFollowsTheGeometricSeries() {
        let p = 0.1, n = 200_000
        let loss = TCPRetransmitLoss(rate: p)
        var rng = RandomStream(seed: 42, purpose: StreamPurpose("packet-loss-test"))
        var late = 0, sum = 0.0
        for _ in 0..<n {
            let d = loss.recoveryDelay(segments: 1, roundTrip: 100e6, &rng).all
            if d >= Self.second { late += 1 }
            sum += Double(d)
        }
        let share = Double(late) / Double(n)
        #expect(abs(share - p) <= 5 * (p * (1 - p) / Double(n)).squareRoot())
        var closedForm = 0.0
        for k in 1...6 { closedForm += pow(p, Double(k)) * Double(1 << (k - 1)) }
        closedForm += 60 * pow(p, 7) / (1 - p)
        #expect(abs(closedForm - 0.1249987) < 1e-6)
        #expect(abs(loss.meanOneSegmentDelay(roundTrip: 100e6) / 1e9 - closedForm) < 1e-9)
        // σ² from the law: P(K = k) = p^k (1 − p), the delay after k losses is the sum of k waits.
        var second = 0.0, total = 0.0
        for k in 1...30 {
            total += min(pow(2, Double(k - 1)), 60)
            second += pow(p, Double(k)) * (1 - p) * total * total
        }
        let sd = (second - closedForm * closedForm).squareRoot()
        let mean = sum / Double(n) / 1e9
        #expect(abs(mean - closedForm) <= 5 * sd / Double(n).squareRoot(), "mean \(mean) s, sd \(sd) s")
    }

    /// EDGE's time-out from its calibrated preset. Each direction is a mixture: 98% a lognormal
    /// body (σ 0.45), 2% a lognormal tail (σ 0.7); a lognormal's mean is its median · e^(σ²/2)
    /// (e^0.10125 = 1.10655, e^0.245 = 1.27762). Uplink: 0.98 · 280 · 1.10655 + 0.02 · 4,550 ·
    /// 1.27762 = 303.6 + 116.3 = 419.9 ms; downlink: 0.98 · 230 · 1.10655 + 0.02 · 3,750 · 1.27762
    /// = 249.4 + 95.8 = 345.2 ms; mean round trip 765.1 ms, so RTO = max(1 s, 3 × 765.1 ms)
    /// = 2.295 s (not 3 × 623 ms = 1.87 s, the mean of the lognormal preset the mixture replaced).
    /// Then the preset's own draws: the mean of n = 400,000 round trips within 5 standard errors
    /// (SD ≈ 1,323 ms, so 2.1 ms), and one-segment messages at 10% loss late on average by
    /// Σ_k 0.1^k · min(2.295 s · 2^(k−1), 60 s) = 229.5 + 45.9 + 9.2 + 1.8 + 0.4 + 0.1 + … ≈ 286.9 ms,
    /// the recovery's own draws within 5 standard errors.
    @Test func edgeTimeoutFollowsTheCalibratedPreset() throws {
        let edge = try #require(LinkPresets.named("edge"))
        func mixtureMean(_ d: Distribution) throws -> Double {
            guard case .lognormalMixture(let m) = d else { throw CancellationError() }
            return (1 - m.tailShare) * m.bodyMedian * DeterministicMath.exp(m.bodySigma * m.bodySigma / 2)
                + m.tailShare * m.tailMedian * DeterministicMath.exp(m.tailSigma * m.tailSigma / 2)
        }
        let up = try mixtureMean(edge.uplink), down = try mixtureMean(edge.downlink)
        #expect(abs(up / 1e6 - 419.9) < 0.05 && abs(down / 1e6 - 345.2) < 0.05)
        let roundTrip = up + down
        #expect(abs(roundTrip / 1e6 - 765.1) < 0.1)
        #expect(abs(edge.meanRoundTrip - roundTrip) < 1e-3)
        let loss = TCPRetransmitLoss(rate: 0.1)
        let first = loss.firstTimeout(roundTrip: edge.meanRoundTrip)
        #expect(first == Int64((3 * roundTrip).rounded(.up)))
        #expect(abs(Double(first) / 1e9 - 2.295) < 0.001)

        let n = 400_000
        var rng = RandomStream(seed: 38, purpose: StreamPurpose("edge-round-trip"))
        var sum = 0.0, sumSquares = 0.0, late = 0.0, lateSquares = 0.0
        for _ in 0..<n {
            let r = edge.uplink.sample(&rng) + edge.downlink.sample(&rng)
            sum += r
            sumSquares += r * r
            let d = Double(loss.recoveryDelay(segments: 1, roundTrip: edge.meanRoundTrip, &rng).all)
            late += d
            lateSquares += d * d
        }
        func standardError(_ sum: Double, _ squares: Double) -> Double {
            let mean = sum / Double(n)
            return ((squares / Double(n) - mean * mean) / Double(n)).squareRoot()
        }
        #expect(abs(sum / Double(n) - roundTrip) <= 5 * standardError(sum, sumSquares), "mean round trip \(sum / Double(n) / 1e6) ms")
        var series = 0.0
        for k in 1...30 { series += pow(0.1, Double(k)) * Double(TCPRetransmitLoss.timeout(k - 1, first: first, maximum: loss.maximumTimeout)) }
        #expect(abs(series / 1e6 - 286.9) < 0.05)
        #expect(abs(late / Double(n) - series) <= 5 * standardError(late, lateSquares), "mean added delay \(late / Double(n) / 1e6) ms")
    }
}

/// Loading `loss`, `connection` and `radio`: each kind from the registry, bad input named by its key path.
@Suite struct ConnectionModelLoaderTests {
    static func network(_ profile: String) -> String {
        #"{"network": {"profiles": [{"preset": "lte", "share": 1"# + profile + "}]}}"
    }

    @Test func loadsEachKind() throws {
        let text = Self.network(#", "loss": {"kind": "tcp-retransmit", "rate": 0.01}, "#
            + #""connection": {"kind": "keep-alive", "tls": "1.2", "dnsTtl": "5m", "sendReading": "after-setup"}, "#
            + #""radio": {"kind": "rrc", "promotion": "260ms", "tail": "11.6s"}"#)
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(text), file: "ok.json")
        #expect(s.links[0].loss?.summary == "TCP segments lost at 1%, MSS 1460 B, time-out from 1s doubling to 1m")
        #expect(s.links[0].connection?.summary == "keep-alive 1m15s, TLS 1.2, DNS cached 5m, send read once connected")
        #expect(s.links[0].radio?.summary == "radio idle after 11.6s, promotion constant 260ms")
        #expect(s.links[0].connection?.handshakeRoundTrips == 3)
        let plain = try ScenarioLoader().load(text: try ScenarioFixtures.variant(Self.network("")), file: "ok.json")
        #expect(!plain.links[0].modelsConnection)
        let keepAlive = try ScenarioLoader().load(text: try ScenarioFixtures.variant(Self.network(#", "connection": "keep-alive""#)),
                                                  file: "ok.json")
        #expect(keepAlive.links[0].connection as? KeepAliveConnection == KeepAliveConnection())
    }

    @Test func badInputNamesTheKeyPath() throws {
        let cases: [(String, String)] = [
            (#", "loss": {"kind": "tcp-retransmit", "rate": 0.7}"#,
             "bad.json: network.profiles[0].loss.rate: must be at most 0.5 (a link losing more than every other segment does not carry TCP); got 0.7"),
            (#", "loss": {"kind": "tcp-retransmit"}"#, "bad.json: network.profiles[0].loss.rate: missing required key"),
            (#", "connection": {"kind": "keep-alive", "tls": "1.1"}"#,
             "bad.json: network.profiles[0].connection.tls: unknown TLS version '1.1'; expected one of '1.3', '1.2', 'none'"),
            (#", "connection": {"kind": "keep-alive", "sendReading": "later"}"#,
             "bad.json: network.profiles[0].connection.sendReading: unknown send reading 'later'; expected 'before-setup' or 'after-setup'"),
            (#", "radio": {"kind": "rrc", "promotion": "260ms"}"#, "bad.json: network.profiles[0].radio.tail: missing required key"),
            (#", "radio": "lte""#,
             "bad.json: network.profiles[0].radio: unknown radio model 'lte'; expected one of 'rrc'"),
        ]
        for (profile, expected) in cases {
            let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(Self.network(profile)))
            #expect(error?.description == expected)
        }
        // The bound must be at least RFC 6298's 60 s.
        let short = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(
            Self.network(#", "loss": {"kind": "tcp-retransmit", "rate": 0.01, "maximumTimeout": "30s"}"#)))
        #expect(short?.description.hasPrefix("bad.json: network.profiles[0].loss.maximumTimeout: ") == true, "\(String(describing: short))")
    }
}

extension TCPRetransmitLoss {
    /// The mean extra delay of a one-segment message (no fast retransmit), ns, the known answer
    /// the tests hold the model to: the sum over k ≥ 1 of P(lost at least k times) × the k-th
    /// wait = Σ rate^k · min(RTO·2^(k−1), max).
    func meanOneSegmentDelay(roundTrip: Double) -> Double {
        let first = firstTimeout(roundTrip: roundTrip)
        var sum = 0.0, p = 1.0
        for k in 1...Self.maximumLosses {
            p *= rate
            sum += p * Double(Self.timeout(k - 1, first: first, maximum: maximumTimeout))
        }
        return sum
    }
}
