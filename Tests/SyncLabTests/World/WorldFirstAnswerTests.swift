import Testing
@testable import SyncLab
import SyncLabKernel

/// A player with nothing to show shows the first answer whose ± bound is within
/// `client.showFirstAnswerWithin`, before its round ends: worked out by hand on constant links.
///
/// One player visits at 5 s on a link of 40 ms up, 60 ms down and 100 kB/s both ways, with no
/// service time: every store probe takes 104 ms and the file's transfer (as in
/// `WorldTimeEndpointTests`). NTP's one-exchange bound is half that round trip (the server holds
/// the request no time) plus 1 ns, the server's 1 µs resolution, the continuous clock's resolution
/// twice and 100 ppm of the round trip: a few tens of µs over half the round trip.
@Suite struct WorldFirstAnswerTests {
    static let visit: Int64 = 5 * .second

    static func scenario(within: Nanoseconds?, probes: Int = 3, duration: Nanoseconds = 2 * .minute) -> Scenario {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: duration)
        s.links[0].bandwidth = .constant(WorldTimeEndpointTests.bandwidth)
        s.server.timestampResolution = .microsecond
        s.client.estimator = NTPEstimator(window: 8)
        s.client.probes = probes
        s.client.showFirstAnswerWithin = within
        return s
    }

    /// A store probe's round trip in `world`: 104 ms and the file's transfer.
    static func trip(_ world: World) -> Int64 { WorldTimeEndpointTests.storeTrip(world.server.store.files[0].responseBytes) }

    /// With a limit 1 ms over half the round trip, the first answer is shown when it is in: the
    /// Store shows 2 round trips sooner. On constant links every probe is alike and the round keeps
    /// the first (the earlier on a tie), so the round's anchor is the first answer's.
    @Test func anAnswerWithinTheLimitIsShownAtOnce() {
        let trip = Self.trip(World(scenario: Self.scenario(within: nil)))
        var world = World(scenario: Self.scenario(within: trip / 2 + .millisecond))
        let first = Self.visit + trip
        world.run(until: SimTime(ns: first))
        #expect(!world.clients[0].hasSync && world.clients[0].file == -1)
        world.run(until: SimTime(ns: first + 1))
        let shown = world.clients[0]
        #expect(shown.hasSync && shown.file == 0 && shown.anchorSetAt.ns == first)
        #expect(shown.fetchInFlight && shown.probesDone == 1, "the round goes on")
        let roundEnd = first + 2 * trip
        world.run(until: SimTime(ns: roundEnd + 1))
        let c = world.clients[0]
        #expect(c.anchorSetAt.ns == roundEnd && !c.fetchInFlight && c.probesDone == 0)
        #expect(c.previousValid && c.previousAnchor == shown.anchor && c.anchor == shown.anchor)
        let r = world.run()
        #expect(r.firstAnswersShown == 1 && r.requestsSent == 3)
    }

    /// Half the round trip alone is under the bound (the resolutions and the drift allowance come
    /// on top): the player waits for the round, as without the option.
    @Test func aBoundOverTheLimitWaitsForTheRound() {
        let trip = Self.trip(World(scenario: Self.scenario(within: nil)))
        var world = World(scenario: Self.scenario(within: trip / 2))
        world.run(until: SimTime(ns: Self.visit + trip + 1))
        #expect(!world.clients[0].hasSync)
        world.run(until: SimTime(ns: Self.visit + 3 * trip + 1))
        #expect(world.clients[0].hasSync && world.clients[0].anchorSetAt.ns == Self.visit + 3 * trip)
        #expect(world.run().firstAnswersShown == 0)
    }

    /// The refetch 6–9 min after the load finds the file still listing every position (it covers
    /// 10 min): the player keeps what it shows until that round ends. Only the launch shows early.
    @Test func aPlayerShowingACurrentFileWaitsForTheRound() {
        var world = World(scenario: Self.scenario(within: .second, duration: 12 * .minute))
        let r = world.run()
        #expect(r.requestsSent == 6, "the launch's round and one refetch")
        #expect(r.firstAnswersShown == 1)
    }

    /// What decides requests waits for the round's end, so a realistic run (the recommended
    /// design: radio promotions, connection set-ups, losses, retries, a fleet) sends the same
    /// requests, lands the same rounds and shows less bare time; on 3 shards as on one.
    @Test func theRequestsAndRoundsAreThoseWithoutIt() throws {
        var s = try DeterminismTests.shipped("recommended.json")
        s.population.players = 2_000
        let without = Simulation.run(s, threads: 1)
        s.client.showFirstAnswerWithin = 250 * .millisecond
        let with = Simulation.run(s, threads: 1)
        #expect(with.requestsPerSecond == without.requestsPerSecond)
        #expect(with.requestsSent == without.requestsSent && with.requestsFailed == without.requestsFailed)
        #expect(with.fetchSyncError == without.fetchSyncError, "the rounds' estimates")
        #expect(with.roundTrip == without.roundTrip)
        #expect(with.firstAnswersShown > 0 && without.firstAnswersShown == 0)
        #expect(with.bareSamples < without.bareSamples)
        let sharded = Simulation.run(s, threads: 3, smallestShard: 500)
        #expect(sharded.shards == 3)
        #expect(DeterminismTests.fingerprint(sharded).dropLast() == DeterminismTests.fingerprint(with).dropLast())
        #expect(sharded.firstAnswersShown == with.firstAnswersShown)
    }

    @Test func theLimitIsReadAndTheEndpointRefused() throws {
        let read = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"client": {"probes": 3, "showFirstAnswerWithin": "250ms"}}"#))
        #expect(read.client.showFirstAnswerWithin == 250 * .millisecond)
        for override in [#"{"client": {"showFirstAnswerWithin": "-1ms"}}"#, #"{"client": {"showFirstAnswerWithin": 250}}"#,
                         #"{"client": {"probeTarget": "time-endpoint", "showFirstAnswerWithin": "250ms"}}"#] {
            let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(override))
            #expect(error?.keyPath == "client.showFirstAnswerWithin", "\(override): \(String(describing: error))")
        }
    }
}
