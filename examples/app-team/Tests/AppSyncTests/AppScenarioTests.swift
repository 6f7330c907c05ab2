import Foundation
import Testing
import SyncLab
import SyncLabReports
@testable import AppSync

/// The app's plug-ins in whole runs: named by kind in the app's scenario JSON, put in place
/// from Swift, and checked against answers worked out by hand and against SyncLab's NTP.
@Suite struct AppScenarioTests {
    static let ms = Int64.millisecond

    /// `app-design.json` (Kronos-style estimator and slotted refetch, by kind name) on constant
    /// latency, extending the app's `constant-latency.json`, which extends the shipped `r1.json`.
    static let appDesign: RunResult = {
        Simulation.run(try! AppScenarios.load("app-design"), threads: 1)
    }()

    /// Every exchange is 40 ms up and 60 ms down with exact stamps and a perfect clock, so every
    /// NTP-style offset errs by (40 − 60) / 2 = −10 ms, and so does the median of any of them.
    @Test func constantLatencyGivesTheErrorWorkedOutByHand() throws {
        let r = Self.appDesign
        #expect(r.scenario.client.estimator as? KronosEstimator == KronosEstimator(servers: 5))
        #expect(r.scenario.client.refetch as? SlottedRefetch == SlottedRefetch(every: 5 * .minute))
        #expect(r.fetchSyncError.count > 10_000)
        #expect(r.fetchSyncError.meanSigned == Double(-10 * Self.ms))
        #expect(r.fetchSyncErrorMeanAbs == Double(10 * Self.ms))
        // Between syncs the perfect clock keeps the error where the sync left it.
        #expect(r.samples > 50_000)
        #expect(r.estimateError.signedSumMicros == -10_000 * Int64(r.samples))
    }

    /// One sync per 5-minute slot of server time, each of 4 probes: 500 players over 2 hours
    /// send 500 × 24 × 4 = 48,000 requests, give or take the few whose fetch straddles the
    /// window's ends (a round trip is 100 ms of a 5-minute slot).
    @Test func theSlottedRefetchFetchesOncePerSlot() {
        let r = Self.appDesign
        let expected = 500.0 * 24 * 4
        #expect(abs(Double(r.requestsServed) - expected) / expected < 0.002, "\(r.requestsServed) requests")
    }

    /// The same design put in place from Swift on the lab's own `constant-latency.json` (NTP
    /// estimator, the seeds' 6–9 minute refetch) gives the same run as naming the kinds in JSON.
    @Test func fromSwiftAsFromJSON() throws {
        var s = try AppScenarios.load("constant-latency")
        #expect(s.client.estimator.name == "ntp" && s.client.refetch.name == "uniform-after-load")
        s.client.estimator = KronosEstimator(servers: 5)
        s.client.refetch = SlottedRefetch(every: 5 * .minute)
        let r = Simulation.run(s, threads: 1)
        let json = Self.appDesign
        #expect(r.requestsServed == json.requestsServed && r.samples == json.samples)
        #expect(r.fetchSyncError == json.fetchSyncError && r.estimateError == json.estimateError)
        let keys = RunResult.figureKeys(for: s).filter { !$0.hasPrefix("bound") }
        #expect(keys.map { r.figures[$0] ?? nil } == keys.map { json.figures[$0] ?? nil })
    }

    /// SyncLab's estimators on the same constant latency, by hand: NTP and Cristian err by half
    /// the asymmetry like the app's; the seeds' upload-complete estimate runs ahead by the uplink.
    @Test(arguments: [("ntp", -10), ("cristian", -10), ("upload-complete", 40)])
    func theBuiltInEstimatorsByHand(kind: String, errorMs: Int64) throws {
        var s = try AppScenarios.load("constant-latency")
        s.client.estimator = try AppPlugins.loader.load(
            text: #"{"extends": "constant-latency.json", "name": "x", "client": {"estimator": "\#(kind)"}}"#,
            file: "x.json", resolver: AppScenarios.resolver).client.estimator
        s.population.players = 200
        let r = Simulation.run(s, threads: 1)
        // 200 players, a sync every 6–9 minutes for 2 hours: about 3,200.
        #expect(r.fetchSyncError.count > 3_000)
        #expect(r.fetchSyncError.meanSigned == Double(errorMs * Self.ms))
    }

    /// With one "server" the app's estimator is NTP's with a window of one: on the shipped
    /// reference fleet `r1` (lognormal delays, a bandwidth drawn per fetch) with 4 probes per
    /// sync, every figure of the run is the same; only the bound differs (the app's claims none).
    @Test func oneServerIsNTPWithAWindowOfOneOnAShippedScenario() throws {
        var s = try ShippedScenarios.load("r1", loader: AppPlugins.loader)
        s.population.players = 300
        s.duration = .hour
        s.client.probes = 4
        s.sampleEvery = .minute
        s.client.estimator = NTPEstimator(window: 1)
        let ntp = Simulation.run(s, threads: 1)
        s.client.estimator = KronosEstimator(servers: 1)
        let kronos = Simulation.run(s, threads: 1)
        // 300 players, a sync every 6–9 minutes for an hour: about 2,400.
        #expect(kronos.fetchSyncError.count > 2_000 && kronos.fetchSyncError == ntp.fetchSyncError)
        #expect(kronos.estimateError == ntp.estimateError && kronos.clientError == ntp.clientError)
        let keys = RunResult.figureKeys(for: s).filter { !$0.hasPrefix("bound") }
        #expect(keys.map { kronos.figures[$0] ?? nil } == keys.map { ntp.figures[$0] ?? nil })
        #expect(ntp.bounds.samples > 0 && kronos.bounds.samples == 0 && kronos.bounds.unbounded == ntp.bounds.samples)
    }

    /// The reports say the app's estimator claims no bound, and its coverage budget fails and
    /// says why, while the error budget passes on the figure worked out by hand.
    @Test func theReportsSayTheEstimatorClaimsNoBound() throws {
        let r = Self.appDesign
        let verdicts = r.budgetVerdicts
        #expect(verdicts.map(\.pass) == [false, true])
        #expect(CheckReport.failureMessage(verdicts[0]) == "the estimator `kronos` claims no ± bound, so its bound coverage "
            + "cannot be measured and the budget fails; it must be at least 99% (boundCoverageShare)")
        let md = MarkdownReport.render(r)
        #expect(md.contains("## Honest uncertainty\n\nThe estimator `kronos` claims no ± bound around its estimate of server time"))
        #expect(md.contains("estimator `kronos`; ticks: "))
        #expect(md.contains("refetch: once in every 5m of server time, at a random point;"))
        let summary = SummaryJSON.render(r)
        #expect(summary.contains("\"boundCoverage\": { \"share\": null, \"samples\": 0, \"unboundedSamples\": \(r.samples), "))
        #expect(summary.contains("\"meanSignedMs\": -10.000"))
    }
}
