// Search files (`synclab search SEARCH.json`): read the space and its base, then everything the
// command does before and after its runs — each candidate's scenario, the plan, the search
// itself with made-up figures in place of runs, the part file, its merge, the report and
// best.json. No simulation: a search's runs are the scenario target's business.

import Foundation
import SyncLab
import SyncLabReports

enum SearchTarget {
    /// The fuzz input is a search file in the shipped scenarios' `search/` folder, so its base
    /// may be "../recommended.json" as the gallery's is. Read from the file system, as the
    /// command line reads it.
    static let target = FuzzTarget(name: "search", summary: "a search file: read, load the base and candidates, plan, merge, report") { data in
        search(data)
    }

    /// The harness's own bounds, so that one input stays cheap; the search file's limits are
    /// the reader's to enforce. At most this many candidates are loaded …
    static let loadedCandidates = 4
    /// … and the whole search is replayed (with made-up figures) only when the grid's full-size
    /// runs number at most this.
    static let replayedRuns = 4_096

    static var loader: ScenarioLoader { ScenarioLoader(files: FileSystemScenarioResolver(fallback: ShippedScenarios.folder)) }
    static let file = ShippedScenarios.folder.appendingPathComponent("search/fuzz.json").path

    static func search(_ data: Data) {
        // As the command line reads a search file (SafePaths.readInput): UTF-8 text.
        guard let text = String(data: data, encoding: .utf8) else { return }
        let space: SearchSpace, base: Scenario, baseValue: JSONValue
        do {
            (space, base) = try SearchSpace.read(text: text, file: file, loader: loader)
            baseValue = try loader.mergedValue(path: space.basePath)
        } catch {
            FuzzInput.refused(error)
            return
        }
        let plan = SearchPlan(space, baseSeed: base.seed)
        // The first candidates and the last, with their screening size, as `search` loads every one.
        let count = plan.candidates
        for c in Set(Array(0..<min(count, loadedCandidates - 1)) + [count - 1]).sorted() {
            let overrides = space.overrides(plan.values(of: c))
            _ = plan.describe(c)
            do {
                let s = try loader.load(path: space.basePath, overrides: overrides)
                _ = ScenarioLoader.memoryProblem(s)
                if let players = space.screen?.players, plan.step(of: c) == plan.steps - 1 {
                    _ = try loader.load(path: space.basePath, overrides: overrides
                        + [ScenarioLoader.Override(keyPath: "population.players", value: .number(Double(players), literal: String(players)))])
                }
            } catch {
                FuzzInput.refused(error)
                return
            }
        }
        let (runCount, overflow) = count.multipliedReportingOverflow(by: plan.seeds.count)
        guard !overflow, runCount <= replayedRuns else { return }
        let spec = SearchSpec(name: "fuzz", scenario: base.name, basePath: space.basePath,
                              fingerprint: SweepSpec.fingerprint(text + "\n" + baseValue.serialized(indent: 0)),
                              plan: plan, players: base.population.players, constraintsGiven: space.constraintsGiven)
        // Figures made up from the input and the run, rounded as a part file rounds them: the
        // same input always makes the same runs.
        let salt = FuzzInput.hash(data)
        var runs: [SearchRun] = []
        for g in 0..<plan.groups {
            runs += plan.search(group: g) { c, stage, seed in
                plan.figures.indices.map { i in SearchPart.rounded(madeUp(salt, c, stage, seed, i, plan)) }
            }
        }
        let part = SearchPart(spec: spec, shard: 0, shards: 1, runs: runs)
        // One machine's search is its part 0/1 merged, as the command does it.
        guard case .success(let parsed) = SearchPart.parse(part.text), case .success(let (merged, mergedRuns)) = SearchReport.merge([("the search", parsed)])
        else { return }
        let outcome = merged.plan.outcome(mergedRuns)
        _ = SearchReport.files(merged, runs: mergedRuns, best: outcome.winner == nil ? nil : "best.json")
        if let w = outcome.winner, let design = try? loader.standaloneValue(path: space.basePath, overrides: space.overrides(plan.values(of: w))) {
            _ = SearchReport.bestScenario(merged, winner: w, design: design)
        }
    }

    /// A figure for candidate `c`'s run: none, or a value near a constraint's limit, or another.
    static func madeUp(_ salt: UInt64, _ c: Int, _ stage: SearchStage, _ seed: UInt64, _ figure: Int, _ plan: SearchPlan) -> Double? {
        var h = salt ^ (UInt64(truncatingIfNeeded: c) &* 0x9E37_79B9_7F4A_7C15) ^ (seed &* 0xBF58_476D_1CE4_E5B9)
            ^ (UInt64(figure) << 32) ^ (stage == .screen ? 0x94D0_49BB_1331_11EB : 0)
        h = (h ^ (h >> 31)) &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        let limit = plan.constraints.first { $0.metric == plan.figures[figure] }?.limit ?? 1
        switch h % 8 {
        case 0: return nil
        case 1: return limit
        case 2: return 0
        default: return limit * (0.5 + Double(h >> 11 & 0xFFFF) / 65_536)
        }
    }
}
