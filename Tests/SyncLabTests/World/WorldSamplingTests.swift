import Testing
import SyncLabKernel
@testable import SyncLab

/// Lazy sampling (`World+Sampling`): a player records the sample instants it saw just before its
/// next event, or when every viewing player catches up. Whenever that happens, each (player,
/// instant) pair must be recorded once, with the state the player had at the instant.
@Suite struct WorldSamplingTests {
    /// v1.1.5 with standby (the suspending clock pauses), a release and players coming and going,
    /// so state changes between instants in every way a sample can see.
    static func scenario() throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("v115-pausing.json"))
        s.population.players = 1_500
        s.duration = 40 * .minute
        s.warmup = 10 * .minute
        s.population.release?.at = SimTime(ns: 20 * .minute)
        return s
    }

    static func run(_ s: Scenario, pendingLimit: Int) -> RunResult {
        var world = World(scenario: s)
        world.executor.pendingSampleLimit = pendingLimit
        return world.run()
    }

    /// What only samples read of a sync — its reference clocks' anchors, its error split, the
    /// drift and sleep it is measured from, a stateless estimator's bound — is worked out when a
    /// sample or a device change needs it, not at the sync. With reboots, wall-clock changes,
    /// tampering, app kills and standby (each moves some clock's reading of a past instant), the
    /// results are those of working it out at once, for a stateless built-in estimator (bound
    /// deferred), one with best-of-3 probes, one with filter memory and drift correction (bound at
    /// the sync), and an app team's estimator called through its protocol.
    @Test func syncsSettledLaterGiveTheSameResults() throws {
        struct TeamEstimator: SyncEstimator {
            var name: String { "team" }
            func anchor(for s: SyncSample) -> SyncAnchor {
                SyncAnchor(serverTime: s.serverTimestamp &+ s.roundTrip / 3, reading: s.downloadComplete)
            }
            func halfWidth(for s: SyncSample, _ m: BoundModel) -> SyncBound { .halfWidth(s.roundTrip &+ m.serverResolution) }
        }
        var s = try Self.scenario()
        s.devices.events = DeviceEventsConfig(
            reboots: .init(every: .exponential(mean: 1.2e12)), appKills: .init(every: .exponential(mean: 0.9e12)),
            wallClockChanges: .init(every: .exponential(mean: 1.2e12), jump: .uniform(min: -3.6e12, max: 3.6e12)),
            tampering: .init(share: 0.2, advance: .constant(6e11), at: .uniform(min: 0, max: 1.2e12)))
        s.devices.driftPPM = .normal(mean: 0, sd: 30)
        let v115 = s.client
        var probing = v115, filtering = v115, team = v115
        (probing.clock, probing.estimator, probing.probes) = (WallClock(), CristianEstimator(), 3)
        (filtering.clock, filtering.estimator, filtering.driftCorrection) = (ContinuousDeviceClock(), NTPEstimator(window: 4), DriftCorrection())
        team.estimator = TeamEstimator()
        for design in [v115, probing, filtering, team] {
            s.client = design
            let label = "\(design.clock.name), \(design.estimator.name), \(design.probes) probes"
            var eager = World(scenario: s)
            eager.executor.settlesSyncsAtOnce = true
            let atSync = eager.run()
            var lazy = World(scenario: s)
            let later = lazy.run()
            #expect(atSync.deviceEvents.reboots > 0 && atSync.deviceEvents.wallClockChanges > 0, "\(label)")
            #expect(atSync.samples > 10_000, "\(label)")
            #expect(later.errorByClock.map(\.1) == atSync.errorByClock.map(\.1), "\(label)")
            #expect(later.errorAttribution == atSync.errorAttribution, "\(label)")
            #expect(later.bounds == atSync.bounds, "\(label)")
            #expect(later.timeline == atSync.timeline, "\(label)")
            #expect(DeterminismTests.fingerprint(later) == DeterminismTests.fingerprint(atSync), "\(label)")
        }
    }

    /// With a limit of one instant, every viewing player records each instant at the instant
    /// itself: the plain sweep. Larger limits leave instants pending across many events of each
    /// player. The records are the same.
    @Test func resultsDoNotDependOnWhenPlayersCatchUp() throws {
        let s = try Self.scenario()
        let sweep = Self.run(s, pendingLimit: 1)
        #expect(sweep.samples > 20_000)
        #expect(sweep.releaseJoined > 0)
        for limit in [7, 4_096] {
            let lazy = Self.run(s, pendingLimit: limit)
            #expect(lazy.samples == sweep.samples, "limit \(limit)")
            #expect(DeterminismTests.fingerprint(lazy) == DeterminismTests.fingerprint(sweep), "limit \(limit)")
            #expect(lazy.clientError == sweep.clientError && lazy.estimateError == sweep.estimateError)
            #expect(lazy.errorByClock.map(\.1) == sweep.errorByClock.map(\.1))
            #expect(lazy.displayByLink == sweep.displayByLink && lazy.estimateByLink == sweep.estimateByLink)
            #expect(lazy.displayByWake == sweep.displayByWake && lazy.estimateByWake == sweep.estimateByWake)
            #expect(lazy.timeline == sweep.timeline)
            #expect(lazy.bounds == sweep.bounds)
            #expect(lazy.errorAttribution == sweep.errorAttribution)
            #expect(lazy.positionSamples == sweep.positionSamples)
        }
    }

    /// Counts derived by hand: one instant per 5 s of the window, and at each instant every
    /// viewing player (counted by the instant itself, not by the players) records all 12
    /// positions once, bare or not.
    @Test func everyViewingPlayerIsRecordedOncePerInstant() throws {
        let r = Self.run(try Self.scenario(), pendingLimit: 4_096)
        #expect(r.sampleInstants == UInt64((40 * .minute) / (5 * .second)))
        #expect(r.viewingSum > 0)
        #expect(r.positionSamples == 12 * r.viewingSum)
    }

    /// A player records only the fired instants before its event in the queue's order: time,
    /// then scheduling sequence. Instants fired at 10 s (sequence 5) and twice at 15 s (9, 12),
    /// 40 having been recorded by all before them: an event at 15 s with sequence 10 comes after
    /// the first two (42), one with 8 after the first (41), one at 10 s with 6 after it too (41),
    /// one at 9 s after none (40), one at 20 s after all (43).
    @Test func aPlayerRecordsOnlyTheInstantsBeforeItsEvent() throws {
        var world = World(scenario: try Self.scenario())
        world.measure.pendingBase = 40
        world.measure.pendingSamples = [(10, 5), (15, 9), (15, 12)].map { (s: Int64, q: UInt64) in
            SampleInstant(t: SimTime(ns: s * .second), serverNow: 0, truthIndex: 0, bucket: 0, sequence: q)
        }
        func before(_ s: Int64, _ q: UInt64) -> UInt32 { world.samplesFired(before: SimTime(ns: s * .second), sequence: q) }
        #expect(before(15, 10) == 42)
        #expect(before(15, 8) == 41)
        #expect(before(10, 6) == 41)
        #expect(before(9, 100) == 40)
        #expect(before(20, 0) == 43 && world.samplesFired == 43)
    }
}
