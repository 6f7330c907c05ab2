import Foundation
import Testing
@testable import SyncLab

/// The shipped scenarios are package resources: they load, `extends` chains and traces included,
/// through `ShippedScenarios.resolver`, exactly as from the repository's `Scenarios/` folder.
@Suite struct ShippedScenariosTests {
    static let shipped = ShippedScenarios.resolver

    @Test func everyScenarioOfTheFolderIsShipped() throws {
        let names = ShippedScenarios.names
        #expect(names.contains("recommended") && names.contains("v115-pausing") && names.contains("examples/devices-wall"))
        #expect(!names.contains("scenario.schema"))
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: ScenarioFixtures.packageRoot + "/Scenarios")
            .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".schema.json") }
        #expect(Set(names.filter { !$0.hasPrefix("examples/") }) == Set(onDisk.map { String($0.dropLast(5)) }))
    }

    /// Each merges to the same JSON from the resources as from the file system, and loads.
    @Test(arguments: ShippedScenarios.names)
    func loadsFromTheResourcesAsFromTheFolder(name: String) throws {
        let fromFolder = try ScenarioLoader().mergedValue(path: ScenarioFixtures.shippedPath(name + ".json"))
        let fromResources = try ScenarioLoader().mergedValue(path: name + ".json", resolver: Self.shipped)
        #expect(fromResources == fromFolder)
        let scenario = try ShippedScenarios.load(name)
        #expect(scenario.name == (try ScenarioLoader().load(path: ScenarioFixtures.shippedPath(name + ".json"))).name)
    }

    /// `recommended` extends `v115-uptime`, which extends `v115-pausing`; `examples/devices-uptime`
    /// extends across folders (`../v115-uptime.json`) and reads a latency trace (`../traces/`).
    /// A short run of each is the same from the resources as from the file system.
    @Test(arguments: ["recommended", "examples/devices-uptime"])
    func aChainLoadedFromTheResourcesRunsAsFromTheFolder(name: String) throws {
        func shortRun(_ s: Scenario) -> RunResult {
            var s = s
            s.population.players = 300
            s.duration = 20 * .minute
            s.warmup = 5 * .minute
            s.population.release = nil
            return Simulation.run(s, threads: 1)
        }
        let fromResources = shortRun(try ShippedScenarios.load(name))
        let fromFolder = shortRun(try ScenarioLoader().load(path: ScenarioFixtures.shippedPath(name + ".json")))
        #expect(fromResources.samples > 100)
        #expect(DeterminismTests.fingerprint(fromResources) == DeterminismTests.fingerprint(fromFolder))
        #expect(fromResources.scenario.client.estimator.name == fromFolder.scenario.client.estimator.name)
    }

    /// An app team's own scenario text can extend a shipped one by name.
    @Test func aTextExtendsAShippedScenario() throws {
        let text = #"{"extends": "recommended.json", "name": "team", "population": {"players": 1000}}"#
        let s = try ScenarioLoader().load(text: text, file: "team.json", resolver: Self.shipped)
        #expect(s.name == "team" && s.population.players == 1_000 && s.client.probes == 3)
        #expect(s.client.estimator.name == "ntp")
    }

    /// Errors name the shipped file that wrote the key, as they name a file of the folder.
    @Test func errorsNameTheShippedFile() throws {
        let plugins = try PluginRegistry(PluginRegistry.builtIn.kinds.filter { !($0.family == .estimator && $0.kind == "ntp") })
        #expect(throws: InputError.self) { try ShippedScenarios.load("recommended", loader: ScenarioLoader(plugins: plugins)) }
        do {
            _ = try ShippedScenarios.load("recommended", loader: ScenarioLoader(plugins: plugins))
        } catch {
            #expect(error.description.hasPrefix("recommended.json: client.estimator.kind: unknown estimator 'ntp'"), "\(error)")
        }
        #expect(throws: InputError(file: "nope.json", keyPath: "", message: "cannot read the file: it does not exist")) {
            try ShippedScenarios.load("nope")
        }
    }

    /// Nothing outside the shipped folder can be named from it.
    @Test func nothingOutsideTheFolderCanBeNamed() throws {
        for parent in ["../../Package.swift", "/etc/hostname", "examples/../../recommended.json"] {
            let text = #"{"extends": "\#(parent)", "name": "x"}"#
            #expect(throws: InputError.self) { try ScenarioLoader().load(text: text, file: "x.json", resolver: Self.shipped) }
        }
        do {
            _ = try ScenarioLoader().load(text: #"{"extends": "../x.json"}"#, file: "t.json", resolver: Self.shipped)
        } catch {
            #expect(error.description == "t.json: extends: no such file '../x.json' (looked for ../x.json, which is outside the shipped scenarios)")
        }
    }
}
