import SyncLab

/// The model audit (`RunResult.modelAudit`) in report.md ("What the models did") and in
/// summary.json (`modelAudit`): per row the model, the figure, what its parameters say, what the
/// run counted and the tolerance; a row that does not hold says so.
public enum ModelAuditReport {
    /// A row's value in its figure's unit for people.
    static func value(_ v: Double, figure: String) -> String {
        guard v.isFinite else { return "n/a" }
        let unit = Figure.audited(figure)?.unit ?? .ratio
        switch unit {
        case .milliseconds: return Format.fixed(v, v < 10 ? 2 : v < 1000 ? 1 : 0) + " ms"
        case .share: return Format.fixed(v * 100, 3) + "%"
        default: return Format.fixed(v, 4)
        }
    }

    public static func markdown(_ r: RunResult) -> String {
        let rows = r.modelAudit
        guard !rows.isEmpty else { return "" }
        let failing = rows.filter { !$0.holds }
        var md = "\n## What the models did\n\n"
        md += "Each active model's figures as its parameters give them against what this run counted, with a tolerance from the "
            + "sample size ([docs/metrics.md](../../docs/metrics.md#what-the-models-did)). "
        md += failing.isEmpty ? "Every row holds." : "**\(Format.count(failing.count, "row")) of \(rows.count) do not hold: the model did not do what its parameters say.**"
        md += sample(r) + "\n\n"
        md += "| model | figure | expected | realised | tolerance | samples | holds |\n|---|---|---|---|---|---|---|\n"
        for row in rows {
            md += "| \(row.model) | `\(row.figure)` | \(value(row.expected, figure: row.figure)) | \(value(row.realised, figure: row.figure)) | "
                + "± \(value(row.tolerance, figure: row.figure)) | \(Format.grouped(Double(row.samples))) | "
                + (row.holds ? "yes" : "**no: does not hold**") + " |\n"
        }
        return md
    }

    /// Whom the per-player counts come from, when not every player.
    static func sample(_ r: RunResult) -> String {
        let players = r.scenario.population.players
        guard r.auditedPlayers < players else { return "" }
        return " The link, standby, radio and keep-alive rows count \(Format.grouped(Double(r.auditedPlayers))) of the "
            + "\(Format.grouped(Double(players))) players (one in \(r.auditStride), from a start the seed chose): their samples and "
            + "tolerances are that sample's."
    }

    public static func json(_ r: RunResult) -> String {
        func number(_ v: Double, _ figure: String) -> String {
            guard v.isFinite else { return "null" }
            let unit = Figure.audited(figure)?.unit
            return Format.fixed(v, unit == .milliseconds ? 3 : 6)
        }
        let rows = r.modelAudit.map { row in
            "    { \"model\": \(Format.jsonString(row.model)), \"figure\": \(Format.jsonString(row.figure)), "
                + "\"expected\": \(number(row.expected, row.figure)), \"realised\": \(number(row.realised, row.figure)), "
                + "\"tolerance\": \(number(row.tolerance, row.figure)), \"samples\": \(row.samples), \"holds\": \(row.holds) }"
        }
        let allHold = r.modelAudit.isEmpty ? "null" : "\(r.modelAudit.allSatisfy(\.holds))"
        return "  \"modelAudit\": { \"allHold\": \(allHold), \"auditedPlayers\": \(r.auditedPlayers), \"rows\": [" + (rows.isEmpty ? "] }" : "\n" + rows.joined(separator: ",\n") + "\n  ] }")
    }
}
