import Foundation
import Testing
import SyncLab
import SyncLabKernel
@testable import SyncLabReports

/// An app team's refetch policy, public API only: reports describe it in its own words.
struct WaitAfterLoadRefetch: RefetchPolicy, Plugin {
    static let family = PluginFamily.refetch
    static let kind = "wait-after-load"
    static let schema = SchemaFragment("A fixed wait after each load.",
                                       properties: ["wait": SchemaFragment.ref("positiveDuration")], required: ["wait"])
    var wait: Nanoseconds
    init(_ node: InputNode, in context: PluginContext) throws { wait = try node.required("wait").duration(in: Int64.second...Int64.hour) }
    var name: String { Self.kind }
    var summary: String { "exactly \(Units.formatDuration(wait)) after each load" }
    var settings: String? { "refetch waits are not spread" }
    func refetchDue(after load: LoadContext, _ rng: inout RandomStream) -> ClockReading { load.loadedAt + wait }
}

@Suite struct AppPluginReportTests {
    @Test func theReportDescribesAnAppPluginInItsOwnWords() throws {
        let registry = try PluginRegistry.builtIn.adding(WaitAfterLoadRefetch.self)
        let text = """
        { "extends": "v115-pausing.json", "name": "app", "duration": "5m", "warmup": "1m",
          "population": { "players": 20, "release": { "at": "2m" } }, "costs": [], "budgets": [],
          "client": { "refetch": { "kind": "wait-after-load", "wait": "7m" } } }
        """
        let scenario = try ScenarioLoader(plugins: registry).load(text: try Self.merged(text), file: "app.json")
        let md = MarkdownReport.render(Simulation.run(scenario))
        #expect(md.contains("; refetch: exactly 7m after each load; retry: every 5s until data arrives.\n"))
        #expect(md.contains("- Client options: refetch waits are not spread.\n"))
    }

    /// `text`'s keys over the shipped scenario's (`load(text:)` takes no `extends`).
    static func merged(_ text: String) throws -> String {
        let base = try JSONParser.parse(String(contentsOfFile: SmallRun.shippedPausing, encoding: .utf8))
        var override = try JSONParser.parse(text)
        if case .object(let members) = override { override = .object(members.filter { $0.key != "extends" }) }
        return JSONValue.merging(base: base, override: override).serialized()
    }
}
