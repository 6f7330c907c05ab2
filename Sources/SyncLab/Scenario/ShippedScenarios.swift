import Foundation

/// The scenarios the library ships (the repository's `Scenarios/` folder), as package resources,
/// so they load on a device or in an app's test bundle, where no repository is at hand:
///
///     let scenario = try ShippedScenarios.load("recommended")      // follows its `extends` chain
///
/// They are read through `DirectoryScenarioResolver` from the resource folder, with the same
/// parsing and checks as from a file, and errors name them as in the folder
/// ("v115-pausing.json", "examples/devices-wall.json").
public enum ShippedScenarios {
    /// The folder of the shipped scenarios in the library's resource bundle.
    public static var folder: URL {
        guard let url = Bundle.module.url(forResource: "Scenarios", withExtension: nil) else {
            preconditionFailure("SyncLab's resource bundle has no Scenarios folder")
        }
        return url
    }

    /// The same folder when the resource bundle sits beside the running executable (a `swift
    /// build` product, an app's test runner), else nil: a binary copied alone (a container image)
    /// has none, and asking `folder` there would trap.
    public static var folderIfBundled: URL? {
        let beside = Bundle.main.bundleURL
        // SwiftPM names the bundle <package>_<target>, ".resources" on Linux, ".bundle" on Apple systems.
        let bundled = ["SyncLab_SyncLab.resources", "SyncLab_SyncLab.bundle"].contains {
            FileManager.default.fileExists(atPath: beside.appendingPathComponent($0).path)
        }
        return bundled ? folder : nil
    }

    /// Resolves names among the shipped scenarios: "recommended.json", and a scenario text of
    /// your own may `extends` one of them by that name.
    public static var resolver: DirectoryScenarioResolver {
        DirectoryScenarioResolver(root: folder, label: "the shipped scenarios")
    }

    /// The names of the shipped scenarios, without ".json", sorted ("fix-aligned-ticks", …,
    /// "v115-uptime"); the examples are under "examples/" ("examples/devices-wall").
    public static var names: [String] {
        func scenarios(in folder: URL, prefix: String) -> [String] {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return files.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".schema.json") }
                .map { prefix + String($0.dropLast(5)) }
        }
        return (scenarios(in: folder, prefix: "") + scenarios(in: folder.appendingPathComponent("examples"), prefix: "examples/")).sorted()
    }

    /// Loads the shipped scenario `name` ("recommended" or "recommended.json") with `loader`'s
    /// plug-ins, following its `extends` chain among the shipped files.
    public static func load(_ name: String, loader: ScenarioLoader = ScenarioLoader(),
                            trace: KeyTrace? = nil) throws(InputError) -> Scenario {
        try loader.load(path: name.hasSuffix(".json") ? name : name + ".json", resolver: resolver, trace: trace)
    }
}
