import Foundation
import Testing
@testable import SyncLab

/// Every scenario under Scenarios/examples/ loads, and the correlated best-of-n example asks for
/// what its description says.
@Suite struct ExampleScenariosTests {
    static let folder = ScenarioFixtures.packageRoot + "/Scenarios/examples"

    @Test func everyExampleLoads() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.contains("best-of-n-correlated.json"))
        for name in names {
            do { _ = try ScenarioLoader().load(path: Self.folder + "/" + name) } catch { Issue.record("\(name): \(error)") }
        }
    }

    @Test func bestOfNCorrelatedCorrelatesEveryLink() throws {
        let s = try ScenarioLoader().load(path: Self.folder + "/best-of-n-correlated.json")
        #expect(s.client.probes == 4)
        #expect(s.population.players == 5_000)
        #expect(s.links.map(\.name) == ["wifi", "lte", "3g", "edge"])
        #expect(s.links.allSatisfy { ($0.correlation as? AR1Delays)?.tau == 30 * .second })
    }
}
