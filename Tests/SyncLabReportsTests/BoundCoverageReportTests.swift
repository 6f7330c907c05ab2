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
}
