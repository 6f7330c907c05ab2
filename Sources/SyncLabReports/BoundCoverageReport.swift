import SyncLab
import SyncLabKernel

/// The honest-uncertainty section: how often the truth lay inside the ± bound the client's
/// estimator claims. Shown when the scenario asks for it (`metrics.bounds: true`), so reports
/// of scenarios that do not ask stay as they were.
enum BoundCoverageReport {
    /// The `boundCoverage` member of summary.json (no leading indentation, no trailing comma).
    static func json(_ r: RunResult) -> String {
        let f = r.figures
        let num = { (figure: Figure) in SummaryJSON.value(of: figure, in: f) }
        // Names from the figures' paths in summary.json (`Figure.json`); a link's name is one
        // step whatever it holds.
        let byLink = SummaryJSON.path(Figure.boundCoverageShareByLink)
        let links = r.scenario.links.map { "\(Format.jsonString($0.name)): \(num(Figure.boundCoverageShareByLink.filled($0.name)))" }
        // Only when the estimator claimed no bound at some samples, so reports of those that
        // always claim one keep their shape.
        let unbounded = r.bounds.unbounded == 0 ? "" : "\"unboundedSamples\": \(r.bounds.unbounded), "
        return Format.jsonString(byLink[0]) + ": { " + SummaryJSON.members([Figure.boundCoverageShare], depth: 1, num)[0]
            + ", \"samples\": \(r.bounds.samples), " + unbounded
            + SummaryJSON.members([Figure.boundMsP50, Figure.boundMsP99], depth: 1, num)[0] + ", "
            + Format.jsonString(byLink[1]) + ": { \(links.joined(separator: ", ")) } }"
    }

    static func markdown(_ r: RunResult) -> String {
        var md = "\n## Honest uncertainty\n\n"
        let b = r.bounds
        if b.unbounded > 0 && b.samples == 0 {
            return md + "The estimator `\(r.scenario.client.estimator.name)` claims no ± bound around its estimate of server time, "
                + "so there is nothing to hold the truth against: its \(b.unbounded) samples are reported as unbounded, "
                + "not as inside a bound, and a budget on `boundCoverageShare` or `boundMs` fails.\n"
        }
        md += "The estimator `\(r.scenario.client.estimator.name)` claims a ± bound around its estimate of server time "
            + "(from the round trip, the server's timestamp resolution, the clock's resolution and "
            + "\(Format.fixed(r.scenario.client.maxDriftPPM, 0)) ppm of drift times the sync's age). "
            + "At each error sample: is the truth inside it?\n\n"
        guard r.bounds.samples > 0 else { return md + "No player had a sync at a sample instant, so nothing is measured.\n" }
        md += "| link | samples | truth inside the bound | outside |\n|---|---|---|---|\n"
        md += "| all | \(r.bounds.samples) | \(Format.percent(r.bounds.share, 3)) | \(r.bounds.samples - r.bounds.inside) |\n"
        for (i, link) in r.scenario.links.enumerated() {
            md += "| \(link.name) | \(r.bounds.samplesByLink[i]) | \(Format.percent(r.bounds.share(link: i), 3)) | "
                + "\(r.bounds.samplesByLink[i] - r.bounds.insideByLink[i]) |\n"
        }
        md += "\nThe bound itself: p50 \(Format.human(r.bounds.width.quantile(0.5))), p99 \(Format.human(r.bounds.width.quantile(0.99))).\n"
        if b.unbounded > 0 {
            md += "\nAt \(b.unbounded) more samples (\(Format.percent(b.unboundedShare, 3)) of all) the estimate claimed no bound: "
                + "they are left out above, and a budget on these figures fails.\n"
        }
        return md
    }
}
