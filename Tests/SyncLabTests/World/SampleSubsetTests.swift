import Testing
@testable import SyncLab
import SyncLabKernel

/// `metrics.samplePlayers`: errors sampled from every k-th player by global index.
@Suite struct SampleSubsetTests {
    static func scenario() throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("v115-pausing.json"))
        s.population.players = 6_000
        s.duration = 20 * .minute
        s.warmup = 10 * .minute
        s.population.release?.at = SimTime(ns: 10 * .minute)
        return s
    }

    /// The subset is chosen by global index, so it is the same players for any sharding; only the
    /// sampled figures change, and everything that counts players (load, transitions) does not.
    @Test func subsetIsThreadIndependentAndLeavesOtherFiguresAlone() throws {
        let all = try Self.scenario()
        var subset = all
        subset.samplePlayers = 2_000
        #expect(subset.sampleStride == 3)
        let full = Simulation.run(all, threads: 1)
        let one = Simulation.run(subset, threads: 1)
        let three = Simulation.run(subset, threads: 3)
        #expect(DeterminismTests.fingerprint(three).dropLast() == DeterminismTests.fingerprint(one).dropLast())
        #expect(three.errorByClock.map(\.1) == one.errorByClock.map(\.1))
        // Load, transitions and viewing counts are those of the full run.
        #expect(one.requestsPerSecond == full.requestsPerSecond)
        #expect(one.transitions == full.transitions)
        #expect(one.viewingSum == full.viewingSum && one.sampleInstants == full.sampleInstants)
        // About a third of the samples: each sample is one viewing player at one instant, and
        // which third views is independent of the index, so the share is 1/3 within a few percent
        // (over ~10^5 samples of ~2,000 players each viewing a few minutes).
        let share = Double(one.samples) / Double(full.samples)
        #expect(abs(share - 1.0 / 3) < 0.03, "share \(share)")
    }

    @Test func capAtOrAboveThePopulationSamplesEveryone() throws {
        var s = try Self.scenario()
        s.samplePlayers = 6_000
        #expect(s.sampleStride == 1)
        s.samplePlayers = nil
        #expect(s.sampleStride == 1)
        s.samplePlayers = 5_999
        #expect(s.sampleStride == 2)
    }
}
