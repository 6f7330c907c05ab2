import SyncLab
import SyncLabKernel

/// `synclab compare`: scenarios run on the same seed, side by side. Pure functions of the results.
public enum CompareReport {
    /// Column labels: the scenario names, made distinct ("a", "a (2)") when a name repeats.
    public static func names(_ results: [RunResult]) -> [String] {
        var seen: [String: Int] = [:]
        return results.map { r in
            let n = (seen[r.scenario.name] ?? 0) + 1
            seen[r.scenario.name] = n
            return n == 1 ? r.scenario.name : "\(r.scenario.name) (\(n))"
        }
    }

    /// One row per headline figure: each scenario's value, then each later scenario minus the first.
    public static func csv(_ results: [RunResult]) -> String {
        let names = names(results)
        let figures = results.map(\.figures)
        var out = "figure," + names.map(Format.csv).joined(separator: ",")
        for n in names.dropFirst() { out += "," + Format.csv("\(n) - \(names[0])") }
        out += "\n"
        for (key, _) in Headline.keys(for: results.map(\.scenario)) {
            let values = figures.map { $0[key] ?? nil }
            out += key + "," + values.map(Headline.cell).joined(separator: ",")
            for v in values.dropFirst() { out += "," + Headline.cell(difference(v, values[0])) }
            out += "\n"
        }
        return out
    }

    /// b − a, or nil when either was not measured.
    public static func difference(_ b: Double?, _ a: Double?) -> Double? {
        guard let a, let b, a.isFinite, b.isFinite else { return nil }
        return b - a
    }

    public static func markdown(_ results: [RunResult], files: [String], charts: [ChartFile]) -> String {
        let names = names(results)
        let figures = results.map(\.figures)
        let seed = results.first?.scenario.seed ?? 0
        var md = "# Comparison: \(names.joined(separator: " vs "))\n\n"
        md += "Every scenario ran with seed \(seed): common random numbers. Each player's draws come from its own streams, "
            + "keyed by (seed, purpose, player), so player k of one design meets the same links, clocks, sessions and sleeps "
            + "as player k of the other; a difference below is the design's, not the dice's. (A scenario with more players "
            + "adds players without changing the others' draws; a changed distribution changes what its draws are turned into.)\n\n"
        md += "| | " + names.joined(separator: " | ") + " |\n|---|" + String(repeating: "---|", count: names.count) + "\n"
        md += "| file | " + files.map { "`\($0)`" }.joined(separator: " | ") + " |\n"
        md += "| players | " + results.map { "\($0.scenario.population.players)" }.joined(separator: " | ") + " |\n"
        md += "| simulated | " + results.map { Units.formatDuration($0.scenario.duration) }.joined(separator: " | ") + " |\n"
        md += "| clock | " + results.map { "`\($0.scenario.client.clock.name)`" }.joined(separator: " | ") + " |\n"
        md += "| estimator | " + results.map { "`\($0.scenario.client.estimator.name)`" }.joined(separator: " | ") + " |\n"
        md += "| budgets holding | " + results.map { r in
            let v = r.budgetVerdicts
            return v.isEmpty ? "none set" : "\(v.filter(\.pass).count) of \(v.count)"
        }.joined(separator: " | ") + " |\n"

        md += "\n## Headline figures\n\n"
        md += "| figure | " + names.joined(separator: " | ")
        for n in names.dropFirst() { md += " | \(n) − \(names[0])" }
        md += " |\n|---|" + String(repeating: "---:|", count: 2 * names.count - 1) + "\n"
        for (key, label) in Headline.keys(for: results.map(\.scenario)) {
            // For people, in the figure's unit; compare.csv keeps the machine units its header names.
            let values = figures.map { $0[key] ?? nil }
            md += "| \(Headline.unitless(label)) | " + values.map { $0.map { Format.figure($0, metric: key) } ?? "n/a" }.joined(separator: " | ")
            for v in values.dropFirst() { md += " | " + Headline.signedFigure(difference(v, values[0]), metric: key) }
            md += " |\n"
        }
        md += "\n## Charts\n\n"
        for c in charts {
            md += "![\(c.title)](\(c.svgFile))\n\n\(c.caption) Data: [\(c.csvFile)](\(c.csvFile)).\n\n"
        }
        md += "All figures: [compare.csv](compare.csv). Reproduce with `synclab compare \(files.joined(separator: " ")) --seed \(seed)`.\n"
        return md
    }

    /// Every file of a comparison folder, by name, in a fixed order.
    public static func files(_ results: [RunResult], files paths: [String]) -> [(name: String, contents: String)] {
        let charts = CompareCharts.all(results, names: names(results))
        return [("compare.md", markdown(results, files: paths, charts: charts)), ("compare.csv", csv(results))]
            + charts.flatMap { [($0.svgFile, $0.svg), ($0.csvFile, $0.csv)] }
    }
}
