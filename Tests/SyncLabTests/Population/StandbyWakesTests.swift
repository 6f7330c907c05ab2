import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// `devices.standbyWakes`: brief wakes inside deep sleep and standby on charge, worked out by
/// hand through the whole world, plus reading the kind and its determinism across threads.
@Suite struct StandbyWakesTests {
    typealias Wakes = DeviceEventsConfig.StandbyWakes

    // Visit at 5 s, views 60 s, locks the phone for 2 h 2 min; deep sleep starts 2 min after the
    // screen goes off, so the standby in the break is exactly 2 h. The run ends 30 s after the
    // return, before any refetch is due.
    static let viewing: Int64 = 60 * .second
    static let pause: Int64 = 2 * .hour + 2 * .minute
    static let end = 5 * Int64.second + viewing + pause + 30 * .second
    static let standby: Int64 = 2 * .hour

    /// The suspending clock's lag behind true time at the end of the run, and the world.
    static func run(_ wakes: Wakes?) -> (lag: Int64, world: World) {
        var s = WorldExactTests.scenario(clock: SuspendingDeviceClock(), duration: end, sessions: 2,
                                         viewing: viewing, pause: pause)
        s.devices.events.standbyWakes = wakes
        var world = World(scenario: s)
        _ = world.run()
        let c = world.player(0)
        let syncError = c.request.timestamp - c.request.uploadCompleteAt.ns   // error right after the fetch
        let now = SimTime(ns: end - 1)
        let estimate = c.anchor.serverTime(at: SuspendingDeviceClock().reading(c.device, at: now, world.context))
        return (syncError - (estimate - now.ns), world)
    }

    /// Wakes of 5 s, 10 s and 30 s in a 2 h standby: the pausing clock lags by 2 h − 45 s exactly.
    @Test func pausingLagIsSleepMinusWakes() {
        let script = [Wakes.Wake(gap: 10 * .minute, length: 5 * .second),
                      Wakes.Wake(gap: 20 * .minute, length: 10 * .second),
                      Wakes.Wake(gap: 30 * .minute, length: 30 * .second)]
        let (lag, world) = Self.run(Wakes(chargingShare: 0, script: script))
        #expect(lag == 2 * .hour - 45 * .second)
        #expect(lag == 7_155_000_000_000)
        let c = world.player(0)
        #expect(c.phase == .viewing)
        // The first wake of the opening standby (0 to 5 s) was due at 10 min: cancelled by the visit.
        #expect(c.device.sleptTotal == 5 * .second + 2 * .hour - 45 * .second)
        // Gaps asked for: one at each standby's start (the opening one and the break's) and one
        // after each of the 3 wakes (the last finds the script done).
        #expect(c.standbyWakeOrdinal == 5)
        // Without wakes the lag is the whole standby (the model before this plug-in).
        #expect(Self.run(nil).lag == Self.standby)
        #expect(Self.run(Wakes(chargingShare: 0, script: [])).lag == Self.standby)
    }

    /// The player returns 10 s into a wake: the device is already awake, so the return ends no
    /// deep sleep (the lag is the 1 h 59 min 50 s slept before the wake), but it is a return
    /// after deep sleep for the wake-recovery figures; the wake's end, 20 s later, no longer applies. Wakes are applied
    /// when the player's next event comes (StandbyWakes.swift), so this pins that order.
    @Test func returnInsideAWakeFindsTheDeviceAwake() {
        let wake = Wakes.Wake(gap: Self.standby - 10 * .second, length: 30 * .second)
        let (lag, world) = Self.run(Wakes(chargingShare: 0, script: [wake]))
        #expect(lag == Self.standby - 10 * .second)
        let c = world.player(0)
        #expect(c.phase == .viewing && !c.device.asleep)
        #expect(c.device.sleptTotal == 5 * .second + Self.standby - 10 * .second)
        #expect(c.lastDeepWake == 5 * .second + Self.viewing + Self.pause)
        // One gap at each standby's start; the return ends the wake before the next is asked for.
        #expect(c.standbyWakeOrdinal == 2)
        #expect(c.standbyDue == .max)
    }

    /// A phone on charge does not deep-sleep: the pausing clock does not lag at all.
    @Test func chargingPhoneDoesNotDeepSleep() {
        let (lag, world) = Self.run(Wakes(chargingShare: 1))
        #expect(lag == 0)
        #expect(world.clients[0].device.sleptTotal == 0)
        #expect(world.clients[0].standbyWakeOrdinal == 0)
    }

    /// Drawn wakes: the lag is the standby minus the awake seconds, which the world's own count says.
    @Test func drawnWakesShortenTheLag() {
        let (lag, world) = Self.run(Wakes(chargingShare: 0))
        let c = world.player(0)
        #expect(c.standbyWakeOrdinal > 0)
        #expect(lag < Self.standby)
        #expect(lag == c.device.sleptTotal - 5 * .second)
    }

    @Test func readsWithDefaultsAndIsOffByDefault() throws {
        let off = try ScenarioLoader().load(text: try ScenarioFixtures.idealisedVariant("{}"))
        #expect(off.devices.events.standbyWakes == nil)
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.idealisedVariant(#"{"devices": {"standbyWakes": {}}}"#))
        let w = try #require(s.devices.events.standbyWakes)
        #expect(w.every == Wakes.defaultEvery && w.length == Wakes.defaultLength)
        #expect(w.chargingShare == 0.2 && w.script == nil)
        #expect(!s.devices.events.any)
        let t = try ScenarioLoader().load(text: try ScenarioFixtures.variant(
            #"{"devices": {"standbyWakes": {"every": "1h", "length": "5s", "chargingShare": 0.5}}}"#))
        #expect(t.devices.events.standbyWakes?.every == .constant(3_600e9))
        #expect(t.devices.events.standbyWakes?.length == .constant(5e9))
        #expect(t.devices.events.standbyWakes?.chargingShare == 0.5)
    }

    /// The opt-in example loads, with the defaults switched on.
    @Test func exampleScenarioLoads() throws {
        let s = try ScenarioLoader().load(path: ScenarioFixtures.packageRoot + "/Scenarios/examples/standby-wakes.json")
        #expect(s.devices.events.standbyWakes?.chargingShare == Wakes.defaultChargingShare)
        #expect(s.client.clock.name == "suspending")
    }

    @Test(arguments: [
        (#"{"devices": {"standbyWakes": {"every": "10s"}}}"#, "devices.standbyWakes.every",
         "must have a mean of at least 1m (a per-player event interval); constant 10s has mean 10s"),
        (#"{"devices": {"standbyWakes": {"chargingShare": 2}}}"#, "devices.standbyWakes.chargingShare", "must be between 0 and 1; got 2"),
        (#"{"devices": {"standbyWakes": {"rate": 2}}}"#, "devices.standbyWakes",
         "unknown key 'rate'; allowed keys are 'every', 'length', 'chargingShare'"),
    ])
    func badValuesNameTheKey(override: String, keyPath: String, message: String) throws {
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(override))
        #expect(error?.keyPath == keyPath)
        #expect(error?.message == message)
    }

    /// The documented process, end to end over repeated standbys: 2,000 players each take
    /// `standbys` 62-minute locked breaks between 1-minute views; deep sleep starts 2 min after the
    /// screen goes off, so each standby is S = 60 min, with the default wakes (gaps exponential,
    /// mean 20 min, at least 1 s, measured from the sleep's start or the last wake's end; lengths
    /// uniform 1–30 s) and no charging. A return inside a wake ends it. The world's awake time in
    /// each standby (S minus what the device slept in it) must match, standby by standby, an
    /// independent Monte Carlo of that process written here (≈ 45.8 s; a gap cut short by a
    /// return and reused as the next standby's first gap would give ≈ 31 s from the second on).
    /// Tolerance: 4 standard errors of the difference, the world's from its own players' spread.
    @Test func awakeTimePerStandbyMatchesTheDocumentedProcess() {
        let players = 2_000, standbys = 4
        let view = Nanoseconds.minute, pause = 62 * Nanoseconds.minute, standby = 60 * Nanoseconds.minute
        let returns = (1...standbys).map { k in 5 * Nanoseconds.second + Int64(k) * (view + pause) }
        var s = WorldExactTests.scenario(clock: SuspendingDeviceClock(), duration: returns.last! + view / 2,
                                         sessions: Double(standbys + 1), viewing: view, pause: pause, players: players)
        s.devices.events.standbyWakes = Wakes(chargingShare: 0)
        var world = World(scenario: s)
        world.run(until: SimTime(ns: returns[0] - pause))
        var slept = world.clients.indices.map { world.clients[$0].device.sleptTotal }
        let expected = Self.meanAwakeMonteCarlo(standby: standby, repetitions: 400_000)
        for (k, back) in returns.enumerated() {
            world.run(until: SimTime(ns: back + .second))
            let awake = world.clients.indices.map { c in
                let now = world.clients[c].device.sleptTotal
                defer { slept[c] = now }
                return Double(standby - (now - slept[c])) / 1e9
            }
            let mean = awake.reduce(0, +) / Double(players)
            let variance = awake.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(players - 1)
            let tolerance = 4 * (variance / Double(players) + expected.variance / 400_000).squareRoot()
            #expect(abs(mean - expected.mean) <= tolerance,
                    "standby \(k + 1): \(mean) s awake, Monte Carlo \(expected.mean) s ± \(tolerance)")
        }
    }

    /// The wake-recovery baseline holds only players whose device has not deep-slept since
    /// launch. 400 players view 1 min, lock the phone for 62 min (a 60-min standby), four times,
    /// with long wakes (every 20 min on average, 5–10 min each, so about a quarter of returns
    /// fall inside one), the pausing clock, the seeds' estimator, µs stamps on the constant link
    /// and no refetch in the run (so a sleep's lag stays in the samples after it). A player who has not slept since launch errs by exactly x − the stamp's truncation
    /// (WorldExactTests), 40 ms at most; a player back from about an hour's sleep errs by about
    /// that hour less its wakes until it refetches. So every sample of the baseline bucket is
    /// within 40 ms (the histogram's 0.2% above it), and the buckets after a wake hold the sleepers.
    @Test func noSleepBaselineHoldsNoSleeper() throws {
        let view = Nanoseconds.minute, pause = 62 * Nanoseconds.minute
        var s = WorldExactTests.scenario(clock: SuspendingDeviceClock(), duration: 5 * .second + 4 * (view + pause) + view,
                                         sessions: 5, viewing: view, pause: pause, players: 400)
        s.server.timestampResolution = .microsecond
        s.sampleEvery = 10 * .second
        s.devices.events.standbyWakes = Wakes(length: .uniform(min: 300e9, max: 600e9), chargingShare: 0)
        s.client.refetch = UniformWindowRefetch(minimum: 5 * .hour, maximum: 6 * .hour)   // none in the run
        let r = Simulation.run(s, threads: 1)
        let baseline = try #require(r.estimateByWake.first)
        #expect(baseline.count > 1_000, "samples before the first break")
        #expect(try #require(baseline.quantile(1)) <= WorldExactTests.uplink + WorldExactTests.uplink / 400)
        let afterWake = r.estimateByWake.dropFirst().reduce(into: ErrorStats()) { $0.merge($1) }
        #expect(afterWake.count > 1_000)
        #expect(try #require(afterWake.quantile(0.5)) > 30 * .minute, "samples after about an hour's sleep")
    }

    /// Mean and variance (s, s²) of the awake time in a standby of `standby` under the default
    /// wakes, simulated directly: exponential gaps by inversion, uniform lengths.
    static func meanAwakeMonteCarlo(standby: Nanoseconds, repetitions: Int) -> (mean: Double, variance: Double) {
        var rng = RandomStream(seed: 38, purpose: StreamPurpose("standby-wake-monte-carlo"))
        let length = Double(standby) / 1e9
        var sum = 0.0, sumSquares = 0.0
        for _ in 0..<repetitions {
            var t = 0.0, awake = 0.0
            while true {
                t += max(-1_200 * Foundation.log(1 - rng.unit()), 1)   // exponential, mean 20 min; at least 1 s
                if t >= length { break }
                let wake = 1 + 29 * rng.unit()
                awake += min(wake, length - t)
                t += wake
            }
            sum += awake
            sumSquares += awake * awake
        }
        let mean = sum / Double(repetitions)
        return (mean, sumSquares / Double(repetitions) - mean * mean)
    }

    /// With wakes on, any number of threads gives the same results, and they differ from the run
    /// without wakes (the pausing clock's standby lag shrinks).
    @Test func identicalForAnyThreadCount() throws {
        ShardingTests.expectModelIsThreadIndependent(try ShardingTests.small("v115-idealised.json")) {
            $0.devices.events.standbyWakes = Wakes(every: .exponential(mean: Double(2 * Int64.minute)))
        }
    }
}
