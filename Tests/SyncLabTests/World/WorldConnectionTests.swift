import Testing
@testable import SyncLab
import SyncLabKernel

/// Cold connections, the radio's tail and lost segments through the whole world, with constant
/// delays: every figure below is derived by hand in its comment.
///
/// The link: uplink x = 40 ms, downlink y = 60 ms, no request body (upload u = 0), the response
/// at 400 GB/s (transfer τ: the file's bytes at that rate, 34 ns), server time = true time, timestamps to the nanosecond, taken
/// at the request's start; service time s. The player's first fetch is at its visit, 5 s in.
@Suite struct WorldConnectionTests {
    static let x = WorldExactTests.uplink, y = WorldExactTests.downlink
    static let promotion = 260 * Nanoseconds.millisecond

    static func scenario(estimator: any SyncEstimator, connection: KeepAliveConnection?, radio: Bool,
                         service: Nanoseconds = 20 * .millisecond) -> Scenario {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: 30 * .minute)
        s.client.estimator = estimator
        s.requestBytes = 0
        s.server.timestampResolution = 1
        s.server.serviceTime = .constant(Double(service))
        s.links[0].connection = connection
        if radio { s.links[0].radio = RRCRadio(promotion: .constant(Double(promotion)), tail: 11_600 * .millisecond) }
        return s
    }

    /// The response's transfer: the first store file's bytes at 400 GB/s (every file of the
    /// exact scenario has the same size: items are all alike).
    static let tau: Nanoseconds = {
        let world = World(scenario: scenario(estimator: UploadCompleteEstimator(), connection: nil, radio: false))
        return LinkProfile.transferTime(bytes: world.server.store.files[0].responseBytes, bytesPerSecond: 400e9)
    }()

    /// Runs until `until` and returns player 0 and its anchor's error at its last sync.
    static func run(_ s: Scenario, until: Nanoseconds) -> PlayerSnapshot {
        var world = World(scenario: s)
        world.run(until: SimTime(ns: until))
        return world.player(0)
    }

    /// A cold first request on LTE with the radio idle, TLS 1.3, DNS not cached:
    /// set-up C = promotion + (DNS + TCP + TLS) round trips = 260 ms + 3 × 100 ms = 560 ms.
    /// With S the send reading's instant, the request leaves at S' = S + C (before-setup) or S
    /// (after-setup), the server stamps A = S' + x, the response is in at D = A + s + y + τ.
    ///
    /// - Seeds' estimator (timestamp + D − upload complete, upload complete = S'): A + D − S' = D + x:
    ///   error +x = +40 ms, whatever the set-up and the reading.
    /// - Cristian (timestamp + (D − S)/2): error = (D − S)/2 − (s + y + τ)
    ///   = (C' + x − s − y − τ)/2, C' = C before set-up, 0 after.
    /// - NTP (θ = ((A − S) + (A + s − D))/2): error = (C' + x − y − τ)/2: half the asymmetry
    ///   (x − y)/2 = −10 ms when the reading follows the set-up (less τ/2), and C/2 more before.
    @Test(arguments: [false, true])
    func coldRequestErrorsAsDerived(afterSetup: Bool) {
        let c0 = 560 * Nanoseconds.millisecond
        let cPrime = afterSetup ? 0 : c0
        let s = 20 * Nanoseconds.millisecond, x = Self.x, y = Self.y, tau = Self.tau
        let connection = KeepAliveConnection(readsSendWhenConnected: afterSetup)
        let cases: [(any SyncEstimator, Int64)] = [
            (UploadCompleteEstimator(), x),
            (CristianEstimator(), (cPrime + x + s + y + tau) / 2 - (s + y + tau)),
            (NTPEstimator(window: 1), floorDiv(cPrime + x - y - tau, 2)),
        ]
        for (estimator, expected) in cases {
            let c = Self.run(Self.scenario(estimator: estimator, connection: connection, radio: true), until: 30 * .second)
            #expect(c.hasSync)
            #expect(c.anchorError == expected, "\(estimator.name), after set-up \(afterSetup)")
            // The request left after the set-up: upload complete is 5 s + C in.
            #expect(c.request.uploadCompleteAt.ns == 5 * .second + c0)
            #expect(c.request.sentAt.ns == 5 * .second + (afterSetup ? c0 : 0))
        }
    }

    /// The refetch 6 to 9 minutes later finds the connection and the radio as the models say:
    /// with a keep-alive and a tail longer than the gap it is warm (C = 0: NTP's error is half
    /// the asymmetry, −10 ms less τ/2); with nginx's 75 s and LTE's 11.6 s tail it is cold again
    /// but the DNS answer, cached for 1 h, is not looked up (C = 260 ms + 2 × 100 ms).
    @Test(arguments: [true, false])
    func refetchIsWarmOrColdAsTheTimersSay(warm: Bool) {
        let hour = Nanoseconds.hour
        let connection = warm ? KeepAliveConnection(idleTimeout: hour, dnsTTL: hour)
            : KeepAliveConnection(dnsTTL: hour)
        var s = Self.scenario(estimator: NTPEstimator(window: 1), connection: connection, radio: true)
        if warm { s.links[0].radio = RRCRadio(promotion: .constant(Double(Self.promotion)), tail: hour) }
        let c = Self.run(s, until: 10 * .minute)
        #expect(c.anchorSetAt.ns > 5 * .minute, "the refetch happened")
        let setup = warm ? 0 : Self.promotion + 2 * (Self.x + Self.y)
        #expect(c.anchorError == floorDiv(setup + Self.x - Self.y - Self.tau, 2))
        #expect(c.request.uploadCompleteAt.ns - c.request.sentAt.ns == setup)
    }

    /// The radio alone (no connection model): a request after the tail waits for the promotion,
    /// and the send reading is taken when the app asks, so the seeds' estimator does not see it
    /// (upload complete follows the promotion) while NTP does, by half of it.
    @Test func radioPromotionAloneLandsInTheMeasuredRoundTrip() {
        let ntp = Self.run(Self.scenario(estimator: NTPEstimator(window: 1), connection: nil, radio: true), until: 30 * .second)
        #expect(ntp.anchorError == floorDiv(Self.promotion + Self.x - Self.y - Self.tau, 2))
        let seeds = Self.run(Self.scenario(estimator: UploadCompleteEstimator(), connection: nil, radio: true), until: 30 * .second)
        #expect(seeds.anchorError == Self.x)
    }

    /// Lost segments through the world: the exchange is late by exactly what the request's and
    /// the response's keyed loss streams give (`segmentRecovery`), and stays deterministic.
    @Test func lostSegmentsMakeTheResponseLateByTheirRecovery() {
        var s = Self.scenario(estimator: UploadCompleteEstimator(), connection: nil, radio: false, service: 0)
        let loss = TCPRetransmitLoss(rate: 0.5)
        s.links[0].loss = loss
        s.links[0].timeout = Nanoseconds.hour   // however late, the exchange completes
        var world = World(scenario: s)
        world.run(until: SimTime(ns: 2 * .minute))
        let c = world.player(0)
        #expect(c.hasSync)
        // The first request's key: player 0, fetch epoch 1.
        let key = UInt64(1)
        let rtt = Double(Self.x + Self.y)
        var up = RandomStream(seed: s.seed, purpose: World.requestLossPurpose, entity: key)
        var down = RandomStream(seed: s.seed, purpose: World.responseLossPurpose, entity: key)
        let bytes = world.server.store.files[Int(c.request.file)].responseBytes
        let late = loss.recoveryDelay(segments: 1, roundTrip: rtt, &up).all
            + loss.recoveryDelay(segments: loss.segments(bytes: bytes), roundTrip: rtt, &down).all
        let transfer = LinkProfile.transferTime(bytes: bytes, bytesPerSecond: 400e9)
        // Done = sent + x + y + transfer + late; the seeds' error is x plus the request's lateness.
        #expect(c.anchorSetAt.ns - c.request.sentAt.ns == Self.x + Self.y + transfer + late)
        #expect(late > 0, "rate 0.5 loses something in this draw")
    }

    /// With every model on, a run is the same for any thread count: a player's set-up and loss
    /// draws are keyed to it and its request, and its connection state is its own. 4,000 players
    /// on 2 threads are two shards of 2,000.
    @Test func runsAreIdenticalForAnyThreadCount() throws {
        var s = try WorldDelayProcessTests.scenario(nil, players: 4_000)
        for i in s.links.indices {
            s.links[i].loss = TCPRetransmitLoss(rate: 0.02)
            s.links[i].connection = KeepAliveConnection(tls: .tls12)
            s.links[i].radio = RRCRadio(promotion: .uniform(min: 200e6, max: 400e6), tail: 11_600 * .millisecond)
        }
        let one = Simulation.run(s, threads: 1)
        let two = Simulation.run(s, threads: 2)
        #expect(two.shards == 2, "the test means to split the players")
        #expect(DeterminismTests.fingerprint(two).dropLast() == DeterminismTests.fingerprint(one).dropLast())
        #expect(two.requestsServed == one.requestsServed && two.bytesServed == one.bytesServed)
        // And the models change the run.
        let plain = Simulation.run(try WorldDelayProcessTests.scenario(nil, players: 4_000), threads: 1)
        #expect(DeterminismTests.fingerprint(plain) != DeterminismTests.fingerprint(one))
    }
}

/// Network activity in the warm-up keeps its own (negative) time: the keep-alive, the DNS cache
/// and the radio's tail read the true gap since it, not the gap since the measured window's start.
/// Many players, each with its own 6–9 min refetch draws, on the constant links above.
@Suite struct WorldWarmupActivityTests {
    /// `players` viewing without a break through a `warmup` and an hour measured, their first
    /// fetch 5 s into the warm-up.
    static func scenario(estimator: any SyncEstimator, connection: KeepAliveConnection?, radio: RRCRadio,
                         warmup: Nanoseconds, players: Int) -> Scenario {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: Nanoseconds.hour, players: players)
        s.warmup = warmup
        s.client.estimator = estimator
        s.requestBytes = 0
        s.server.timestampResolution = 1
        s.links[0].connection = connection
        s.links[0].radio = radio
        return s
    }

    /// nginx's 75 s keep-alive, TLS 1.3, no DNS cache, LTE's radio (260 ms, tail 11.6 s): a
    /// refetch 6–9 min after the last response finds the connection closed and the radio idle, so
    /// every fetch pays C = 260 ms + (DNS + TCP + TLS) 3 × 100 ms = 560 ms before its send
    /// reading's round trip (before-setup). Cristian's error (WorldConnectionTests) is
    /// (C + x − s − y − τ)/2 with s = 0: (560 + 40 − 60)/2 ms − τ/2 = 270 ms − τ/2 on every fetch
    /// of the window, whatever the warm-up. Had warm-up activity read as "at t = 0", a refetch in
    /// the window's first 75 s would find the connection warm (−10 ms, or 120 ms after the tail).
    @Test(arguments: [Nanoseconds(0), 5 * .minute, 30 * .minute, 2 * .hour])
    func everyColdRefetchErrsByHalfItsSetup(warmup: Nanoseconds) {
        let radio = RRCRadio(promotion: .constant(Double(WorldConnectionTests.promotion)), tail: 11_600 * .millisecond)
        let s = Self.scenario(estimator: CristianEstimator(), connection: KeepAliveConnection(), radio: radio,
                              warmup: warmup, players: 300)
        let r = Simulation.run(s, threads: 1)
        let n = r.fetchSyncError.count
        let expected = Double(270 * Nanoseconds.millisecond - WorldConnectionTests.tau / 2)
        #expect(n > 2_000, "300 players × an hour of 6–9 min refetches")
        #expect(r.fetchSyncErrorOver250ms == n, "every fetch is cold: \(n - r.fetchSyncErrorOver250ms) are not")
        // Signed sums are kept in whole µs: every fetch's error truncated to the µs below it.
        #expect(abs((r.fetchSyncError.meanSigned ?? 0) - expected) <= 1_000)
        #expect((r.fetchSyncError.quantile(1) ?? .max) <= 271 * .millisecond)
    }

    /// A radio alone (no connection model) with promotion 1 s and tail 8 min, refetches due
    /// G ~ U(6, 9) min after the last response, fired the instant they fall due (immediate
    /// ticks; a drift-free ns clock): the last network activity before a refetch is the previous
    /// response, so the refetch finds the radio idle iff G > 8 min, with probability
    /// (9 − 8)/(9 − 6) = 1/3 — in the window's first minutes too, whatever the warm-up did.
    /// Cristian's error tells a promoted fetch: (1 s + x − y − τ)/2 ≈ 490 ms, against −10 ms.
    /// Each refetch is an independent draw, so the share's SD is √(p(1 − p)/n); the tolerance
    /// is 4 SD. (Warm-up activity read as "at t = 0" gives ≈ 0.29 here: the first refetch of
    /// each of ~8 per player in the hour is never promoted.)
    @Test func aTailShorterThanTheRefetchGapPromotesOneThird() {
        let radio = RRCRadio(promotion: .constant(Double(Nanoseconds.second)), tail: 8 * .minute)
        var s = Self.scenario(estimator: CristianEstimator(), connection: nil, radio: radio,
                              warmup: 30 * .minute, players: 1_000)
        s.client.tick = ImmediateTick()
        let r = Simulation.run(s, threads: 1)
        let n = Double(r.fetchSyncError.count)
        let p = 1.0 / 3
        let share = Double(r.fetchSyncErrorOver250ms) / n
        #expect(n > 7_000)
        #expect(abs(share - p) <= 4 * (p * (1 - p) / n).squareRoot(), "promoted share \(share) of \(n) refetches")
    }
}
