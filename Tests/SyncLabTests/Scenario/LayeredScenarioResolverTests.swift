import Foundation
import Testing
@testable import SyncLab

/// An app's folder over the shipped scenarios, and the command line's fallback to them.
@Suite struct LayeredScenarioResolverTests {
    /// A temporary folder holding `files` (name: text).
    static func folder(_ files: [String: String]) throws -> URL {
        let dir = URL(fileURLWithPath: ScenarioFixtures.temporaryDirectory())
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }

    /// The app's `r1.json` hides the shipped one; a name the app lacks comes from below.
    @Test func theAppsFileIsPreferred() throws {
        let app = try Self.folder(["r1.json": #"{"extends": "recommended.json", "name": "apps-own-r1"}"#,
                                   "mine.json": #"{"extends": "r1.json", "name": "mine"}"#])
        let layered = ShippedScenarios.layered(under: app)
        let mine = try ScenarioLoader().load(path: "mine.json", resolver: layered)
        // mine → the app's r1 → the shipped recommended (whose name the app's r1 replaced).
        #expect(mine.name == "mine")
        let appsR1 = try ScenarioLoader().load(path: "r1.json", resolver: layered)
        #expect(appsR1.name == "apps-own-r1")
        #expect(appsR1.client.probes == (try ShippedScenarios.load("recommended")).client.probes)
        #expect(try layered.contents(of: "r1.json", maximumBytes: 1_000) == Data(#"{"extends": "recommended.json", "name": "apps-own-r1"}"#.utf8))
        #expect(try layered.contents(of: "v115-pausing.json", maximumBytes: 1_000_000)
                == (try ShippedScenarios.resolver.contents(of: "v115-pausing.json", maximumBytes: 1_000_000)))
    }

    @Test func aNameInNeitherLayerNamesBoth() throws {
        let layered = ShippedScenarios.layered(under: try Self.folder([:]), label: "the app's folder")
        #expect(throws: ScenarioFileProblem.missing(lookedFor: "nope.json among the app's folder, nor nope.json among the shipped scenarios")) {
            try layered.contents(of: "nope.json", maximumBytes: 10)
        }
    }

    /// The command line's resolver: an `extends` with no file beside the extending one names the
    /// shipped scenario; a file beside it wins; the named file itself never falls back.
    @Test func theCommandLineFallsBackToShippedScenarios() throws {
        let dir = try Self.folder(["mine.json": #"{"extends": "r1.json", "name": "mine"}"#])
        let files = FileSystemScenarioResolver(fallback: ShippedScenarios.folder)
        let loader = ScenarioLoader(files: files)
        #expect(try loader.load(path: dir.path + "/mine.json").population.players == (try ShippedScenarios.load("r1")).population.players)
        #expect(files.name(of: "r1.json", from: dir.path + "/mine.json") == ShippedScenarios.folder.appendingPathComponent("r1.json").path)
        #expect(files.name(of: "r1.json", from: nil) == "r1.json")
        #expect(files.name(of: "../r1.json", from: dir.path + "/mine.json") == dir.path + "/../r1.json", "a name above the folder does not fall back")
        try #"{"extends": "v115-pausing.json", "name": "beside"}"#.write(to: dir.appendingPathComponent("r1.json"), atomically: true, encoding: .utf8)
        #expect(try loader.load(path: dir.path + "/mine.json").duration == 3 * .hour, "the r1.json beside it, which extends v115-pausing")
        // Without a fallback, as before.
        #expect(FileSystemScenarioResolver().name(of: "recommended.json", from: dir.path + "/mine.json") == dir.path + "/recommended.json")
    }
}
