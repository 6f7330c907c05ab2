import Foundation
import Testing
import SyncLab
import SyncLabKernel

/// Progress reporting stops the shards at chunk boundaries; it must never change a result.
@Suite struct SimulationProgressTests {
    static func scenario() throws -> Scenario {
        let path = (#filePath.components(separatedBy: "/Tests/").first ?? ".") + "/Scenarios/v115-uptime.json"
        var s = try ScenarioLoader().load(path: path)
        s.population.players = 4_000   // two shards of 2,000 with 2 threads
        s.duration = 40 * .minute
        s.warmup = 10 * .minute
        s.population.release = PopulationConfig.Release(at: SimTime(ns: 20 * .minute), multiplier: 50, window: .minute)
        return s
    }

    @Test func progressDoesNotChangeResultsAndEndsAtOne() throws {
        let s = try Self.scenario()
        let plain = Simulation.run(s, threads: 2)
        final class Box: @unchecked Sendable { var done: [Double] = [] }
        let box = Box()
        let watched = Simulation.run(s, threads: 2, progress: { box.done.append($0) })
        #expect(plain.figures.keys.sorted() == watched.figures.keys.sorted())
        for (k, v) in plain.figures { #expect(watched.figures[k] == v, "\(k)") }
        #expect(plain.requestsPerSecond == watched.requestsPerSecond)
        #expect(plain.transitions == watched.transitions)
        #expect(plain.eventsScheduled == watched.eventsScheduled)
        // One-minute chunks over 50 simulated minutes: 48 boundaries (the one at the release is
        // the release barrier itself), the release and the end; increasing, ending at 1.
        #expect(box.done.count == 50)
        #expect(box.done == box.done.sorted())
        #expect(box.done.last == 1)
        // The release at 20 of 50 simulated minutes is reported as 60% done.
        #expect(box.done.contains(0.6))
    }
}
