import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// `devices.lifecycle`: termination across a break decided from the hazard's survival function,
/// checked against its closed form, worked through the whole world, and the break bound.
@Suite struct AppLifecycleTests {
    typealias Lifecycle = DeviceEventsConfig.AppLifecycle

    // One player: visit at 5 s, views 60 s, locks the phone for `pause`, views again; the run
    // ends 30 s after the return, before any refetch is due on the pausing clock.
    static let viewing: Int64 = 60 * .second
    static func returnAt(_ pause: Int64) -> Int64 { 5 * .second + viewing + pause }

    static func run(pause: Int64, _ lifecycle: Lifecycle?, players: Int = 1, lockShare: Double = 1) -> World {
        var s = WorldExactTests.scenario(clock: SuspendingDeviceClock(), duration: returnAt(pause) + 30 * .second,
                                         sessions: 2, viewing: viewing, pause: pause, players: players)
        s.population.lockShare = lockShare
        s.devices.events.lifecycle = lifecycle
        var world = World(scenario: s)
        _ = world.run()
        return world
    }

    /// A 2 h locked break against a 1 h kill horizon: the app was terminated, so the return is a
    /// cold start — a request sent at the view's start and a new anchor. Without the lifecycle the
    /// same break keeps the first visit's sync (the seeds' stale clock).
    @Test func breakBeyondTheHorizonShowsAFreshSync() {
        let pause = 2 * Int64.hour
        let back = Self.returnAt(pause)
        let killed = Self.run(pause: pause, Lifecycle(lockedMedian: 1_000 * .hour, horizon: .hour, maxBreak: nil))
        let c = killed.player(0)
        #expect(c.request.sentAt.ns == back)
        #expect(c.hasSync && c.anchorSetAt.ns > back)
        #expect(killed.measure.recorder.deviceEvents.lockedBreaks == 1)
        #expect(killed.measure.recorder.deviceEvents.lockedTerminations == 1)

        let kept = Self.run(pause: pause, nil).player(0)
        #expect(kept.request.sentAt.ns == 5 * .second)
        #expect(kept.hasSync && kept.anchorSetAt.ns < back)
    }

    /// A 20 s break is inside the 30 s grace: the app never got suspended, so it keeps its sync
    /// even when any suspension would kill it (horizon 1 s). 31 s is 1 s suspended: terminated.
    @Test func breakWithinTheGraceKeepsTheOldSync() {
        let deadly = Lifecycle(lockedMedian: .second, otherAppsMedian: .second, horizon: .second, maxBreak: nil)
        let kept = Self.run(pause: 20 * .second, deadly)
        #expect(kept.player(0).request.sentAt.ns == 5 * .second)
        #expect(kept.measure.recorder.deviceEvents.lockedBreaks == 1)
        #expect(kept.measure.recorder.deviceEvents.lockedTerminations == 0)
        let killed = Self.run(pause: 31 * .second, deadly)
        #expect(killed.player(0).request.sentAt.ns == Self.returnAt(31 * .second))
    }

    /// S(b) = 2^−((b − grace)/median)^shape, computed here with Foundation's pow.
    @Test func survivalIsTheWeibullClosedForm() {
        let l = Lifecycle(grace: 30 * .second, lockedMedian: 2 * .hour, otherAppsMedian: 15 * .minute, shape: 1.5,
                          horizon: 6 * .hour, maxBreak: nil)
        func closed(_ b: Int64, _ median: Int64) -> Double {
            pow(2, -pow(Double(b - 30 * .second) / Double(median), 1.5))
        }
        for b in [31 * Int64.second, 5 * .minute, 15 * .minute + 30 * .second, 30 * .minute, 2 * .hour + 30 * .second, 5 * .hour] {
            #expect(abs(l.survival(afterBreak: b, locked: true) - closed(b, 2 * .hour)) < 1e-12, "locked \(b)")
            #expect(abs(l.survival(afterBreak: b, locked: false) - closed(b, 15 * .minute)) < 1e-12, "other apps \(b)")
        }
        // At the median the survival is one half exactly; inside the grace one; past the horizon zero.
        #expect(abs(l.survival(afterBreak: 2 * .hour + 30 * .second, locked: true) - 0.5) < 1e-12)
        #expect(l.survival(afterBreak: 30 * .second, locked: false) == 1)
        #expect(l.survival(afterBreak: 6 * .hour + 30 * .second, locked: true) == 0)
    }

    /// 200,000 decisions at S = 2^−(9.5/10)^1.5 ≈ 0.526: the survivors' share is binomial with
    /// sd √(S(1−S)/n) ≈ 0.00112; 5 sd (0.0056) leaves a false failure at about 6·10⁻⁷.
    @Test func drawnSurvivalMatchesTheClosedForm() {
        let l = Lifecycle(grace: 30 * .second, lockedMedian: 10 * .minute, otherAppsMedian: 10 * .minute, shape: 1.5)
        let n = 200_000
        let s = pow(2, -pow(9.5 / 10, 1.5))
        var survived = 0
        for i in 0..<n {
            var rng = RandomStream(seed: 42, purpose: World.lifecyclePurpose, entity: UInt64(i))
            if !l.terminated(afterBreak: 10 * .minute, locked: i % 2 == 0, &rng) { survived += 1 }
        }
        let sd = (s * (1 - s) / Double(n)).squareRoot()
        #expect(abs(Double(survived) / Double(n) - s) < 5 * sd)
    }

    /// Through the world: 20,000 players, one 10 min break each, locked or in other apps. The
    /// terminated share is binomial around 1 − S with sd ≤ √(0.25/20000) ≈ 0.0035; 5 sd.
    @Test(arguments: [(1.0, true), (0.0, false)])
    func worldTerminatesAtTheHazardsRate(lockShare: Double, locked: Bool) {
        let l = Lifecycle(grace: 30 * .second, lockedMedian: 10 * .minute, otherAppsMedian: 20 * .minute, shape: 1.5, maxBreak: nil)
        let n = 20_000
        let world = Self.run(pause: 10 * .minute, l, players: n, lockShare: lockShare)
        let d = world.measure.recorder.deviceEvents
        let (breaks, killed) = locked ? (d.lockedBreaks, d.lockedTerminations) : (d.otherAppsBreaks, d.otherAppsTerminations)
        #expect(breaks == UInt64(n))
        #expect(d.lockedBreaks + d.otherAppsBreaks == UInt64(n))
        let p = 1 - l.survival(afterBreak: 10 * .minute, locked: locked)
        #expect(abs(p - (1 - pow(2, -pow(9.5 / (locked ? 10 : 20), 1.5)))) < 1e-12)
        let sd = (p * (1 - p) / Double(n)).squareRoot()
        #expect(abs(Double(killed) / Double(n) - p) < 5 * sd)
        // Locked, the pausing clock slept through most of the break, so no refetch is due: only
        // the terminated players send a request at the return (their cold start). In other apps
        // the clock ran 11 min past the load, so every player refetches then anyway.
        // Those requests are all out at once, in slots of their own: each is its player's last.
        let resent = world.clients.indices.filter { world.player($0).request.sentAt.ns == Self.returnAt(10 * .minute) }.count
        #expect(UInt64(resent) == (locked ? killed : UInt64(n)))
    }

    /// Bounded breaks follow LogNormal(4m, 0.9) conditioned on ≤ 30m:
    /// P(X ≤ 10m | X ≤ 30m) = Φ(ln 2.5/0.9)/Φ(ln 7.5/0.9) ≈ 0.8565. 100,000 breaks: sd ≈ 0.0011, 5 sd.
    /// A break drawn within the bound is kept as drawn.
    @Test func boundedBreaksAreTheTruncatedDistribution() {
        let l = Lifecycle(maxBreak: 30 * .minute)
        let breaks = Distribution.lognormal(median: 2.4e11, sigma: 0.9)
        func phi(_ z: Double) -> Double { 0.5 * erfc(-z / 2.squareRoot()) }
        let expected = phi(log(2.5) / 0.9) / phi(log(7.5) / 0.9)
        let n = 100_000
        var within10m = 0, redrawn = 0
        for i in 0..<n {
            var first = RandomStream(seed: 7, purpose: ClientState.behaviourPurpose, entity: UInt64(i))
            var again = RandomStream(seed: 7, purpose: World.breakBoundPurpose, entity: UInt64(i))
            let drawn = breaks.sampleDuration(&first)
            let b = l.bounded(drawn, breaks, &again)
            #expect(b <= 30 * .minute)
            if drawn <= 30 * .minute { #expect(b == drawn) } else { redrawn += 1 }
            if b <= 10 * .minute { within10m += 1 }
        }
        let sd = (expected * (1 - expected) / Double(n)).squareRoot()
        #expect(abs(Double(within10m) / Double(n) - expected) < 5 * sd)
        // P(X > 30m) = 1 − Φ(ln 7.5/0.9) ≈ 0.0126: about 1,260 of the breaks were drawn again.
        let tail = 1 - phi(log(7.5) / 0.9)
        #expect(abs(Double(redrawn) / Double(n) - tail) < 5 * (tail * (1 - tail) / Double(n)).squareRoot())
        // A distribution that never fits the bound is clamped to it after the redraw limit.
        var rng = RandomStream(seed: 1, purpose: World.breakBoundPurpose, entity: 0)
        #expect(l.bounded(2 * .hour, .constant(7.2e12), &rng) == 30 * .minute)
    }

    @Test func readsWithDefaultsAndIsOffByDefault() throws {
        let off = try ScenarioLoader().load(text: try ScenarioFixtures.idealisedVariant("{}"))
        #expect(off.devices.events.lifecycle == nil)
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.idealisedVariant(#"{"devices": {"lifecycle": {}}}"#))
        #expect(s.devices.events.lifecycle == Lifecycle())
        #expect(s.devices.events.lifecycle?.maxBreak == 30 * .minute && s.devices.events.lifecycle?.horizon == nil)
        #expect(!s.devices.events.any)
        let t = try ScenarioLoader().load(text: try ScenarioFixtures.idealisedVariant(
            #"{"devices": {"lifecycle": {"grace": "5s", "lockedMedian": "8h", "otherAppsMedian": "30m", "shape": 1, "horizon": "1d", "maxBreak": "none"}}}"#))
        #expect(t.devices.events.lifecycle == Lifecycle(grace: 5 * .second, lockedMedian: 8 * .hour, otherAppsMedian: 30 * .minute,
                                                        shape: 1, horizon: 24 * .hour, maxBreak: nil))
    }

    @Test func exampleScenarioLoads() throws {
        let s = try ScenarioLoader().load(path: ScenarioFixtures.packageRoot + "/Scenarios/examples/app-lifecycle.json")
        #expect(s.devices.events.lifecycle == Lifecycle())
        #expect(s.client.clock.name == "suspending")
        #expect(s.population.players <= 5_000)
    }

    @Test(arguments: [
        (#"{"devices": {"lifecycle": {"grace": "20m"}}}"#, "devices.lifecycle.grace", #"must be at most 10m; got "20m""#),
        (#"{"devices": {"lifecycle": {"shape": 0}}}"#, "devices.lifecycle.shape", "must be between 0.2 and 10; got 0"),
        (#"{"devices": {"lifecycle": {"maxBreak": "2d"}}}"#, "devices.lifecycle.maxBreak", #"must be at most 1d; got "2d""#),
        (#"{"devices": {"lifecycle": {"maxBreak": "never"}}}"#, "devices.lifecycle.maxBreak",
         #"must be a duration from 1s to 1d, like "30m", or "none"; got "never""#),
        (#"{"devices": {"lifecycle": {"lockedMedian": "0s"}}}"#, "devices.lifecycle.lockedMedian", #"must be at least 1s; got "0s""#),
        (#"{"devices": {"lifecycle": {"median": "1h"}}}"#, "devices.lifecycle",
         "unknown key 'median'; allowed keys are 'grace', 'lockedMedian', 'otherAppsMedian', 'shape', 'horizon', 'maxBreak'"),
    ])
    func badValuesNameTheKey(override: String, keyPath: String, message: String) throws {
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(override))
        #expect(error?.keyPath == keyPath)
        #expect(error?.message == message)
    }

    /// Same results for any number of threads, different from the run without the lifecycle.
    @Test func identicalForAnyThreadCount() throws {
        ShardingTests.expectModelIsThreadIndependent(try ShardingTests.small("v115-idealised.json")) {
            $0.devices.events.lifecycle = Lifecycle(otherAppsMedian: 2 * .minute)
        }
    }

    /// v1.1.5 without the lifecycle (v115-idealised), 2,000 players over 12 h: with the
    /// lifecycle's defaults the worst client error and its p99 shrink (long breaks are bounded,
    /// some apps cold-start).
    @Test func shrinksTheWorstErrorOfTheShippedDesign() throws {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("v115-idealised.json"))
        s.population.players = 2_000
        s.duration = 12 * .hour
        let before = Simulation.run(s, threads: 2).figures
        s.devices.events.lifecycle = Lifecycle()
        let after = Simulation.run(s, threads: 2).figures
        let maxBefore = try #require(before["clientErrorMs.max"] ?? nil), maxAfter = try #require(after["clientErrorMs.max"] ?? nil)
        let p99Before = try #require(before["clientErrorMs.p99"] ?? nil), p99After = try #require(after["clientErrorMs.p99"] ?? nil)
        #expect(maxAfter < maxBefore / 2)
        #expect(p99After < p99Before)
    }
}
