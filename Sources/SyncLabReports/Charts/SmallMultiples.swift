// Small multiples: one small line chart per group of series, two panels to a row, all on the
// same axes. A chart of a dozen lines whose values coincide hides some of them under others;
// a panel per group shows every series, and shared axes keep the panels comparable at a glance.

/// Line charts as a grid of 400 × 250 panels under one title and one legend.
public struct SmallMultiples: Sendable {
    /// One panel: its title (what it shows) and its lines.
    public struct Panel: Sendable {
        public var title: String
        public var series: [LineSeries]
        public init(title: String, series: [LineSeries]) {
            self.title = title
            self.series = series
        }
    }

    public var title: String
    public var panels: [Panel]
    public var x: ChartAxis
    public var y: ChartAxis
    /// Drawn in every panel; a horizontal line is named in the legend, not on the plot.
    public var references: [ReferenceLine]
    /// The shared legend under the title (the series' colours, line styles, units), followed by
    /// the horizontal references' entries; it wraps to more rows when one is not wide enough.
    public var legend: [LegendEntry]
    public var noDataMessage: String

    public static let columns = 2
    static let panelWidth = 400.0
    static let panelHeight = 250.0
    /// Room above the first row of panels for the title and a one-row legend.
    static let top = 58.0
    /// The height each further legend row adds.
    static let legendRowHeight = 16.0

    public init(title: String, panels: [Panel], x: ChartAxis, y: ChartAxis, references: [ReferenceLine] = [],
                legend: [LegendEntry] = [], noDataMessage: String = "no data") {
        self.title = title
        self.panels = panels
        self.x = x
        self.y = y
        self.references = references
        self.legend = legend
        self.noDataMessage = noDataMessage
    }

    public var hasData: Bool { panels.contains { $0.series.contains { !$0.isEmpty } } }

    /// The height of the whole chart: the title and legend, then one row per two panels.
    public var height: Double {
        top + Double((panels.count + Self.columns - 1) / Self.columns) * Self.panelHeight + 6
    }

    /// Where the first row of panels starts: below the title and every legend row.
    var top: Double { Self.top + Double(legendRows.count - 1) * Self.legendRowHeight }

    /// The legend's entries in rows that fit the chart's width: a swatch takes 30 px, a
    /// character about 6.2 px at 11 px, and 18 px separate entries.
    var legendRows: [[LegendEntry]] {
        let left = SVGCanvas.Layout.panel.plot.left
        var rows: [[LegendEntry]] = [[]]
        var lx = left
        for e in legend + references.compactMap(\.legendEntry) {
            let w = (e.swatch == .none ? 0 : 30) + Double(e.label.count) * 6.2
            if lx + w > SVGCanvas.width - 8, !rows[rows.count - 1].isEmpty {
                rows.append([])
                lx = left
            }
            rows[rows.count - 1].append(e)
            lx += w + 18
        }
        return rows
    }

    public func svg() -> String {
        // Nothing to draw: one full-size chart that says why.
        guard hasData else {
            return LineChart(title: title, x: x, y: y, series: [], noDataMessage: noDataMessage).svg()
        }
        let width = SVGCanvas.width
        let h = SVGCanvas.n(height)
        let t = Format.xml(title)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"\(h)\" viewBox=\"0 0 800 \(h)\" "
            + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
        out += "<title>\(t)</title>\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(SVGCanvas.n(width))\" height=\"\(h)\" fill=\"#ffffff\"/>\n"
        out += "<text class=\"title\" x=\"\(SVGCanvas.n(SVGCanvas.Layout.panel.plot.left))\" y=\"24\" font-size=\"16\" font-weight=\"bold\" fill=\"#222222\">\(t)</text>\n"
        // The shared legend, in rows: a swatch, then its text (about 6.2 px a character at 11 px).
        out += "<g class=\"legend\">\n"
        for (row, entries) in legendRows.enumerated() {
            var lx = SVGCanvas.Layout.panel.plot.left
            let ly = 44.0 + Double(row) * Self.legendRowHeight
            for e in entries {
                switch e.swatch {
                case .line, .dashedLine:
                    let dash = e.swatch == .dashedLine ? " stroke-dasharray=\"6 4\"" : ""
                    out += "<line x1=\"\(SVGCanvas.n(lx))\" y1=\"\(SVGCanvas.n(ly - 4))\" x2=\"\(SVGCanvas.n(lx + 24))\" y2=\"\(SVGCanvas.n(ly - 4))\" "
                        + "stroke=\"\(e.color)\" stroke-width=\"2\"\(dash)/>\n"
                    lx += 30
                case .box:
                    out += "<rect x=\"\(SVGCanvas.n(lx + 4))\" y=\"\(SVGCanvas.n(ly - 10))\" width=\"16\" height=\"12\" fill=\"\(e.color)\"/>\n"
                    lx += 30
                case .none:
                    break
                }
                out += "<text x=\"\(SVGCanvas.n(lx))\" y=\"\(SVGCanvas.n(ly))\" text-anchor=\"start\" font-size=\"11\" fill=\"#222222\">\(Format.xml(e.label))</text>\n"
                lx += Double(e.label.count) * 6.2 + 18
            }
        }
        out += "</g>\n"
        for (i, panel) in panels.enumerated() {
            var canvas = SVGCanvas(panel: panel.title, index: i,
                                   x: Double(i % Self.columns) * Self.panelWidth,
                                   y: top + Double(i / Self.columns) * Self.panelHeight)
            canvas.axes(x: x, y: y)
            // Reference lines under the data, so they never hide it.
            for r in references { canvas.reference(r, x: x, y: y, part: .line) }
            canvas.openPlotClip()
            for s in panel.series where !s.isEmpty { canvas.path(s, x: x, y: y) }
            canvas.closePlotClip()
            for r in references { canvas.reference(r, x: x, y: y, part: .label) }
            if panel.series.allSatisfy(\.isEmpty) { canvas.noData("no samples") }
            out += canvas.finish()
        }
        return out + "</svg>\n"
    }
}
