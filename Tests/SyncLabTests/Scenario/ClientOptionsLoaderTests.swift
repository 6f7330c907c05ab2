import Testing
@testable import SyncLab
import SyncLabKernel

/// The client design alternatives as a scenario names them: every example fixture loads into
/// the right plug-in with its parameters, and each kind of bad value is refused at its key path.
@Suite struct ClientOptionsLoaderTests {
    static func fixture(_ name: String) -> String { ScenarioFixtures.packageRoot + "/Tests/Fixtures/client/\(name).json" }

    @Test func fixturesLoadIntoTheirPlugins() throws {
        let loader = ScenarioLoader()
        #expect(try loader.load(path: Self.fixture("cristian")).client.estimator is CristianEstimator)
        let ntp = try loader.load(path: Self.fixture("ntp"))
        #expect((ntp.client.estimator as? NTPEstimator)?.window == 4)
        #expect(ntp.reportBounds)
        #expect(try loader.load(path: Self.fixture("best-of-probes")).client.probes == 3)
        let drift = try loader.load(path: Self.fixture("drift-correction"))
        #expect(drift.client.driftCorrection == DriftCorrection(minInterval: 10 * .minute, maxPPB: 200_000))
        #expect(drift.client.maxDriftPPM == 100)
        #expect(drift.boundModel == BoundModel(serverResolution: .microsecond, clockResolution: 1, maxDriftPPB: 100_000))
        #expect(try loader.load(path: Self.fixture("aligned-tick")).client.tick is AlignedTick)
        #expect((try loader.load(path: Self.fixture("display-link")).client.tick as? DisplayLinkTick)?.rate == 60)
        let aligned = try loader.load(path: Self.fixture("aligned-to-publication")).client.refetch as? AlignedToPublicationRefetch
        #expect(aligned?.period == .minute && aligned?.lag == 10 * .second && aligned?.after == 6 * .minute)
        #expect(aligned?.window == 30 * .second)
        let full = try loader.load(path: Self.fixture("exponential-full")).client.retry as? ExponentialBackoffRetry
        #expect(full == ExponentialBackoffRetry(base: .second, cap: 2 * .minute, jitter: .full))
        let decorrelated = try loader.load(path: Self.fixture("exponential-decorrelated")).client.retry as? ExponentialBackoffRetry
        #expect(decorrelated?.jitter == .decorrelated)
    }

    /// Defaults: the seeds' design with no options; `driftCorrection: true` takes the defaults.
    @Test func defaultsAndShorthands() throws {
        let seeds = try ScenarioLoader().load(path: ScenarioFiles.path("v115-pausing.json"))
        #expect(seeds.client.probes == 1 && seeds.client.driftCorrection == nil && seeds.client.maxDriftPPM == 100)
        #expect(seeds.reportBounds)      // shown unless a scenario turns it off
        let on = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"client": {"driftCorrection": true, "estimator": "ntp", "retry": "exponential", "tick": "display-link", "refetch": "aligned-to-publication"}}"#))
        #expect(on.client.driftCorrection == DriftCorrection())
        #expect((on.client.estimator as? NTPEstimator)?.window == 8)
        #expect(on.client.retry as? ExponentialBackoffRetry == ExponentialBackoffRetry())
        let off = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"client": {"driftCorrection": false}}"#))
        #expect(off.client.driftCorrection == nil)
        #expect(!seeds.client.persistSync)
        let kept = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"client": {"persistSync": true}}"#))
        #expect(kept.client.persistSync)
    }

    @Test(arguments: [
        (#"{"client": {"estimator": {"kind": "ntp", "window": 0}}}"#, "client.estimator.window"),
        (#"{"client": {"estimator": {"kind": "ntp", "window": 65}}}"#, "client.estimator.window"),
        (#"{"client": {"estimator": {"kind": "cristian", "window": 4}}}"#, "client.estimator"),
        (#"{"client": {"probes": 0}}"#, "client.probes"),
        (#"{"client": {"probes": 17}}"#, "client.probes"),
        (#"{"client": {"probes": 2.5}}"#, "client.probes"),
        (#"{"client": {"persistSync": "yes"}}"#, "client.persistSync"),
        (#"{"client": {"persistSync": 1}}"#, "client.persistSync"),
        (#"{"client": {"driftCorrection": "yes"}}"#, "client.driftCorrection"),
        (#"{"client": {"driftCorrection": {"minInterval": "10s"}}}"#, "client.driftCorrection.minInterval"),
        (#"{"client": {"driftCorrection": {"maxPpm": -1}}}"#, "client.driftCorrection.maxPpm"),
        (#"{"client": {"driftCorrection": {"minIntervall": "1h"}}}"#, "client.driftCorrection"),
        (#"{"client": {"maxDriftPpm": -5}}"#, "client.maxDriftPpm"),
        (#"{"client": {"tick": {"kind": "display-link", "rate": 0}}}"#, "client.tick.rate"),
        (#"{"client": {"tick": {"kind": "aligned", "period": "1s"}}}"#, "client.tick"),
        (#"{"client": {"refetch": {"kind": "aligned-to-publication", "period": "0s"}}}"#, "client.refetch.period"),
        (#"{"client": {"refetch": {"kind": "aligned-to-publication", "window": "-5s"}}}"#, "client.refetch.window"),
        (#"{"client": {"retry": {"kind": "exponential", "base": "10s", "cap": "5s"}}}"#, "client.retry.cap"),
        (#"{"client": {"retry": {"kind": "exponential", "jitter": "half"}}}"#, "client.retry.jitter"),
        (#"{"client": {"retry": {"kind": "exponential", "base": "1ms"}}}"#, "client.retry.base"),
        (#"{"metrics": {"bounds": "yes"}}"#, "metrics.bounds"),
    ])
    func badValuesNameTheirKey(_ override: String, _ keyPath: String) throws {
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(override))
        #expect(error?.keyPath == keyPath, "\(override): \(String(describing: error))")
        #expect(error?.file == "bad.json")
    }

    @Test func boundFiguresAreBudgetKeys() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(
            #"{"budgets": [{"name": "honest", "metric": "boundCoverageShare", "min": 0.99}, {"name": "3g honest", "metric": "boundCoverageShare.byLink.3g", "min": 0.9}, {"name": "narrow", "metric": "boundMs.p99", "max": 2000}]}"#))
        #expect(s.budgets.map(\.metric) == ["boundCoverageShare", "boundCoverageShare.byLink.3g", "boundMs.p99"])
    }
}
