import Testing
@testable import SyncLab
import SyncLabKernel

/// The client design alternatives through the whole world, with constant latencies where the
/// result can be derived by hand.
@Suite struct WorldClientDesignTests {
    static let uplink: Int64 = 40 * .millisecond
    static let downlink: Int64 = 60 * .millisecond
    static let service: Int64 = 10 * .millisecond

    /// Constant network and service, devices with constant drift, players viewing long sessions.
    static func scenario(_ design: ClientDesign, players: Int = 10, duration: Nanoseconds = 2 * .hour,
                         stamp: Nanoseconds = .second, driftPPM: Double = 0, sessions: Double = 1,
                         viewing: Nanoseconds = 10 * .hour, failure: Double = 0,
                         uplink: Distribution? = nil) -> Scenario {
        let link = LinkProfile(name: "constant", share: 1, uplink: uplink ?? .constant(Double(Self.uplink)),
                               downlink: .constant(Double(Self.downlink)), bandwidth: .constant(400e9),
                               failure: failure, timeout: 30 * .second)
        var server = ServerConfig()
        server.serviceTime = .constant(Double(Self.service))
        server.timestampResolution = stamp
        var population = PopulationConfig(players: players)
        population.visitGap = .uniform(min: 1e9, max: 60e9)
        population.sessionsPerVisit = .constant(sessions)
        population.viewing = .constant(Double(viewing))
        population.breakDuration = .constant(Double(10 * Nanoseconds.minute))
        population.lockShare = 1
        population.sleepDelay = .constant(Double(2 * Nanoseconds.minute))
        return Scenario(name: "client-design", duration: duration, warmup: 0, server: server, links: [link],
                        devices: DeviceConfig(driftPPM: .constant(driftPPM), wallClockOffset: .constant(0),
                                              uptimeAtStart: .constant(Double(Nanoseconds.hour))),
                        client: design, population: population)
    }

    static let clocks: [any DeviceClock] = [ContinuousDeviceClock(), BootTimeUptimeClock(resolution: .second),
                                            BootTimeUptimeClock(resolution: .microsecond), WallClock()]
    static let estimators: [any SyncEstimator] = [UploadCompleteEstimator(), CristianEstimator(), NTPEstimator(window: 4)]

    /// Constant delays, drift within what the client allows (±50 of 100 ppm), clocks that keep
    /// counting in standby: the truth is inside the claimed bound at every sample, for every
    /// estimator and clock, with whole-second and microsecond stamps.
    @Test(arguments: 0..<3, 0..<4)
    func boundCoversTheTruthWithConstantDelays(_ e: Int, _ k: Int) {
        for (stamp, drift) in [(Int64.second, 50.0), (Int64.microsecond, -50.0)] {
            let s = Self.scenario(ClientDesign(clock: Self.clocks[k], estimator: Self.estimators[e]), stamp: stamp,
                                  driftPPM: drift, sessions: 3, viewing: 20 * .minute)
            let r = Simulation.run(s, threads: 1)
            #expect(r.bounds.samples > 500)
            #expect(r.bounds.inside == r.bounds.samples, "\(Self.estimators[e].name) on \(Self.clocks[k].name), stamp \(stamp)")
            #expect(r.figures["boundCoverageShare"] == 1.0)
        }
    }

    /// The suspending clock stops in deep sleep, which no bound from the exchange can know: after
    /// a locked break the truth falls outside, and the coverage says so.
    @Test func pausingClockBreaksTheBound() {
        let s = Self.scenario(ClientDesign(clock: SuspendingDeviceClock(), estimator: CristianEstimator()),
                              sessions: 3, viewing: 20 * .minute)
        let r = Simulation.run(s, threads: 1)
        #expect(r.bounds.samples > 500)
        #expect(r.bounds.inside < r.bounds.samples)
        #expect((r.bounds.share ?? 1) < 0.99)
    }

    /// NTP in the world: the response leaves one service time after the request starts
    /// (`request.leftAt`), and with microsecond stamps the estimate errs by half the asymmetry,
    /// (40 − 60)/2 = −10 ms, give or take the stamps' truncation and the nanoseconds the bytes take.
    @Test func ntpErrsByHalfTheAsymmetry() {
        let s = Self.scenario(ClientDesign(clock: ContinuousDeviceClock(), estimator: NTPEstimator()), players: 1,
                              duration: 30 * .minute, stamp: .microsecond)
        var world = World(scenario: s)
        _ = world.run()
        let c = world.player(0)
        #expect(c.hasSync)
        #expect(c.request.leftAt - (c.request.uploadCompleteAt + Self.uplink) == Self.service)
        let downloadComplete = c.anchor.reading.ns + c.device.bootTime.ns    // perfect continuous clock
        let error = c.anchor.serverTime - downloadComplete
        #expect(error <= -10 * .millisecond + 1 && error >= -10 * .millisecond - 2 * .microsecond)
    }

    /// Best of n: every probe is a request the server serves, rounds are whole, and the sync
    /// comes from the probe with the smallest round trip (the earlier on a tie).
    @Test func probesAreRealRequestsInWholeRounds() {
        var design = ClientDesign(clock: ContinuousDeviceClock(), estimator: CristianEstimator())
        design.probes = 3
        let s = Self.scenario(design, players: 5, duration: 40 * .minute,
                              uplink: .uniform(min: 10e6, max: 500e6))
        let r = Simulation.run(s, threads: 1)
        #expect(r.requestsSent > 0)
        #expect(r.requestsSent % 3 == 0)
        #expect(r.responses == r.requestsSent)
        #expect(r.requestsServed == r.requestsSent)
    }

    @Test func probeRoundKeepsTheSmallestRoundTrip() {
        var design = ClientDesign(clock: ContinuousDeviceClock())
        design.probes = 3
        var world = World(scenario: Self.scenario(design, players: 1))
        #expect(world.memory.layout.probeWords == ProbeExchange.words)
        func probe(_ sent: Int64, _ rtt: Int64) -> ProbeExchange {
            ProbeExchange(sentAt: SimTime(ns: sent), uploadCompleteAt: SimTime(ns: sent + 1), doneAt: SimTime(ns: sent + rtt),
                          timestamp: sent / 2, transmit: sent / 2 + 5, arrivedAt: SimTime(ns: sent + 40),
                          leftAt: SimTime(ns: sent + 45), exactStamp: sent / 2 + 3, serverOffset: 7)
        }
        let a = probe(0, 300), b = probe(1_000, 120), c = probe(2_000, 120)
        #expect(world.probeRound(0, a) == nil)
        #expect(world.clients[0].probesDone == 1)
        #expect(world.probeRound(0, b) == nil)
        #expect(world.probeRound(0, c).map(\.best) == b)          // tie with b: the earlier stays
        #expect(world.clients[0].probesDone == 0)
        // The next round starts afresh.
        #expect(world.probeRound(0, c) == nil)
        #expect(world.probeRound(0, a) == nil)
        #expect(world.probeRound(0, b).map(\.best) == c)
    }

    /// An estimator that reads every probe: the world keeps the round's three exchanges (27
    /// words), and hands them, read with the design clock, to `estimate(probes:best:…)` with the
    /// index of the smallest round trip. Probes as in `EveryProbeTests` (A: 20 ms up, 80 ms down;
    /// B: 30/30; C: 10/20), on a continuous clock that reads true time + 1 h (booted 1 h before
    /// the start, no drift): median-delay anchors on B, best-probe NTP on C (index 2).
    @Test func everyProbeOfARoundReachesTheEstimator() {
        var design = ClientDesign(clock: ContinuousDeviceClock(), estimator: MedianDelayEstimator())
        design.probes = 3
        var world = World(scenario: Self.scenario(design, players: 1))
        #expect(world.memory.layout.probeWords == 3 * ProbeExchange.words)
        let ms = Nanoseconds.millisecond
        func probe(_ sent: Int64, up: Int64, down: Int64) -> ProbeExchange {
            ProbeExchange(sentAt: SimTime(ns: sent), uploadCompleteAt: SimTime(ns: sent), doneAt: SimTime(ns: sent + up + down),
                          timestamp: sent + up, transmit: sent + up, arrivedAt: SimTime(ns: sent + up),
                          leftAt: SimTime(ns: sent + up), exactStamp: sent + up, serverOffset: 0)
        }
        let a = probe(0, up: 20 * ms, down: 80 * ms), b = probe(1_000 * ms, up: 30 * ms, down: 30 * ms)
        let c = probe(2_000 * ms, up: 10 * ms, down: 20 * ms)
        #expect(world.probeRound(0, a) == nil)
        #expect(world.probeRound(0, b) == nil)
        let round = world.probeRound(0, c)
        #expect(round?.best == c && round?.index == 2)
        let end = SimTime(ns: 2_030 * ms)
        let (s, _) = world.designSync(world.clients[0].device, ShadowExchange(c), at: end, world.design.clocks, server: 0)
        let e = world.syncEstimate(0, s, best: 2, at: end, world.design.clocks)
        // B read with the clock: T1 = 1 h + 1 s, T4 = 1 h + 1.06 s, stamps 1.03 s: θ = −1 h, so
        // the anchor is server time 1.06 s at the reading 1 h + 1.06 s, exact.
        #expect(e.anchor == SyncAnchor(serverTime: 1_060 * ms, reading: ClockReading(ns: .hour + 1_060 * ms)))
        // Best-probe NTP on the same round: C, 5 ms behind.
        #expect(NTPEstimator().anchor(for: s) == SyncAnchor(serverTime: 2_025 * ms, reading: ClockReading(ns: .hour + 2_030 * ms)))
    }

    /// End to end with drawn uplinks (10–500 ms): with one probe per sync the median of one is
    /// that probe, so median-delay and best-probe NTP give byte-identical runs; with three
    /// probes they pick different probes and the error figures part.
    @Test(arguments: [1, 3])
    func medianDelayAgainstBestProbeEndToEnd(probes: Int) {
        func run(_ estimator: any SyncEstimator) -> RunResult {
            var design = ClientDesign(clock: ContinuousDeviceClock(), estimator: estimator)
            design.probes = probes
            return Simulation.run(Self.scenario(design, players: 20, duration: 40 * .minute, stamp: .microsecond,
                                                uplink: .uniform(min: 10e6, max: 500e6)), threads: 1)
        }
        let median = run(MedianDelayEstimator()), best = run(NTPEstimator(window: 1))
        #expect(median.requestsSent == best.requestsSent)
        #expect(median.requestsSent > 0 && median.requestsSent % UInt64(probes) == 0)
        let p50 = "estimateErrorMs.p50"
        if probes == 1 {
            #expect(median.figures[p50]! == best.figures[p50]!)
            #expect(median.estimateError == best.estimateError)
        } else {
            // NTP errs by (up − down)/2 with 60 ms down: the smallest round trip has the smallest
            // uplink and so the smallest error; the median's uplink, and error, is larger.
            #expect(median.estimateError != best.estimateError)
            #expect(median.figures[p50]!! > best.figures[p50]!!)
        }
    }

    /// Timers run on any of the four clocks, any period: a transition is shown at the first tick
    /// whose displayed time has reached it, so its show offset is −error plus less than one tick
    /// period (a 1 s clock can only tick on its own whole seconds: period max(period, resolution)).
    @Test(arguments: 0..<4)
    func timerTicksOnEveryClock(_ k: Int) {
        let tickClock = Self.clocks[k]
        let period: Int64 = 250 * .millisecond
        let design = ClientDesign(clock: ContinuousDeviceClock(), tick: TimerTick(period: period, clock: tickClock))
        let r = Simulation.run(Self.scenario(design, players: 3, duration: 40 * .minute), threads: 1)
        #expect(r.transitions.count > 10)
        // Seeds' estimator, perfect clocks: error ∈ (uplink − 1 s, uplink].
        let step = max(period, tickClock.resolution)
        for row in r.transitions {
            #expect(row.earliest >= -Self.uplink)
            #expect(row.latest < .second - Self.uplink + step + tickClock.resolution, "\(tickClock.name)")
        }
    }

    /// Aligned ticks show each transition exactly when the estimate reaches it: offset = −error,
    /// and what is on screen is the estimate itself.
    @Test func alignedTickFlipsOnTheEstimate() {
        let design = ClientDesign(clock: ContinuousDeviceClock(), tick: AlignedTick())
        let r = Simulation.run(Self.scenario(design, players: 3, duration: 40 * .minute), threads: 1)
        #expect(r.transitions.count > 10)
        for row in r.transitions {
            #expect(row.earliest >= -Self.uplink && row.latest < .second - Self.uplink)
        }
        #expect(r.clientError == r.estimateError)
    }

    /// A display link shows each transition within one frame of the estimate.
    @Test func displayLinkShowsWithinOneFrame() {
        let design = ClientDesign(clock: ContinuousDeviceClock(), tick: DisplayLinkTick())
        let r = Simulation.run(Self.scenario(design, players: 3, duration: 40 * .minute), threads: 1)
        #expect(r.transitions.count > 10)
        for row in r.transitions {
            #expect(row.earliest >= -Self.uplink && row.latest < .second - Self.uplink + 16_666_668)
        }
    }

    /// Refetches aligned to publication reach the server in the seconds after each publication:
    /// publications at :09.629 past each unix minute in server time (epoch …:00.371, lag 10 s), the
    /// offset uniform 0–30 s, the estimate up to 1 s behind (whole-second stamps) and the 40 ms
    /// uplink: unix second-of-minute 9 to 40. Only the first load of each player may fall elsewhere.
    @Test func alignedRefetchesFollowPublications() {
        let design = ClientDesign(clock: ContinuousDeviceClock(), refetch: AlignedToPublicationRefetch())
        let s = Self.scenario(design, players: 20, duration: 90 * .minute)
        let r = Simulation.run(s, threads: 1)
        let firstSecond = floorDiv(s.epochUnix, .second)
        var outside: UInt64 = 0, total: UInt64 = 0
        for (i, n) in r.requestsPerSecond.enumerated() where n > 0 {
            let secondOfMinute = (firstSecond + Int64(i)) % 60
            total += UInt64(n)
            if secondOfMinute < 9 || secondOfMinute > 40 { outside += UInt64(n) }
        }
        #expect(total > 200)
        #expect(outside <= 20)
    }

    /// Backoff retries in the world: lossy links, decorrelated jitter; runs and recovers.
    @Test func exponentialRetryRecovers() {
        let design = ClientDesign(clock: ContinuousDeviceClock(), retry: ExponentialBackoffRetry(base: .second, cap: 30 * .second, jitter: .decorrelated))
        var world = World(scenario: Self.scenario(design, players: 20, duration: 40 * .minute, failure: 0.3))
        #expect(world.memory.layout.retryWords == 1)
        let r = world.run()
        #expect(r.requestsFailed > 0)
        #expect(r.responses > 0)
        #expect(world.clients.allSatisfy { $0.hasSync || $0.fetchInFlight || $0.needsFetch })
    }

    /// The seeds' design keeps no side memory; every option adds exactly its words.
    @Test func designMemoryIsSizedByTheDesign() {
        let seeds = World(scenario: Self.scenario(ClientDesign(), players: 7))
        #expect(seeds.memory.layout.stride == 0)
        #expect(seeds.memory.words.isEmpty)
        var design = ClientDesign(estimator: NTPEstimator(window: 8),
                                  retry: ExponentialBackoffRetry(jitter: .decorrelated), probes: 2,
                                  driftCorrection: DriftCorrection())
        var world = World(scenario: Self.scenario(design, players: 7))
        // Filter 1 + 4·8, drift 5, the best probe 10 (its exchange, server side and server), retry 1.
        #expect(world.memory.layout.stride == 33 + 5 + 10 + 1)
        #expect(world.memory.words.count == 7 * 49)
        #expect(Self.scenario(design).designMemoryBytesPerPlayer == 392)
        design.retry = ExponentialBackoffRetry(jitter: .full)
        world = World(scenario: Self.scenario(design, players: 7))
        #expect(world.memory.layout.retryWords == 0)
    }

    /// The filter's memory lives in the app process: the first sync after a cold start forgets
    /// the samples of the previous visit.
    @Test func coldStartClearsTheFilter() {
        var world = World(scenario: Self.scenario(ClientDesign(clock: ContinuousDeviceClock(), estimator: NTPEstimator(window: 4)), players: 1))
        func sample(_ t: Int64, up: Int64) -> SyncSample {
            SyncSample(serverTimestamp: t + up, requestSent: ClockReading(ns: t), uploadComplete: ClockReading(ns: t),
                       downloadComplete: ClockReading(ns: t + up + 10 * .millisecond))
        }
        world.clients[0].hasSync = false
        let good = world.syncEstimate(0, sample(0, up: 5 * .millisecond))
        world.clients[0].hasSync = true
        #expect(world.syncEstimate(0, sample(.minute, up: 900 * .millisecond)).anchor == good.anchor)
        world.clients[0].hasSync = false     // a cold start
        let fresh = world.syncEstimate(0, sample(2 * .minute, up: 900 * .millisecond))
        #expect(fresh.anchor == NTPEstimator().anchor(for: sample(2 * .minute, up: 900 * .millisecond)))
    }
}

/// Every example fixture runs (shortened) and measures what its report needs.
@Suite struct ClientFixtureRunTests {
    static let names = ["cristian", "ntp", "best-of-probes", "drift-correction", "aligned-tick", "display-link",
                        "aligned-to-publication", "exponential-full", "exponential-decorrelated"]

    @Test(arguments: names)
    func fixtureRuns(_ name: String) throws {
        var s = try ScenarioLoader().load(path: ClientOptionsLoaderTests.fixture(name))
        s.population.players = 150
        s.duration = 12 * .minute
        s.population.release = nil
        let r = Simulation.run(s, threads: 1)
        #expect(r.gapTransitions.count > 0, "\(name)")
        #expect(r.bounds.samples > 0 && r.bounds.samples == r.samples, "\(name)")
        #expect(r.requestsServed > 0, "\(name)")
    }
}

/// Every new option together, sharded: byte-identical results for any thread count.
@Suite struct ClientDesignShardingTests {
    @Test func identicalForAnyThreadCount() throws {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("v115-pausing.json"))
        s.population.players = 6_000
        s.duration = 20 * .minute
        s.warmup = 5 * .minute
        s.population.release?.at = SimTime(ns: 10 * .minute)
        s.server.timestampResolution = .microsecond
        s.client = ClientDesign(clock: ContinuousDeviceClock(), estimator: NTPEstimator(window: 4), tick: DisplayLinkTick(),
                                refetch: AlignedToPublicationRefetch(after: 2 * .minute),
                                retry: ExponentialBackoffRetry(jitter: .decorrelated), probes: 2,
                                driftCorrection: DriftCorrection(minInterval: 2 * .minute))
        let one = Simulation.run(s, threads: 1)
        #expect(one.bounds.samples > 0)
        for threads in [2, 3] {
            let many = Simulation.run(s, threads: threads)
            #expect(DeterminismTests.fingerprint(many).dropLast() == DeterminismTests.fingerprint(one).dropLast())
            #expect(many.bounds == one.bounds)
            #expect(many.errorByClock.map(\.1) == one.errorByClock.map(\.1))
        }
    }
}
