import SyncLabKernel

/// A run held against an app's telemetry, link by link (docs/telemetry.md): the run's round trips
/// on each link profile (`RunResult.linkRoundTrips`) against the telemetry's draws of the link's
/// law (`TelemetrySampling.lawSample`), judged by `TelemetryAgreement`'s rule.
///
/// Links are matched by name, never guessed: a run link is compared with the telemetry label of
/// the same name. A run link without telemetry, and a label without a run link, are listed in
/// `unmatched`. One exception: telemetry that names no link (its only label is `all`) is compared
/// with the run's one link, or with the run's links pooled when it has several (the run's
/// histograms summed, as the players are spread over the links), and `pooled` says so.
public struct TelemetryComparison: Sendable, Equatable {
    /// One comparison: a telemetry label against one run link, or several pooled.
    public struct Row: Sendable, Equatable {
        /// The telemetry's label.
        public var label: String
        /// The run's links whose round trips were compared (one, or several when pooled).
        public var runLinks: [String]
        public var agreement: TelemetryAgreement.Link
    }

    /// The telemetry file, as named on the command line.
    public var file: String
    /// The gap that starts a new burst (`TelemetrySampling`).
    public var burstGap: Nanoseconds
    /// In the scenario's link order, then the telemetry's labels.
    public var rows: [Row]
    /// A sentence per link or label left out: "no telemetry for link 'edge'", "telemetry link
    /// 'wifi-5g' is not in the scenario".
    public var unmatched: [String]
    /// Whether unlabelled telemetry was compared with several run links pooled.
    public var pooled: Bool

    /// Every compared link agrees, and at least one was compared.
    public var agrees: Bool { !rows.isEmpty && rows.allSatisfy(\.agreement.agrees) }

    /// Compares `table` with the run's round trips per link (`histograms`, by `linkNames` index).
    public static func compare(_ table: TelemetryTable, burstGap: Nanoseconds = TelemetrySampling.defaultBurstGap,
                               linkNames: [String], histograms: [Histogram]) -> TelemetryComparison {
        precondition(linkNames.count == histograms.count)
        let samples = TelemetrySampling.lawSample(table, burstGap: burstGap)
        // Labels with draws of the law, by name (a label whose rows are all unanswered has none).
        var byLabel: [String: [Double]] = [:]
        for (k, label) in table.links.enumerated() where !samples[k].isEmpty { byLabel[label] = samples[k] }
        var out = TelemetryComparison(file: table.file, burstGap: burstGap, rows: [], unmatched: [], pooled: false)
        func row(_ label: String, _ names: [String], _ run: Histogram) -> Row {
            Row(label: label, runLinks: names,
                agreement: TelemetryAgreement.compare(link: names.count == 1 ? names[0] : label, telemetry: byLabel[label]!, run: run))
        }
        let unlabelled = TelemetryTable.unlabelled
        if byLabel.keys.sorted() == [unlabelled] && !linkNames.contains(unlabelled) {
            if linkNames.count == 1 {
                out.rows.append(row(unlabelled, linkNames, histograms[0]))
            } else if let first = histograms.first {
                var sum = first
                for h in histograms.dropFirst() { sum.merge(h) }
                out.rows.append(row(unlabelled, linkNames, sum))
                out.pooled = true
            }
            return out
        }
        for (name, run) in zip(linkNames, histograms) {
            if byLabel[name] != nil {
                out.rows.append(row(name, [name], run))
            } else {
                out.unmatched.append("no telemetry for link '\(name)'")
            }
        }
        for label in byLabel.keys.sorted() where !linkNames.contains(label) {
            out.unmatched.append("telemetry link '\(label)' is not in the scenario")
        }
        return out
    }
}

extension RunResult {
    /// This run with `telemetry` set: its round trips per link held against the table's. The run
    /// must have recorded them (`Simulation.run`'s `recordsLinkRoundTrips`).
    public func holding(against table: TelemetryTable, burstGap: Nanoseconds = TelemetrySampling.defaultBurstGap) -> RunResult {
        precondition(linkRoundTrips != nil, "run with recordsLinkRoundTrips to hold a run against telemetry")
        var held = self
        held.telemetry = TelemetryComparison.compare(table, burstGap: burstGap, linkNames: scenario.links.map(\.name),
                                                     histograms: linkRoundTrips ?? [])
        return held
    }
}
