import Testing
@testable import SyncLab
import SyncLabKernel

/// Shards that share the fleet always finish (`FleetCoordinator`'s liveness argument) and give
/// the same results however their run is cut: stopped at arbitrary instants (the progress path
/// stops every shard there and starts them again), on more shards than the machine has cores,
/// through outages whose answers come to players who have given up on them.
///
/// Each run has a short stall bound, so a shard left waiting fails the test (the run stops with
/// what it waited for) instead of hanging it.
@Suite struct ShardLivenessTests {
    static let stall = FleetCoordinator.StallLimit(seconds: 20)

    /// `count` instants drawn over the run's window, plus the edges a stop can fall on: the
    /// warm-up's first nanosecond, either side of the release and of a minute's cron, and the
    /// last nanosecond before the end.
    static func stops(_ s: Scenario, count: Int, seed: UInt64) -> [SimTime] {
        var random = RandomStream(seed: seed)
        let start = -s.warmup, span = UInt64(s.duration + s.warmup)
        var stops = (0..<count).map { _ in start + Int64(random.below(span)) }
        stops += [start + 1, s.duration - 1, 0, 1, .minute - 1, .minute, .minute + 1]
        if let release = s.population.release?.at.ns { stops += [release - 1, release + 1] }
        return Set(stops).sorted().map(SimTime.init(ns:))
    }

    /// Runs `s` unstopped on one thread, then on each of `threads` with the stops, and expects
    /// the same results from each; every run with several threads ran as many shards.
    static func expectStopsChangeNothing(_ s: Scenario, threads: [Int], stops count: Int, seed: UInt64) {
        let one = Simulation.run(s, threads: 1, smallestShard: 250)
        let stops = Self.stops(s, count: count, seed: seed)
        for n in threads {
            var reported = 0
            let cut = Simulation.run(s, threads: n, progress: { _ in reported += 1 }, smallestShard: 250,
                                     stops: stops, stallLimit: stall)
            #expect(cut.shards == n)
            let release = s.population.release?.at
            let inside = stops.filter { $0.ns > -s.warmup && $0.ns < s.duration && $0 != release }
            #expect(reported == inside.count + (release == nil ? 1 : 2), "a report at each stop, at the release and at the end")
            #expect(DeterminismTests.fingerprint(cut).dropLast() == DeterminismTests.fingerprint(one).dropLast(), "\(n) threads")
            #expect(cut.serving == one.serving && cut.figures == one.figures, "\(n) threads")
        }
    }

    /// A queueing fleet through the release, cut at 60 arbitrary instants, on 2 and 3 shards and
    /// on more shards than cores.
    @Test(arguments: [UInt64(1), 2])
    func progressStopsAnywhere(seed: UInt64) throws {
        let s = try FleetCoordinatorTests.squeezed("v115-pausing.json")
        Self.expectStopsChangeNothing(s, threads: [2, 3, 7], stops: 60, seed: seed)
    }

    /// The outage: answers come to players who gave up on them (timed out and retried), so a
    /// trade may bring answers that schedule nothing. A shard that then had nothing left before
    /// its limit used to leave with its clock at the answer it had taken, and a shard waiting on
    /// that clock waited for good (4 and 7 shards, without any progress stop).
    @Test(arguments: [Outage.Mode.refused, .timeout])
    func outageOnMoreShardsThanCores(mode: Outage.Mode) throws {
        var s = try FleetCoordinatorTests.squeezed("outage-fixed-retry.json")
        s.server.outages = [Outage(at: SimTime(ns: 14 * .minute), duration: 2 * .minute, mode: mode)]
        let one = Simulation.run(s, threads: 1, smallestShard: 250)
        for n in [4, 7] {
            let many = Simulation.run(s, threads: n, smallestShard: 250, stallLimit: Self.stall)
            #expect(many.shards == n)
            #expect(DeterminismTests.fingerprint(many).dropLast() == DeterminismTests.fingerprint(one).dropLast(), "\(n) threads")
            #expect(many.serving == one.serving && many.figures == one.figures, "\(n) threads")
        }
        Self.expectStopsChangeNothing(s, threads: [2, 4], stops: 30, seed: 3)
    }

    /// A wait that nothing can end (the other shard never publishes a clock) stops the run with
    /// what it waited for once no clock has moved for the bound, instead of hanging.
    @Test func aWaitNothingEndsStopsTheRun() async {
        await #expect(processExitsWith: .failure) {
            let s = FleetCoordinatorTests.twoServers()
            let fleet = FleetCoordinator(scenario: s, schedule: World.schedule(for: s), shardPlayers: [0..<5, 5..<10])
            fleet.stallLimit = FleetCoordinator.StallLimit(seconds: 1)
            let seen = fleet.progress(0)
            fleet.wait(0, forArrival: 1_000_000_000, after: seen)
        }
    }

    /// A shard with no player event before a stop: its players all wait on the fleet past it
    /// (one player a shard). It still publishes that it is at the stop, or the other waits.
    @Test func aShardWithNothingToDoBeforeAStop() throws {
        var s = try FleetCoordinatorTests.squeezed("outage-fixed-retry.json", players: 8)
        s.server.outages = [Outage(at: SimTime(ns: 14 * .minute), duration: 2 * .minute, mode: .timeout)]
        let one = Simulation.run(s, threads: 1, smallestShard: 1)
        var random = RandomStream(seed: 11)
        let stops = (0..<200).map { _ in SimTime(ns: -s.warmup + Int64(random.below(UInt64(s.duration + s.warmup)))) }.sorted()
        let cut = Simulation.run(s, threads: 8, progress: { _ in }, smallestShard: 1, stops: stops, stallLimit: Self.stall)
        #expect(cut.shards == 8)
        #expect(DeterminismTests.fingerprint(cut).dropLast() == DeterminismTests.fingerprint(one).dropLast())
    }
}
