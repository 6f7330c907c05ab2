import Testing
@testable import SyncLab
import SyncLabKernel

/// A round whose estimate claims a ± bound wider than `client.maxSyncBound` is not used:
/// worked out by hand on the constant links of `WorldFirstAnswerTests` (one probe of 104 ms and
/// the file's transfer, T; a bound of T/2 and a few tens of µs for NTP's exchange and for
/// Cristian's, whose round trip is the same T with no server hold).
@Suite struct WorldMaxSyncBoundTests {
    static func scenario(_ estimator: any SyncEstimator, limit: Nanoseconds?) -> Scenario {
        var s = WorldFirstAnswerTests.scenario(within: nil, probes: 1, duration: 20 * .second)
        s.client.estimator = estimator
        s.client.maxSyncBound = limit
        return s
    }

    static let estimators: [any SyncEstimator] = [NTPEstimator(window: 8), CristianEstimator()]

    /// A limit of T/2 is under the bound: the round at 5 s + T is not used, nothing is kept, and
    /// the fixed retry sends again 5 s later, at 10 s + T and 15 s + 2T; the next, at 20 s + 3T,
    /// is past the 20 s run. Three rounds, none used, and the estimator's memory never written.
    @Test(arguments: 0..<2)
    func aRoundOverTheLimitIsNotUsed(_ k: Int) {
        let trip = WorldFirstAnswerTests.trip(World(scenario: Self.scenario(Self.estimators[k], limit: nil)))
        var world = World(scenario: Self.scenario(Self.estimators[k], limit: trip / 2))
        let r = world.run()
        let c = world.player(0)
        #expect(!c.hasSync && c.file == -1)
        #expect(r.requestsSent == 3 && r.responses == 3 && r.syncsRejected == 3 && r.requestsFailed == 0)
        #expect(c.request.sentAt.ns == 15 * .second + 2 * trip)
        #expect(world.memory.words.allSatisfy { $0 == 0 }, "the estimator's memory as it was")
        #expect(r.fetchSyncError.count == 0)
    }

    /// 1 ms more and the round is used at 5 s + T, as without a limit.
    @Test(arguments: 0..<2)
    func aRoundWithinTheLimitIsUsed(_ k: Int) {
        let trip = WorldFirstAnswerTests.trip(World(scenario: Self.scenario(Self.estimators[k], limit: nil)))
        var without = World(scenario: Self.scenario(Self.estimators[k], limit: nil))
        var world = World(scenario: Self.scenario(Self.estimators[k], limit: trip / 2 + .millisecond))
        let r = world.run(), plain = without.run()
        #expect(world.clients[0].hasSync && world.clients[0].anchorSetAt.ns == WorldFirstAnswerTests.visit + trip)
        #expect(world.clients[0].anchor == without.clients[0].anchor)
        #expect(r.syncsRejected == 0 && r.requestsSent == plain.requestsSent)
        #expect(world.memory.words == without.memory.words)
    }

    @Test func theLimitIsRead() throws {
        let read = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"client": {"maxSyncBound": "1s"}}"#))
        #expect(read.client.maxSyncBound == .second)
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"client": {"maxSyncBound": "soon"}}"#))
        #expect(error?.keyPath == "client.maxSyncBound")
    }
}
