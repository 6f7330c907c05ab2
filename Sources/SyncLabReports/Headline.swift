import SyncLab

/// The headline figures `synclab compare` and `synclab sweep` put side by side: the keys of
/// `RunResult.figures` (the same ones budgets name), in a fixed order.
public enum Headline {
    public static let figures: [(key: String, label: String)] = [
        ("transitionBest500msShare.p1", "viewers in the best 500 ms window, worst 1% of changes (share)"),
        ("viewersInBest500msShare", "viewers in the best 500 ms window (share)"),
        ("viewersInCentred500msShare", "viewers within ±250 ms of the true instant (share)"),
        ("viewerPairsWithin500msShare", "viewer pairs within 500 ms (share)"),
        ("transitionSpread999Ms.p50", "spread p0.1–p99.9 per change, p50 (ms)"),
        ("transitionGapMs.p50", "worst pair p50 (ms; grows with viewers)"),
        ("transitionGapMs.p99", "worst pair p99 (ms; grows with viewers)"),
        ("transitionsWithin500msShare", "changes with worst pair within 500 ms (share; falls with viewers)"),
        ("clientErrorMs.p50", "displayed error p50 (ms)"),
        ("clientErrorMs.p99", "displayed error p99 (ms)"),
        ("estimateErrorMs.p99", "estimate error p99 (ms)"),
        ("wakeRecoveryMinutes.displayed", "minutes after wake until p99 error ≤ 500 ms"),
        ("wakeRecoveryMinutes.displayed.vsNoSleep", "minutes after wake until p99 error ≤ no-sleep p99 + 500 ms"),
        ("peakRequestsPerSecond", "peak requests per second"),
        ("p99RequestsPerSecond", "p99 requests per second"),
        ("meanRequestsPerSecond", "mean requests per second"),
        ("requests", "requests in the window"),
        ("failedRequestShare", "failed requests (share)"),
        ("bareShare", "bare position-time (share)"),
        ("staleShare", "stale position-time (share)"),
        ("requestsPerMonth", "requests per month"),
    ]

    /// The fixed figures, then `costPerMonth.<model>` for every cost model of the scenarios, in
    /// order of first appearance.
    public static func keys(for scenarios: [Scenario]) -> [(key: String, label: String)] {
        var out = figures
        for s in scenarios {
            for m in s.costModels where !out.contains(where: { $0.key == "costPerMonth.\(m.name)" }) {
                out.append(("costPerMonth.\(m.name)", "cost per month, \(m.name)"))
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
