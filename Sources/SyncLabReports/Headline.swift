import SyncLab

/// The headline figures `synclab compare` and `synclab sweep` put side by side: the keys of
/// `RunResult.figures` (the same ones budgets name), in a fixed order.
public enum Headline {
    /// The headline figures by their declarations, with the labels people read.
    public static let declared: [(figure: Figure, label: String)] = [
        (Figure.transitionBest500msShareP1, "viewers in the best 500 ms window, worst 1% of changes (share)"),
        (Figure.viewersInBest500msShare, "viewers in the best 500 ms window (share)"),
        (Figure.viewersInCentred500msShare, "viewers within ±250 ms of the true instant (share)"),
        (Figure.viewerPairsWithin500msShare, "viewer pairs within 500 ms (share)"),
        (Figure.transitionSpread999MsP50, "spread p0.1–p99.9 per change, p50 (ms)"),
        (Figure.transitionGapMsP50, "worst pair p50 (ms; grows with viewers)"),
        (Figure.transitionGapMsP99, "worst pair p99 (ms; grows with viewers)"),
        (Figure.transitionsWithin500msShare, "changes with worst pair within 500 ms (share; falls with viewers)"),
        (Figure.clientErrorMsP50, "displayed error p50 (ms)"),
        (Figure.clientErrorMsP99, "displayed error p99 (ms)"),
        (Figure.estimateErrorMsP99, "estimate error p99 (ms)"),
        (Figure.wakeRecoveryMinutesDisplayed, "minutes after wake until p99 error ≤ 500 ms"),
        (Figure.wakeRecoveryMinutesDisplayedVsNoSleep, "minutes after wake until p99 error ≤ no-sleep p99 + 500 ms"),
        (Figure.peakRequestsPerSecond, "peak requests per second"),
        (Figure.p99RequestsPerSecond, "p99 requests per second"),
        (Figure.meanRequestsPerSecond, "mean requests per second"),
        (Figure.requests, "requests in the window"),
        (Figure.failedRequestShare, "failed requests (share)"),
        (Figure.bareShare, "bare position-time (share)"),
        (Figure.staleShare, "stale position-time (share)"),
        (Figure.requestsPerMonth, "requests per month"),
    ]

    /// The headline figures' keys and labels (`declared`).
    public static let figures: [(key: String, label: String)] = declared.map { ($0.figure.key, $0.label) }

    /// The fixed figures, then `costPerMonth.<model>` for every cost model of the scenarios, in
    /// order of first appearance.
    public static func keys(for scenarios: [Scenario]) -> [(key: String, label: String)] {
        var out = figures
        for s in scenarios {
            for m in s.costModels where !out.contains(where: { $0.key == Figure.costPerMonth.key(for: m.name) }) {
                out.append((Figure.costPerMonth.key(for: m.name), "cost per month, \(m.name)"))
            }
        }
        return out
    }

    /// A figure for a CSV cell: up to 6 decimals, no trailing zeros; empty when not measured.
    public static func cell(_ v: Double?) -> String {
        guard let v, v.isFinite else { return "" }
        return Format.compact(v, 6)
    }

    /// A difference in the figure's unit, signed: "+1.2 s", "-2.5%" (percentage points), "0".
    public static func signedFigure(_ d: Double?, metric: String) -> String {
        guard let d, d.isFinite else { return "n/a" }
        if d == 0 { return "0" }
        return (d > 0 ? "+" : "-") + Format.figure(abs(d), metric: metric)
    }

    /// A label without its unit suffix ("transition gap p99 (ms)" → "transition gap p99"), for
    /// a table whose cells carry their unit.
    public static func unitless(_ label: String) -> String {
        for suffix in [" (ms)", " (share)"] where label.hasSuffix(suffix) { return String(label.dropLast(suffix.count)) }
        return label
    }

    /// A difference for people: signed, up to 3 decimals ("+12.5", "-0.002", "0").
    public static func signed(_ d: Double?) -> String {
        guard let d, d.isFinite else { return "n/a" }
        let s = Format.compact(d, 3)
        return s == "0" ? "0" : (d > 0 ? "+" + s : s)
    }
}
