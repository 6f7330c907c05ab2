import Foundation
import Testing
import SyncLab
@testable import SyncLabReports

/// `report.md` beyond the golden reports: sections of small runs whose text follows from the
/// scenario alone, with exact strings.
@Suite struct MarkdownReportTests {
    static let root = #filePath.components(separatedBy: "/Tests/").first!

    /// v1.1.5 with one player for 10 minutes: nobody views an item change, nothing is sampled.
    static func tiny(_ edit: (inout Scenario) -> Void = { _ in }) throws -> RunResult {
        var s = try ScenarioLoader().load(path: root + "/Scenarios/v115-pausing.json")
        s.population.players = 1
        s.duration = 10 * .minute
        s.population.release = nil
        s.budgets = []
        edit(&s)
        return Simulation.run(s, threads: 1)
    }

    /// The sentence on the server's timestamp says when the scenario takes it.
    @Test(arguments: [(TimestampInstant.requestStart, "taken when the request starts; "),
                      (.responseSend, "taken when the response leaves; ")])
    func theStampSentenceFollowsTheScenario(instant: TimestampInstant, words: String) throws {
        let md = MarkdownReport.render(try Self.tiny { $0.server.timestampAt = instant })
        #expect(md.contains("(JSON → AES-CBC with PKCS#7 padding → Base64, plus headers); timestamp resolution 1s, \(words)"
            + "service time lognormal(median 8ms, σ 0.40).\n"))
        let other = instant == .requestStart ? "taken when the response leaves" : "taken when the request starts"
        #expect(!md.contains(other))
    }

    @Test func aRunWithNothingToMeasureSaysSo() throws {
        let md = MarkdownReport.render(try Self.tiny())
        #expect(md.hasPrefix("# SyncLab report: v115-pausing\n\nWallaBee v1.1.5 as shipped: "))
        #expect(md.contains("## Headline\n\n> No item change was shown by two or more players, so the cross-player figures "
            + "are not measured (too few players, or a run too short for anyone to view the Store).\n\n"
            + "> No player had the Store on screen at a sample instant, so client error is not measured.\n\n"))
        #expect(md.contains("| item changes whose worst pair is within 500 ms (grows stricter with viewers) | n/a of 0 |\n"))
        #expect(md.contains("| requests served | 0 (0 B) |\n"))
        #expect(md.contains("## Budgets\n\nThe scenario sets no budgets.\n\n"))
        #expect(md.contains("- 1 players for 10m of simulated time (after 30m of unmeasured warm-up), seed 1, "
            + "epoch 2012-02-08T18:00:00.371Z.\n"))
        #expect(md.contains("- Client design: measures with the suspending (mach_absolute_time / CACurrentMediaTime: "
            + "stops in deep sleep); estimator `upload-complete`; ticks: timer every 1s on the suspending clock, "
            + "phase set when the Store comes on screen; refetch: uniform 6m–9m after each load; retry: every 5s until data arrives.\n"))
    }

    /// A budget row per budget, a figure that was not measured fails, and the tally counts.
    @Test func budgetsAreATableWithATally() throws {
        let r = try Self.tiny {
            $0.budgets = [Budget(name: "no requests", metric: "requests", comparison: .atMost, limit: 0),
                          Budget(name: "bare below 1%", metric: "bareShare", comparison: .atMost, limit: 0.01),
                          Budget(name: "gap", metric: "transitionGapMs.p99", comparison: .atMost, limit: 500)]
        }
        let md = MarkdownReport.render(r)
        #expect(md.contains("## Budgets\n\n| budget | figure | limit | measured | verdict |\n|---|---|---|---|---|\n"
            + "| no requests | `requests` | ≤ 0 | 0 | PASS |\n"
            + "| bare below 1% | `bareShare` | ≤ 1% | not measured | FAIL |\n"
            + "| gap | `transitionGapMs.p99` | ≤ 500 ms | not measured | FAIL |\n"
            + "\n**2 of 3 budgets fail.**\n\n"))
        let one = MarkdownReport.render(try Self.tiny {
            $0.budgets = [Budget(name: "no requests", metric: "requests", comparison: .atMost, limit: 0)]
        })
        #expect(one.contains("\n**The 1 budget holds.**\n\n"))
    }

    /// The honest-uncertainty section is there unless the scenario turns it off, and says when
    /// nothing was measured.
    @Test func theBoundSectionFollowsTheScenario() throws {
        let md = MarkdownReport.render(try Self.tiny())
        #expect(md.contains("\n## Honest uncertainty\n\nThe estimator `upload-complete` claims a ± bound around its estimate "
            + "of server time (from the round trip, the server's timestamp resolution, the clock's resolution and 100 ppm "
            + "of drift times the sync's age). At each error sample: is the truth inside it?\n\n"
            + "No player had a sync at a sample instant, so nothing is measured.\n"))
        #expect(!MarkdownReport.render(try Self.tiny { $0.reportBounds = false }).contains("Honest uncertainty"))
    }
}
