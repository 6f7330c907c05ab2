// Overlaid charts for `synclab compare`: one series per scenario in one chart, with a legend,
// so two designs' load, transition gaps and error over time read against each other.

import SyncLab
import SyncLabKernel

public enum CompareCharts {
    /// Every overlaid chart, in report order. `names` label the scenarios (distinct).
    public static func all(_ results: [RunResult], names: [String]) -> [ChartFile] {
        [requestsPerSecond(results, names: names), transitionGaps(results, names: names), errorOverTime(results, names: names)]
    }

    /// Requests per server second of each scenario, the max per bucket (a one-second spike is
    /// never averaged away), buckets as wide as the longest window needs.
    public static func requestsPerSecond(_ results: [RunResult], names: [String]) -> ChartFile {
        let seconds = results.map(\.requestsPerSecond.count).max() ?? 0
        let bucket = max(1, (seconds + ReportCharts.columns - 1) / ReportCharts.columns)
        let time = TimeUnit.forWindow(seconds: Double(seconds))
        var csv = "scenario,start_s,seconds,max_requests,mean_requests\n"
        var series: [LineSeries] = []
        var peak: UInt32 = 0
        for (k, r) in results.enumerated() {
            var run: [ChartPoint] = []
            var start = 0
            let counts = r.requestsPerSecond
            while start < counts.count {
                let end = min(counts.count, start + bucket)
                let top = counts[start..<end].max() ?? 0
                let sum = counts[start..<end].reduce(UInt64(0)) { $0 + UInt64($1) }
                peak = max(peak, top)
                run.append(ChartPoint((Double(start) + Double(end - start) / 2) / time.seconds, Double(top)))
                csv += "\(Format.csv(names[k])),\(start),\(end - start),\(top),\(Format.fixed(Double(sum) / Double(end - start), 3))\n"
                start = end
            }
            series.append(LineSeries(name: names[k], color: ChartPalette.color(k), width: k == 0 ? 2 : 1.5, runs: [run]))
        }
        let chart = LineChart(
            title: bucket == 1 ? "Requests per server second" : "Requests per server second (max per \(bucket) s)",
            x: time.axis(seconds: Double(seconds)),
            y: ChartAxis.linear(label: "requests per second", lower: 0, upper: max(1, Double(peak)), target: 5),
            series: seconds == 0 ? [] : series,
            noDataMessage: "no data: the windows have no server seconds")
        return ChartFile(name: "compare_requests_per_second", title: chart.title,
                         caption: "Requests reaching the server per server second, one line per scenario.",
                         svg: chart.svg(), csv: csv)
    }

    /// The cumulative distribution of each scenario's transition gap, log axis, 500 ms marked.
    public static func transitionGaps(_ results: [RunResult], names: [String]) -> ChartFile {
        var csv = "scenario,gap_ms,share_at_or_below\n"
        let gaps = results.map { $0.gapTransitions.map { Double($0.gap) / 1e6 }.sorted() }
        let x = ChartAxis.logTimeMs(label: "worst pair: latest − earliest show instant (log scale)", values: gaps.flatMap { $0 } + [500])
        var series: [LineSeries] = []
        var extras: [LegendEntry] = []
        for (k, ms) in gaps.enumerated() {
            let n = Double(ms.count)
            var run: [ChartPoint] = []
            for (i, g) in ms.enumerated() {
                run.append(ChartPoint(g, Double(i) / n))
                run.append(ChartPoint(g, Double(i + 1) / n))
                csv += "\(Format.csv(names[k])),\(Format.fixed(g, 3)),\(Format.fixed(Double(i + 1) / n, 6))\n"
            }
            if let last = ms.last, last < x.upper { run.append(ChartPoint(x.upper, 1)) }
            series.append(LineSeries(name: names[k], color: ChartPalette.color(k), width: 2, runs: [run]))
            if !ms.isEmpty {
                if extras.isEmpty { extras.append(LegendEntry("within 500 ms:", swatch: .none)) }
                extras.append(LegendEntry(Format.percent(Double(ms.filter { $0 <= 500 }.count) / n, 1), color: ChartPalette.color(k), swatch: .box))
            }
        }
        let y = ChartAxis(label: "share of transitions with a smaller gap", lower: 0, upper: 1,
                          ticks: [0, 0.25, 0.5, 0.75, 1].map { ChartTick($0, Format.fixed($0 * 100, 0) + "%") })
        let chart = LineChart(
            title: "Transition gap across players (cumulative)", x: x, y: y,
            series: gaps.allSatisfy(\.isEmpty) ? [] : series,
            references: [ReferenceLine(.vertical, at: 500, label: "500 ms")], legendExtras: extras,
            noDataMessage: "no data: no item change was shown by two or more players")
        return ChartFile(name: "compare_transition_gaps", title: chart.title,
                         caption: "For each gap, the share of item changes whose players all showed it within that gap, one curve per scenario; further left is better.",
                         svg: chart.svg(), csv: csv)
    }

    /// Displayed error over time per scenario: p50 solid, p99 dashed, log axis.
    public static func errorOverTime(_ results: [RunResult], names: [String]) -> ChartFile {
        let duration = results.map(\.scenario.duration).max() ?? 0
        let time = TimeUnit.forWindow(seconds: Double(duration) / 1e9)
        var csv = "scenario,start_s,samples,displayed_p50_ms,displayed_p99_ms\n"
        var series: [LineSeries] = []
        var values: [Double] = []
        for (k, r) in results.enumerated() {
            var runs: [[[ChartPoint]]] = [[[]], [[]]]
            for b in r.timeline {
                let end = min(b.start + r.timelineStep, max(r.scenario.duration, b.start + 1))
                let x = (Double(b.start) + Double(end - b.start) / 2) / 1e9 / time.seconds
                var row = "\(Format.csv(names[k])),\(Format.fixed(Double(b.start) / 1e9, 0)),\(b.display.count)"
                for (j, q) in [0.5, 0.99].enumerated() {
                    let v = b.display.quantile(q)
                    row += "," + Format.ms(v)
                    if let v {
                        runs[j][runs[j].count - 1].append(ChartPoint(x, Double(v) / 1e6))
                        values.append(Double(v) / 1e6)
                    } else if !(runs[j].last?.isEmpty ?? true) {
                        runs[j].append([])
                    }
                }
                csv += row + "\n"
            }
            series.append(LineSeries(name: names[k], color: ChartPalette.color(k), width: 1.8, runs: runs[0]))
            series.append(LineSeries(name: "\(names[k]) p99", color: ChartPalette.color(k), dashed: true, width: 1.5,
                                     runs: runs[1], inLegend: false))
        }
        let chart = LineChart(
            title: "Displayed error over time (p50 solid, p99 dashed)",
            x: time.axis(seconds: Double(duration) / 1e9),
            y: ChartAxis.logTimeMs(label: "|time on screen − server time| (log scale)", values: values + [500]),
            series: values.isEmpty ? [] : series,
            references: [ReferenceLine(.horizontal, at: 500, label: "500 ms")],
            legendExtras: [LegendEntry("p50", color: "#777777"), LegendEntry("p99", color: "#777777", swatch: .dashedLine)],
            noDataMessage: "no data: no player had the Store on screen at a sample instant")
        return ChartFile(name: "compare_error_over_time", title: chart.title,
                         caption: "Error of the time on screen per bucket of the window, one color per scenario.",
                         svg: chart.svg(), csv: csv)
    }
}
