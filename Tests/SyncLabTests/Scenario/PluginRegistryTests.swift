import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The plug-in registry: what it ships, what it refuses (naming the types), how it reads a
/// plug-in (unknown names list the registry's kinds; nested plug-ins come from the registry the
/// scenario is loaded with) and the words reports take from each kind.
@Suite struct PluginRegistryTests {
    @Test func builtInKindsByFamily() {
        let r = PluginRegistry.builtIn
        func names(_ f: PluginFamily) -> [String] { r.kinds(of: f).map { $0.kind } }
        #expect(names(.clock) == ["suspending", "continuous", "uptime", "wall", "uptime-wall"])
        #expect(names(.estimator) == ["upload-complete", "cristian", "ntp", "median", "marzullo"])
        #expect(names(.tick) == ["timer", "aligned", "display-link", "immediate"])
        #expect(names(.refetch) == ["uniform-after-load", "aligned-to-publication"])
        #expect(names(.retry) == ["fixed", "exponential"])
        #expect(names(.serverDesign) == ["store-file", "database-per-position"])
        #expect(names(.costModel) == ["per-request", "flat"])
        #expect(names(.deviceEvent) == ["reboots", "appKills", "wallClockChanges", "tampering", "standbyWakes", "wallClockSync", "lifecycle"])
        #expect(names(.delayProcess) == ["independent", "ar1", "gilbert-elliott", "replay", "ar1-nugget"])
        #expect(names(.packetLoss) == ["tcp-retransmit"])
        #expect(names(.connection) == ["keep-alive"])
        #expect(names(.radio) == ["rrc"])
        #expect(names(.leapSecond) == ["step", "smear"])
        #expect(names(.serverClockFault) == ["step", "drift"])
        #expect(r.kinds.count == 41)
        #expect(r.families == PluginFamily.all)
    }

    @Test func everyBuiltInJoinsAnEmptyRegistryAndDescribesItsParameters() throws {
        var r = PluginRegistry()
        for type in PluginRegistry.builtIn.kinds {
            try r.register(type)
            // A required parameter the schema does not describe would make every file invalid.
            let described = Set(type.schema.properties.map(\.key))
            #expect(type.schema.required.allSatisfy(described.contains), "\(type)")
            #expect(!type.schema.description.isEmpty, "\(type)")
        }
        #expect(r.kinds.count == PluginRegistry.builtIn.kinds.count)
    }

    @Test func aDuplicateKindNamesBothTypes() {
        #expect(throws: PluginRegistryError.duplicate(family: .refetch, kind: "uniform-after-load",
                                                     registered: "SyncLab.UniformWindowRefetch",
                                                     adding: "SyncLabTests.ImpostorRefetch")) {
            try PluginRegistry.builtIn.adding(ImpostorRefetch.self)
        }
        do {
            _ = try PluginRegistry.builtIn.adding(ImpostorRefetch.self)
        } catch {
            #expect("\(error)" == "the refetch policy kind 'uniform-after-load' is registered twice: by SyncLab.UniformWindowRefetch "
                + "and by SyncLabTests.ImpostorRefetch; give one of them another kind name")
        }
        // The same kind name in another family is no clash: kinds are unique per family.
        #expect(throws: Never.self) { try PluginRegistry.builtIn.adding(FixedPublicationRetry.self) }
    }

    @Test func aTypeMustPlayItsFamilysRole() {
        do {
            _ = try PluginRegistry.builtIn.adding(NotAClock.self)
            Issue.record("a type that is not a DeviceClock joined the clocks")
        } catch {
            #expect("\(error)" == "SyncLabTests.NotAClock says it is a clock but does not conform to DeviceClock")
        }
    }

    @Test func anUnknownKindListsTheRegistrysKinds() throws {
        let tick = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"client": {"tick": "sundial"}}"#))
        #expect(tick?.description == "bad.json: client.tick: unknown tick policy 'sundial'; expected one of 'timer', 'aligned', 'display-link', 'immediate'")
        let clock = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"client": {"clock": {"kind": "atomic"}}}"#))
        #expect(clock?.description == "bad.json: client.clock.kind: unknown clock 'atomic'; expected one of 'suspending', 'continuous', 'uptime', 'wall', 'uptime-wall'")
        let design = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"server": {"design": "cdn"}}"#))
        #expect(design?.description == "bad.json: server.design: unknown server design 'cdn'; expected one of 'store-file', 'database-per-position'")
    }

    @Test func nestedPluginsComeFromTheRegistryPassedIn() throws {
        // A registry without the suspending clock: a timer's clock is read through it, not the built-ins.
        let registry = try PluginRegistry([TimerTick.self, ContinuousDeviceClock.self])
        let context = PluginContext(registry: registry)
        let ok = try context.read(.tick, from: InputNode.parse(#"{"kind": "timer", "period": "2s", "clock": "continuous"}"#, file: "t.json"),
                                  as: TimerTick.self)
        #expect(ok.period == 2 * .second && ok.clock is ContinuousDeviceClock)
        #expect(throws: InputError(file: "t.json", keyPath: "clock", message: "unknown clock 'suspending'; expected one of 'continuous'")) {
            try context.read(.tick, from: InputNode.parse(#"{"kind": "timer", "clock": "suspending"}"#, file: "t.json"), as: TimerTick.self)
        }
    }

    @Test func parametersAreCheckedByKeyPath() throws {
        let e = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"client": {"tick": {"kind": "timer", "clock": {"kind": "uptime", "resolution": "1ms"}}}}"#))
        #expect(e?.description == #"bad.json: client.tick.clock.resolution: must be "1s" (time()) or "1us" (gettimeofday); got "1ms""#)
        let extra = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"client": {"estimator": {"kind": "ntp", "windw": 4}}}"#))
        #expect(extra?.description == "bad.json: client.estimator: unknown key 'windw'; did you mean 'window'?")
    }

    /// The report's words for each built-in, as the committed reports show them.
    @Test func summariesAndSettings() {
        #expect(SuspendingDeviceClock().summary == "suspending (mach_absolute_time / CACurrentMediaTime: stops in deep sleep)")
        #expect(BootTimeUptimeClock(resolution: .microsecond).summary == "uptime from gettimeofday − boot time (1 µs resolution, follows the wall clock)")
        #expect(WallUptimeClock(resolution: .second).summary
            == "uptime = wall − boot time recorded at boot (1 s resolution, follows wall-clock changes)")
        #expect(TimerTick(period: 2 * .second, clock: ContinuousDeviceClock()).summary
            == "timer every 2s on the continuous clock, phase set when the Store comes on screen")
        #expect(DisplayLinkTick(rate: 120).summary == "display link at 120 Hz on the continuous clock")
        #expect(UniformWindowRefetch().summary == "uniform 6m–9m after each load")
        #expect(AlignedToPublicationRefetch().summary
            == "at the first publication (10s after a 1m boundary) at least 6m after each load, plus uniform 0–30s")
        #expect(FixedIntervalRetry().summary == "every 5s until data arrives")
        #expect(ExponentialBackoffRetry(base: 2 * .second, cap: .minute, jitter: .decorrelated).summary
            == "exponential backoff from 2s capped at 1m, decorrelated jitter")
        #expect(NTPEstimator(window: 4).settings == "NTP clock filter over the last 4 exchanges (minimum delay)")
        #expect(CristianEstimator().settings == nil && TimerTick().settings == nil)
        #expect(PerRequestPricing(baseMonthly: 199, includedRequests: 1_000_000, pricePerMillion: 100).summary
            == "per request: $199.00 a month including 1,000,000 requests, $100.00 per further million")
        #expect(FlatRatePricing(monthly: 20, capacityRps: 200).summary == "flat: $20.00 a month per server, 200 requests/s each")
    }
}

/// Claims a built-in's kind name: the registry must refuse it.
struct ImpostorRefetch: RefetchPolicy, Plugin {
    static let family = PluginFamily.refetch
    static let kind = "uniform-after-load"
    static let schema = SchemaFragment("Refetches at once.")
    init(_ node: InputNode, in context: PluginContext) throws {}
    var name: String { Self.kind }
    var summary: String { "at once" }
    func refetchDue(after load: LoadContext, _ rng: inout RandomStream) -> ClockReading { load.loadedAt }
}

/// A retry named like a refetch policy: another family, so no clash.
struct FixedPublicationRetry: RetryPolicy, Plugin {
    static let family = PluginFamily.retry
    static let kind = "uniform-after-load"
    static let schema = SchemaFragment("Retries after one second.")
    init(_ node: InputNode, in context: PluginContext) throws {}
    var name: String { Self.kind }
    var summary: String { "after 1s" }
    func delay(afterFailures failures: Int, _ rng: inout RandomStream) -> Nanoseconds { .second }
}

/// Says it is a clock without being a `DeviceClock`.
struct NotAClock: Plugin {
    static let family = PluginFamily.clock
    static let kind = "sundial"
    static let schema = SchemaFragment("Reads the sun.")
    init(_ node: InputNode, in context: PluginContext) throws {}
    var summary: String { "a sundial" }
}
