import Testing
@testable import SyncLab
import SyncLabKernel

/// Delay processes in the world: `independent` is today's draws bit for bit, and correlated
/// delays stay deterministic for any thread count (a player's process state and draws are its own).
@Suite struct WorldDelayProcessTests {
    static func scenario(_ correlation: (any DelayProcess)?, players: Int = 2_000) throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("recommended.json"))
        s.population.players = players
        s.duration = 30 * .minute
        s.warmup = 10 * .minute
        s.population.release?.at = SimTime(ns: 15 * .minute)
        if let correlation {
            // Prepared as a scenario's own would be: a process left untabulated on a mixture
            // link inverts the CDF by root search on every draw, many times slower.
            for i in s.links.indices { s.links[i] = s.links[i].preparingCorrelation(correlation) }
        }
        return s
    }

    /// `independent` takes the world's plain path (inline samplers, no process consulted); the
    /// presets' own delays (correlated in time on the cellular links) and a short time constant
    /// on every link are other runs.
    @Test func independentIsThePlainPath() throws {
        let independent = try Self.scenario(IndependentDelays())
        let allIndependent = independent.links.allSatisfy(\.hasIndependentDelays)
        #expect(allIndependent)
        let plain = DeterminismTests.fingerprint(Simulation.run(independent, threads: 1))
        let presets = try Self.scenario(nil)
        let correlated = presets.links.map { $0.correlation is AR1Delays }, cellular = presets.links.map { $0.name != "wifi" }
        #expect(correlated == cellular)
        #expect(DeterminismTests.fingerprint(Simulation.run(presets, threads: 1)) != plain)
        let short = DeterminismTests.fingerprint(Simulation.run(try Self.scenario(AR1Delays(tau: AR1Delays.minimumTimeConstant)), threads: 1))
        #expect(short != plain)
    }

    @Test(arguments: [AR1Delays(tau: 2 * .second) as any DelayProcess,
                      GilbertElliottDelays(goodToBadPerSecond: 0.05, badToGoodPerSecond: 0.3, badUplink: .lognormal(median: 300e6, sigma: 0.5),
                                           badDownlink: .lognormal(median: 250e6, sigma: 0.5), badFailure: 0.05)])
    func correlatedRunsAreIdenticalForAnyThreadCount(process: any DelayProcess) throws {
        // 6,000 players: 2 and 3 threads are as many shards of 2,000 or more. Twenty minutes,
        // the release among them, keep the three runs short.
        var s = try Self.scenario(process, players: 6_000)
        s.duration = 20 * .minute
        let one = Simulation.run(s, threads: 1)
        for threads in [2, 3] {
            let many = Simulation.run(s, threads: threads)
            #expect(many.shards == threads, "the test means to split the players")
            #expect(DeterminismTests.fingerprint(many).dropLast() == DeterminismTests.fingerprint(one).dropLast(), "\(threads) threads")
            #expect(many.requestsServed == one.requestsServed && many.bytesServed == one.bytesServed)
        }
    }
}
