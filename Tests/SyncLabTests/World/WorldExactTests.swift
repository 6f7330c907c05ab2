import Testing
@testable import SyncLab
import SyncLabKernel

/// End-to-end cases through the whole world with constant latencies, whose results are derived
/// by hand: the seeds' estimator, the server's whole-second timestamp, and the standby pause.
@Suite struct WorldExactTests {
    static let uplink: Int64 = 40 * .millisecond
    static let downlink: Int64 = 60 * .millisecond

    /// One player, perfect constant network, no drift, no wall offset: everything is exact.
    static func scenario(clock: any DeviceClock, duration: Nanoseconds, sessions: Double = 1,
                         viewing: Nanoseconds = 10 * .hour, pause: Nanoseconds = 10 * .minute,
                         sleepDelay: Nanoseconds = 2 * .minute, players: Int = 1) -> Scenario {
        let link = LinkProfile(name: "constant", share: 1, uplink: .constant(Double(uplink)),
                               downlink: .constant(Double(downlink)), bandwidth: .constant(400e9),
                               failure: 0, timeout: 30 * .second)
        var server = ServerConfig()
        server.serviceTime = .constant(0)
        var population = PopulationConfig(players: players)
        population.visitGap = .constant(Double(5 * Int64.second))
        population.sessionsPerVisit = .constant(sessions)
        population.viewing = .constant(Double(viewing))
        population.breakDuration = .constant(Double(pause))
        population.lockShare = 1
        population.sleepDelay = .constant(Double(sleepDelay))
        return Scenario(name: "exact", duration: duration, warmup: 0, server: server, links: [link],
                        devices: DeviceConfig(driftPPM: .constant(0), wallClockOffset: .constant(0),
                                              uptimeAtStart: .constant(Double(Nanoseconds.hour))),
                        client: ClientDesign(clock: clock), population: population)
    }

    /// The seeds' estimate runs ahead by the uplink delay and behind by the timestamp's truncation:
    /// error = uplink − ((epoch + upload complete + uplink) mod 1 s), exactly.
    @Test func seedsEstimatorErrorIsUplinkMinusTruncation() {
        let s = Self.scenario(clock: ContinuousDeviceClock(), duration: 30 * .minute)
        var world = World(scenario: s)
        _ = world.run()
        let c = world.player(0)
        #expect(c.hasSync)
        #expect(!c.fetchInFlight)
        // The server stamps REQUEST_TIME when the request arrives: one uplink after upload complete.
        let arrivalUnix = s.epochUnix + c.request.uploadCompleteAt.ns + Self.uplink
        let expectedStamp = floorTo(arrivalUnix, .second) - s.epochUnix
        #expect(c.request.timestamp == expectedStamp)
        // With a perfect clock the anchor's error is the same at every instant.
        let downloadComplete = c.anchor.reading.ns + c.device.bootTime.ns
        let error = c.anchor.serverTime - downloadComplete
        let truncation = ((arrivalUnix % .second) + .second) % .second
        #expect(error == Self.uplink - truncation)
        #expect(error == c.request.timestamp - c.request.uploadCompleteAt.ns)
        // Request bytes at 400 GB/s take 1 ns to leave the device (400 B, rounded up).
        #expect(c.request.uploadCompleteAt.ns - c.request.sentAt.ns == 1)
    }

    /// With the suspending clock the displayed time falls behind by exactly the deep-sleep time;
    /// with the continuous clock it does not move at all.
    @Test(arguments: [true, false])
    func standbyPausesOnlyTheSuspendingClock(suspending: Bool) {
        // Visit at 5 s, views 60 s, locks the phone for 10 min; deep sleep starts 2 min after the
        // screen goes off, so the device sleeps exactly 8 min. The run ends 30 s after the return,
        // well before the 6-9 min refetch is due on either clock.
        let viewing: Int64 = 60 * .second, pause: Int64 = 10 * .minute
        let end = 5 * Int64.second + viewing + pause + 30 * .second
        let clock: any DeviceClock = suspending ? SuspendingDeviceClock() : ContinuousDeviceClock()
        let s = Self.scenario(clock: clock, duration: end, sessions: 2, viewing: viewing, pause: pause)
        var world = World(scenario: s)
        _ = world.run()
        let c = world.player(0)
        #expect(c.phase == .viewing)
        // Asleep from the start until the visit at 5 s, then 8 min in the break.
        #expect(c.device.sleptTotal == 5 * .second + 8 * .minute)
        let syncError = c.request.timestamp - c.request.uploadCompleteAt.ns           // error right after the fetch
        let now = SimTime(ns: end - 1)
        let estimate = c.anchor.serverTime(at: clock.reading(c.device, at: now, world.context))
        #expect(estimate - now.ns == syncError - (suspending ? 8 * .minute : 0))
    }

    /// Every displayed transition is shown at a tick whose displayed value has reached it: with a
    /// perfect clock, ticks every 1 s from the session start, the show offset of a transition is in
    /// [−error, 1 s − error) where error is the sync error, and the recorded offsets say so.
    @Test func transitionsShownAtFirstTickReachingThem() {
        let s = Self.scenario(clock: ContinuousDeviceClock(), duration: 40 * .minute)
        var world = World(scenario: s)
        let result = world.run()
        #expect(result.transitions.count > 10)
        for row in result.transitions {
            #expect(row.viewers == 1)
            // error ∈ (uplink − 1 s, uplink]; show offset = tick delay − error ∈ [−uplink, 2 s − uplink).
            #expect(row.earliest >= -Self.uplink)
            #expect(row.earliest < 2 * .second - Self.uplink)
        }
    }

    /// The request's bytes take their own bandwidth draw and the response its own; a request
    /// without a body leaves whole at once and draws none. With constant delays and service time
    /// (which draw nothing) and a uniform bandwidth, the first fetch advances the player's network
    /// stream by two draws, or by one without request bytes.
    @Test(arguments: [0, 400])
    func aRequestWithoutABodyDrawsNoBandwidth(requestBytes: Int) {
        var s = Self.scenario(clock: ContinuousDeviceClock(), duration: 30 * .minute)
        s.links[0].bandwidth = .uniform(min: 50e3, max: 2e6)
        s.requestBytes = requestBytes
        var world = World(scenario: s)
        var expected = world.clients[0].networkRNG
        // The visit is at 5 s and the refetch 6–9 min after the first load: one fetch by 1 min.
        world.run(until: SimTime(ns: Nanoseconds.minute))
        let c = world.player(0)
        #expect(c.hasSync && !c.fetchInFlight)
        if requestBytes > 0 {
            let requestRate = 50e3 + (2e6 - 50e3) * expected.unit()
            #expect(c.request.uploadCompleteAt.ns - c.request.sentAt.ns
                    == LinkProfile.transferTime(bytes: requestBytes, bytesPerSecond: requestRate))
        } else {
            #expect(c.request.uploadCompleteAt == c.request.sentAt)
        }
        _ = expected.unit()   // the response's rate
        #expect(c.networkRNG == expected)
    }
}

/// The cross-player figures end to end, on a case worked out by hand.
///
/// Every player views all run long on a perfect clock, the server stamps microseconds when the
/// request arrives, and the UI flips at the instant its estimate reaches the change (aligned
/// ticks). The seeds' estimate is stamp + (download complete − upload complete) = the true time
/// plus the uplink delay, so each player shows a change one uplink early: −40 ms on link A,
/// −640 ms on link B (to within the microsecond stamp and the nanoseconds the bytes take). With
/// a players on A and b on B a change's worst pair is 600 ms, the best 500 ms window holds
/// max(a, b), the window ±250 ms around the true instant holds a, and a(a − 1)/2 + b(b − 1)/2
/// of its pairs are within 500 ms.
@Suite struct WorldCrossPlayerExactTests {
    @Test func twoConstantLinksGiveTwoClusters() {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: 40 * .minute, players: 200)
        let ms = Nanoseconds.millisecond
        func link(_ name: String, uplink: Nanoseconds) -> LinkProfile {
            LinkProfile(name: name, share: 0.5, uplink: .constant(Double(uplink)), downlink: .constant(Double(60 * ms)),
                        bandwidth: .constant(400e9), failure: 0, timeout: 30 * .second)
        }
        s.links = [link("a", uplink: 40 * ms), link("b", uplink: 640 * ms)]
        s.server.timestampResolution = .microsecond
        s.client.tick = AlignedTick()
        let result = Simulation.run(s, threads: 1)
        let rows = result.gapTransitions
        #expect(rows.count > 100)
        let tolerance: Int64 = 2 * .microsecond
        var both = 0
        for row in rows {
            let a = row.inCentredWindow, b = row.viewers - a
            #expect(row.viewers == 200)
            #expect(row.inBestWindow == max(a, b))
            #expect(row.pairsWithin == Double(a * (a - 1) / 2 + b * (b - 1) / 2))
            if a > 0 { #expect(abs(row.latest + 40 * ms) <= tolerance) }
            if b > 0 { #expect(abs(row.earliest + 640 * ms) <= tolerance) }
            if a > 0 && b > 0 {
                both += 1
                #expect(abs(row.gap - 600 * ms) <= 2 * tolerance)
            }
        }
        #expect(both == rows.count)
        // About half the players on each link (binomial, 200 players: 4 standard deviations).
        let centred = (result.figures["viewersInCentred500msShare"] ?? nil) ?? 0
        #expect(abs(centred - 0.5) < 4 * (0.25 / 200).squareRoot())
        #expect(result.figures["transitionsWithin500msShare"] == 0)
    }
}
