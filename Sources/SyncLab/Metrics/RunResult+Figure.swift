// Figures by key, checked: `result.figures["clientErrorMs.p99"]` is nil for a typo and for a
// figure with nothing to measure alike; `try result.figure("clientErrorMs.p99")` tells them apart.

/// A figure key no run of this scenario writes: a typo, a link or cost model the scenario does
/// not have, or a figure only `check --seeds` measures. Names the nearest key there is.
public struct UnknownFigure: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    /// The closest key this run has, when one is close by the near-miss rule (`NearMiss`).
    public var nearest: String?

    public var description: String {
        "no figure '\(key)' in this run" + (nearest.map { "; did you mean '\($0)'?" } ?? " (the keys: docs/summary-json.md)")
    }
}

extension RunResult {
    /// The figure `key` (the key summary.json and budgets use, `Figure.all`), nil when the run had
    /// nothing to measure (no item change shown by two players, say). Throws `UnknownFigure` for a
    /// key no run of this scenario writes.
    public func figure(_ key: String) throws(UnknownFigure) -> Double? {
        let keys = Figure.keys(for: scenario)
        guard keys.contains(key) else {
            throw UnknownFigure(key: key, nearest: NearMiss.suggestion(for: key, among: keys))
        }
        return figures[key] ?? nil
    }

    /// The figure `figure` declares, for the link profile or cost model `name` when its key has a
    /// placeholder (`Figure.all`'s `clientErrorMs.byLink.<link>.p99` with "edge").
    public func figure(_ figure: Figure, for name: String? = nil) throws(UnknownFigure) -> Double? {
        try self.figure(name.map { figure.key(for: $0) } ?? figure.key)
    }
}
