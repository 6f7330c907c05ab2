// The parts `synclab merge` reads: those of a sharded sweep (sweep-part.csv) and of a sharded
// search (search-part.csv). One input holds one or more parts, separated by "--8<--" lines.
// They are read and merged by the library, the report built; then `synclab merge` itself runs
// on them as files (its checks, its messages, the report folder it writes).

import Foundation
import SyncLab
import SyncLabReports

enum MergeTarget {
    /// The most parts one input is cut into (a shard count is not limited by it).
    static let maximumParts = 8

    static let sweep = FuzzTarget(name: "merge-sweep", summary: "sweep parts: read, merge, the sweep's report, synclab merge",
                                  prepare: Scratch.prepare) { data in
        let files = FuzzInput.files(data, limit: maximumParts)
        defer { command(files, SweepPart.fileName) }
        var parts: [(source: String, part: SweepPart)] = []
        for (i, file) in files.enumerated() {
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

    static let search = FuzzTarget(name: "merge-search", summary: "search parts: read, merge, the report and best.json, synclab merge",
                                   prepare: { TinyRun.warmUp(); Scratch.prepare() }) { data in
        let files = FuzzInput.files(data, limit: maximumParts)
        defer { command(files, SearchPart.fileName) }
        var parts: [(source: String, part: SearchPart)] = []
        for (i, file) in files.enumerated() {
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
        do {
            _ = try loader.mergedValue(path: parts[0].part.spec.basePath)
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
            let overrides = zip(spec.plan.knobs, spec.plan.values(of: w)).map { ScenarioLoader.Override(keyPath: $0.keyPath, value: $1) }
            guard let design = try? loader.standaloneValue(path: spec.basePath, overrides: overrides) else { return }
            _ = SearchReport.bestScenario(spec, winner: w, design: design)
            _ = spec.plan.describe(w)
        }
    }

    /// `synclab merge` of `files`, each the part file `name` of its own folder.
    static func command(_ files: [Data], _ name: String) {
        guard let out = Scratch.output,
              let paths = Scratch.write(files.enumerated().map { ("part\($0.offset)/\(name)", $0.element) }) else { return }
        _ = Scratch.cli.main(["merge"] + paths.map { ($0 as NSString).deletingLastPathComponent } + ["--out", out])
    }

    /// The command line's loader: an `extends` may also name a shipped scenario.
    static var loader: ScenarioLoader { ScenarioLoader(files: FileSystemScenarioResolver(fallback: ShippedScenarios.folder)) }

    /// A part file's text as `merge` reads it: UTF-8, CRLF line ends taken as LF.
    static func partText(_ data: Data) -> String? {
        String(data: data, encoding: .utf8)?.replacingOccurrences(of: "\r\n", with: "\n")
    }
}
