import Foundation
import SyncLab
import AppSync

/// The app's own scenario files (this test bundle's `Scenarios` folder) over the scenarios
/// SyncLab ships: a name is looked for among the app's files first (`ShippedScenarios.layered`).
enum AppScenarios {
    static let resolver = ShippedScenarios.layered(under: Bundle.module.url(forResource: "Scenarios", withExtension: nil)!)

    /// Loads the app's scenario `name` with the app's plug-ins.
    static func load(_ name: String) throws -> Scenario {
        try AppPlugins.loader.load(path: name + ".json", resolver: resolver)
    }
}
