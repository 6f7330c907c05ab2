// Scenario JSON through `extends`: load (parse, merge the chain, decode, validate, the memory
// check), the merged value sweeps and searches start from, then a tiny run and its report.

import Foundation
import SyncLab

enum ScenarioTarget {
    /// The fuzz input is the scenario named on the command line, `fuzz.json` among the shipped
    /// scenarios: it may extend one of them, or a file of its own chain.
    static let child = FuzzTarget(name: "scenario", summary: "a scenario file (it may extend a shipped one): load, validate, a tiny run") { data in
        loadAndRun(FuzzResolver(files: ["fuzz.json": data]), reports: FuzzInput.sampled(data))
    }

    /// The fuzz input is the base a fixed scenario extends: its errors are reported through the
    /// chain, and it may extend a shipped scenario, or the child (a cycle), in turn.
    static let base = FuzzTarget(name: "scenario-base", summary: "the base of an extends chain: load, validate, a tiny run") { data in
        loadAndRun(FuzzResolver(files: ["fuzz.json": childText, "fuzz-base.json": data]), reports: FuzzInput.sampled(data))
    }

    static let childText = Data("""
        { "extends": "fuzz-base.json", "name": "fuzz-child", "description": "A scenario extending the fuzzed base." }
        """.utf8)

    static func loadAndRun(_ resolver: FuzzResolver, reports: Bool) {
        let loader = ScenarioLoader()
        let scenario: Scenario
        do {
            scenario = try loader.load(path: "fuzz.json", resolver: resolver)
            _ = try loader.mergedValue(path: "fuzz.json", resolver: resolver)
        } catch {
            // The message every command prints: built, so a trap in wording it is found too.
            FuzzInput.refused(error)
            return
        }
        TinyRun.run(scenario, reports: reports)
    }
}
