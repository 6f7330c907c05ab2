import Foundation
import Testing
import SyncLab
import SyncLabKernel
@testable import SyncLabReports

/// The honest-uncertainty section appears unless the scenario turns it off (`metrics.bounds:
/// false`); when it appears it carries the figures.
@Suite struct BoundCoverageReportTests {
    static let fixture = #filePath.components(separatedBy: "/Tests/").first! + "/Tests/Fixtures/client/ntp.json"

    static let result: RunResult = {
        var s = try! ScenarioLoader().load(path: fixture)
        s.population.players = 120
        s.duration = 10 * .minute
        s.population.release = nil
        return Simulation.run(s, threads: 1)
    }()

    @Test func sectionOnlyWhenAsked() throws {
        let r = Self.result
        #expect(r.scenario.reportBounds)
        #expect(r.bounds.samples > 0)
        let summary = SummaryJSON.render(r)
        let f = r.figures
        let share = try #require(f["boundCoverageShare"] ?? nil)
        #expect(summary.contains("\"boundCoverage\": { \"share\": \(Format.fixed(share, 6)), \"samples\": \(r.bounds.samples), "))
        #expect(summary.contains("\"byLink\": { \"wifi\": "))
        // Still valid JSON.
        #expect((try? JSONSerialization.jsonObject(with: Data(summary.utf8))) != nil)
        let md = MarkdownReport.render(r)
        #expect(md.contains("## Honest uncertainty"))
        #expect(md.contains("| all | \(r.bounds.samples) | \(Format.percent(share, 3)) | \(r.bounds.samples - r.bounds.inside) |"))
        #expect(md.contains("- Client options: NTP clock filter over the last 4 exchanges (minimum delay)."))
    }

    @Test func noSectionByDefault() {
        var quiet = Self.result.scenario
        quiet.reportBounds = false
        // The same figures, rendered for a scenario that did not ask.
        let r = Simulation.run(quiet, threads: 1)
        #expect(r.figures["boundCoverageShare"] != nil)
        #expect(!SummaryJSON.render(r).contains("boundCoverage"))
        #expect(!MarkdownReport.render(r).contains("Honest uncertainty"))
    }

    /// An estimator that claims no bound (the protocol's default) is reported as unbounded, not
    /// as 100% inside a huge bound, and a budget on its coverage fails and says why.
    @Test func anEstimatorWithoutABoundIsReportedAsSuchAndItsBudgetFails() throws {
        struct NoClaim: SyncEstimator {
            var name: String { "no-claim" }
            func anchor(for s: SyncSample) -> SyncAnchor { NTPEstimator().anchor(for: s) }
        }
        var s = Self.result.scenario
        s.client.estimator = NoClaim()
        s.budgets = [Budget(name: "coverage", metric: "boundCoverageShare", comparison: .atLeast, limit: 0.95),
                     Budget(name: "width", metric: "boundMs.p99", comparison: .atMost, limit: 1_000),
                     Budget(name: "bare", metric: "bareShare", comparison: .atMost, limit: 1)]
        let r = Simulation.run(s, threads: 1)
        #expect(r.bounds.samples == 0 && r.bounds.inside == 0 && r.bounds.width.count == 0)
        #expect(r.bounds.unbounded == Self.result.bounds.samples)
        #expect(r.figures["boundCoverageShare"] == .some(nil))

        let reason = "the estimator `no-claim` claims no ± bound, so its bound coverage cannot be measured and the budget fails"
        let verdicts = r.budgetVerdicts
        #expect(verdicts.map(\.pass) == [false, false, true])
        #expect(verdicts.map(\.note) == [reason, reason, nil])
        #expect(CheckReport.failureMessage(verdicts[0]) == reason + "; it must be at least 95% (boundCoverageShare)")
        #expect(CheckReport.measured(verdicts[1]) == reason)

        let summary = SummaryJSON.render(r)
        #expect(summary.contains("\"boundCoverage\": { \"share\": null, \"samples\": 0, \"unboundedSamples\": \(r.bounds.unbounded), "
            + "\"boundMs\": { \"p50\": null, \"p99\": null }, \"byLink\": { \"wifi\": null"))
        #expect(summary.contains("\"pass\": false, \"note\": \"\(reason)\" }"))
        #expect((try? JSONSerialization.jsonObject(with: Data(summary.utf8))) != nil)
        let md = MarkdownReport.render(r)
        #expect(md.contains("## Honest uncertainty\n\nThe estimator `no-claim` claims no ± bound around its estimate of server time, "
            + "so there is nothing to hold the truth against: its \(r.bounds.unbounded) samples are reported as unbounded, "
            + "not as inside a bound, and a budget on `boundCoverageShare` or `boundMs` fails.\n"))
        #expect(md.contains("| coverage | `boundCoverageShare` | ≥ 95% | \(reason) | FAIL |"))
        #expect(!md.contains("| all |"))
    }
}
