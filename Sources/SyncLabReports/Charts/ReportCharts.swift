// The four charts of a run's report, each an SVG with the CSV of exactly what it plots.
//
// They answer the report's questions at a glance: does the release spike show in the load, how
// far is the transition gap from the 500 ms requirement, how does each device clock's error
// move over time (the suspending clock's standby sawtooth of minutes next to the uptime
// clock's one-second steps, hence a log scale), and which link profile is worst.

import SyncLab
import SyncLabKernel

/// One chart of a report folder: `<name>.svg` and `<name>.csv`.
public struct ChartFile: Sendable {
    /// File name without extension, e.g. "requests_per_second".
    public var name: String
    /// The chart's title (also its alt text in the Markdown report).
    public var title: String
    /// One sentence on how to read it, for the report.
    public var caption: String
    public var svg: String
    public var csv: String
    public var svgFile: String { name + ".svg" }
    public var csvFile: String { name + ".csv" }
}

public enum ReportCharts {
    /// Every chart of a run, in report order.
    public static func all(_ r: RunResult) -> [ChartFile] {
        [requestsPerSecond(r.requestsPerSecond,
                           release: r.scenario.population.release.map { (at: $0.at.ns, multiplier: $0.multiplier) }),
         transitionGaps(r.gapTransitions.map(\.gap)),
         gapVsViewers(r.viewerScaling),
         errorOverTime(step: r.timelineStep, buckets: r.timeline.map { (start: $0.start, display: $0.display, byClock: $0.estimateByClock) },
                       clocks: r.errorByClock.map(\.0), duration: r.scenario.duration),
         errorByLink(links: r.scenario.links.map(\.name), display: r.displayByLink)]
    }

    /// Plot columns available to a time series: one bucket per pixel of the plot's width.
    public static let columns = Int(SVGCanvas.plot.width)

    // MARK: Requests per second

    /// Requests per server second over the window. Up to one value per pixel column it draws
    /// every second; a longer run is bucketed and draws each bucket's max and mean, so a
    /// one-second spike is never averaged away.
    public static func requestsPerSecond(_ counts: [UInt32], release: (at: Int64, multiplier: Double)?,
                                         columns: Int = columns) -> ChartFile {
        let seconds = counts.count
        let bucket = max(1, (seconds + max(1, columns) - 1) / max(1, columns))
        var csv = "start_s,seconds,max_requests,mean_requests\n"
        var maxRun: [ChartPoint] = []
        var meanRun: [ChartPoint] = []
        let time = TimeUnit.forWindow(seconds: Double(seconds))
        var peak: UInt32 = 0
        var start = 0
        while start < seconds {
            let end = min(seconds, start + bucket)
            var top: UInt32 = 0
            var sum: UInt64 = 0
            for n in counts[start..<end] {
                top = max(top, n)
                sum += UInt64(n)
            }
            let mean = Double(sum) / Double(end - start)
            peak = max(peak, top)
            let x = (Double(start) + Double(end - start) / 2) / time.seconds
            maxRun.append(ChartPoint(x, Double(top)))
            meanRun.append(ChartPoint(x, mean))
            csv += "\(start),\(end - start),\(top),\(Format.fixed(mean, 3))\n"
            start = end
        }
        let per = "per \(bucket) s"
        let series: [LineSeries] = bucket == 1
            ? [LineSeries(name: "requests per second", color: ChartPalette.color(0), runs: [meanRun])]
            : [LineSeries(name: "max \(per)", color: ChartPalette.color(4), width: 1.2, runs: [maxRun]),
               LineSeries(name: "mean \(per)", color: ChartPalette.color(0), width: 1.5, runs: [meanRun])]
        var references: [ReferenceLine] = []
        if let release, seconds > 0 {
            references.append(ReferenceLine(.vertical, at: Double(release.at) / 1e9 / time.seconds,
                                            label: "release (\(Format.compact(release.multiplier, 1))x)"))
        }
        let chart = LineChart(
            title: bucket == 1 ? "Requests per server second" : "Requests per server second (max and mean \(per))",
            x: time.axis(seconds: Double(seconds)),
            y: ChartAxis.linear(label: "requests per second", lower: 0, upper: max(1, Double(peak)), target: 5),
            series: seconds == 0 ? [] : series, references: references,
            noDataMessage: "no data: the window has no server seconds")
        return ChartFile(name: "requests_per_second", title: chart.title,
                         caption: "Requests reaching the server in each server second of the measured window; the release spike shows as the tall peak at the marked line.",
                         svg: chart.svg(), csv: csv)
    }

    // MARK: Transition gap

    /// Cumulative distribution of the transition gap (latest minus earliest show instant of one
    /// item change), on a log axis, with the 500 ms requirement marked.
    public static func transitionGaps(_ gaps: [Int64]) -> ChartFile {
        let ms = gaps.sorted().map { Double($0) / 1e6 }
        let n = Double(ms.count)
        var csv = "gap_ms,share_at_or_below\n"
        var run: [ChartPoint] = []
        for (i, g) in ms.enumerated() {
            // A staircase: the share steps up at each gap.
            run.append(ChartPoint(g, Double(i) / n))
            run.append(ChartPoint(g, Double(i + 1) / n))
            csv += "\(Format.fixed(g, 3)),\(Format.fixed(Double(i + 1) / n, 6))\n"
        }
        let within = ms.filter { $0 <= 500 }.count
        let x = ChartAxis.logTimeMs(label: "worst pair: latest − earliest show instant (log scale)", values: ms + [500])
        if let last = ms.last, last < x.upper { run.append(ChartPoint(x.upper, 1)) }
        let y = ChartAxis(label: "share of transitions with a smaller gap", lower: 0, upper: 1,
                          ticks: [0, 0.25, 0.5, 0.75, 1].map { ChartTick($0, Format.fixed($0 * 100, 0) + "%") })
        let chart = LineChart(
            title: "Worst pair per item change (cumulative)", x: x, y: y,
            series: ms.isEmpty ? [] : [LineSeries(name: "\(ms.count) transitions", color: ChartPalette.color(0), width: 2, runs: [run])],
            references: [ReferenceLine(.vertical, at: 500, label: "500 ms")],
            legendExtras: ms.isEmpty ? [] : [LegendEntry("\(Format.percent(Double(within) / n, 1)) within 500 ms", swatch: .none)],
            noDataMessage: "no data: no item change was shown by two or more players")
        return ChartFile(name: "transition_gaps", title: chart.title,
                         caption: "For each gap on the x axis, the share of item changes whose earliest and latest viewers showed it within that gap. This worst pair widens as viewers grow (see the next chart); verdicts use the window shares instead.",
                         svg: chart.svg(), csv: csv)
    }

    // MARK: Error over time

    /// Error over time, per timeline bucket: p50 (solid) and p99 (dashed) of the displayed time
    /// and of the estimate with each reference clock (`byClock`, in `clocks` order), on a log axis.
    /// `start` is the bucket's start in ns since the window opened; buckets are `step` long.
    public static func errorOverTime(step: Int64, buckets: [(start: Int64, display: ErrorStats, byClock: [ErrorStats])],
                                     clocks: [String], duration: Int64) -> ChartFile {
        let time = TimeUnit.forWindow(seconds: Double(duration) / 1e9)
        var header = "start_s,samples,displayed_p50_ms,displayed_p99_ms"
        for c in clocks { header += "," + Format.csv("\(c)_p50_ms") + "," + Format.csv("\(c)_p99_ms") }
        var csv = header + "\n"
        // Series 0: displayed; 1...: the clocks, in `clocks` order.
        let names = ["displayed"] + clocks
        var runs = [[[ChartPoint]]](repeating: [[]], count: names.count * 2)
        var values: [Double] = []
        for b in buckets {
            let stats = [b.display] + (0..<clocks.count).map { $0 < b.byClock.count ? b.byClock[$0] : ErrorStats(subBits: 5) }
            let end = min(b.start + step, max(duration, b.start + 1))
            let x = (Double(b.start) + Double(end - b.start) / 2) / 1e9 / time.seconds
            var row = "\(Format.fixed(Double(b.start) / 1e9, 0)),\(b.display.count)"
            for (k, e) in stats.enumerated() {
                for (j, q) in [0.5, 0.99].enumerated() {
                    let v = e.quantile(q)
                    row += "," + Format.ms(v)
                    let index = k * 2 + j
                    if let v {
                        let y = Double(v) / 1e6
                        runs[index][runs[index].count - 1].append(ChartPoint(x, y))
                        values.append(y)
                    } else if !(runs[index].last?.isEmpty ?? true) {
                        runs[index].append([])   // no samples here: break the line
                    }
                }
            }
            csv += row + "\n"
        }
        // Small multiples: a panel per clock (and one for the time on screen), all on the same
        // axes. In one panel the clocks whose errors coincide hid each other. The clocks' panels
        // are what-ifs on the same fetches (`byClock`), not runs of their own: titles and caption
        // say so. The legend names each panel's colour; the line style is a text key.
        var panels: [SmallMultiples.Panel] = []
        var legend: [LegendEntry] = []
        for (k, name) in names.enumerated() {
            // A clock this design never measured with (the original plan has no estimate) gets no
            // panel; its CSV columns stay, "n/a".
            guard k == 0 || runs[k * 2].contains(where: { !$0.isEmpty }) else { continue }
            let color = k == 0 ? "#222222" : ChartPalette.color(k - 1)
            legend.append(LegendEntry(k == 0 ? "on screen" : "\(name) (what-if)", color: color))
            panels.append(SmallMultiples.Panel(title: k == 0 ? "UI time (computed at the last tick)" : "same fetches, \(name) clock", series: [
                LineSeries(name: "\(name) p50", color: color, width: 1.5, runs: runs[k * 2], inLegend: false),
                LineSeries(name: "\(name) p99", color: color, dashed: true, width: 1.5, runs: runs[k * 2 + 1], inLegend: false),
            ]))
        }
        let chart = SmallMultiples(
            title: "Client error over time; the same fetches with each clock (p50, p99 per \(Units.formatDuration(step)))",
            panels: values.isEmpty ? [] : panels,
            x: time.axis(seconds: Double(duration) / 1e9),
            y: ChartAxis.logTimeMs(label: "|time error|, log scale", values: values + [500]),
            references: [ReferenceLine(.horizontal, at: 500, label: "500 ms")],
            legend: legend + [LegendEntry("solid: p50, dashed: p99 of |time error| vs server", swatch: .none)],
            noDataMessage: "no data: no player had the Store on screen at a sample instant")
        return ChartFile(name: "error_over_time", title: chart.title,
                         caption: "Error of the time on screen, then of the estimate each device clock would give on the same fetches: one run, whose every sync is evaluated again with each reference clock (what-ifs, not separate runs; the design measures with one of them). One panel each on the same axes, per bucket of the window; a log scale so a clock that stops in standby (minutes) and one-second resolution (hundreds of ms) both show."
                             + crowdNote(buckets.map { (start: $0.start, samples: Int($0.display.count)) }, time: time),
                         svg: chart.svg(), csv: csv)
    }

    /// The caption's note on a crowd: each bucket's percentiles are over the players viewing
    /// then, so when a release brings many freshly synced players at once the p99 falls although
    /// no player's error shrank. Said when the busiest bucket holds 10 times the median's samples.
    static func crowdNote(_ buckets: [(start: Int64, samples: Int)], time: TimeUnit) -> String {
        let counts = buckets.map(\.samples).sorted()
        guard let busiest = buckets.max(by: { $0.samples < $1.samples }), !counts.isEmpty else { return "" }
        let median = counts[(counts.count - 1) / 2]
        guard median > 0, busiest.samples >= 10 * median else { return "" }
        let at = Format.compact(Double(busiest.start) / 1e9 / time.seconds, 2)
        return " Each bucket's p50 and p99 are over the players viewing then (the CSV's `samples`): the busiest bucket, "
            + "at \(at) \(time.name), holds \(busiest.samples) samples against a median of \(median). Such a crowd, as at a "
            + "release, has nearly all just opened the Store and loaded the store file, so its estimates are fresh: the "
            + "players long unsynced become a far smaller share, and the p99 falls although no player's error shrank; it climbs back as the crowd leaves."
    }

    // MARK: Error by link

    /// p50 and p99 of the displayed error per link profile, as bars on a log axis.
    public static func errorByLink(links: [String], display: [ErrorStats]) -> ChartFile {
        var csv = "link,samples,p50_ms,p99_ms\n"
        var p50: [Double?] = []
        var p99: [Double?] = []
        for (i, name) in links.enumerated() {
            let e = i < display.count ? display[i] : ErrorStats()
            let a = e.quantile(0.5)
            let b = e.quantile(0.99)
            p50.append(a.map { Double($0) / 1e6 })
            p99.append(b.map { Double($0) / 1e6 })
            csv += "\(Format.csv(name)),\(e.count),\(Format.ms(a)),\(Format.ms(b))\n"
        }
        let notes = links.indices.map { i in "\(i < display.count ? display[i].count : 0) samples" }
        let chart = BarChart(
            title: "Displayed error by link profile (p50, p99)", categories: links, categoryNotes: notes,
            xLabel: "link profile",
            y: ChartAxis.logTimeMs(label: "|displayed − server time| (log scale)", values: (p50 + p99).compactMap { $0 } + [500]),
            series: [BarChart.Series(name: "p50", color: ChartPalette.color(0), values: p50),
                     BarChart.Series(name: "p99", color: ChartPalette.color(1), values: p99)],
            references: [ReferenceLine(.horizontal, at: 500, label: "500 ms")],
            valueLabel: { Format.humanMs($0) },
            noDataMessage: "no data: no player had the Store on screen at a sample instant")
        return ChartFile(name: "displayed_error_by_link", title: chart.title,
                         caption: "Median and 99th percentile of the displayed-time error of the players on each link profile.",
                         svg: chart.svg(), csv: csv)
    }
}

/// The unit a time axis counts in, chosen from the window's length so ticks read naturally.
struct TimeUnit {
    var seconds: Double
    var name: String
    var steps: [Double]

    static func forWindow(seconds: Double) -> TimeUnit {
        if seconds <= 600 { return TimeUnit(seconds: 1, name: "s", steps: [1, 2, 5, 10, 15, 30, 60, 120]) }
        if seconds <= 5 * 3600 { return TimeUnit(seconds: 60, name: "min", steps: [1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 240]) }
        if seconds <= 72 * 3600 { return TimeUnit(seconds: 3600, name: "h", steps: [1, 2, 3, 6, 12, 24]) }
        return TimeUnit(seconds: 86_400, name: "d", steps: [1, 2, 5, 7, 10, 14, 30])
    }

    func axis(seconds total: Double) -> ChartAxis {
        ChartAxis.linear(label: "time since the measured window opened (\(name))", lower: 0,
                         upper: max(total, 1) / seconds, target: 6, steps: steps, roundUp: false,
                         tickLabel: { v, _ in Format.compact(v, 2) })
    }
}
