// Every file a scenario makes a run read: the whole `extends` chain and every latency trace.
// The command line treats each as an input that no output may delete or overwrite
// (docs/safety.md), not only the file named on the command line.

extension ScenarioLoader {
    /// The files `path` reads, itself first, then its `extends` parents (nearest first), then every
    /// latency trace any of them names (including one a later file overrides: it is still a file
    /// the user keeps there). Paths as the loader opens them. Files that cannot be read are left
    /// out; loading the scenario reports them.
    public func inputFiles(path: String) -> [String] {
        guard let layers = try? resolve(path: path, chain: []) else { return [path] }
        var files = layers.reversed().map(\.file)
        for layer in layers {
            Self.collectTraces(LatencyTrace.anchorPaths(layer.value, in: layer.file), into: &files)
        }
        var seen: Set<String> = []
        return files.filter { seen.insert($0).inserted }
    }

    static func collectTraces(_ value: JSONValue, into files: inout [String]) {
        switch value {
        case .array(let elements):
            for e in elements { collectTraces(e, into: &files) }
        case .object(let members):
            for m in members {
                if m.key == "trace", case .string(let path) = m.value, !path.isEmpty { files.append(path) }
                collectTraces(m.value, into: &files)
            }
        default: break
        }
    }
}
