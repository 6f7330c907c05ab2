import Testing
import SyncLabKernel
@testable import SyncLab

/// Cancelled events swept from the queue's heap (`World+CancelledEvents`): a run gives the same
/// results however often it sweeps, and a long run with transitions days ahead keeps its heap small.
@Suite struct WorldCancelledEventsTests {
    /// R1 with a transition inside the run: every fetch in flight schedules a display tick for
    /// it, days ahead, cancelled when the response comes back.
    static func longShelfLife(players: Int, days: Int64) throws -> Scenario {
        var s = try WorldEarlyEventsTests.load("r1.json", players: players, duration: days * 24 * .hour)
        s.shelfLife = .constant(Double((days - 1) * 24 * .hour))
        return s
    }

    @Test func sweepingChangesNothing() throws {
        var cases: [(String, Scenario)] = [("r1, transition on day 4", try Self.longShelfLife(players: 40, days: 5))]
        for file in ["v115-pausing.json", "outage-backoff.json", "original-plan.json"] {
            cases.append((file, try WorldEarlyEventsTests.load(file, players: 200, duration: 2 * .hour)))
        }
        for (label, s) in cases {
            var often = World(scenario: s)
            often.executor.farSweepAt = 8        // sweeps as soon as the heap holds a few events, then on each doubling
            let swept = often.run()
            var never = World(scenario: s)
            never.executor.farSweepAt = .max
            let kept = never.run()
            WorldEarlyEventsTests.expectSame(swept, kept, label)
            #expect(often.loop.queue.farCount <= never.loop.queue.farCount, "\(label)")
        }
    }

    /// 40 players over 5 days refetch about every 7.5 minutes: some 38,000 fetches, each leaving
    /// a cancelled tick for the day-4 transition. Swept, the heap holds a few hundred at most.
    @Test func cancelledTicksDoNotPileUp() throws {
        let s = try Self.longShelfLife(players: 40, days: 5)
        var swept = World(scenario: s)
        swept.executor.farSweepAt = 256
        var kept = World(scenario: s)
        kept.executor.farSweepAt = .max
        // Stopped before the transition, when the cancelled ticks are all still waiting.
        let stop = SimTime(ns: 3 * 24 * .hour)
        swept.run(until: stop)
        kept.run(until: stop)
        #expect(kept.loop.queue.farCount > 20_000)
        #expect(swept.loop.queue.farCount <= 512)
        #expect(swept.executor.farSweepAt == 256, "few events survive a sweep, so the threshold stays at its floor")
    }
}
