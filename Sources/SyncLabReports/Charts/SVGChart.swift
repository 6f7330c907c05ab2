// A small SVG chart builder: one plot area with axes, tick labels, grid, a title, a legend,
// reference lines, and either line series or grouped bars.
//
// Reports are committed and diffed, so a chart is deterministic text: every number goes
// through `Format.fixed`, logarithms through `DeterministicMath` (the same bits on every
// machine), and no value that is not finite ever reaches the output — an empty chart says
// "no data" instead. The size is fixed at 800×400, which code hosts show at full width.

import SyncLabKernel

/// One labelled mark on an axis.
public struct ChartTick: Sendable, Equatable {
    public var value: Double
    public var label: String
    public init(_ value: Double, _ label: String) {
        self.value = value
        self.label = label
    }
}

/// An axis: its label (with the unit), its range, linear or logarithmic, and its ticks.
public struct ChartAxis: Sendable {
    public enum Scale: Sendable { case linear, logarithmic }
    public var label: String
    public var lower: Double
    public var upper: Double
    public var scale: Scale
    public var ticks: [ChartTick]

    /// A valid range is kept as given; an empty or non-finite one (or a log range that is not
    /// positive) falls back to [0, 1] or [1, 10] so positions stay finite.
    public init(label: String, lower: Double, upper: Double, scale: Scale = .linear, ticks: [ChartTick]) {
        self.label = label
        self.scale = scale
        let valid = lower.isFinite && upper.isFinite && lower < upper && (scale == .linear || lower > 0)
        let lo = valid ? lower : (scale == .linear ? 0 : 1)
        let hi = valid ? upper : (scale == .linear ? 1 : 10)
        self.lower = lo
        self.upper = hi
        let slack = (hi - lo) * 1e-9   // a tick computed as k × step may land a rounding error outside
        self.ticks = ticks.filter { $0.value.isFinite && $0.value >= lo - slack && $0.value <= hi + slack }
    }

    /// Where `v` falls between `lower` (0) and `upper` (1), clamped to [0, 1]; 0 if not finite.
    public func fraction(_ v: Double) -> Double {
        guard v.isFinite else { return 0 }
        let f: Double
        switch scale {
        case .linear:
            f = (v - lower) / (upper - lower)
        case .logarithmic:
            guard v > 0 else { return 0 }
            let lo = DeterministicMath.log(lower)
            f = (DeterministicMath.log(v) - lo) / (DeterministicMath.log(upper) - lo)
        }
        return f.isFinite ? min(1, max(0, f)) : 0
    }

    // MARK: Tick makers

    /// A linear axis from `lower` to at least `upper`, with about `target` intervals at a step from
    /// `steps` (default 1, 2, 5 × 10^k); the upper end is rounded up to a whole step when
    /// `roundUp` is set. `label(value, decimals)` writes a tick.
    public static func linear(label: String, lower: Double, upper: Double, target: Int = 6,
                              steps: [Double]? = nil, roundUp: Bool = true,
                              tickLabel: (Double, Int) -> String = { Format.fixed($0, $1) }) -> ChartAxis {
        let lo = lower.isFinite ? lower : 0
        var hi = upper.isFinite && upper > lo ? upper : lo + 1
        // At most target + ½ intervals: a range a hair over a round number keeps its round step.
        let step = niceStep((hi - lo) / (Double(max(1, target)) + 0.5), steps: steps)
        if roundUp { hi = lo + (((hi - lo) / step).rounded(.up)) * step }
        var decimals = 0
        var s = step
        while s < 0.999_999 && decimals < 9 { s *= 10; decimals += 1 }
        var ticks: [ChartTick] = []
        var k = (lo / step).rounded(.up)
        // Bounded: at most a few hundred ticks for any step chosen above.
        while k * step <= hi * (1 + 1e-12) && ticks.count < 1000 {
            ticks.append(ChartTick(k * step, tickLabel(k * step, decimals)))
            k += 1
        }
        return ChartAxis(label: label, lower: lo, upper: hi, scale: .linear, ticks: ticks)
    }

    /// The smallest step from `steps` (or 1, 2, 5 × 10^k) that is at least `raw`.
    static func niceStep(_ raw: Double, steps: [Double]? = nil) -> Double {
        guard raw.isFinite, raw > 0 else { return 1 }
        if let steps, let s = steps.first(where: { $0 >= raw }) { return s }
        var magnitude = 1.0
        var guardCount = 0
        while magnitude * 10 <= raw && guardCount < 400 { magnitude *= 10; guardCount += 1 }
        while magnitude > raw && guardCount < 800 { magnitude /= 10; guardCount += 1 }
        for m in [1.0, 2, 5, 10] where m * magnitude >= raw { return m * magnitude }
        return 10 * magnitude
    }

    /// Ticks for durations in milliseconds on a log axis, at values people read at a glance.
    public static let timeTicksMs: [ChartTick] = [
        ChartTick(0.01, "10 µs"), ChartTick(0.1, "100 µs"), ChartTick(1, "1 ms"), ChartTick(10, "10 ms"),
        ChartTick(100, "100 ms"), ChartTick(1_000, "1 s"), ChartTick(10_000, "10 s"), ChartTick(60_000, "1 min"),
        ChartTick(600_000, "10 min"), ChartTick(3_600_000, "1 h"), ChartTick(36_000_000, "10 h"),
        ChartTick(86_400_000, "1 d"), ChartTick(864_000_000, "10 d"), ChartTick(8_640_000_000, "100 d"),
    ]

    /// A log axis of durations in ms from the largest time tick at or below the smallest value
    /// to the smallest at or above the largest (values ≤ 0 are ignored; they plot at the bottom).
    public static func logTimeMs(label: String, values: [Double]) -> ChartAxis {
        let positive = values.filter { $0.isFinite && $0 > 0 }
        let ticks = timeTicksMs
        let smallest = positive.min() ?? 1
        let largest = positive.max() ?? 1_000
        let lo = ticks.last(where: { $0.value <= smallest })?.value ?? ticks[0].value
        var hi = ticks.first(where: { $0.value >= largest })?.value ?? ticks[ticks.count - 1].value
        if hi <= lo { hi = ticks.first(where: { $0.value > lo })?.value ?? lo * 10 }
        return ChartAxis(label: label, lower: lo, upper: hi, scale: .logarithmic, ticks: ticks)
    }
}

/// A point of a line series, in axis units.
public struct ChartPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// A line on the chart. Each run is drawn joined; a gap in the data starts a new run.
public struct LineSeries: Sendable {
    public var name: String
    public var color: String
    public var dashed: Bool
    public var width: Double
    public var runs: [[ChartPoint]]
    /// Whether the series gets its own legend entry (a style key may describe it instead).
    public var inLegend: Bool
    /// Whether each point is also drawn as a dot (few points, e.g. a sweep's grid).
    public var markers: Bool
    public init(name: String, color: String, dashed: Bool = false, width: Double = 1.5,
                runs: [[ChartPoint]], inLegend: Bool = true, markers: Bool = false) {
        self.name = name
        self.color = color
        self.dashed = dashed
        self.width = width
        self.runs = runs
        self.inLegend = inLegend
        self.markers = markers
    }
    public var isEmpty: Bool { runs.allSatisfy(\.isEmpty) }
}

/// A straight line across the plot at one value of an axis, labelled on the plot.
public struct ReferenceLine: Sendable {
    public enum Orientation: Sendable { case vertical, horizontal }
    public var orientation: Orientation
    public var value: Double
    public var label: String
    public var color: String
    public init(_ orientation: Orientation, at value: Double, label: String, color: String = "#c0392b") {
        self.orientation = orientation
        self.value = value
        self.label = label
        self.color = color
    }

    /// A horizontal line's legend entry (its label is not drawn on the plot, where it would
    /// cover data); nil for a vertical line, labelled above the plot.
    public var legendEntry: LegendEntry? {
        orientation == .horizontal ? LegendEntry(label, color: color, swatch: .dashedLine) : nil
    }
}

/// A legend line: a swatch (line, dashed line or box) and text; no color means text only.
public struct LegendEntry: Sendable, Equatable {
    public enum Swatch: Sendable, Equatable { case line, dashedLine, box, none }
    public var label: String
    public var color: String
    public var swatch: Swatch
    public init(_ label: String, color: String = "#333333", swatch: Swatch = .line) {
        self.label = label
        self.color = color
        self.swatch = swatch
    }
}

/// Colors that stay apart for the common forms of color blindness (Okabe–Ito), then greys.
public enum ChartPalette {
    public static let colors = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#999999"]
    public static func color(_ i: Int) -> String { colors[((i % colors.count) + colors.count) % colors.count] }
}

/// A chart with numeric x and y axes and line series.
public struct LineChart: Sendable {
    public var title: String
    public var x: ChartAxis
    public var y: ChartAxis
    public var series: [LineSeries]
    public var references: [ReferenceLine]
    /// Legend lines after the series' own entries (a style key, a note).
    public var legendExtras: [LegendEntry]
    /// Shown instead of the lines when no series has a point: why there is nothing to draw.
    public var noDataMessage: String

    public init(title: String, x: ChartAxis, y: ChartAxis, series: [LineSeries], references: [ReferenceLine] = [],
                legendExtras: [LegendEntry] = [], noDataMessage: String = "no data") {
        self.title = title
        self.x = x
        self.y = y
        self.series = series
        self.references = references
        self.legendExtras = legendExtras
        self.noDataMessage = noDataMessage
    }

    public var hasData: Bool { series.contains { !$0.isEmpty } }

    public func svg() -> String {
        var canvas = SVGCanvas(title: title)
        canvas.axes(x: x, y: y)
        guard hasData else {
            canvas.noData(noDataMessage)
            return canvas.finish()
        }
        // Reference lines under the data, so they never hide it; their labels over it.
        for r in references { canvas.reference(r, x: x, y: y, part: .line) }
        canvas.openPlotClip()
        for s in series where !s.isEmpty {
            canvas.path(s, x: x, y: y)
        }
        canvas.closePlotClip()
        for r in references { canvas.reference(r, x: x, y: y, part: .label) }
        let entries = series.filter(\.inLegend).map {
            LegendEntry($0.name, color: $0.color, swatch: $0.dashed ? .dashedLine : .line)
        }
        canvas.legend(entries + legendExtras + references.compactMap(\.legendEntry))
        return canvas.finish()
    }
}

/// A chart of grouped vertical bars: one group per category, one bar per series.
public struct BarChart: Sendable {
    public struct Series: Sendable {
        public var name: String
        public var color: String
        /// One value per category, nil where it was not measured.
        public var values: [Double?]
        public init(name: String, color: String, values: [Double?]) {
            self.name = name
            self.color = color
            self.values = values
        }
    }
    public var title: String
    public var categories: [String]
    /// A second, smaller line under each category label (e.g. a sample count), or empty.
    public var categoryNotes: [String]
    public var xLabel: String
    public var y: ChartAxis
    public var series: [Series]
    public var references: [ReferenceLine]
    /// The text above a bar.
    public var valueLabel: @Sendable (Double) -> String
    public var noDataMessage: String

    public init(title: String, categories: [String], categoryNotes: [String] = [], xLabel: String, y: ChartAxis,
                series: [Series], references: [ReferenceLine] = [],
                valueLabel: @escaping @Sendable (Double) -> String, noDataMessage: String = "no data") {
        self.title = title
        self.categories = categories
        self.categoryNotes = categoryNotes
        self.xLabel = xLabel
        self.y = y
        self.series = series
        self.references = references
        self.valueLabel = valueLabel
        self.noDataMessage = noDataMessage
    }

    public var hasData: Bool { series.contains { $0.values.contains { $0.map(\.isFinite) ?? false } } }

    public func svg() -> String {
        var canvas = SVGCanvas(title: title)
        // The x axis carries category names, not numbers: no numeric ticks.
        canvas.axes(x: ChartAxis(label: xLabel, lower: 0, upper: 1, ticks: []), y: y)
        guard hasData, !categories.isEmpty, !series.isEmpty else {
            canvas.noData(noDataMessage)
            return canvas.finish()
        }
        let p = SVGCanvas.plot
        let groupWidth = p.width / Double(categories.count)
        let barWidth = groupWidth * 0.7 / Double(series.count)
        for (c, category) in categories.enumerated() {
            let left = p.left + Double(c) * groupWidth + groupWidth * 0.15
            let center = p.left + (Double(c) + 0.5) * groupWidth
            canvas.text(category, x: center, y: p.bottom + 17, anchor: "middle")
            if c < categoryNotes.count, !categoryNotes[c].isEmpty {
                canvas.text(categoryNotes[c], x: center, y: p.bottom + 30, anchor: "middle", size: 10, color: "#666666")
            }
            var measured = false
            for (k, s) in series.enumerated() {
                guard c < s.values.count, let v = s.values[c], v.isFinite else { continue }
                measured = true
                let top = p.bottom - y.fraction(v) * p.height
                let x0 = left + Double(k) * barWidth
                canvas.element("<rect data-series=\"\(Format.xml(s.name, attribute: true))\" data-category=\"\(Format.xml(category, attribute: true))\" "
                    + "x=\"\(SVGCanvas.n(x0 + 1))\" y=\"\(SVGCanvas.n(top))\" width=\"\(SVGCanvas.n(max(1, barWidth - 2)))\" "
                    + "height=\"\(SVGCanvas.n(p.bottom - top))\" fill=\"\(s.color)\"/>")
                if barWidth >= 44 {
                    canvas.text(valueLabel(v), x: x0 + barWidth / 2, y: top - 4, anchor: "middle", size: 10)
                }
            }
            if !measured {
                canvas.text("no data", x: center, y: p.bottom - 8, anchor: "middle", size: 11, color: "#666666")
            }
        }
        for r in references { canvas.reference(r, x: ChartAxis(label: "", lower: 0, upper: 1, ticks: []), y: y) }
        canvas.legend(series.map { LegendEntry($0.name, color: $0.color, swatch: .box) } + references.compactMap(\.legendEntry))
        return canvas.finish()
    }
}

/// The drawing surface the charts share: frame, axes, legend, text, all at fixed positions.
struct SVGCanvas {
    static let width = 800.0
    static let height = 400.0
    /// The plot area of a full-size chart; the right margin holds the legend.
    static let plot = (left: 78.0, top: 40.0, right: 632.0, bottom: 340.0, width: 554.0, height: 300.0)
    static let legendLeft = 646.0

    /// Where things go on a canvas: a full chart, or one panel of small multiples.
    struct Layout {
        var plot: (left: Double, top: Double, right: Double, bottom: Double, width: Double, height: Double)
        var legendLeft: Double
        /// The x axis label's baseline below the plot, and the rotated y label's x.
        var xLabelBelow: Double
        var yLabelX: Double
        var titleY: Double
        var titleSize: Int
        static let full = Layout(plot: SVGCanvas.plot, legendLeft: SVGCanvas.legendLeft, xLabelBelow: 46, yLabelX: 18,
                                 titleY: 24, titleSize: 16)
        /// A 400 × 250 panel.
        static let panel = Layout(plot: (left: 64, top: 30, right: 388, bottom: 204, width: 324, height: 174), legendLeft: 400,
                                  xLabelBelow: 34, yLabelX: 14, titleY: 18, titleSize: 13)
    }

    let layout: Layout
    private var lines: [String] = []
    private var clipOpen = false
    /// The plot's clip path id: "plot", or "plot-<k>" for panel k (ids are per document).
    private let clipID: String
    private let embedded: Bool

    init(title: String) {
        layout = .full
        clipID = "plot"
        embedded = false
        let t = Format.xml(title)
        lines.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        lines.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"400\" viewBox=\"0 0 800 400\" "
            + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">")
        lines.append("<title>\(t)</title>")
        lines.append(clipPath())
        // An opaque background keeps the chart readable on dark-themed pages.
        lines.append("<rect x=\"0\" y=\"0\" width=\"800\" height=\"400\" fill=\"#ffffff\"/>")
        titleText(t)
    }

    /// A panel of small multiples, drawn inside `<g>` at (x, y) of an enclosing chart.
    init(panel title: String, index: Int, x: Double, y: Double) {
        layout = .panel
        clipID = "plot-\(index)"
        embedded = true
        lines.append("<g class=\"panel\" transform=\"translate(\(Self.n(x)),\(Self.n(y)))\">")
        lines.append(clipPath())
        titleText(Format.xml(title))
    }

    private func clipPath() -> String {
        let p = layout.plot
        return "<defs><clipPath id=\"\(clipID)\"><rect x=\"\(Self.n(p.left))\" y=\"\(Self.n(p.top - 1))\" "
            + "width=\"\(Self.n(p.width))\" height=\"\(Self.n(p.height + 2))\"/></clipPath></defs>"
    }

    private mutating func titleText(_ escaped: String) {
        lines.append("<text class=\"title\" x=\"\(Self.n(layout.plot.left))\" y=\"\(Self.n(layout.titleY))\" font-size=\"\(layout.titleSize)\" "
            + "font-weight=\"bold\" fill=\"#222222\">\(escaped)</text>")
    }

    /// A coordinate: one decimal, never NaN.
    static func n(_ v: Double) -> String { v.isFinite ? Format.fixed(v, 1) : "0.0" }

    mutating func element(_ text: String) { lines.append(text) }

    mutating func text(_ s: String, x: Double, y: Double, anchor: String = "start", size: Int = 12,
                       color: String = "#222222", extra: String = "") {
        lines.append("<text x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" text-anchor=\"\(anchor)\" font-size=\"\(size)\" "
            + "fill=\"\(color)\"\(extra)>\(Format.xml(s))</text>")
    }

    /// Grid, tick marks and labels, axis lines and axis labels.
    mutating func axes(x: ChartAxis, y: ChartAxis) {
        let p = layout.plot
        var lastY = Double.infinity
        for tick in y.ticks {
            let py = p.bottom - y.fraction(tick.value) * p.height
            guard lastY - py >= 16 || lastY == .infinity else { continue }   // keep labels apart
            lastY = py
            lines.append("<line class=\"grid\" x1=\"\(Self.n(p.left))\" y1=\"\(Self.n(py))\" x2=\"\(Self.n(p.right))\" y2=\"\(Self.n(py))\" stroke=\"#e4e4e4\"/>")
            lines.append("<line x1=\"\(Self.n(p.left - 5))\" y1=\"\(Self.n(py))\" x2=\"\(Self.n(p.left))\" y2=\"\(Self.n(py))\" stroke=\"#444444\"/>")
            text(tick.label, x: p.left - 8, y: py + 4, anchor: "end", size: 11, color: "#444444", extra: " class=\"tick y\"")
        }
        var lastX = -Double.infinity
        for tick in x.ticks {
            let px = p.left + x.fraction(tick.value) * p.width
            guard px - lastX >= 48 else { continue }
            lastX = px
            lines.append("<line class=\"grid\" x1=\"\(Self.n(px))\" y1=\"\(Self.n(p.top))\" x2=\"\(Self.n(px))\" y2=\"\(Self.n(p.bottom))\" stroke=\"#f0f0f0\"/>")
            lines.append("<line x1=\"\(Self.n(px))\" y1=\"\(Self.n(p.bottom))\" x2=\"\(Self.n(px))\" y2=\"\(Self.n(p.bottom + 5))\" stroke=\"#444444\"/>")
            text(tick.label, x: px, y: p.bottom + 17, anchor: "middle", size: 11, color: "#444444", extra: " class=\"tick x\"")
        }
        lines.append("<path class=\"axes\" d=\"M\(Self.n(p.left)),\(Self.n(p.top)) V\(Self.n(p.bottom)) H\(Self.n(p.right))\" fill=\"none\" stroke=\"#444444\"/>")
        text(x.label, x: p.left + p.width / 2, y: p.bottom + layout.xLabelBelow, anchor: "middle", extra: " class=\"axis-label x\"")
        let cy = p.top + p.height / 2
        text(y.label, x: layout.yLabelX, y: cy, anchor: "middle",
             extra: " class=\"axis-label y\" transform=\"rotate(-90 \(Self.n(layout.yLabelX)) \(Self.n(cy)))\"")
    }

    mutating func openPlotClip() {
        lines.append("<g clip-path=\"url(#\(clipID))\">")
        clipOpen = true
    }

    mutating func closePlotClip() {
        if clipOpen { lines.append("</g>") }
        clipOpen = false
    }

    /// One `<path>` per series; single-point runs are drawn as a dot.
    mutating func path(_ s: LineSeries, x: ChartAxis, y: ChartAxis) {
        let p = layout.plot
        var d: [String] = []
        for run in s.runs where !run.isEmpty {
            var previous = ""
            var count = 0
            for (i, point) in run.enumerated() {
                let xy = Self.n(p.left + x.fraction(point.x) * p.width) + "," + Self.n(p.bottom - y.fraction(point.y) * p.height)
                if xy == previous { continue }   // a point on the same 0.1 px adds nothing
                d.append((i == 0 ? "M" : "L") + xy)
                previous = xy
                count += 1
            }
            if count == 1 { d.append("l0.1,0") }
        }
        let dash = s.dashed ? " stroke-dasharray=\"6 4\"" : ""
        if s.markers {
            for point in s.runs.joined() {
                lines.append("<circle cx=\"\(Self.n(p.left + x.fraction(point.x) * p.width))\" cy=\"\(Self.n(p.bottom - y.fraction(point.y) * p.height))\" "
                    + "r=\"3.5\" fill=\"\(s.color)\"/>")
            }
        }
        lines.append("<path data-series=\"\(Format.xml(s.name, attribute: true))\" d=\"\(d.joined(separator: " "))\" fill=\"none\" "
            + "stroke=\"\(s.color)\" stroke-width=\"\(Format.fixed(s.width, 1))\" stroke-linejoin=\"round\" stroke-linecap=\"round\"\(dash)/>")
    }

    enum ReferencePart { case line, label, both }

    mutating func reference(_ r: ReferenceLine, x: ChartAxis, y: ChartAxis, part: ReferencePart = .both) {
        let p = layout.plot
        let line = part != .label
        let label = part != .line
        switch r.orientation {
        case .vertical:
            let px = p.left + x.fraction(r.value) * p.width
            if line {
                lines.append("<line class=\"reference\" x1=\"\(Self.n(px))\" y1=\"\(Self.n(p.top))\" x2=\"\(Self.n(px))\" y2=\"\(Self.n(p.bottom))\" "
                    + "stroke=\"\(r.color)\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>")
            }
            // Label above the plot, so it never covers data: right of the line, or left of it near
            // the right edge.
            let right = px > p.right - 120
            if label {
                text(r.label, x: right ? px - 4 : px + 4, y: p.top - 5, anchor: right ? "end" : "start", size: 11,
                     color: r.color, extra: Self.halo)
            }
        case .horizontal:
            let py = p.bottom - y.fraction(r.value) * p.height
            if line {
                lines.append("<line class=\"reference\" x1=\"\(Self.n(p.left))\" y1=\"\(Self.n(py))\" x2=\"\(Self.n(p.right))\" y2=\"\(Self.n(py))\" "
                    + "stroke=\"\(r.color)\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>")
            }
            // No label on the plot, where it would cover data: the legend names the line
            // (`legendEntry`).
            _ = label
        }
    }

    /// A white outline under a label drawn on the plot, so lines behind it do not garble it.
    static let halo = " stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\""

    mutating func legend(_ entries: [LegendEntry]) {
        guard !entries.isEmpty else { return }
        var y = layout.plot.top + 8
        lines.append("<g class=\"legend\">")
        for e in entries {
            let x = layout.legendLeft
            switch e.swatch {
            case .line, .dashedLine:
                let dash = e.swatch == .dashedLine ? " stroke-dasharray=\"6 4\"" : ""
                lines.append("<line x1=\"\(Self.n(x))\" y1=\"\(Self.n(y))\" x2=\"\(Self.n(x + 24))\" y2=\"\(Self.n(y))\" stroke=\"\(e.color)\" stroke-width=\"2\"\(dash)/>")
            case .box:
                lines.append("<rect x=\"\(Self.n(x + 4))\" y=\"\(Self.n(y - 6))\" width=\"16\" height=\"12\" fill=\"\(e.color)\"/>")
            case .none:
                break
            }
            text(e.label, x: e.swatch == .none ? x : x + 30, y: y + 4, size: 11)
            y += 19
        }
        lines.append("</g>")
    }

    mutating func noData(_ message: String) {
        let p = layout.plot
        text(message, x: p.left + p.width / 2, y: p.top + p.height / 2, anchor: "middle", size: 16, color: "#888888",
             extra: " class=\"no-data\"")
    }

    mutating func finish() -> String {
        closePlotClip()
        lines.append(embedded ? "</g>" : "</svg>")
        return lines.joined(separator: "\n") + "\n"
    }
}
