import SyncLab
import SyncLabKernel

/// `summary.json`: the machine-readable headline, read by CI scripts.
///
/// Its top-level keys are a stable contract (documented in docs/metrics.md and the README):
/// scenario, seed, clients, simulatedSeconds, transitionGapMs, clientErrorMs,
/// transitionsWithin500msShare, the cross-player shares (viewersIn…, viewerPairs…,
/// transitionBest500msShare, …), gapVsViewers, requests,
/// peakRequestsPerSecond, p99RequestsPerSecond, meanRequestsPerSecond, bareShare, budgets,
/// requestsPerMonth, bytesPerMonth, costs, telemetry (only with `--telemetry`), and
/// further keys only added, never renamed. Figures the run could not measure are `null`.
public enum SummaryJSON {
    public static func render(_ r: RunResult) -> String {
        let f = r.figures
        // Each figure with the decimals its declaration gives (`Figure.decimals`).
        func num(_ key: String) -> String {
            guard let v = f[key] ?? nil, v.isFinite else { return "null" }
            return Format.fixed(v, Figure.declared(key)?.decimals ?? 3)
        }
        func value(_ v: Double?, _ decimals: Int) -> String { v.map { $0.isFinite ? Format.fixed($0, decimals) : "null" } ?? "null" }
        func triple(_ prefix: String) -> String {
            "{ \"p50\": \(num(prefix + ".p50")), \"p99\": \(num(prefix + ".p99")), \"max\": \(num(prefix + ".max")) }"
        }
        var lines: [String] = []
        lines.append("  \"scenario\": \(Format.jsonString(r.scenario.name))")
        lines.append("  \"seed\": \(r.scenario.seed)")
        lines.append("  \"clients\": \(r.scenario.population.players)")
        lines.append("  \"simulatedSeconds\": \(Format.fixed(r.simulatedSeconds, 3))")
        lines.append("  \"transitionGapMs\": \(triple("transitionGapMs"))")
        lines.append("  \"clientErrorMs\": \(triple("clientErrorMs"))")
        lines.append("  \"estimateErrorMs\": \(triple("estimateErrorMs"))")
        lines.append("  \"transitionSpreadMs\": { \"p50\": \(num("transitionSpreadMs.p50")), \"p99\": \(num("transitionSpreadMs.p99")) }")
        lines.append("  \"transitionsWithin500msShare\": \(num("transitionsWithin500msShare"))")
        lines.append("  \"viewersInBest500msShare\": \(num("viewersInBest500msShare"))")
        // The figures that converge as viewers grow (docs/metrics.md): pooled, and per change.
        lines.append("  \"viewersInCentred500msShare\": \(num("viewersInCentred500msShare"))")
        lines.append("  \"viewerPairsWithin500msShare\": \(num("viewerPairsWithin500msShare"))")
        for key in ["transitionBest500msShare", "transitionCentred500msShare"] {
            lines.append("  \"\(key)\": { \"p50\": \(num(key + ".p50")), \"p1\": \(num(key + ".p1")), \"min\": \(num(key + ".min")) }")
        }
        lines.append("  \"transitionPairsWithin500msShare\": { \"p50\": \(num("transitionPairsWithin500msShare.p50")), "
            + "\"p1\": \(num("transitionPairsWithin500msShare.p1")) }")
        lines.append("  \"transitionSpread999Ms\": { \"p50\": \(num("transitionSpread999Ms.p50")), \"p99\": \(num("transitionSpread999Ms.p99")) }")
        let scaling = r.viewerScaling.map { row in
            "    { \"subset\": \(Format.jsonString(row.label)), \"meanViewers\": \(Format.fixed(row.meanViewers, 3)), "
                + "\"transitions\": \(row.changes), \"gapP50Ms\": \(value(row.figures["transitionGapMs.p50"] ?? nil, 3)), "
                + "\"viewersInBest500msShare\": \(value(row.figures["viewersInBest500msShare"] ?? nil, 6)), "
                + "\"viewerPairsWithin500msShare\": \(value(row.figures["viewerPairsWithin500msShare"] ?? nil, 6)) }"
        }
        lines.append("  \"gapVsViewers\": [" + (scaling.isEmpty ? "]" : "\n" + scaling.joined(separator: ",\n") + "\n  ]"))
        lines.append("  \"transitionsMeasured\": \(r.gapTransitions.count)")
        lines.append("  \"requests\": \(r.requestsServed)")
        lines.append("  \"peakRequestsPerSecond\": \(num("peakRequestsPerSecond"))")
        lines.append("  \"p99RequestsPerSecond\": \(num("p99RequestsPerSecond"))")
        lines.append("  \"p999RequestsPerSecond\": \(num("p999RequestsPerSecond"))")
        lines.append("  \"meanRequestsPerSecond\": \(num("meanRequestsPerSecond"))")
        lines.append("  \"bytesServed\": \(r.bytesServed)")
        lines.append("  \"failedRequestShare\": \(num("failedRequestShare"))")
        lines.append("  \"bareShare\": \(num("bareShare"))")
        lines.append("  \"staleShare\": \(num("staleShare"))")
        lines.append("  \"displayedSecondWrongShare\": \(num("displayedSecondWrongShare"))")
        let attribution = ErrorSource.allCases.map {
            "    \(Format.jsonString($0.key)): { \"mean\": \(num("errorSourceMs.\($0.key).mean")), \"sd\": \(num("errorSourceMs.\($0.key).sd")) }"
        }
        lines.append("  \"errorSourceMs\": {\n" + attribution.joined(separator: ",\n") + "\n  }")
        lines.append("  \"wakeRecoveryMinutes\": { \"displayed\": \(num("wakeRecoveryMinutes.displayed")), "
            + "\"estimate\": \(num("wakeRecoveryMinutes.estimate")), "
            + "\"displayedVsNoSleep\": \(num("wakeRecoveryMinutes.displayed.vsNoSleep")), "
            + "\"estimateVsNoSleep\": \(num("wakeRecoveryMinutes.estimate.vsNoSleep")) }")
        lines.append("  \"dominantErrorSource\": \(r.errorAttribution.dominant.map { Format.jsonString($0.key) } ?? "null")")
        lines.append("  \"requestsPerMonth\": \(num("requestsPerMonth"))")
        lines.append("  \"bytesPerMonth\": \(num("bytesPerMonth"))")
        let costs = r.costEstimates.map { c in
            "    { \"name\": \(Format.jsonString(c.name)), \"monthly\": \(c.monthly.isFinite ? Format.fixed(c.monthly, 2) : "null"), "
                + "\"servers\": \(c.servers.map(String.init) ?? "null"), \"peakFits\": \(c.peakFits.map { "\($0)" } ?? "null") }"
        }
        lines.append("  \"costs\": [" + (costs.isEmpty ? "]" : "\n" + costs.joined(separator: ",\n") + "\n  ]"))
        let budgets = r.budgetVerdicts.map { v in
            "    { \"name\": \(Format.jsonString(v.budget.name)), \"metric\": \(Format.jsonString(v.budget.metric)), "
                + "\"comparison\": \"\(v.budget.comparison.rawValue)\", \"limit\": \(Format.fixed(v.budget.limit, 6)), "
                + "\"value\": \(v.value.flatMap { $0.isFinite ? Format.fixed($0, 6) : nil } ?? "null"), \"pass\": \(v.pass)"
                + (v.note.map { ", \"note\": \(Format.jsonString($0))" } ?? "") + " }"
        }
        if let events = DeviceEventsReport.summaryLine(r) { lines.append(events) }
        if r.scenario.reportBounds { lines.append("  " + BoundCoverageReport.json(r)) }
        lines.append("  \"budgets\": [" + (budgets.isEmpty ? "]" : "\n" + budgets.joined(separator: ",\n") + "\n  ]"))
        lines += ServerSections.summaryLines(r)
        if r.scenario.reportsFetchSyncError { lines.append(fetchSyncError(r)) }
        if r.scenario.sampleStride > 1 {
            // Only when errors come from a subset: which share of the players they describe.
            let s = r.scenario
            lines.append("  \"errorSampledPlayers\": { \"every\": \(s.sampleStride), \"players\": \((s.population.players + s.sampleStride - 1) / s.sampleStride) }")
        }
        lines.append(ModelAuditReport.json(r))
        if let telemetry = TelemetryReport.json(r) { lines.append(telemetry) }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }
}

extension SummaryJSON {
    /// `fetchSyncError` (only with `metrics.fetchSyncError`): per completed fetch, the fresh
    /// estimate minus true server time at the receive instant.
    static func fetchSyncError(_ r: RunResult) -> String {
        let e = r.fetchSyncError
        func ms(_ v: Double?, _ d: Int = 3) -> String { v.map { Format.fixed($0 / 1e6, d) } ?? "null" }
        return "  \"fetchSyncError\": { \"fetches\": \(e.count), \"meanAbsMs\": \(ms(r.fetchSyncErrorMeanAbs)), "
            + "\"meanSignedMs\": \(ms(e.meanSigned)), "
            + "\"over250msShare\": \(r.fetchSyncErrorOver250msShare.map { Format.fixed($0, 6) } ?? "null"), "
            + "\"p50Ms\": \(ms(e.quantile(0.5).map(Double.init))), \"p99Ms\": \(ms(e.quantile(0.99).map(Double.init))) }"
    }
}
