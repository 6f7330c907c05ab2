import Foundation
import Testing
import SyncLab
@testable import AppSync

/// The app's scenarios name `app.schema.json`, the JSON Schema generated from the app's
/// registry, so an editor knows "kronos" and "slotted" too. It fails when the file is stale;
/// `SYNCLAB_RECORD=1 swift test` writes it.
@Suite struct AppSchemaTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios/app.schema.json")

    @Test func theAppsSchemaFileIsCurrent() throws {
        let generated = ScenarioSchema.text(for: AppPlugins.registry)
        if ProcessInfo.processInfo.environment["SYNCLAB_RECORD"] == "1" {
            try generated.write(to: Self.file, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(committed == generated, "app.schema.json is stale: run SYNCLAB_RECORD=1 swift test")
        #expect(generated.contains("\"const\": \"kronos\"") && generated.contains("\"const\": \"slotted\""))
    }
}
