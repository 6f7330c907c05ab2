import Testing
@testable import SyncLab
import SyncLabKernel

/// A sync whose probes go to a time endpoint (`client.probeTarget`), then one store fetch:
/// worked out by hand on constant links.
///
/// One player visits at 5 s on a link of 40 ms up, 60 ms down and 100 kB/s both ways, with no
/// service time anywhere. Every request's 400 bytes take 4 ms to leave, so a request reaches the
/// server 44 ms after it is sent; a response of b bytes is in 60 ms + b/100 kB/s after it
/// leaves. A probe of the 360-byte endpoint takes 44 + 60 + 3.6 = 107.6 ms; the store fetch
/// takes 104 ms + the file's transfer.
@Suite struct WorldTimeEndpointTests {
    static let visit: Int64 = 5 * .second
    static let endpointTrip: Int64 = 107_600_000
    static let bandwidth = 100_000.0

    static func scenario(probes: Int = 3, target: ProbeTarget) -> Scenario {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: 2 * .minute)
        s.links[0].bandwidth = .constant(bandwidth)
        s.client.probes = probes
        s.client.probeTarget = target
        return s
    }

    static func endpoint(_ host: TimeEndpoint.Host) -> ProbeTarget {
        .timeEndpoint(TimeEndpoint(servedBy: host, serviceTime: .constant(0)))
    }

    /// The store's round trip for a file of `bytes`: 104 ms and its transfer.
    static func storeTrip(_ bytes: Int) -> Int64 {
        104 * .millisecond + LinkProfile.transferTime(bytes: bytes, bytesPerSecond: bandwidth)
    }

    /// Three probes carry the endpoint's bytes; the sync lands after 3 × 107.6 ms; the store
    /// fetch leaves then and the Store stays bare until it is in: bare for 3 × 107.6 ms + one file
    /// fetch, against 3 file fetches when every probe fetches the store.
    @Test(arguments: [TimeEndpoint.Host.webServer, .workerPool])
    func probesThenOneStoreFetch(_ host: TimeEndpoint.Host) {
        var world = World(scenario: Self.scenario(target: Self.endpoint(host)))
        let synced = Self.visit + 3 * Self.endpointTrip
        world.run(until: SimTime(ns: synced + 1))
        var c = world.player(0)
        #expect(c.hasSync && c.anchorSetAt.ns == synced)
        #expect(c.file == -1 && c.storeOwed && c.fetchInFlight && c.request.sentAt.ns == synced)
        let fileBytes = world.server.store.files[0].responseBytes
        let storeIn = synced + Self.storeTrip(fileBytes)
        world.run(until: SimTime(ns: storeIn))
        #expect(world.clients[0].file == -1, "bare until the store fetch is in")
        world.run(until: SimTime(ns: storeIn + 1))
        c = world.player(0)
        #expect(c.file == 0 && !c.storeOwed && !c.fetchInFlight && c.anchorSetAt.ns == synced)
        // Bare from the visit: n endpoint round trips and one file fetch.
        #expect(storeIn - Self.visit == 3 * Self.endpointTrip + Self.storeTrip(fileBytes))

        // The refetch is due 6–9 min after the load, past the 2 min run: nothing else is sent.
        let r = world.run()
        #expect(r.requestsSent == 4 && r.responses == 4 && r.requestsServed == 4)
        #expect(r.endpointLoad?.requests == 3)
        #expect(r.endpointLoad?.bytes == 3 * 360)
        #expect(r.bytesServed == UInt64(3 * 360 + fileBytes))
        let kinds = r.loadByKind
        #expect(kinds?.store.requests == 1 && kinds?.store.bytes == UInt64(fileBytes) && kinds?.endpoint.requests == 3)
        // The worker pool serves the endpoint's probes only when they are its; a flat-rate
        // server's capacity counts only the requests that take a worker.
        #expect(r.serving?.requests == (host == .workerPool ? 4 : 1))
        #expect(r.peakWorkerRequests == (host == .workerPool ? r.peakSecond?.requests : 1))
        #expect(r.workerRequestsPerSecond.reduce(0, +) == (host == .workerPool ? 4 : 1))
    }

    /// requests.csv says what each request asked for and which probe of its round it was: three
    /// endpoint probes, then the store fetch, which is no probe; with store probes, three.
    @Test func theTraceNamesEachRequestsKind() throws {
        for (target, kinds, probes) in [(Self.endpoint(.webServer), ["time-endpoint", "time-endpoint", "time-endpoint", "store"], [1, 2, 3, nil]),
                                        (ProbeTarget.store, ["store", "store", "store"], [1, 2, 3])] {
            let rows = try #require(Simulation.run(Self.scenario(target: target), threads: 1, traceRequests: 1).requestTrace)
            #expect(rows.map(\.kind.rawValue) == kinds)
            #expect(rows.map(\.probe) == probes)
            #expect(rows.allSatisfy { $0.outcome == .answered })
        }
    }

    /// The default: every probe fetches the store, the file comes with the sync after three file
    /// fetches, and nothing is counted apart.
    @Test func storeProbesBringTheFileWithTheSync() {
        var world = World(scenario: Self.scenario(target: .store))
        let fileBytes = world.server.store.files[0].responseBytes
        let synced = Self.visit + 3 * Self.storeTrip(fileBytes)
        world.run(until: SimTime(ns: synced))
        #expect(!world.clients[0].hasSync && world.clients[0].file == -1)
        world.run(until: SimTime(ns: synced + 1))
        #expect(world.clients[0].hasSync && world.clients[0].file == 0 && world.clients[0].anchorSetAt.ns == synced)
        let r = world.run()
        #expect(r.requestsServed == 3 && r.endpointLoad == nil && r.loadByKind == nil)
        #expect(r.peakWorkerRequests == r.peakSecond?.requests)
    }

    /// One probe: the sync, then the store fetch, as with more.
    @Test func oneProbeIsFollowedByTheStoreFetch() {
        var world = World(scenario: Self.scenario(probes: 1, target: Self.endpoint(.webServer)))
        let r = world.run()
        #expect(world.clients[0].anchorSetAt.ns == Self.visit + Self.endpointTrip)
        #expect(world.clients[0].file == 0)
        #expect(r.requestsServed == 2 && r.endpointLoad?.requests == 1)
    }

    /// A refused store fetch is retried alone, 5 s later (the fixed retry): the sync it follows
    /// holds, and no probe is sent again. The server refuses from 5.30 s for 100 ms: the three
    /// probes arrive at 5.044, 5.1516 and 5.2592 s; the store fetch, sent at 5.3228 s, at 5.3668 s.
    @Test func aFailedStoreFetchIsRetriedAlone() {
        var s = Self.scenario(target: Self.endpoint(.webServer))
        s.server.outages = [Outage(at: SimTime(ns: 5_300 * .millisecond), duration: 100 * .millisecond, mode: .refused)]
        var world = World(scenario: s)
        let r = world.run()
        let c = world.player(0)
        let synced = Self.visit + 3 * Self.endpointTrip
        #expect(c.anchorSetAt.ns == synced)
        // Refused one downlink after it arrived; sent again 5 s later.
        let retried = synced + 44 * .millisecond + 60 * .millisecond + 5 * .second
        #expect(c.request.sentAt.ns == retried && c.file == 0 && !c.storeOwed)
        #expect(r.requestsSent == 5 && r.requestsFailed == 1 && r.requestsServed == 4 && r.endpointLoad?.requests == 3)
    }

    /// A refused probe restarts the round. The server refuses from 5.10 s for 100 ms: the second
    /// probe (arriving at 5.1516 s) is refused at 5.2116 s; the round starts again at 10.2116 s.
    @Test func aFailedProbeRestartsTheRound() {
        var s = Self.scenario(target: Self.endpoint(.webServer))
        s.server.outages = [Outage(at: SimTime(ns: 5_100 * .millisecond), duration: 100 * .millisecond, mode: .refused)]
        var world = World(scenario: s)
        let r = world.run()
        let restart = Self.visit + Self.endpointTrip + 104 * .millisecond + 5 * .second
        #expect(world.clients[0].anchorSetAt.ns == restart + 3 * Self.endpointTrip)
        #expect(world.clients[0].file == 0)
        #expect(r.requestsSent == 6 && r.requestsFailed == 1 && r.requestsServed == 5 && r.endpointLoad?.requests == 4)
    }

    /// The endpoint in the worker pool queues as the store's requests do: the harness of
    /// `WorldServingTests.seedsErrorIsUplinkPlusErlangCWait` with the probes sent to the
    /// endpoint. 6,000 players each probe at Poisson instants (mean gap 150 s), so the probes
    /// arrive at λ ≈ 40/s; the endpoint's service is exponential, mean 100 ms, on 5 workers with
    /// an unlimited backlog: M/M/5 at ρ ≈ 0.8, W_q = C(5, λ/μ)/(5μ − λ) ≈ 55 ms (worked out
    /// at the realised λ). The store fetch that follows each probe takes no service time: it
    /// passes through the FIFO line and frees its worker at once, so it delays no probe. Stamped
    /// at the request's start (after the wait), the seeds' estimate runs ahead by the uplink and
    /// the wait: its mean error is 40 ms + W_q, within 5 standard errors of 120 batches of 30 s.
    @Test func anEndpointInThePoolWaitsAsErlangCSays() throws {
        let batches = 120, batch = 30 * Nanoseconds.second, gap = 150e9
        var s = WorldServingTests.scenario(players: 6_000, duration: Int64(batches) * batch) {
            $0.workers = 5
            $0.queueLimit = nil
            $0.serviceTime = .constant(0)
        }
        s.client.probeTarget = .timeEndpoint(TimeEndpoint(servedBy: .workerPool, serviceTime: .exponential(mean: 100e6)))
        s.positions = 1
        s.sampleEvery = 10 * .minute
        s.warmup = 2 * .minute
        s.population.visitGap = .exponential(mean: gap)
        s.client.refetch = PoissonRefetch(mean: gap)
        s.client.tick = ImmediateTick()
        var world = World(scenario: s)
        let (mean, se) = WorldServingTests.batchMeanError(&world, batches: batches, batch: batch)
        let result = world.run()
        let probes = Double(try #require(result.endpointLoad?.requests))
        #expect(result.serving?.requests == result.requestsServed, "the pool serves the probes and the store fetches")
        let lambda = probes / (Double(s.duration) / 1e9)
        #expect(abs(lambda - 40) < 1.5, "probe rate \(lambda)/s")
        let wait = WorkerPoolErlangCTests.erlangC(workers: 5, load: lambda / 10) / (5 * 10 - lambda) * 1e3   // ms
        let x = Double(WorldServingTests.uplink) / 1e6
        #expect(abs(mean - (x + wait)) <= 5 * se, "mean error \(mean) ms, expected \(x + wait) ± \(se) (λ \(lambda)/s)")
        #expect(se < 0.1 * wait, "standard error \(se) ms too wide to test")
    }

    /// Players who share a round-robin fleet, with the endpoint in the pools and outside them:
    /// the same results on one thread and on three.
    @Test(arguments: [TimeEndpoint.Host.webServer, .workerPool])
    func shardsGiveTheSameRun(_ host: TimeEndpoint.Host) throws {
        var s = try DeterminismTests.shipped("recommended.json")
        s.client.probeTarget = .timeEndpoint(TimeEndpoint(servedBy: host))
        let one = Simulation.run(s, threads: 1), three = Simulation.run(s, threads: 3)
        #expect(DeterminismTests.fingerprint(one).dropLast() == DeterminismTests.fingerprint(three).dropLast())
        #expect(one.endpointLoad == three.endpointLoad)
        #expect((one.endpointLoad?.requests ?? 0) > 0)
    }
}
