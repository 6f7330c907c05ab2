import Foundation
import SyncLab
import AppSync

/// The app's own scenario files (this test bundle's `Scenarios` folder), which may extend the
/// scenarios SyncLab ships by name: a name is looked for among the app's files first, then among
/// the shipped ones. A resolver of a few lines is all it takes to layer them.
struct AppScenarios: ScenarioResolver {
    let app = DirectoryScenarioResolver(root: Bundle.module.url(forResource: "Scenarios", withExtension: nil)!,
                                        label: "the app's scenarios")
    let shipped = ShippedScenarios.resolver

    func name(of reference: String, from referrer: String?) -> String { app.name(of: reference, from: referrer) }
    func identity(of name: String) -> String { app.identity(of: name) }
    func contents(of name: String, maximumBytes: Int) throws(ScenarioFileProblem) -> Data {
        do {
            return try app.contents(of: name, maximumBytes: maximumBytes)
        } catch .missing {
            return try shipped.contents(of: name, maximumBytes: maximumBytes)
        }
    }

    /// Loads the app's scenario `name` with the app's plug-ins.
    static func load(_ name: String) throws -> Scenario {
        try AppPlugins.loader.load(path: name + ".json", resolver: AppScenarios())
    }
}
