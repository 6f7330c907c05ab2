import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// The example files under examples/ stay loadable: the README points at them.
@Suite struct ExamplesTests {
    static var root: String { #filePath.components(separatedBy: "/Tests/").first ?? "." }

    @Test func checkExamplesLoadWithTheirBudgets() throws {
        let pass = try ScenarioLoader().load(path: Self.root + "/examples/check/uptime-as-shipped.json")
        let fail = try ScenarioLoader().load(path: Self.root + "/examples/check/pausing-regression.json")
        #expect(pass.budgets.map(\.metric) == ["transitionSpread999Ms.p99", "wakeRecoveryMinutes.displayed.vsNoSleep", "costPerMonth.vps", "seedFailureRate"])
        #expect(fail.budgets == pass.budgets)
        #expect(pass.client.clock.name != fail.client.clock.name)
    }

    @Test func shardingExamplesAgreeOnTheShardCount() throws {
        // The Indexed Job's completions, its SHARDS and the merge's part list; the CI matrix and its SHARDS.
        let job = try String(contentsOfFile: Self.root + "/examples/k8s/sweep-indexed-job.yaml", encoding: .utf8)
        #expect(job.contains("completionMode: Indexed") && job.contains("completions: 4"))
        #expect(job.contains("--shard \"${JOB_COMPLETION_INDEX}/${SHARDS}\"") && job.contains("value: \"4\""))
        #expect(job.contains("\"merge\", \"/shared/parts/0\", \"/shared/parts/1\", \"/shared/parts/2\", \"/shared/parts/3\""))
        let ci = try String(contentsOfFile: Self.root + "/examples/ci/github-actions-sweep.yml", encoding: .utf8)
        #expect(ci.contains("SHARDS: 4") && ci.contains("shard: [0, 1, 2, 3]"))
        #expect(ci.contains("--shard ${{ matrix.shard }}/$SHARDS") && ci.contains("synclab merge parts/sweep-part-* --out sweep"))
    }

    @Test func searchMatrixNamesAReadableSearchAndAgreesOnTheShardCount() throws {
        let ci = try String(contentsOfFile: Self.root + "/examples/ci/github-actions-search.yml", encoding: .utf8)
        #expect(ci.contains("SHARDS: 4") && ci.contains("shard: [0, 1, 2, 3]"))
        #expect(ci.contains("--shard ${{ matrix.shard }}/$SHARDS") && ci.contains("synclab merge parts/search-part-* --out search"))
        // The search file it names reads as a search, with its base scenario.
        let line = try #require(ci.split(separator: "\n").first { $0.contains("SEARCH: ") })
        let file = Self.root + "/" + String(try #require(line.split(separator: " ").last))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let (space, base) = try SearchSpace.read(text: text, file: file)
        #expect(!space.knobs.isEmpty && base.population.players > 0)
    }
}
