import Testing
@testable import SyncLab
import SyncLabKernel

/// `run --trace-requests N`: the traced players, and their rows the same for any thread count.
@Suite struct RequestTraceTests {
    @Test func tracedPlayersAreTheSmallestSubsetKeys() {
        let chosen = RequestTrace.players(50, of: 20_000)
        #expect(chosen.count == 50 && chosen == chosen.sorted())
        let keys = (0..<20_000).map { (ShowSummaries.playerKey($0), $0) }.sorted { $0.0 < $1.0 }
        #expect(Set(chosen) == Set(keys.prefix(50).map(\.1)))
        #expect(RequestTrace.players(10, of: 4) == [0, 1, 2, 3])
        #expect(RequestTrace.players(0, of: 4).isEmpty)
    }

    /// v115-idealised (no shared queue) at 5,000 players runs as two shards on two threads:
    /// the trace is the same as on one, row for row.
    @Test func theTraceIsTheSameForAnyThreadCount() throws {
        var s = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("v115-idealised.json"))
        s.population.players = 5_000
        s.duration = 20 * .minute
        s.population.release = nil
        #expect(Simulation.shardCount(s, threads: 2) == 2)
        let one = Simulation.run(s, threads: 1, traceRequests: 400)
        let two = Simulation.run(s, threads: 2, traceRequests: 400)
        let rows = try #require(one.requestTrace)
        #expect(rows.count > 5)
        #expect(rows == two.requestTrace)
        let traced = Set(RequestTrace.players(400, of: 5_000))
        for row in rows {
            #expect(traced.contains(row.player))
            #expect(row.sent >= 0 && row.sent < s.duration)
            if row.outcome == .answered {
                // Each step follows the one before it.
                let arrived = try #require(row.reachedServer), left = try #require(row.responseStart), end = try #require(row.end)
                #expect(row.sent <= arrived && arrived <= left && left <= end)
                #expect(row.served == arrived + (row.waited ?? -1))
            }
        }
        #expect(Simulation.run(s, threads: 1).requestTrace == nil)
    }
}
