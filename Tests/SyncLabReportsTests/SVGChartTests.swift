import Testing
@testable import SyncLabReports

/// The chart builder: deterministic text, well-formed SVG, axes with ticks and labels, a legend,
/// and a visible "no data" instead of NaN.
@Suite struct SVGChartTests {
    @Test func xmlEscaping() {
        #expect(Format.xml("a<b>&\"c\"'d") == "a&lt;b&gt;&amp;&quot;c&quot;&apos;d")
        #expect(Format.xml("bell\u{7}") == "bell\u{FFFD}")
        #expect(Format.xml("two\nlines") == "two\nlines")
        #expect(Format.xml("two\nlines\tx", attribute: true) == "two&#10;lines&#9;x")
        #expect(Format.xml("µs – ≤") == "µs – ≤")
    }

    @Test func compactNumbers() {
        #expect(Format.compact(500) == "500")
        #expect(Format.compact(0.25) == "0.25")
        #expect(Format.compact(0.1234567) == "0.123")
        #expect(Format.compact(0.1234567, 6) == "0.123457")
        #expect(Format.compact(-1.5) == "-1.5")
        #expect(Format.compact(-0.0001) == "0")
        #expect(Format.compact(.nan) == "n/a")
    }

    @Test func groupedNumbers() {
        #expect(Format.grouped(2_472_240) == "2,472,240")
        #expect(Format.grouped(1_000_000) == "1,000,000")
        #expect(Format.grouped(999) == "999")
        #expect(Format.grouped(1000) == "1,000")
        #expect(Format.grouped(-1234567.4) == "-1,234,567")
        #expect(Format.grouped(.infinity) == "n/a")
    }

    @Test func linearTicksAreRoundSteps() {
        let a = ChartAxis.linear(label: "requests per second", lower: 0, upper: 99, target: 5)
        #expect(a.upper == 100)
        #expect(a.ticks.map(\.value) == [0, 20, 40, 60, 80, 100])
        #expect(a.ticks.map(\.label) == ["0", "20", "40", "60", "80", "100"])
        let small = ChartAxis.linear(label: "x", lower: 0, upper: 1, target: 5)
        #expect(small.ticks.map(\.label) == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"])
        let minutes = ChartAxis.linear(label: "t", lower: 0, upper: 180, target: 6, steps: [1, 2, 5, 10, 15, 20, 30, 60],
                                       roundUp: false, tickLabel: { v, _ in Format.compact(v) })
        #expect(minutes.ticks.map(\.label) == ["0", "30", "60", "90", "120", "150", "180"])
        #expect(ChartAxis.niceStep(36) == 50)
        #expect(ChartAxis.niceStep(0.03) == 0.05)
        #expect(ChartAxis.niceStep(.nan) == 1)
    }

    @Test func logTimeAxisSpansWholeTicks() {
        let a = ChartAxis.logTimeMs(label: "gap", values: [0.4, 1200])
        #expect(a.lower == 0.1)
        #expect(a.upper == 10_000)
        #expect(a.ticks.map(\.label) == ["100 µs", "1 ms", "10 ms", "100 ms", "1 s", "10 s"])
        #expect(abs(a.fraction(1_000) - 0.8) < 1e-12)
        #expect(a.fraction(0) == 0)        // zero and below plot at the bottom
        #expect(a.fraction(1e9) == 1)      // clamped at the top
        #expect(a.fraction(.nan) == 0)
        // Minutes of error get minute ticks, not "100000 ms".
        let long = ChartAxis.logTimeMs(label: "e", values: [450, 1_008_243])
        #expect(long.ticks.map(\.label) == ["100 ms", "1 s", "10 s", "1 min", "10 min", "1 h"])
        // Nothing positive: a default decade range, still finite.
        let empty = ChartAxis.logTimeMs(label: "e", values: [0, -3])
        #expect(empty.lower == 1 && empty.upper == 1_000)
    }

    @Test func invalidRangesFallBack() {
        let a = ChartAxis(label: "x", lower: 5, upper: 5, ticks: [ChartTick(5, "5")])
        #expect(a.lower == 0 && a.upper == 1)
        let b = ChartAxis(label: "x", lower: 0, upper: 10, scale: .logarithmic, ticks: [])
        #expect(b.lower == 1 && b.upper == 10)
    }

    static func sample(points: [ChartPoint] = [ChartPoint(0, 1), ChartPoint(1, 3), ChartPoint(2, 2)]) -> LineChart {
        LineChart(title: "Load & <errors>",
                  x: ChartAxis.linear(label: "time (min)", lower: 0, upper: 2, target: 4),
                  y: ChartAxis.linear(label: "requests per second", lower: 0, upper: 3, target: 3),
                  series: [LineSeries(name: "mean", color: "#0072b2", runs: [points]),
                           LineSeries(name: "max", color: "#e69f00", dashed: true, runs: [[ChartPoint(0, 2)], [ChartPoint(1, 1), ChartPoint(2, 3)]])],
                  references: [ReferenceLine(.vertical, at: 1, label: "release")],
                  legendExtras: [LegendEntry("note", swatch: .none)])
    }

    @Test func lineChartStructure() throws {
        let svg = Self.sample().svg()
        let doc = try #require(XMLTree(svg), "not well-formed:\n\(svg)")
        let root = try #require(doc.elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["width"] == "800" && root.attributes["height"] == "400")
        #expect(doc.texts("title") == ["Load & <errors>"])
        let texts = doc.texts("text")
        #expect(texts.contains("Load & <errors>"))
        #expect(texts.contains("time (min)"))
        #expect(texts.contains("requests per second"))
        // Tick labels on both axes.
        let xTicks = doc.all("text").filter { $0.attributes["class"] == "tick x" }.map(\.text)
        let yTicks = doc.all("text").filter { $0.attributes["class"] == "tick y" }.map(\.text)
        #expect(xTicks == ["0.0", "0.5", "1.0", "1.5", "2.0"])
        #expect(yTicks == ["0", "1", "2", "3"])
        // One path per series; the gap in "max" starts a new subpath; the single point is a dot.
        let paths = doc.all("path").filter { $0.attributes["data-series"] != nil }
        #expect(paths.map { $0.attributes["data-series"] } == ["mean", "max"])
        let maxPath = try #require(paths.last?.attributes["d"])
        #expect(maxPath.filter { $0 == "M" }.count == 2)
        #expect(maxPath.contains("l0.1,0"))
        #expect(paths.last?.attributes["stroke-dasharray"] == "6 4")
        #expect(paths.first?.attributes["stroke-dasharray"] == nil)
        // First point of "mean": x = left edge (78), y = bottom − 1/3 of the height (340 − 100).
        #expect(paths.first?.attributes["d"]?.hasPrefix("M78.0,240.0 L355.0,40.0 L632.0,140.0") == true)
        // Legend: both series and the note; the reference line is labelled.
        let legend = doc.elements.filter { $0.ancestors.contains("g") && $0.name == "text" }.map(\.text)
        #expect(legend == ["mean", "max", "note"])
        #expect(texts.contains("release"))
        #expect(doc.all("line").filter { $0.attributes["class"] == "reference" }.count == 1)
    }

    @Test func outputIsDeterministicAndNeverNaN() {
        let a = Self.sample().svg()
        #expect(a == Self.sample().svg())
        let weird = Self.sample(points: [ChartPoint(.nan, 1), ChartPoint(1, .infinity), ChartPoint(-1e300, 1e300)]).svg()
        #expect(XMLTree(weird) != nil)
        for bad in ["nan", "NaN", "inf", "n/a"] { #expect(!weird.contains(bad), "found \(bad)") }
    }

    @Test func emptyChartSaysNoData() throws {
        var chart = Self.sample()
        chart.series = [LineSeries(name: "mean", color: "#000000", runs: [[]])]
        chart.noDataMessage = "no data: nobody was online"
        let svg = chart.svg()
        let doc = try #require(XMLTree(svg))
        let message = doc.all("text").filter { $0.attributes["class"] == "no-data" }.map(\.text)
        #expect(message == ["no data: nobody was online"])
        #expect(doc.all("path").filter { $0.attributes["data-series"] != nil }.isEmpty)
        // The axes are still drawn and labelled.
        #expect(doc.texts("text").contains("time (min)"))
        #expect(!svg.contains("NaN") && !svg.contains("nan"))
    }

    @Test func barChartStructure() throws {
        let chart = BarChart(
            title: "Error by link", categories: ["wifi", "3g"], categoryNotes: ["10 samples", "0 samples"], xLabel: "link profile",
            y: ChartAxis.logTimeMs(label: "error", values: [20, 900]),
            series: [BarChart.Series(name: "p50", color: "#0072b2", values: [20, nil]),
                     BarChart.Series(name: "p99", color: "#e69f00", values: [900, nil])],
            references: [ReferenceLine(.horizontal, at: 500, label: "500 ms")],
            valueLabel: { Format.humanMs($0) })
        let doc = try #require(XMLTree(chart.svg()))
        let bars = doc.all("rect").filter { $0.attributes["data-series"] != nil }
        #expect(bars.map { "\($0.attributes["data-series"]!)/\($0.attributes["data-category"]!)" } == ["p50/wifi", "p99/wifi"])
        let texts = doc.texts("text")
        for t in ["wifi", "3g", "10 samples", "link profile", "error", "20 ms", "900 ms", "500 ms", "no data", "p50", "p99"] {
            #expect(texts.contains(t), "missing \(t)")
        }
        // Log axis 10 ms … 1 s: 20 ms sits log(2)/log(100) ≈ 15% up the 300 px plot.
        let p50 = try #require(bars.first)
        #expect(p50.attributes["y"] == "294.8")
        #expect(p50.attributes["height"] == "45.2")
    }

    @Test func barChartWithNothingMeasured() throws {
        let chart = BarChart(title: "t", categories: ["a"], xLabel: "x", y: ChartAxis.logTimeMs(label: "y", values: []),
                             series: [BarChart.Series(name: "p50", color: "#000000", values: [nil])],
                             valueLabel: { Format.fixed($0, 1) }, noDataMessage: "no data: nothing sampled")
        let doc = try #require(XMLTree(chart.svg()))
        #expect(doc.all("text").filter { $0.attributes["class"] == "no-data" }.map(\.text) == ["no data: nothing sampled"])
        #expect(doc.all("rect").filter { $0.attributes["data-series"] != nil }.isEmpty)
    }
}
