import Testing
@testable import SyncLab
import SyncLabKernel

/// The serving models through the whole world, with constant delays derived by hand: when the
/// timestamp is taken, a queue for one worker, a fleet's clock offsets, outages, and that a
/// model coupling players runs as one shard whatever the thread count.
@Suite struct WorldServingTests {
    static let uplink: Int64 = 40 * .millisecond
    static let downlink: Int64 = 60 * .millisecond
    static let service: Int64 = 300 * .millisecond

    /// Players who all open the Store at 5 s on one constant link, perfect clocks, µs timestamps.
    static func scenario(players: Int = 1, duration: Nanoseconds, configure: (inout ServerConfig) -> Void = { _ in }) -> Scenario {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: duration, players: players)
        s.server.serviceTime = .constant(Double(service))
        s.server.timestampResolution = .microsecond
        configure(&s.server)
        return s
    }

    static func arrival(_ c: PlayerSnapshot) -> SimTime { c.request.uploadCompleteAt + uplink }

    static func stamp(_ s: Scenario, _ t: SimTime, offset: Int64 = 0) -> Int64 {
        floorTo(s.epochUnix + t.ns + offset, .microsecond) - s.epochUnix
    }

    /// With no wait, arrival and request-start both stamp the arrival; response-send stamps
    /// arrival + service. The seeds' estimate then runs ahead by the uplink, plus the service
    /// time when stamped at the send.
    @Test(arguments: TimestampInstant.allCases)
    func timestampInstant(at instant: TimestampInstant) {
        let s = Self.scenario(duration: 20 * .second) { $0.timestampAt = instant }
        var world = World(scenario: s)
        _ = world.run()
        let c = world.player(0)
        #expect(c.hasSync)
        let arrival = Self.arrival(c)
        #expect(c.request.leftAt == arrival + Self.service)
        let stampedAt = instant == .responseSend ? c.request.leftAt : arrival
        #expect(c.request.timestamp == Self.stamp(s, stampedAt))
        // Error of the anchor: timestamp + (download − upload complete) − true download instant.
        let downloadComplete = c.anchor.reading.ns + c.device.bootTime.ns
        let error = c.anchor.serverTime - downloadComplete
        #expect(error == c.request.timestamp - c.request.uploadCompleteAt.ns)
        let truncation = (s.epochUnix + stampedAt.ns) % .microsecond
        #expect(error == Self.uplink + (instant == .responseSend ? Self.service : 0) - truncation)
    }

    /// Two players arrive together at one worker: the second waits one service time before a
    /// worker starts it. The seeds' estimator adds upload complete to download complete to the
    /// stamp, so its error is the stamp's instant minus upload complete: a wait before the stamp
    /// (request-start, PHP's REQUEST_TIME; response-send) makes the second player run ahead by
    /// exactly the wait; after an arrival stamp the wait is inside the interval and cancels out
    /// (both players get the same error).
    @Test(arguments: TimestampInstant.allCases)
    func queueDelayLandsBetweenTimestampAndResponse(at instant: TimestampInstant) {
        let s = Self.scenario(players: 2, duration: 10 * .second) {
            $0.workers = 1
            $0.timestampAt = instant
        }
        var world = World(scenario: s)
        let result = world.run()
        let a = world.player(0), b = world.player(1)
        let arrival = Self.arrival(a)
        #expect(Self.arrival(b) == arrival)
        #expect(a.request.leftAt == arrival + Self.service)
        #expect(b.request.leftAt == arrival + 2 * Self.service)
        let stampedB = switch instant {
        case .arrival: arrival
        case .requestStart: arrival + Self.service   // when the worker is free
        case .responseSend: b.request.leftAt
        }
        #expect(a.request.timestamp == Self.stamp(s, instant == .responseSend ? a.request.leftAt : arrival))
        #expect(b.request.timestamp == Self.stamp(s, stampedB))
        let errorA = a.anchor.serverTime - (a.anchor.reading.ns + a.device.bootTime.ns)
        let errorB = b.anchor.serverTime - (b.anchor.reading.ns + b.device.bootTime.ns)
        #expect(errorB - errorA == (instant == .arrival ? 0 : Self.service))
        let f = result.serving
        #expect(f?.requests == 2 && f?.waitMax == Self.service && f?.maxQueueLength == 1)
        #expect(f?.waitMean == Double(Self.service) / 2)
        #expect(f?.singleShard == false)
        // The budget figures read the same record.
        #expect((result.figures["queueWaitMs.max"] ?? nil) == 300)
        #expect((result.figures["queueWaitMs.mean"] ?? nil) == 150)
        #expect((result.figures["queueLengthMax"] ?? nil) == 1)
        #expect((result.figures["outageFailures"] ?? nil) == 0)
        #expect((result.figures["originalPlan.earlyShowShare"] ?? nil) == nil)
    }

    /// PHP-FPM's stamp (the default, request-start) through a loaded pool, end to end: the seeds'
    /// estimator errs by the stamp's instant minus upload complete, uplink + the queue's wait, so
    /// its mean error is x + W_q. 6,000 players on the constant link each fetch at Poisson
    /// instants: the first visit after an exponential time, each refetch an exponential time after
    /// the last load (mean 150 s; `PoissonRefetch` below, immediate ticks), so arrivals are a
    /// superposition of Poisson streams at λ ≈ 6,000/150.3 s ≈ 40/s (each player is in flight
    /// for a fraction of a second in 150 s, too little to thin the stream measurably). Service
    /// is exponential, mean 100 ms (μ = 10/s), on 5 workers with an unlimited backlog: M/M/5 at
    /// ρ ≈ 0.8, where Erlang C (WorkerPoolErlangCTests) gives, at a = 4, Σ_{k<5} 4ᵏ/k! = 34.33,
    /// 4⁵/5! · 5 = 42.67, C = 0.5541 and W_q = C/(cμ − λ) = 55.4 ms: a mean error of 95.4 ms. The
    /// test works Erlang C out at the realised arrival rate (W_q moves 5% for 1% of λ near
    /// ρ = 0.8). Tolerance: 5 standard errors from 120 batches of 30 s (each ≈ 1,200 arrivals, far
    /// longer than the queue's relaxation time of about 2 s). Stamps are to the µs and errors are
    /// summed in whole µs: both far inside the tolerance. Stamped at arrival, the wait cancels
    /// and the mean error is x, 40 ms.
    @Test(arguments: [TimestampInstant.requestStart, .arrival])
    func seedsErrorIsUplinkPlusErlangCWait(at instant: TimestampInstant) throws {
        // Stamped at arrival every fetch errs alike: a few batches show it.
        let batches = instant == .requestStart ? 120 : 4, batch = 30 * Nanoseconds.second, gap = 150e9
        var s = Self.scenario(players: 6_000, duration: Int64(batches) * batch) {
            $0.workers = 5
            $0.queueLimit = nil
            $0.serviceTime = .exponential(mean: 100e6)
            $0.timestampAt = instant
        }
        s.positions = 1   // fewer item changes to show, few error samples: the test is about the server
        s.sampleEvery = 10 * .minute
        s.warmup = 2 * .minute
        s.population.visitGap = .exponential(mean: gap)
        s.client.refetch = PoissonRefetch(mean: gap)
        s.client.tick = ImmediateTick()
        #expect(ServerConfig().timestampAt == .requestStart, "PHP-FPM's stamp is the default")
        var world = World(scenario: s)
        let (mean, se) = Self.batchMeanError(&world, batches: batches, batch: batch)
        let result = world.run()
        let served = Double(try #require(result.serving?.requests))
        let lambda = served / (Double(s.duration) / 1e9)
        #expect(abs(lambda - 40) < 1.5, "arrival rate \(lambda)/s")
        let c = 5, mu = 10.0
        let wait = WorkerPoolErlangCTests.erlangC(workers: c, load: lambda / mu) / (Double(c) * mu - lambda) * 1e3   // ms
        let x = Double(Self.uplink) / 1e6
        guard instant == .requestStart else {
            // Every fetch errs by x less the stamp's truncation (< 1 µs), summed in whole µs.
            #expect(mean <= x && mean >= x - 0.002, "mean error \(mean) ms")
            return
        }
        #expect(abs(mean - (x + wait)) <= 5 * se, "mean error \(mean) ms, expected \(x + wait) ± \(se) (λ \(lambda)/s)")
        // 5 SE under half the wait: stamping before the queue (error x) would miss by 10 SE.
        #expect(se < 0.1 * wait, "standard error \(se) ms too wide to test")
        // The queue the world kept is the one the estimator saw.
        let realisedWait = try #require(result.serving?.waitMean) / 1e6
        #expect(abs(realisedWait - wait) <= 5 * se, "realised wait \(realisedWait) ms")
    }

    /// Runs `world` through `batches` consecutive batches of `batch` ns and returns the mean of
    /// the batches' mean per-sync error (ms) and its standard error (the spread of the batch
    /// means over √batches).
    static func batchMeanError(_ world: inout World, batches: Int, batch: Nanoseconds) -> (mean: Double, se: Double) {
        var means: [Double] = []
        var (sum, count) = (Int64(0), UInt64(0))
        for k in 1...batches {
            world.run(until: SimTime(ns: Int64(k) * batch))
            let e = world.measure.recorder.fetchSyncError.stats(0)
            means.append(Double(e.signedSumMicros - sum) / Double(e.count - count) / 1e3)   // ms
            (sum, count) = (e.signedSumMicros, e.count)
        }
        let mean = means.reduce(0, +) / Double(batches)
        let sd = (means.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(batches - 1)).squareRoot()
        return (mean, sd / Double(batches).squareRoot())
    }

    /// Round-robin over two servers: player 0's request (first in arrival order) goes to server
    /// 0, player 1's to server 1, and each timestamp carries its server's own clock offset; the
    /// offsets are drawn from their own stream, so the players' devices do not change.
    @Test func fleetServersStampWithTheirOwnClocks() {
        let fleet = Fleet(servers: 2, clockOffset: .uniform(min: -500e6, max: 500e6), balancing: .roundRobin)
        let s = Self.scenario(players: 2, duration: 10 * .second) { $0.fleet = fleet }
        let offsets = fleet.offsets(seed: s.seed)
        var rng = RandomStream(seed: s.seed, purpose: StreamPurpose("fleet-clock"), entity: 1)
        #expect(offsets[1] == Int64(Distribution.uniform(min: -500e6, max: 500e6).sample(&rng).rounded()))
        #expect(offsets[0] != offsets[1])
        let plain = World(scenario: Self.scenario(players: 2, duration: 10 * .second))
        #expect(plain.clients.map(\.device) == World(scenario: s).clients.map(\.device))
        var world = World(scenario: s)
        let result = world.run()
        for k in 0..<2 {
            let c = world.player(k)
            #expect(c.request.timestamp == Self.stamp(s, Self.arrival(c), offset: offsets[k]))
        }
        #expect(result.serving?.perServer == [1, 1])
        #expect(result.serving?.serverOffsets == offsets)
    }

    /// A request arriving in a refused outage fails one round trip after it was sent; in a
    /// timing-out outage, at the link's time-out. Either way the retry policy (5 s) sends again.
    @Test(arguments: [Outage.Mode.refused, .timeout])
    func outagesFailAndTriggerTheRetry(mode: Outage.Mode) {
        let s = Self.scenario(duration: 60 * .second) {
            $0.outages = [Outage(at: SimTime(ns: 5 * .second), duration: .second, mode: mode)]
        }
        var world = World(scenario: s)
        let result = world.run()
        let c = world.player(0)
        let firstSent = SimTime(ns: 5 * .second)
        let failedAt = mode == .refused ? firstSent + 1 + Self.uplink + Self.downlink : firstSent + 30 * .second
        #expect(c.request.sentAt == failedAt + 5 * .second)   // the retry, which succeeds
        #expect(c.hasSync)
        #expect(result.requestsFailed == 1)
        #expect(result.serving?.outageRefused == (mode == .refused ? 1 : 0))
        #expect(result.serving?.outageTimedOut == (mode == .timeout ? 1 : 0))
    }

    /// A fleet of one exact server with unlimited workers is the plain server: same results.
    @Test func neutralServingModelReproducesThePlainServer() throws {
        var plain = try DeterminismTests.shipped("v115-pausing.json")
        plain.server.fleet = nil
        plain.server.workers = nil
        plain.server.queueLimit = nil
        var modelled = plain
        modelled.server.fleet = Fleet(servers: 1)
        #expect(modelled.server.hasServingModel && modelled.server.couplesPlayers)
        let a = Simulation.run(plain, threads: 1), b = Simulation.run(modelled, threads: 1)
        #expect(DeterminismTests.fingerprint(a) == DeterminismTests.fingerprint(b))
        #expect(a.serving == nil && b.serving?.requests == a.requestsServed)
    }

    /// A random balancer with unlimited workers couples nobody (each request draws its server from
    /// a stream keyed by player and request): the run keeps its shards and is identical for any
    /// thread count, with every request counted on exactly one server.
    @Test func randomBalancerKeepsShardsAndIsThreadIndependent() throws {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("v115-pausing.json"))
        s.population.players = 6_000
        s.duration = 20 * .minute
        s.warmup = 5 * .minute
        s.population.release?.at = SimTime(ns: 10 * .minute)
        s.server.fleet = Fleet(servers: 3, clockOffset: .normal(mean: 0, sd: 50e6), balancing: .random)
        s.server.workers = nil
        s.server.queueLimit = nil
        #expect(!s.server.couplesPlayers)
        let one = Simulation.run(s, threads: 1)
        let three = Simulation.run(s, threads: 3)
        #expect(DeterminismTests.fingerprint(three).dropLast() == DeterminismTests.fingerprint(one).dropLast())
        #expect(three.serving == one.serving)
        #expect(one.serving?.singleShard == false)
        let perServer = one.serving?.perServer ?? []
        #expect(perServer.count == 3 && perServer.allSatisfy { $0 > 0 })
        #expect(perServer.reduce(0, +) == one.requestsServed)
    }

    /// The default server is PHP-FPM's stock pool: 5 workers and 128 waiting. 134 players arrive
    /// together; by hand: 5 start at once, the k-th of the next 128 (k = 0…127) waits
    /// (⌊k/5⌋ + 1) service times, and the 134th finds 128 waiting and is turned away. The waits
    /// sum to 5 × (1 + … + 25) + 3 × 26 = 1,703 service times over 133 requests; the longest is
    /// 26 service times. The turned-away player's retry comes after the run ends.
    @Test func defaultPoolQueuesAndTurnsAwayPastItsBacklog() {
        // The last response leaves 5.04 + 27 × 0.3 = 13.14 s in; the retry would come at 35.1 s.
        var s = Self.scenario(players: 134, duration: 20 * .second)
        s.client.retry = FixedIntervalRetry(interval: 30 * .second)
        #expect(s.server.workers == 5 && s.server.queueLimit == 128)
        var world = World(scenario: s)
        let result = world.run()
        let f = result.serving
        #expect(f?.requests == 133 && f?.queueFull == 1 && f?.maxQueueLength == 128)
        #expect(f?.waitMax == 26 * Self.service)
        #expect(f?.waitMean == Double(1_703 * Self.service) / 133)
        // Every request was out at once, each in a slot of its own: each player's last is still there.
        let left = world.clients.indices.map { world.player($0).request.leftAt }.filter { $0 > .zero }.sorted()
        let arrival = Self.arrival(world.player(0))
        #expect(left.count == 133 && left.first == arrival + Self.service && left.last == arrival + 27 * Self.service)
        #expect(world.clients.filter { !$0.hasSync }.count == 1)
    }

    /// A request still on its way when the client's time-out runs out never reaches the server:
    /// with a 30 ms time-out and a 40 ms uplink the client gives up at exactly send + 30 ms, and
    /// the server admits nothing. (The failure used to be scheduled from the server's side, 10 ms
    /// in the past, which sent the retry to a worker pool out of arrival order.)
    @Test func requestSlowerThanItsTimeoutNeverReachesTheServer() {
        var s = Self.scenario(duration: 6 * .second)
        s.links[0].timeout = 30 * .millisecond
        var world = World(scenario: s)
        let result = world.run()
        #expect(result.requestsFailed == 1)
        #expect(result.serving?.requests == 0)
        #expect(!world.clients[0].hasSync)
    }

    /// A shared queue couples players: the shards keep in step with the fleet, and the run is
    /// byte-identical for any thread count (the event count aside: each shard runs the cron).
    @Test func sharedQueueRunsInShardsForAnyThreadCount() throws {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("v115-pausing.json"))
        s.population.players = 6_000
        s.duration = 20 * .minute
        s.warmup = 5 * .minute
        s.population.release?.at = SimTime(ns: 10 * .minute)
        s.server.fleet = nil
        s.server.workers = 2
        s.server.serviceTime = .constant(40e6)
        let one = Simulation.run(s, threads: 1)
        #expect(one.serving?.singleShard == false)
        #expect((one.serving?.maxQueueLength ?? 0) > 1)
        for threads in [2, 3] {
            let many = Simulation.run(s, threads: threads)
            #expect(many.shards == threads)
            #expect(DeterminismTests.fingerprint(many).dropLast() == DeterminismTests.fingerprint(one).dropLast(), "\(threads) threads")
            #expect(many.serving == one.serving)
        }
    }
}

/// Refetches an exponential time after each load (a test's Poisson source; no app does this).
struct PoissonRefetch: RefetchPolicy {
    let mean: Double
    var name: String { "poisson" }
    func refetchDue(after load: LoadContext, _ rng: inout RandomStream) -> ClockReading {
        load.loadedAt + Int64(-mean * DeterministicMath.log(rng.unitOpenBelow()))
    }
}
