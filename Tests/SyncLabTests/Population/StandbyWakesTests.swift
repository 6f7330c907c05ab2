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
        let c = world.clients[0]
        let syncError = c.requestTimestamp - c.uploadCompleteAt.ns   // error right after the fetch
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
        let c = world.clients[0]
        #expect(c.phase == .viewing)
        // The first wake of the opening standby (0 to 5 s) was due at 10 min: cancelled by the visit.
        #expect(c.device.sleptTotal == 5 * .second + 2 * .hour - 45 * .second)
        #expect(c.standbyWakeOrdinal == 3)
        // Without wakes the lag is the whole standby (the model before this plug-in).
        #expect(Self.run(nil).lag == Self.standby)
        #expect(Self.run(Wakes(chargingShare: 0, script: [])).lag == Self.standby)
    }

    /// The player returns 10 s into a wake: the device is already awake, so the return ends no
    /// deep sleep (the lag is the 1 h 59 min 50 s slept before the wake, and no wake from deep
    /// sleep is recorded), and the wake's end, 20 s later, no longer applies. Wakes are applied
    /// when the player's next event comes (StandbyWakes.swift), so this pins that order.
    @Test func returnInsideAWakeFindsTheDeviceAwake() {
        let wake = Wakes.Wake(gap: Self.standby - 10 * .second, length: 30 * .second)
        let (lag, world) = Self.run(Wakes(chargingShare: 0, script: [wake]))
        #expect(lag == Self.standby - 10 * .second)
        let c = world.clients[0]
        #expect(c.phase == .viewing && !c.device.asleep)
        #expect(c.device.sleptTotal == 5 * .second + Self.standby - 10 * .second)
        #expect(c.lastDeepWake == .min)
        #expect(c.standbyWakeOrdinal == 1)
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
        let c = world.clients[0]
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

    /// With wakes on, any number of threads gives the same results, and they differ from the run
    /// without wakes (the pausing clock's standby lag shrinks).
    @Test func identicalForAnyThreadCount() throws {
        ShardingTests.expectModelIsThreadIndependent(try ShardingTests.small("v115-idealised.json")) {
            $0.devices.events.standbyWakes = Wakes(every: .exponential(mean: Double(2 * Int64.minute)))
        }
    }
}
