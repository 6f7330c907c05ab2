// The parts `synclab merge` reads: those of a sharded sweep (sweep-part.csv) and of a sharded
// search (search-part.csv). One input holds one or more parts, separated by "--8<--" lines;
// each is read as `merge` reads a part's file, then the parts are merged and the report built.

import Foundation
import SyncLab
import SyncLabReports

enum MergeTarget {
    /// The most parts one input is cut into (a shard count is not limited by it).
    static let maximumParts = 8

    static let sweep = FuzzTarget(name: "merge-sweep", summary: "sweep parts: read, merge, the sweep's report", prepare: {}) { data in
        var parts: [(source: String, part: SweepPart)] = []
        for (i, file) in FuzzInput.files(data, limit: maximumParts).enumerated() {
            guard let text = partText(file) else { return }
            switch SweepPart.parse(text) {
            case .success(let p): parts.append(("part\(i)", p))
            case .failure(let e):
                FuzzInput.refused(e)
                return
            }
        }
        switch SweepReport.merge(parts) {
        case .success(let files): _ = files.count
        case .failure(let e): FuzzInput.refused(e)
        }
    }

    static let search = FuzzTarget(name: "merge-search", summary: "search parts: read, merge, the search's report and best.json") { data in
        var parts: [(source: String, part: SearchPart)] = []
        for (i, file) in FuzzInput.files(data, limit: maximumParts).enumerated() {
            guard let text = partText(file) else { return }
            switch SearchPart.parse(text) {
            case .success(let p): parts.append(("part\(i)", p))
            case .failure(let e):
                FuzzInput.refused(e)
                return
            }
        }
        // As `merge` does: the base the parts name, read from the working folder (Scripts/fuzz.sh
        // runs in the repository's root, where the seeds' "Scenarios/…" paths are).
        let baseValue: JSONValue
        do {
            baseValue = try loader.mergedValue(path: parts[0].part.spec.basePath)
        } catch {
            FuzzInput.refused(error)
            return
        }
        let spec: SearchSpec, runs: [SearchRun]
        switch SearchReport.merge(parts) {
        case .success(let merged): (spec, runs) = merged
        case .failure(let e):
            FuzzInput.refused(e)
            return
        }
        let outcome = spec.plan.outcome(runs)
        _ = SearchReport.files(spec, runs: runs, best: outcome.winner == nil ? nil : "best.json")
        if let w = outcome.winner {
            _ = SearchReport.bestScenario(spec, winner: w, base: baseValue, extends: spec.basePath)
            _ = spec.plan.describe(w)
        }
    }

    /// The command line's loader: an `extends` may also name a shipped scenario.
    static var loader: ScenarioLoader { ScenarioLoader(files: FileSystemScenarioResolver(fallback: ShippedScenarios.folder)) }

    /// A part file's text as `merge` reads it: UTF-8, CRLF line ends taken as LF.
    static func partText(_ data: Data) -> String? {
        String(data: data, encoding: .utf8)?.replacingOccurrences(of: "\r\n", with: "\n")
    }
}
