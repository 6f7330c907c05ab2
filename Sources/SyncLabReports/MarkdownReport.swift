import SyncLab
import SyncLabKernel

/// `report.md`: what was simulated, the headline with a verdict per budget, and the breakdowns.
public enum MarkdownReport {
    public static func render(_ r: RunResult) -> String {
        let s = r.scenario
        let f = r.figures
        func fig(_ key: String, _ decimals: Int = 1) -> String { Format.optional(f[key] ?? nil, decimals) }
        func pct(_ key: String, _ decimals: Int = 2) -> String { Format.percent(f[key] ?? nil, decimals) }
        func t(_ key: String) -> String { Format.humanMs(f[key] ?? nil) }
        var md = "# SyncLab report: \(s.name)\n\n"
        if !s.description.isEmpty { md += "\(s.description)\n\n" }

        md += "## Headline\n\n"
        if r.gapTransitions.isEmpty {
            md += "> No item change was shown by two or more players, so the cross-player figures are not measured "
                + "(too few players, or a run too short for anyone to view the Store).\n\n"
        }
        if r.samples == 0 {
            md += "> No player had the Store on screen at a sample instant, so client error is not measured.\n\n"
        }
        md += "| figure | value |\n|---|---|\n"
        md += "| viewers inside the best 500 ms window, per item change p50 / p1 / worst | \(pct(Figure.transitionBest500msShareP50.key)) / "
            + "\(pct(Figure.transitionBest500msShareP1.key)) / \(pct(Figure.transitionBest500msShareMin.key)) |\n"
        md += "| viewers within ±250 ms of the true instant, per item change p50 / p1 | \(pct(Figure.transitionCentred500msShareP50.key)) / "
            + "\(pct(Figure.transitionCentred500msShareP1.key)) |\n"
        md += "| viewer pairs within 500 ms of each other, all changes / per change p1 | \(pct(Figure.viewerPairsWithin500msShare.key)) / "
            + "\(pct(Figure.transitionPairsWithin500msShareP1.key)) |\n"
        md += "| spread p0.1–p99.9 per item change, p50 / p99 | \(t(Figure.transitionSpread999MsP50.key)) / \(t(Figure.transitionSpread999MsP99.key)) |\n"
        md += "| spread p1–p99 per item change, p50 / p99 | \(t(Figure.transitionSpreadMsP50.key)) / \(t(Figure.transitionSpreadMsP99.key)) |\n"
        md += "| worst pair (latest − earliest; grows with viewers) p50 / p99 / max | \(t(Figure.transitionGapMsP50.key)) / \(t(Figure.transitionGapMsP99.key)) / \(t(Figure.transitionGapMsMax.key)) |\n"
        md += "| item changes whose worst pair is within 500 ms (grows stricter with viewers) | \(pct(Figure.transitionsWithin500msShare.key)) of \(r.gapTransitions.count) |\n"
        md += "| screen shows another whole second than the server's (share of samples) | \(pct(Figure.displayedSecondWrongShare.key)) |\n"
        md += "| Client error \\|e\\| (the UI's time computed at the last tick, before the countdown's cut to whole seconds) p50 / p99 / max | \(t(Figure.clientErrorMsP50.key)) / \(t(Figure.clientErrorMsP99.key)) / \(t(Figure.clientErrorMsMax.key)) |\n"
        md += "| clock estimate error \\|e\\| p50 / p99 / max | \(t(Figure.estimateErrorMsP50.key)) / \(t(Figure.estimateErrorMsP99.key)) / \(t(Figure.estimateErrorMsMax.key)) |\n"
        md += "| requests per second peak / p99 / mean | \(fig(Figure.peakRequestsPerSecond.key, 0)) / \(fig(Figure.p99RequestsPerSecond.key, 0)) / \(fig(Figure.meanRequestsPerSecond.key, 2)) |\n"
        md += "| requests served | \(Format.grouped(Double(r.requestsServed))) (\(Format.bytes(Double(r.bytesServed)))) |\n"
        md += "| failed requests | \(pct(Figure.failedRequestShare.key, 3)) |\n"
        md += "| viewing time a position is bare / stale | \(pct(Figure.bareShare.key, 3)) / \(pct(Figure.staleShare.key, 3)) |\n"
        if r.scenario.client.maxSyncBound != nil {
            md += "| rounds not used, their ± bound over the limit | \(Format.grouped(Double(r.syncsRejected))) |\n"
        }
        if r.scenario.client.showFirstAnswerWithin != nil && r.scenario.client.probes > 1 {
            md += "| rounds whose first answer was shown before the round ended | \(Format.grouped(Double(r.firstAnswersShown))) |\n"
        }
        md += "\n"

        md += gapNote(r)
        md += "## Budgets\n\n"
        let verdicts = r.budgetVerdicts
        if verdicts.isEmpty {
            md += "The scenario sets no budgets.\n\n"
        } else {
            md += "| budget | figure | limit | measured | verdict |\n|---|---|---|---|---|\n"
            for v in verdicts {
                let op = v.budget.comparison == .atMost ? "≤" : "≥"
                md += "| \(v.budget.name) | `\(v.budget.metric)` | \(op) \(Format.figure(v.budget.limit, metric: v.budget.metric)) | "
                    + "\(CheckReport.measured(v)) | \(v.pass ? "PASS" : "FAIL") |\n"
            }
            let failed = verdicts.filter { !$0.pass }.count
            let tally = failed == 0 ? (verdicts.count == 1 ? "The 1 budget holds." : "All \(verdicts.count) budgets hold.")
                : "\(failed) of \(Format.count(verdicts.count, "budget")) \(failed == 1 ? "fails" : "fail")."
            md += "\n**\(tally)**\n\n"
        }

        let chartFiles = ReportCharts.all(r)
        md += charts(chartFiles)

        md += "## What was simulated\n\n"
        md += "- \(s.population.players) players for \(Units.formatDuration(s.duration)) of simulated time "
            + "(after \(Units.formatDuration(s.warmup)) of unmeasured warm-up), seed \(s.seed), epoch \(s.epochText).\n"
        md += "- Store: \(s.positions) positions, shelf life \(Describe.distribution(s.shelfLife, .duration)), "
            + "item times on whole multiples of \(Units.formatDuration(s.scheduleResolution)).\n"
        md += "- Server: generation cron every \(Units.formatDuration(s.server.cronPeriod)) keeping "
            + "\(Units.formatDuration(s.server.horizon)) ahead; file published \(Units.formatDuration(s.server.publishLag)) + "
            + "\(Describe.distribution(s.server.publishDuration, .duration)) later; \(r.filesPublished) files published in the window, "
            + "\(Format.fixed(r.meanFileBytes, 0)) bytes per file on average as served (JSON → AES-CBC with PKCS#7 padding → Base64, plus headers); "
            + "timestamp resolution \(Units.formatDuration(s.server.timestampResolution)), "
            + "taken \(s.server.timestampAt.phrase); "
            + "service time \(Describe.distribution(s.server.serviceTime, .duration)).\n"
        if let leap = s.server.leapSecond { md += "- Server clock: \(leap.summary).\n" }
        md += "- Client design: measures with the \(Describe.summary(s.client.clock, s.client.clock.name)); "
            + "estimator `\(s.client.estimator.name)`; ticks: \(Describe.summary(s.client.tick, s.client.tick.name)); "
            + "refetch: \(Describe.summary(s.client.refetch, s.client.refetch.name)); "
            + "retry: \(Describe.summary(s.client.retry, s.client.retry.name)).\n"
        if let options = Describe.clientOptions(s.client) { md += "- Client options: \(options).\n" }
        let p = s.population
        md += "- Players: visits every \(Describe.distribution(p.visitGap, .duration)), \(Describe.distribution(p.sessionsPerVisit, .number)) Store sessions per visit "
            + "of \(Describe.distribution(p.viewing, .duration)), breaks of \(Describe.distribution(p.breakDuration, .duration)) "
            + "with the phone locked in \(Format.percent(p.lockShare, 0)) of them; deep sleep \(Describe.distribution(p.sleepDelay, .duration)) after the screen goes off.\n"
        if s.sampleStride > 1 {
            let sampled = (s.population.players + s.sampleStride - 1) / s.sampleStride
            md += "- Errors, bare and stale shares are sampled from a subset: every \(s.sampleStride)th player "
                + "(\(sampled) of \(s.population.players), `metrics.samplePlayers` \(s.samplePlayers ?? 0)); "
                + "load, transitions and every other figure count all players.\n"
        }
        if let release = p.release {
            md += "- Release at \(Units.formatDuration(release.at.ns)): \(r.releaseOnline) players online, "
                + "\(r.releaseJoined) more came online within \(Units.formatDuration(release.window)) (target \(Format.fixed(release.multiplier, 0))x).\n"
        }
        md += "\n| link | share | uplink | downlink | bandwidth | failure | time-out |\n|---|---|---|---|---|---|---|\n"
        for l in s.links {
            md += "| \(l.name) | \(Format.percent(l.share, 0)) | \(Describe.distribution(l.uplink, .duration)) | "
                + "\(Describe.distribution(l.downlink, .duration)) | \(Describe.distribution(l.bandwidth, .rate)) | "
                + "\(Format.percent(l.failure, 1)) | \(Units.formatDuration(l.timeout)) |\n"
        }
        // Only correlated links are named, so reports of independent draws read as before.
        for l in s.links where !l.hasIndependentDelays {
            md += "\nDelays on \(l.name) are correlated: \(l.correlation.summary).\n"
        }
        // Likewise lost segments, connection set-up and radio state, only where a link models them.
        for l in s.links where l.modelsConnection {
            let parts = [l.loss?.summary, l.connection?.summary, l.radio?.summary].compactMap { $0 }
            md += "\nOn \(l.name): \(parts.joined(separator: "; ")).\n"
        }

        md += "\n## Client error by clock kind\n\n"
        md += "The estimate error |server time the client believes − server time| of the same fetches, measured with each device clock: "
            + "each row is the design's estimator (`\(s.client.estimator.name)`) on each sync's exchange alone. "
            + "The design measures with `\(s.client.clock.name)`"
        // The reference uptime clocks are labelled by resolution: name the design's row when its label differs.
        let row = RunResult.clockRowLabel(s.client.clock)
        if row != s.client.clock.name && r.errorByClock.contains(where: { $0.0 == row }) { md += " (row `\(row)`)" }
        if s.client.estimator.memoryWords > 0 || s.client.driftCorrection != nil {
            // The shadow clocks keep one exchange each; the design also keeps history.
            md += ", and its own estimate also draws on what it keeps from earlier syncs ("
                + [s.client.estimator.memoryWords > 0 ? "the estimator's memory" : nil,
                   s.client.driftCorrection != nil ? "drift correction" : nil].compactMap { $0 }.joined(separator: ", ")
                + "): that estimate is the headline's clock estimate error, not its row here"
        }
        md += ".\n\n"
        md += errorTable(label: "clock", rows: r.errorByClock.map { ($0.0, $0.1) })

        md += errorAttribution(r)

        md += "\n## Error by link profile\n\n"
        md += "Displayed error: the time on screen (computed at the last UI tick) against server time.\n\n"
        md += errorTable(label: "link (displayed)", rows: zip(s.links, r.displayByLink).map { ($0.name, $1) })
        md += "\n" + errorTable(label: "link (estimate)", rows: zip(s.links, r.estimateByLink).map { ($0.name, $1) })

        md += "\n## After waking from deep sleep\n\n"
        md += "Displayed error by minutes since the device woke from deep sleep into the running app "
            + "(first row: no deep sleep since the app launched).\n\n"
        md += errorTable(label: "since wake", rows: r.displayByWake.indices.map {
            (CSVTables.wakeLabel($0, count: r.displayByWake.count), r.displayByWake[$0])
        })

        if s.reportBounds { md += BoundCoverageReport.markdown(r) }

        md += "\n## Load\n\n"
        let peakSecond = r.requestsPerSecond.indices.max { r.requestsPerSecond[$0] < r.requestsPerSecond[$1] }
        md += "- Peak \(fig(Figure.peakRequestsPerSecond.key, 0)) requests in one server second"
            + (peakSecond.map { " (second \($0) of the window)" } ?? "")
            + "; p99 \(fig(Figure.p99RequestsPerSecond.key, 0)), p99.9 \(fig(Figure.p999RequestsPerSecond.key, 0)), mean \(fig(Figure.meanRequestsPerSecond.key, 2)), "
            + "peak/mean \(fig(Figure.peakToMeanRatio.key, 1)).\n"
        if let kinds = r.loadByKind, let endpoint = r.scenario.client.probeTarget.endpoint {
            func kind(_ k: RequestKindLoad) -> String {
                "\(Format.grouped(Double(k.requests))) served (\(Format.bytes(Double(k.bytes)))), peak \(k.peak) in one second (second \(k.peakSecond)), "
                    + "p99 \(k.p99), mean \(Format.fixed(k.mean, 2)) a second"
            }
            md += "- Store fetches: \(kind(kinds.store)). Time endpoint probes, answered "
                + (endpoint.takesWorkers ? "by the worker pool" : "by the web server outside the worker pool") + ": \(kind(kinds.endpoint)).\n"
        }
        md += "- \(r.requestsSent) requests sent by clients, \(r.requestsLost) lost on the way, \(r.requestsFailed) failures noticed "
            + "(lost or past the time-out), \(r.responses) responses received; round trip p50 \(Format.ms(r.roundTrip.quantile(0.5))) ms, "
            + "p99 \(Format.ms(r.roundTrip.quantile(0.99))) ms.\n"
        md += "- \(r.visits) visits (app launches); on average \(Format.fixed(r.sampleInstants == 0 ? 0 : Double(r.viewingSum) / Double(r.sampleInstants), 1)) "
            + "players had the Store on screen, at most \(r.viewingPeak).\n"

        md += ServerSections.markdown(r)
        if r.scenario.reportsFetchSyncError { md += fetchSyncErrorSection(r) }
        md += capacityAndCost(r)
        md += DeviceEventsReport.markdown(r)
        md += ModelAuditReport.markdown(r)
        md += TelemetryReport.markdown(r)

        md += "\n## Transitions\n\n"
        let single = r.transitions.count - r.gapTransitions.count
        md += "\(r.transitions.count + r.transitionsUnviewed) item changes fell in the window: \(r.gapTransitions.count) shown by two or more players "
            + "(the cross-player figures are measured on these), \(single) by one, \(r.transitionsUnviewed) by none.\n\n"
        let worst = r.gapTransitions.sorted { $0.gap != $1.gap ? $0.gap > $1.gap : $0.time < $1.time }.prefix(10)
        if !worst.isEmpty {
            md += "The widest worst pairs:\n\n| time | position | viewers | earliest | latest | worst pair | in best 500 ms |\n|---|---|---|---|---|---|---|\n"
            for t in worst {
                md += "| \(Units.formatDuration(t.time)) | \(t.position) | \(t.viewers) | \(Format.human(t.earliest)) | \(Format.human(t.latest)) | "
                    + "\(Format.human(t.gap)) | \(Format.percent(Double(t.inBestWindow) / Double(t.viewers), 1)) |\n"
            }
        }

        md += "\n## Files\n\n"
        md += "`summary.json` (headline figures), `load.csv` (requests per server second), `transitions.csv` (every transition; "
            + "its figures are exact up to \(ShowBins.exactViewers) viewers and within 1 ms or 0.1% beyond), "
            + "`error_by_clock.csv`, `error_by_link.csv`, `error_by_wake.csv`, `error_attribution.csv`; each chart as SVG with the CSV of what it plots ("
            + chartFiles.map { "`\($0.svgFile)`" }.joined(separator: ", ") + ").\n\n"
        md += "Reproduce with `synclab run` on this scenario with `--seed \(s.seed)`: the same inputs give byte-identical files.\n"
        return md
    }

    /// What the 500 ms figures measure, and how they move with viewers in this run.
    static func gapNote(_ r: RunResult) -> String {
        var md = "Each item change is shown by each viewing player at one instant. The 500 ms requirement is judged per change by "
            + "the share of its viewers inside the best-placed 500 ms window and inside ±250 ms of the true instant, and by the share of "
            + "viewer pairs within 500 ms of each other: figures that settle as viewers grow. The worst pair (latest − earliest) is "
            + "the range of thousands of viewers and widens with every viewer added, so it is shown but not used for verdicts "
            + "([docs/metrics.md](../../docs/metrics.md)).\n\n"
        let rows = r.viewerScaling
        guard rows.count >= 2 else { return md }
        md += "| viewers per change (subset) | worst pair p50 | changes with worst pair ≤ 500 ms | in best 500 ms window | pairs within 500 ms |\n"
            + "|---|---|---|---|---|\n"
        for row in rows {
            func share(_ key: String) -> String { Format.percent(row.figures[key] ?? nil, 2) }
            md += "| \(Format.fixed(row.meanViewers, row.meanViewers < 100 ? 1 : 0)) (\(row.label)) | \(Format.humanMs(row.figures[Figure.transitionGapMsP50.key] ?? nil)) | "
                + "\(share(Figure.transitionsWithin500msShare.key)) | \(share(Figure.viewersInBest500msShare.key)) | \(share(Figure.viewerPairsWithin500msShare.key)) |\n"
        }
        return md + "\n"
    }

    /// The charts, embedded by relative links so they render on code hosts, each with its data.
    static func charts(_ charts: [ChartFile]) -> String {
        var md = "## Charts\n\n"
        for c in charts {
            md += "![\(c.title)](\(c.svgFile))\n\n\(c.caption) Data: [\(c.csvFile)](\(c.csvFile)).\n\n"
        }
        return md
    }

    /// Traffic per 30-day month and its price under the scenario's cost models.
    static func capacityAndCost(_ r: RunResult) -> String {
        var md = "\n## Capacity and cost\n\n"
        guard let requests = r.requestsPerMonth, let bytes = r.bytesPerMonth else {
            return md + "The window is empty, so nothing is extrapolated.\n"
        }
        md += "The \(Units.formatDuration(r.scenario.duration)) window extrapolated to a 30-day month, as if every stretch of "
            + "\(Units.formatDuration(r.scenario.duration)) were like it"
            + (r.scenario.population.release == nil ? "" : " (release spike included, so ordinary days would be lighter)") + ".\n\n"
        let perPlayerDay = requests / 30 / Double(max(1, r.scenario.population.players))
        md += "| figure | value |\n|---|---|\n"
        md += "| requests per month | \(Format.grouped(requests)) (\(Format.fixed(requests / 1e6, 2)) million; "
            + "\(Format.fixed(perPlayerDay, 1)) per player per day) |\n"
        md += "| bytes served per month | \(Format.fixed(bytes / 1e9, 2)) GB |\n"
        if let peak = r.peakSecond {
            md += "| peak second | \(peak.requests) requests (second \(peak.second) of the window) |\n"
        }
        if let endpoint = r.scenario.client.probeTarget.endpoint, !endpoint.takesWorkers {
            md += "| peak second taking a worker | \(r.peakWorkerRequests) requests (the time endpoint's are answered outside the pool; "
                + "a flat-rate server's capacity counts these) |\n"
        }
        md += "\n"
        let models = r.scenario.costModels
        guard !models.isEmpty else {
            return md + "The scenario names no price models (`costs`), so no monthly price is computed.\n"
        }
        md += "| price model | terms | per month | note |\n|---|---|---|---|\n"
        for (model, cost) in zip(models, r.costEstimates) {
            // The pricing words its own terms and what decided its bill.
            var terms = Describe.escapingDollars(model.pricing.summary)
            var note = cost.note
            if model.pricePerGB > 0 {
                terms += "; egress \(money(model.pricePerGB)) per GB over \(Format.compact(model.includedEgressBytes / 1e9, 1)) GB"
                if cost.egressCharge > 0 { note += "; egress \(money(cost.egressCharge))" }
            }
            md += "| \(model.name) | \(terms) | **\(money(cost.monthly))** | \(note) |\n"
        }
        return md
    }

    /// A price with two decimals; the scenario's prices are in one currency, written as $ like the
    /// seeds. Escaped: GitHub reads text between two dollar signs as math.
    static func money(_ x: Double) -> String { "\\$" + Format.fixed(x, 2) }

    /// Where the displayed error comes from: each source's bias and spread, and the dominant one.
    static func errorAttribution(_ r: RunResult) -> String {
        let a = r.errorAttribution
        var md = "\n## Where the error comes from\n\n"
        guard a.count > 0, let dominant = a.dominant else {
            if r.scenario.server.design != nil {
                return md + "Not attributed: this server design has no clock sync to split (its only sync is each position's countdown).\n"
            }
            return md + "No sample had a sync to attribute (no player viewing with data at a sample instant).\n"
        }
        md += "Each sample's displayed error split into its sources by counterfactuals (the change in error when one "
            + "imperfection is taken away, in table order); the parts add up to the displayed error exactly. "
            + "The mean is the bias every player shares; the standard deviation is what spreads players apart, "
            + "which is what widens the transition gap.\n\n"
        md += "| source | what it is | mean | sd | rms | largest \\|part\\| |\n|---|---|---|---|---|---|\n"
        func ns(_ x: Double?) -> String { Format.human(x.map { Int64($0.rounded()) }) }
        for source in ErrorSource.allCases {
            md += "| \(source == dominant ? "**\(source.key)**" : source.key) | \(source.meaning) | \(ns(a.mean(source))) | "
                + "\(ns(a.standardDeviation(source))) | \(ns(a.rms(source))) | \(Format.human(a.largest(source))) |\n"
        }
        let total = a.totalSum.value / Double(a.count)
        md += "| total | displayed error | \(ns(total)) | | | |\n\n"
        md += "Dominant source of the spread: **\(dominant.key)** (sd \(ns(a.standardDeviation(dominant)))), over \(a.count) samples. "
            + "Table: `error_attribution.csv`.\n\n"
        md += uiTickNote
        return md
    }

    /// What `uiTick` is, under the table: with a sd of seconds it reads as a second cause.
    /// Its part is what is on screen minus what the clock and the latest sync give now
    /// (`ErrorAttribution`): the time since the last tick, and the correction of a sync that
    /// landed after it.
    static let uiTickNote = "`uiTick` is the screen lagging the clock, not a cause of its own: the UI recomputes the time "
        + "only at its ticks, so this part is what is on screen minus what the clock and the latest sync give now. "
        + "It holds the time since the last tick and, until the first tick after a sync lands, the correction that sync "
        + "made: a sync that corrects a large error (minutes lost in deep sleep by a clock that stops there) shows "
        + "here at that size for up to one tick.\n"

    static func errorTable(label: String, rows: [(String, ErrorStats)]) -> String {
        var md = "| \(label) | samples | p50 | p99 | max | mean signed | ahead | within 500 ms |\n|---|---|---|---|---|---|---|---|\n"
        for (name, e) in rows {
            md += "| \(name) | \(e.count) | \(Format.human(e.quantile(0.5))) | \(Format.human(e.quantile(0.99))) | "
                + "\(Format.human(e.quantile(1))) | \(Format.human(e.meanSigned.map { Int64($0.rounded()) })) | "
                + "\(Format.percent(e.aheadShare, 1)) | \(Format.percent(e.shareWithin(500 * .millisecond), 1)) |\n"
        }
        return md
    }
}

/// Every file of a run's report folder, by name, in a fixed order.
public enum ReportBundle {
    public static func files(_ r: RunResult) -> [(name: String, contents: String)] {
        [("report.md", MarkdownReport.render(r)),
         ("summary.json", SummaryJSON.render(r)),
         ("load.csv", CSVTables.load(r)),
         ("transitions.csv", CSVTables.transitions(r)),
         ("error_by_clock.csv", CSVTables.errorByClock(r)),
         ("error_by_link.csv", CSVTables.errorByLink(r)),
         ("error_by_wake.csv", CSVTables.errorByWake(r)),
         ("error_attribution.csv", CSVTables.errorAttribution(r))]
            + ReportCharts.all(r).flatMap { [($0.svgFile, $0.svg), ($0.csvFile, $0.csv)] }
            + (RequestTraceCSV.render(r).map { [("requests.csv", $0)] } ?? [])
    }
}

extension MarkdownReport {
    /// Per-fetch sync error (only with `metrics.fetchSyncError`).
    static func fetchSyncErrorSection(_ r: RunResult) -> String {
        let e = r.fetchSyncError
        return "\n## Sync error per fetch\n\n"
            + "At each completed fetch, the fresh estimate minus true server time at the receive instant: "
            + "\(e.count) fetches, mean |e| \(Format.ms(r.fetchSyncErrorMeanAbs.map { Int64($0.rounded()) })) ms, "
            + "mean signed \(Format.ms(e.meanSigned.map { Int64($0.rounded()) })) ms, "
            + "|e| > 250 ms in \(Format.percent(r.fetchSyncErrorOver250msShare)), "
            + "p50 \(Format.ms(e.quantile(0.5))) ms, p99 \(Format.ms(e.quantile(0.99))) ms.\n"
    }
}
