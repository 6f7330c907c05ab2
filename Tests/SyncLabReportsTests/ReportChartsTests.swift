import Testing
import SyncLab
import SyncLabKernel
@testable import SyncLabReports

/// The four report charts: what each plots (checked in its CSV and SVG structure), spikes that
/// survive bucketing, one line per clock, and "no data" on empty input.
@Suite struct ReportChartsTests {
    static func dataSeries(_ doc: XMLTree) -> [String] {
        doc.all("path").compactMap { $0.attributes["data-series"] }
    }

    static func noDataText(_ doc: XMLTree) -> [String] {
        doc.all("text").filter { $0.attributes["class"] == "no-data" }.map(\.text)
    }

    @Test func requestsPerSecondShortRunDrawsEverySecond() throws {
        let chart = ReportCharts.requestsPerSecond([3, 0, 5, 1], release: (at: 2_000_000_000, multiplier: 50))
        #expect(chart.name == "requests_per_second")
        #expect(chart.csv == "start_s,seconds,max_requests,mean_requests\n0,1,3,3.000\n1,1,0,0.000\n2,1,5,5.000\n3,1,1,1.000\n")
        let doc = try #require(XMLTree(chart.svg))
        #expect(Self.dataSeries(doc) == ["requests per second"])
        let texts = doc.texts("text")
        #expect(texts.contains("Requests per server second"))
        #expect(texts.contains("requests per second"))
        #expect(texts.contains("time since the measured window opened (s)"))
        #expect(texts.contains("release (50x)"))
        let xTicks = doc.all("text").filter { $0.attributes["class"] == "tick x" }.map(\.text)
        #expect(xTicks == ["0", "1", "2", "3", "4"])
    }

    @Test func longRunKeepsTheSpikeInTheMax() throws {
        var counts = [UInt32](repeating: 1, count: 2000)
        counts[1234] = 500
        let chart = ReportCharts.requestsPerSecond(counts, release: nil, columns: 554)
        // ceil(2000 / 554) = 4 seconds per bucket: 500 rows; the spike's bucket starts at 1232.
        let rows = chart.csv.split(separator: "\n").dropFirst()
        #expect(rows.count == 500)
        #expect(rows.contains("1232,4,500,125.750"))
        #expect(rows.first == "0,4,1,1.000")
        let doc = try #require(XMLTree(chart.svg))
        #expect(Self.dataSeries(doc) == ["max per 4 s", "mean per 4 s"])
        #expect(doc.texts("title") == ["Requests per server second (max and mean per 4 s)"])
        // The y axis reaches the spike: 0 … 500 in steps of 100.
        let yTicks = doc.all("text").filter { $0.attributes["class"] == "tick y" }.map(\.text)
        #expect(yTicks == ["0", "100", "200", "300", "400", "500"])
        // An hour-scale window switches the time axis to hours beyond 5 h.
        let day = ReportCharts.requestsPerSecond([UInt32](repeating: 2, count: 86_400), release: nil)
        #expect(XMLTree(day.svg)?.texts("text").contains("time since the measured window opened (h)") == true)
    }

    @Test func noSecondsIsNoData() throws {
        let chart = ReportCharts.requestsPerSecond([], release: nil)
        let doc = try #require(XMLTree(chart.svg))
        #expect(Self.noDataText(doc) == ["no data: the window has no server seconds"])
        #expect(!chart.svg.contains("NaN"))
    }

    @Test func transitionGapCDF() throws {
        let ms: Int64 = 1_000_000
        let chart = ReportCharts.transitionGaps([700 * ms, 100 * ms, 2_000 * ms, 300 * ms])
        #expect(chart.csv == "gap_ms,share_at_or_below\n100.000,0.250000\n300.000,0.500000\n700.000,0.750000\n2000.000,1.000000\n")
        let doc = try #require(XMLTree(chart.svg))
        #expect(Self.dataSeries(doc) == ["4 transitions"])
        let texts = doc.texts("text")
        #expect(texts.contains("50.0% within 500 ms"))
        #expect(texts.contains("500 ms"))
        #expect(texts.contains("share of transitions with a smaller gap"))
        let xTicks = doc.all("text").filter { $0.attributes["class"] == "tick x" }.map(\.text)
        #expect(xTicks == ["100 ms", "1 s", "10 s"])
        let yTicks = doc.all("text").filter { $0.attributes["class"] == "tick y" }.map(\.text)
        #expect(yTicks == ["0%", "25%", "50%", "75%", "100%"])
        // The 500 ms line: log10(5) of the two decades from 100 ms, across the 554 px plot.
        let line = try #require(doc.all("line").first { $0.attributes["class"] == "reference" })
        #expect(line.attributes["x1"] == "271.6")
    }

    @Test func noTransitionsIsNoData() throws {
        let chart = ReportCharts.transitionGaps([])
        let doc = try #require(XMLTree(chart.svg))
        #expect(Self.noDataText(doc) == ["no data: no item change was shown by two or more players"])
        #expect(Self.dataSeries(doc).isEmpty)
        #expect(chart.csv == "gap_ms,share_at_or_below\n")
    }

    static func stats(_ errorsMs: [Int64]) -> ErrorStats {
        var e = ErrorStats(subBits: 5)
        for v in errorsMs { e.record(v * 1_000_000) }
        return e
    }

    @Test func errorOverTimeHasOneLinePerClockAndQuantile() throws {
        let clocks = ["suspending", "continuous", "uptime-1s"]
        let minute = Int64.minute
        let buckets: [(start: Int64, display: ErrorStats, byClock: [ErrorStats])] = [
            (0, Self.stats([900, 1_000]), [Self.stats([300_000]), Self.stats([400]), Self.stats([600])]),
            (minute, ErrorStats(subBits: 5), [ErrorStats(subBits: 5), ErrorStats(subBits: 5), ErrorStats(subBits: 5)]),
            (2 * minute, Self.stats([800]), [Self.stats([20]), Self.stats([450]), Self.stats([700])]),
        ]
        let chart = ReportCharts.errorOverTime(step: minute, buckets: buckets, clocks: clocks, duration: 3 * minute)
        let doc = try #require(XMLTree(chart.svg))
        let expected = ["displayed", "suspending", "continuous", "uptime-1s"].flatMap { ["\($0) p50", "\($0) p99"] }
        #expect(Self.dataSeries(doc) == expected)
        // The empty minute breaks every line into two runs.
        for path in doc.all("path") where path.attributes["data-series"] != nil {
            #expect(path.attributes["d"]?.filter { $0 == "M" }.count == 2, "\(path.attributes["data-series"]!)")
        }
        // p99 lines are dashed, p50 lines are not.
        for path in doc.all("path") where path.attributes["data-series"]?.hasSuffix("p99") == true {
            #expect(path.attributes["stroke-dasharray"] == "6 4")
        }
        let texts = doc.texts("text")
        // The clocks' panels are what-ifs on the same fetches, and say so.
        for t in ["UI time (computed at the last tick)", "same fetches, suspending clock", "same fetches, continuous clock",
                  "same fetches, uptime-1s clock", "on screen", "suspending (what-if)", "continuous (what-if)", "uptime-1s (what-if)",
                  "solid: p50, dashed: p99 of |time error| vs server", "500 ms",
                  "|time error|, log scale", "time since the measured window opened (s)"] {
            #expect(texts.contains(t), "missing \(t)")
        }
        #expect(chart.caption.contains("same fetches"))
        // The legend's swatches are the series' colours (no grey key).
        let legendStart = try #require(chart.svg.firstRange(of: "<g class=\"legend\">"))
        let rest = chart.svg[legendStart.upperBound...]
        let legend = rest[..<(try #require(rest.firstRange(of: "</g>"))).lowerBound]
        let stroke = try Regex("stroke=\"(#[0-9a-f]{6})\"", as: (Substring, Substring).self)
        let legendStrokes = legend.matches(of: stroke).map { String($0.output.1) }
        let seriesStrokes = Set(doc.all("path").filter { $0.attributes["data-series"] != nil }.compactMap { $0.attributes["stroke"] })
        #expect(legendStrokes == ["#222222", "#0072b2", "#e69f00", "#009e73", "#c0392b"])   // the panels', then the 500 ms line's
        #expect(Set(legendStrokes.dropLast()) == seriesStrokes)
        // Small multiples: a panel per series, each with its own clip, two lines (p50, p99) in each.
        let panels = doc.all("g").filter { $0.attributes["class"] == "panel" }
        #expect(panels.count == 4)
        #expect(Set(doc.all("clipPath").compactMap { $0.attributes["id"] }) == ["plot-0", "plot-1", "plot-2", "plot-3"])
        #expect(doc.all("path").filter { $0.attributes["data-series"] != nil }.count == 8)
        // The 500 ms line is named once, in the legend, not labelled on each plot where it would
        // cover data.
        #expect(doc.all("text").filter { $0.text == "500 ms" }.count == 1)
        // Every panel on the same log axis, from 10 ms (below the 20 ms sample) to 10 min (above
        // 5 min of standby lag).
        let yTicks = doc.all("text").filter { $0.attributes["class"] == "tick y" }.map(\.text)
        #expect(yTicks == Array(repeating: ["10 ms", "100 ms", "1 s", "10 s", "1 min", "10 min"], count: 4).flatMap { $0 })
        let lines = chart.csv.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "start_s,samples,displayed_p50_ms,displayed_p99_ms,suspending_p50_ms,suspending_p99_ms,"
            + "continuous_p50_ms,continuous_p99_ms,uptime-1s_p50_ms,uptime-1s_p99_ms")
        #expect(lines[2] == "60,0,n/a,n/a,n/a,n/a,n/a,n/a,n/a,n/a")
        #expect(lines.count == 5)   // header, three buckets, final newline
    }

    @Test func crowdNoteSaysWhyThePercentilesFall() {
        let m = Int64.minute
        let quiet = (0..<5).map { (start: Int64($0) * m, samples: 100) }
        #expect(ReportCharts.crowdNote(quiet, time: TimeUnit.forWindow(seconds: 3600)) == "")
        // A release: 50 times the viewers, nearly all just synced.
        let note = ReportCharts.crowdNote(quiet + [(start: 5 * m, samples: 5_000)], time: TimeUnit.forWindow(seconds: 3600))
        #expect(note.contains("the busiest bucket, at 5 min, holds 5000 samples against a median of 100"))
        #expect(note.contains("the p99 falls although no player's error shrank"))
    }

    @Test func errorOverTimeWithoutSamplesIsNoData() throws {
        // One full-size chart saying why, not four empty panels.
        let chart = ReportCharts.errorOverTime(step: .minute, buckets: [(0, ErrorStats(subBits: 5), [ErrorStats(subBits: 5)])],
                                               clocks: ["suspending"], duration: .minute)
        let doc = try #require(XMLTree(chart.svg))
        #expect(Self.noDataText(doc) == ["no data: no player had the Store on screen at a sample instant"])
        #expect(!chart.svg.contains("NaN"))
    }

    @Test func errorByLinkBars() throws {
        let chart = ReportCharts.errorByLink(links: ["wifi", "3g", "sat"], display: [Self.stats([100, 200]), Self.stats([2_000]), ErrorStats()])
        let lines = chart.csv.split(separator: "\n")
        #expect(lines[0] == "link,samples,p50_ms,p99_ms")
        #expect(lines[3] == "sat,0,n/a,n/a")
        let doc = try #require(XMLTree(chart.svg))
        let bars = doc.all("rect").compactMap { r in r.attributes["data-series"].map { "\($0)/\(r.attributes["data-category"]!)" } }
        #expect(bars == ["p50/wifi", "p99/wifi", "p50/3g", "p99/3g"])
        let texts = doc.texts("text")
        for t in ["wifi", "3g", "sat", "2 samples", "0 samples", "no data", "link profile", "|displayed − server time| (log scale)"] {
            #expect(texts.contains(t), "missing \(t)")
        }
    }

    @Test func reportEmbedsEveryChartBesideItsData() throws {
        let r = SmallRun.result
        let charts = ReportCharts.all(r)
        #expect(charts.map(\.name) == ["requests_per_second", "transition_gaps", "gap_vs_viewers", "error_over_time", "displayed_error_by_link"])
        let files = ReportBundle.files(r)
        let names = files.map(\.name)
        for c in charts {
            #expect(names.contains(c.svgFile) && names.contains(c.csvFile))
            #expect(XMLTree(c.svg) != nil, "\(c.svgFile) is not well-formed")
            for bad in ["NaN", "nan", "inf"] { #expect(!c.svg.contains(bad), "\(c.svgFile) contains \(bad)") }
        }
        #expect(Set(names).count == names.count, "duplicate file names")
        let md = MarkdownReport.render(r)
        #expect(md.contains("## Charts\n"))
        for c in charts {
            #expect(md.contains("![\(c.title)](\(c.svgFile))"))
            #expect(md.contains("[\(c.csvFile)](\(c.csvFile))"))
        }
        // The real run: one line per reference clock in the error chart.
        let errorChart = try #require(charts.first { $0.name == "error_over_time" })
        let doc = try #require(XMLTree(errorChart.svg))
        let series = Self.dataSeries(doc)
        for (clock, _) in r.errorByClock {
            #expect(series.filter { $0 == "\(clock) p50" }.count == 1)
            #expect(series.filter { $0 == "\(clock) p99" }.count == 1)
        }
        #expect(ReportBundle.files(r).map(\.contents) == files.map(\.contents), "not deterministic")
    }
}

/// One small run of the shipped scenario (300 players, 30 minutes), shared by these tests.
enum SmallRun {
    static var shippedPausing: String {
        (#filePath.components(separatedBy: "/Tests/").first ?? ".") + "/Scenarios/v115-pausing.json"
    }

    static func scenario() throws -> Scenario {
        var s = try ScenarioLoader().load(path: shippedPausing)
        s.population.players = 300
        s.duration = 30 * .minute
        s.warmup = 10 * .minute
        s.population.release?.at = SimTime(ns: 15 * .minute)
        return s
    }

    static let result: RunResult = Simulation.run(try! scenario())
}

