import Foundation
@testable import SyncLab

/// Scenario text for loader tests: the shipped scenarios, and variants of them.
enum ScenarioFixtures {
    /// The package's root folder (where Scenarios/ lives).
    static let packageRoot = #filePath.components(separatedBy: "/Tests/").first ?? "."

    static func shippedPath(_ name: String) -> String { packageRoot + "/Scenarios/" + name }

    /// A shipped scenario as JSON with its `extends` chain merged in.
    static func shipped(_ name: String = "v115-pausing.json") throws -> JSONValue {
        let layers = try ScenarioLoader().resolve(path: shippedPath(name), chain: [])
        return layers.dropFirst().reduce(layers[0].value) { JSONValue.merging(base: $0, override: $1.value) }
    }

    /// The default scenario with `override` (JSON text) merged over it, as file text.
    static func variant(_ override: String) throws -> String {
        JSONValue.merging(base: try shipped(), override: try JSONParser.parse(override)).serialized()
    }

    /// `override` over v115-idealised: the default scenario without the device and link models
    /// it switches on, for tests of what a model does when a scenario leaves it out.
    static func idealisedVariant(_ override: String) throws -> String {
        JSONValue.merging(base: try shipped("v115-idealised.json"), override: try JSONParser.parse(override)).serialized()
    }

    /// Loads `text` as the file "bad.json"; the error, or nil when it loads.
    static func error(loading text: String) -> InputError? {
        do {
            _ = try ScenarioLoader().load(text: text, file: "bad.json")
            return nil
        } catch {
            return error
        }
    }

    /// A fresh folder inside this test process's own (`TestFolders`).
    static func temporaryDirectory() -> String {
        let dir = TestFolders.root + "/scenario-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// The folders the tests write, all inside one folder per test process that is removed when the
/// process exits (a run of the suite used to leave dozens behind).
enum TestFolders {
    static let root: String = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("synclab-tests-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TestFolders.root) }
        return root
    }()
}
