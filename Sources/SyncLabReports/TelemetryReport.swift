import SyncLab
import SyncLabKernel

/// A run held against telemetry (`RunResult.telemetry`, `run --telemetry`) in report.md
/// ("Telemetry") and in summary.json (`telemetry`): per link the two laws' quantiles, the KS
/// distance against what it is held to, and the verdict; the links left unmatched. Nothing at
/// all without telemetry.
public enum TelemetryReport {
    /// The rule, in one sentence (`TelemetryAgreement`).
    static let rule = "A link agrees when the KS distance between the telemetry's and the run's round trips is at most its "
        + "tolerance (the larger of \(Format.compact(TelemetryAgreement.distanceTolerance)) and the test's 1% critical value), "
        + "the run's p50 and p90 are within ×\(Format.compact(TelemetryAgreement.bodyTolerance)) and its p99 within "
        + "×\(Format.compact(TelemetryAgreement.tailTolerance)) of the telemetry's 99% confidence interval; p99.9 is shown, not judged."

    static func ms(_ ns: Double, _ decimals: Int) -> String { ns.isFinite ? Format.fixed(ns / 1e6, decimals) : "null" }

    /// Which parts of the rule a link fails: "distance", "p50", "p90", "p99".
    static func failures(_ a: TelemetryAgreement.Link) -> [String] {
        (a.distance <= a.tolerance ? [] : ["distance"])
            + zip(["p50", "p90", "p99"], a.quantilesAgree).filter { !$0.1 }.map(\.0)
    }

    static func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }

    public static func markdown(_ r: RunResult) -> String {
        guard let t = r.telemetry else { return "" }
        var md = "\n## Telemetry\n\n"
        md += "The run's round trips per link held against `\(cell(t.file))`: "
            + (t.agrees ? "**every link compared agrees.**" : t.rows.isEmpty ? "**no link could be compared.**" : "**a link disagrees.**") + " "
        md += "The telemetry's round trips are its answered rows that start a burst (a device's first row after a gap of "
            + "\(Units.formatDuration(t.burstGap)) or more); the run's are each answered request's uplink from upload complete to the "
            + "server plus the downlink delay, without the server's time or the bytes' transfer. \(rule)\n\n"
        if t.pooled, let row = t.rows.first {
            md += "The telemetry names no link: its rows (`\(TelemetryTable.unlabelled)`) are compared with the run's links "
                + row.runLinks.map { "`\(cell($0))`" }.joined(separator: ", ") + " pooled.\n\n"
        }
        if !t.rows.isEmpty {
            md += "| link | telemetry rows | run round trips | telemetry p50 / p90 / p99 / p99.9 (ms) | run p50 / p90 / p99 / p99.9 (ms) "
                + "| KS distance | critical value | tolerance | agrees |\n|---|---|---|---|---|---|---|---|---|\n"
            for row in t.rows {
                let a = row.agreement
                let failed = failures(a)
                md += "| \(cell(t.pooled ? row.label : a.link)) | \(Format.grouped(Double(a.telemetryCount))) | "
                    + "\(Format.grouped(Double(a.modelCount ?? 0))) | "
                    + a.telemetryQuantiles.map { ms($0, 1) }.joined(separator: " / ") + " | "
                    + a.modelQuantiles.map { ms($0, 1) }.joined(separator: " / ") + " | "
                    + "\(Format.fixed(a.distance, 4)) | \(Format.fixed(a.criticalValue, 4)) | \(Format.fixed(a.tolerance, 4)) | "
                    + (a.agrees ? "yes" : "**no** (\(failed.joined(separator: ", ")))") + " |\n"
            }
        }
        if !t.unmatched.isEmpty {
            md += (t.rows.isEmpty ? "" : "\n") + "Not compared:\n\n" + t.unmatched.map { "- \(cell($0))\n" }.joined()
        }
        return md
    }

    public static func json(_ r: RunResult) -> String? {
        guard let t = r.telemetry else { return nil }
        func quantiles(_ q: [Double]) -> String {
            "{ " + zip(["p50", "p90", "p99", "p999"], q).map { "\"\($0.0)\": \(ms($0.1, 3))" }.joined(separator: ", ") + " }"
        }
        let links = t.rows.map { row in
            let a = row.agreement
            return "    { \"link\": \(Format.jsonString(t.pooled ? row.label : a.link)), "
                + "\"runLinks\": [" + row.runLinks.map(Format.jsonString).joined(separator: ", ") + "], "
                + "\"telemetryRows\": \(a.telemetryCount), \"runRoundTrips\": \(a.modelCount ?? 0), "
                + "\"telemetryMs\": \(quantiles(a.telemetryQuantiles)), \"runMs\": \(quantiles(a.modelQuantiles)), "
                + "\"distance\": \(Format.fixed(a.distance, 6)), \"criticalValue\": \(Format.fixed(a.criticalValue, 6)), "
                + "\"tolerance\": \(Format.fixed(a.tolerance, 6)), \"agrees\": \(a.agrees) }"
        }
        let unmatched = t.unmatched.map { "    \(Format.jsonString($0))" }
        return "  \"telemetry\": { \"file\": \(Format.jsonString(t.file)), \"agrees\": \(t.agrees), "
            + "\"burstGapMs\": \(Format.fixed(Double(t.burstGap) / 1e6, 3)), \"pooled\": \(t.pooled), "
            + "\"links\": [" + (links.isEmpty ? "]" : "\n" + links.joined(separator: ",\n") + "\n  ]")
            + ", \"unmatched\": [" + (unmatched.isEmpty ? "]" : "\n" + unmatched.joined(separator: ",\n") + "\n  ]") + " }"
    }
}
