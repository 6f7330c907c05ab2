import Testing
@testable import SyncLab
import SyncLabKernel

/// The original plan (database per position) through the whole world: hand cases with one
/// player and constant delays, the overlap leak computed independently, and a burst of players
/// asking in the same instant of a database with one connection.
@Suite struct WorldDatabaseTests {
    static let query: Int64 = 10 * .millisecond

    /// Items live exactly 60 s + 10 s; every player opens the Store at 5 s (see WorldExactTests).
    static func scenario(players: Int = 1, duration: Nanoseconds, positions: Int = 12, overlap: Double = 0,
                         connections: Int = 1, timeout: Nanoseconds = 10 * .second) -> Scenario {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: duration, players: players)
        s.positions = positions
        s.shelfLife = .constant(60e9)
        s.server.design = DatabasePlan(connections: connections, queryTime: .constant(Double(query)), timeout: timeout,
                                       endJitter: .constant(10e9), overlap: .constant(overlap))
        return s
    }

    @Test func itemLivesGetTheEndJitterAndRowsStartTheOverlapEarly() {
        let plan = DatabasePlan(endJitter: .constant(10e9), overlap: .constant(15e9))
        let schedule = plan.schedule(positions: 3, shelfLife: .constant(60e9), resolution: .second, start: .zero,
                                     end: SimTime(ns: 10 * .minute), epochUnix: 0, seed: 1)
        for chain in schedule.bounds {
            for k in chain.indices.dropFirst(2) { #expect(chain[k] - chain[k - 1] == 70 * .second) }
        }
        let rows = plan.rowStarts(schedule, resolution: .second, seed: 1)
        for p in 0..<3 {
            #expect(rows[p][0] == .min)
            for k in rows[p].indices.dropFirst() { #expect(rows[p][k] == schedule.bounds[p][k] - 15 * .second) }
            // During the overlap the API already answers with the next item.
            let b = schedule.bounds[p][2]
            #expect(DatabasePlan.answer(rows[p], at: b - 15 * .second - 1) == 1)
            #expect(DatabasePlan.answer(rows[p], at: b - 15 * .second) == 2)
        }
    }

    /// One player, no queue, no overlap: each change is shown one countdown-and-round-trip late.
    /// The countdown ends at end + (reply − ⌊query⌋) ∈ [end + 70 ms, end + 1.07 s) (query 10 ms,
    /// downlink 60 ms, PHP's whole-second time()), the next 1 s tick follows within 1 s, and the
    /// answer arrives 110 ms later (uplink 40, query 10, downlink 60): a show offset in
    /// [180 ms, 2.18 s) plus nanoseconds of transfer. Nothing is ever shown early.
    @Test func onePlayerShowsEachChangeOneRoundTripAfterItsCountdown() {
        let s = Self.scenario(duration: 30 * .minute)
        var world = World(scenario: s)
        let result = world.run()
        #expect(result.transitions.count > 100)
        for row in result.transitions {
            #expect(row.viewers == 1)
            #expect(row.earliest >= 180 * .millisecond)
            #expect(row.earliest < 2181 * .millisecond)
        }
        let d = result.database
        #expect(d?.earlyShows == 0)
        #expect(d?.queueFull == 0 && d?.timedOut == 0)
        #expect(d?.storeLoads == 1)
        #expect(d?.positionRequests ?? 0 >= UInt64(result.transitions.count))
        #expect(d?.waitMax == 0)
        // The countdown implies server time ⌊query⌋ + (now − reply): behind by the query and
        // downlink (70 ms) plus the query instant's fraction of a second, never ahead. The
        // histogram keeps ~0.1% resolution, hence the small margins.
        #expect(result.samples > 100)
        #expect(result.clientError.aheadShare == 0)
        #expect((result.clientError.magnitude.min) >= 69 * .millisecond)
        #expect((result.clientError.quantile(1) ?? .max) <= 1072 * .millisecond)
    }

    /// With a 15 s overlap, the Store load at 5 s shows every position whose next row has
    /// started but whose item has not: computed here from the rows, independently of the world.
    @Test func storeLoadDuringAnOverlapShowsTheNextItemEarly() {
        let s = Self.scenario(duration: 7 * .second, positions: 60, overlap: 15e9)
        var world = World(scenario: s)
        let result = world.run()
        let schedule = world.server.store.schedule
        let rows = s.server.design!.rowStarts(schedule, resolution: .second, seed: s.seed)
        let arrival = SimTime(ns: 5 * .second) + 1 + WorldExactTests.uplink      // 400 B at 400 GB/s: 1 ns
        let bytes = s.server.file.responseBytes(items: 60)
        let reply = arrival + Self.query + WorldExactTests.downlink + LinkProfile.transferTime(bytes: bytes, bytesPerSecond: 400e9)
        var early: [Int64] = []
        for p in 0..<60 {
            let k = DatabasePlan.answer(rows[p], at: arrival.ns)
            if schedule.bounds[p][k] > reply.ns { early.append(schedule.bounds[p][k] - reply.ns) }
        }
        #expect(early.count >= 3)                       // about 60 × 15/70 ≈ 13 expected
        let d = result.database
        #expect(d?.shows == 60)
        #expect(d?.earlyShows == UInt64(early.count))
        #expect(d?.earlyShowMax == early.max())
        #expect((result.figures["originalPlan.earlyShowShare"] ?? nil) == Double(early.count) / 60)
        #expect(early.allSatisfy { $0 <= 15 * .second })
    }

    /// 200 players open the Store in the same instant; one connection, 10 ms per query, a 1 s
    /// time-out: the queries waiting 0, 10, …, 1000 ms run (101), the other 99 time out.
    @Test func sameInstantBurstQueuesAndTimesOut() {
        let s = Self.scenario(players: 200, duration: 7 * .second, timeout: .second)
        var world = World(scenario: s)
        let result = world.run()
        let d = result.database
        #expect(result.requestsPerSecond.max() == 200)
        #expect(d?.queries == 101 && d?.timedOut == 99)
        #expect(d?.waitMax == .second)
        #expect(d?.maxQueueLength == 100)
        #expect(result.requestsFailed == 99)
        #expect((result.figures["queueLengthMax"] ?? nil) == 100)
        #expect((result.figures["queueWaitMs.max"] ?? nil) == nil)      // the store-file queue is not in use
    }

    /// Players with the same delays and tick phase all ask when a position's item ends: one
    /// burst of as many requests as viewers in the second after each change.
    @Test func everyChangeBringsASameSecondBurst() {
        let players = 50
        let s = Self.scenario(players: players, duration: 10 * .minute, connections: 100)
        var world = World(scenario: s)
        let result = world.run()
        #expect(result.transitions.count > 50)
        #expect(result.transitions.allSatisfy { $0.viewers == players && $0.gap == 0 })
        let burstSeconds = result.requestsPerSecond.filter { $0 >= UInt32(players) }.count
        #expect(burstSeconds >= result.transitions.count / 2)
        #expect(result.database?.queueFull == 0)
    }

    /// The API down (refused) when the Store loads at 5 s: the error arrives one round trip
    /// later and the retry policy (5 s) loads it again.
    @Test func outageRefusesTheStoreLoadAndTheRetryLoadsIt() {
        var s = Self.scenario(duration: 20 * .second)
        s.server.outages = [Outage(at: SimTime(ns: 5 * .second), duration: .second, mode: .refused)]
        var world = World(scenario: s)
        let result = world.run()
        let d = result.database
        #expect(d?.outageRefused == 1 && d?.storeLoads == 1)
        #expect(result.requestsFailed == 1)
        // Sent at 5 s, refused on arrival (40 ms + 1 ns), heard of 60 ms later; sent again 5 s on.
        let retry = 5 * Int64.second + 1 + WorldExactTests.uplink + WorldExactTests.downlink + 5 * .second
        #expect(world.server.database!.sentAt[s.positions] == retry)
        #expect(d?.shows == UInt64(s.positions))
    }

    /// The plan shares one database: a run is one shard, identical for any thread count.
    @Test func planRunsAsOneShardForAnyThreadCount() throws {
        var s = try DeterminismTests.shipped("v115-pausing.json")
        s.population.players = 4_500
        s.server.design = DatabasePlan(connections: 2)
        let one = Simulation.run(s, threads: 1)
        let two = Simulation.run(s, threads: 2)
        #expect(DeterminismTests.fingerprint(one) == DeterminismTests.fingerprint(two))
        #expect(one.database == two.database)
        #expect((one.database?.positionRequests ?? 0) > 0)
    }
}
