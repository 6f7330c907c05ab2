import Foundation
import Testing
import SyncLab
@testable import SyncLabReports

/// `summary.json` beyond the golden reports: its keys in order, values that follow from the
/// scenario, and the members that appear only when a scenario asks for them.
@Suite struct SummaryJSONTests {
    static let contract = ["scenario", "seed", "clients", "simulatedSeconds", "transitionGapMs", "clientErrorMs",
                           "estimateErrorMs", "transitionSpreadMs", "transitionsWithin500msShare", "viewersInBest500msShare",
                           "viewersInCentred500msShare", "viewerPairsWithin500msShare", "transitionBest500msShare",
                           "transitionCentred500msShare", "transitionPairsWithin500msShare", "transitionSpread999Ms",
                           "gapVsViewers", "transitionsMeasured", "requests", "peakRequestsPerSecond", "p99RequestsPerSecond",
                           "p999RequestsPerSecond", "meanRequestsPerSecond", "bytesServed", "failedRequestShare", "bareShare",
                           "staleShare", "displayedSecondWrongShare", "errorSourceMs", "wakeRecoveryMinutes",
                           "dominantErrorSource", "requestsPerMonth", "bytesPerMonth", "costs"]

    /// Top-level keys in the order written (each top-level member starts a line with two spaces).
    static func topLevelKeys(_ json: String) -> [String] {
        json.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  \""), !line.hasPrefix("   ") else { return nil }
            return String(line.dropFirst(3).prefix { $0 != "\"" })
        }
    }

    @Test func keysInOrderAndValuesFromTheScenario() throws {
        let r = try MarkdownReportTests.tiny {
            $0.seed = 7
            $0.budgets = [Budget(name: "no requests", metric: "requests", comparison: .atMost, limit: 0),
                          Budget(name: "gap \"p99\"", metric: "transitionGapMs.p99", comparison: .atMost, limit: 500)]
        }
        let json = SummaryJSON.render(r)
        // The shipped scenario corrects wall clocks and runs a fleet of finite worker pools.
        #expect(Self.topLevelKeys(json) == Self.contract + ["deviceEvents", "boundCoverage", "budgets", "serverQueue", "modelAudit"])
        #expect(json.hasPrefix("{\n  \"scenario\": \"v115-pausing\",\n  \"seed\": 7,\n  \"clients\": 1,\n  \"simulatedSeconds\": 600.000,\n"
            + "  \"transitionGapMs\": { \"p50\": null, \"p99\": null, \"max\": null },\n"))
        #expect(json.contains("\n  \"gapVsViewers\": [],\n  \"transitionsMeasured\": 0,\n  \"requests\": 0,\n"))
        #expect(json.contains("\n  \"boundCoverage\": { \"share\": null, \"samples\": 0, \"boundMs\": { \"p50\": null, \"p99\": null }, "
            + "\"byLink\": { \"wifi\": null, \"lte\": null, \"3g\": null } },\n"))
        #expect(json.contains("  \"budgets\": [\n"
            + "    { \"name\": \"no requests\", \"metric\": \"requests\", \"comparison\": \"max\", \"limit\": 0.000000, \"value\": 0.000000, \"pass\": true },\n"
            + "    { \"name\": \"gap \\\"p99\\\"\", \"metric\": \"transitionGapMs.p99\", \"comparison\": \"max\", \"limit\": 500.000000, \"value\": null, \"pass\": false }\n"
            + "  ],\n  \"serverQueue\": {"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(parsed["seed"] as? Int == 7 && parsed["clients"] as? Int == 1)
        #expect(parsed["bareShare"] is NSNull)
    }

    /// Members a scenario asks for: sampled errors say from how many players; bounds go with
    /// `metrics.bounds: false`.
    @Test func optionalMembersFollowTheScenario() throws {
        let r = try MarkdownReportTests.tiny {
            $0.population.players = 10
            $0.samplePlayers = 3
            $0.reportBounds = false
        }
        let json = SummaryJSON.render(r)
        #expect(Self.topLevelKeys(json) == Self.contract + ["deviceEvents", "budgets", "serverQueue", "errorSampledPlayers", "modelAudit"])
        // ⌈10 / 3⌉ = every 4th player: players 0, 4 and 8.
        #expect(json.contains("  \"errorSampledPlayers\": { \"every\": 4, \"players\": 3 },\n  \"modelAudit\": "))
    }
}
