import Testing
@testable import SyncLab
import SyncLabKernel

/// Reading `devices.reboots`, `appKills`, `wallClockChanges` and `tampering`.
@Suite struct DeviceEventsTests {
    @Test func defaultsAreOff() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.idealisedVariant("{}"))
        #expect(!s.devices.events.any)
        #expect(!RunResult.figureKeys(for: s).contains("earlyShowShare"))
    }

    @Test func everyKeyReads() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"""
            {"devices": {
              "reboots": {"every": {"kind": "exponential", "mean": "3d"}, "downtime": "45s"},
              "appKills": {"every": "2h"},
              "wallClockChanges": {"every": {"kind": "exponential", "mean": "7d"}, "jump": {"kind": "uniform", "min": "-1h", "max": "1h"}},
              "tampering": {"share": 0.05, "advance": "10m", "at": "1h"}},
             "budgets": [{"name": "head start", "metric": "tamperHeadStartMs.mean", "max": 1000}]}
            """#))
        let e = s.devices.events
        #expect(e.any)
        #expect(e.reboots?.every == .exponential(mean: 3 * 86_400e9))
        #expect(e.reboots?.downtime == 45 * .second)
        #expect(e.appKills?.every == .constant(7_200e9))
        #expect(e.wallClockChanges?.jump == .uniform(min: -3_600e9, max: 3_600e9))
        #expect(e.tampering?.share == 0.05)
        #expect(e.tampering?.advance == .constant(600e9))
        #expect(e.tampering?.at == .constant(3_600e9))
        #expect(RunResult.figureKeys(for: s).contains("tamperHeadStartMs.mean"))
        #expect(s.budgets.first?.metric == "tamperHeadStartMs.mean")
        // Tampering instants default to uniform over the measured window; reboots' downtime to 1 min.
        let d = try ScenarioLoader().load(text: try ScenarioFixtures.variant(
            #"{"duration": "2h", "devices": {"tampering": {"share": 1, "advance": "1m"}, "reboots": {"every": "1d"}}}"#))
        #expect(d.devices.events.tampering?.at == .uniform(min: 0, max: 7_200e9))
        #expect(d.devices.events.reboots?.downtime == .minute)
    }

    @Test(arguments: [
        (#"{"devices": {"reboots": {"every": "30s"}}}"#, "devices.reboots.every",
         "must have a mean of at least 1m (a per-player event interval); constant 30s has mean 30s"),
        (#"{"devices": {"reboots": {}}}"#, "devices.reboots.every", "missing required key"),
        (#"{"devices": {"appKills": {"every": "1h", "rate": 2}}}"#, "devices.appKills", "unknown key 'rate'; allowed keys are 'every'"),
        (#"{"devices": {"tampering": {"share": 1.5, "advance": "1m"}}}"#, "devices.tampering.share", "must be between 0 and 1; got 1.5"),
        (#"{"devices": {"tampering": {"share": 0.1, "advance": "0s"}}}"#, "devices.tampering.advance", "must be at least 1ms; got \"0s\""),
        (#"{"devices": {"wallClockChanges": {"every": "1d"}}}"#, "devices.wallClockChanges.jump", "missing required key"),
        (#"{"devices": {"reboots": "1d"}}"#, "devices.reboots", "expected an object; got \"1d\" (a string)"),
    ])
    func badValuesNameTheKey(override: String, keyPath: String, message: String) throws {
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(override))
        #expect(error?.keyPath == keyPath)
        #expect(error?.message == message)
    }
}
