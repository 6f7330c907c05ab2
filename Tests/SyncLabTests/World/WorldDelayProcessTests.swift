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
            for i in s.links.indices { s.links[i].correlation = correlation }
        }
        return s
    }

    @Test func independentIsTodaysDrawsBitForBit() throws {
        let plain = DeterminismTests.fingerprint(Simulation.run(try Self.scenario(nil), threads: 1))
        let named = DeterminismTests.fingerprint(Simulation.run(try Self.scenario(IndependentDelays()), threads: 1))
        #expect(plain == named)
        // A short time constant draws nearly the same law through another route: a different run.
        let ar0 = DeterminismTests.fingerprint(Simulation.run(try Self.scenario(AR1Delays(tau: AR1Delays.minimumTimeConstant)), threads: 1))
        #expect(ar0 != plain)
    }

    @Test(arguments: [AR1Delays(tau: 2 * .second) as any DelayProcess,
                      GilbertElliottDelays(goodToBadPerSecond: 0.05, badToGoodPerSecond: 0.3, badUplink: .lognormal(median: 300e6, sigma: 0.5),
                                           badDownlink: .lognormal(median: 250e6, sigma: 0.5), badFailure: 0.05)])
    func correlatedRunsAreIdenticalForAnyThreadCount(process: any DelayProcess) throws {
        let s = try Self.scenario(process, players: 3_000)
        let one = Simulation.run(s, threads: 1)
        for threads in [2, 3] {
            let many = Simulation.run(s, threads: threads)
            #expect(DeterminismTests.fingerprint(many).dropLast() == DeterminismTests.fingerprint(one).dropLast(), "\(threads) threads")
            #expect(many.requestsServed == one.requestsServed && many.bytesServed == one.bytesServed)
        }
    }
}
