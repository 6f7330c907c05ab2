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
        let num = { (figure: Figure) in SummaryJSON.value(of: figure, in: f) }
        func cell(_ v: Double?, _ figure: Figure) -> String { v.map { $0.isFinite ? Format.fixed($0, figure.decimals) : "null" } ?? "null" }
        // Figures at the top level, named by their json paths; several sharing one are one object.
        func field(_ figures: Figure...) -> String { "  " + members(figures, num).joined(separator: ", ") }
        var lines: [String] = []
        lines.append("  \"scenario\": \(Format.jsonString(r.scenario.name))")
        lines.append("  \"seed\": \(r.scenario.seed)")
        lines.append("  \"clients\": \(r.scenario.population.players)")
        lines.append("  \"simulatedSeconds\": \(Format.fixed(r.simulatedSeconds, 3))")
        lines.append(field(Figure.transitionGapMsP50, Figure.transitionGapMsP99, Figure.transitionGapMsMax))
        lines.append(field(Figure.clientErrorMsP50, Figure.clientErrorMsP99, Figure.clientErrorMsMax))
        lines.append(field(Figure.estimateErrorMsP50, Figure.estimateErrorMsP99, Figure.estimateErrorMsMax))
        lines.append(field(Figure.transitionSpreadMsP50, Figure.transitionSpreadMsP99))
        lines.append(field(Figure.transitionsWithin500msShare))
        lines.append(field(Figure.viewersInBest500msShare))
        // The figures that converge as viewers grow (docs/metrics.md): pooled, and per change.
        lines.append(field(Figure.viewersInCentred500msShare))
        lines.append(field(Figure.viewerPairsWithin500msShare))
        lines.append(field(Figure.transitionBest500msShareP50, Figure.transitionBest500msShareP1, Figure.transitionBest500msShareMin))
        lines.append(field(Figure.transitionCentred500msShareP50, Figure.transitionCentred500msShareP1, Figure.transitionCentred500msShareMin))
        lines.append(field(Figure.transitionPairsWithin500msShareP50, Figure.transitionPairsWithin500msShareP1))
        lines.append(field(Figure.transitionSpread999MsP50, Figure.transitionSpread999MsP99))
        let scaling = r.viewerScaling.map { row in
            let shares = members([Figure.viewersInBest500msShare, Figure.viewerPairsWithin500msShare]) { cell(row.figures[$0.key] ?? nil, $0) }
            return "    { \"subset\": \(Format.jsonString(row.label)), \"meanViewers\": \(Format.fixed(row.meanViewers, 3)), "
                + "\"transitions\": \(row.changes), \"gapP50Ms\": \(cell(row.figures[Figure.transitionGapMsP50.key] ?? nil, Figure.transitionGapMsP50)), "
                + shares.joined(separator: ", ") + " }"
        }
        lines.append("  \"gapVsViewers\": [" + (scaling.isEmpty ? "]" : "\n" + scaling.joined(separator: ",\n") + "\n  ]"))
        lines.append("  \"transitionsMeasured\": \(r.gapTransitions.count)")
        lines.append(field(Figure.requests))
        lines.append(field(Figure.peakRequestsPerSecond))
        lines.append(field(Figure.p99RequestsPerSecond))
        lines.append(field(Figure.p999RequestsPerSecond))
        lines.append(field(Figure.meanRequestsPerSecond))
        lines.append("  \"bytesServed\": \(r.bytesServed)")
        if let kinds = r.loadByKind {
            // Only with a time endpoint (`client.probeTarget`): the store's requests and the endpoint's apart.
            func kind(_ k: RequestKindLoad) -> String {
                "{ \"requests\": \(k.requests), \"bytes\": \(k.bytes), \"peakRequestsPerSecond\": \(k.peak), \"peakSecond\": \(k.peakSecond), "
                    + "\"p99RequestsPerSecond\": \(k.p99), \"meanRequestsPerSecond\": \(Format.fixed(k.mean, 3)) }"
            }
            lines.append("  \"requestsByKind\": {\n    \"store\": \(kind(kinds.store)),\n    \"timeEndpoint\": \(kind(kinds.endpoint)),\n"
                         + "    \"peakWorkerRequestsPerSecond\": \(r.peakWorkerRequests)\n  }")
        }
        lines.append(field(Figure.failedRequestShare))
        lines.append(field(Figure.bareShare))
        lines.append(field(Figure.staleShare))
        lines.append(field(Figure.displayedSecondWrongShare))
        // One line per source: the object spans lines, unlike the others.
        let attribution = ErrorSource.allCases.map {
            "    " + members([Figure.errorSourceMsMean.filled($0.key), Figure.errorSourceMsSd.filled($0.key)], depth: 1, num).joined(separator: ", ")
        }
        let errorSources = path(Figure.errorSourceMsMean)[0]
        lines.append("  \(Format.jsonString(errorSources)): {\n" + attribution.joined(separator: ",\n") + "\n  }")
        lines.append(field(Figure.wakeRecoveryMinutesDisplayed, Figure.wakeRecoveryMinutesEstimate,
                           Figure.wakeRecoveryMinutesDisplayedVsNoSleep, Figure.wakeRecoveryMinutesEstimateVsNoSleep))
        lines.append("  \"dominantErrorSource\": \(r.errorAttribution.dominant.map { Format.jsonString($0.key) } ?? "null")")
        lines.append(field(Figure.requestsPerMonth))
        lines.append(field(Figure.bytesPerMonth))
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
    /// Figure `figure` of `figures` with the decimals its declaration gives, "null" when not measured.
    static func value(of figure: Figure, in figures: [String: Double?]) -> String {
        guard let v = figures[figure.key] ?? nil, v.isFinite else { return "null" }
        return Format.fixed(v, figure.decimals)
    }

    /// The steps of the figure's path in summary.json (`Figure.json`; its key when budgets only).
    static func path(_ figure: Figure) -> [String] { (figure.json ?? figure.key).split(separator: ".").map(String.init) }

    /// The figures as JSON members named by their paths in summary.json after the first `depth`
    /// steps, in the order given; figures sharing a step are one object: `"transitionGapMs": { "p50": 1.0, … }`.
    static func members(_ figures: [Figure], depth: Int = 0, _ value: (Figure) -> String) -> [String] {
        var steps: [String] = []
        var under: [String: [Figure]] = [:]
        for figure in figures {
            let step = path(figure)[depth]
            if under[step] == nil { steps.append(step) }
            under[step, default: []].append(figure)
        }
        return steps.map { step in
            let group = under[step] ?? []
            if group.count == 1, path(group[0]).count == depth + 1 { return Format.jsonString(step) + ": " + value(group[0]) }
            return Format.jsonString(step) + ": { " + members(group, depth: depth + 1, value).joined(separator: ", ") + " }"
        }
    }

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
