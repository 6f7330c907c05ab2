// How the cross-player figures move with the number of viewers, from the run's own nested
// viewer subsets: the worst pair's share falls as viewers grow (it is the range of a sample),
// while the window and pair shares stay where the design puts them. An engineer reads off
// whether a verdict at 5,000 players holds at 500,000.

import SyncLab

extension ReportCharts {
    /// The four shares of `RunResult.viewerScaling` against mean viewers per change (log scale).
    public static func gapVsViewers(_ rows: [ViewerScalingRow]) -> ChartFile {
        var csv = "subset,mean_viewers,transitions,gap_p50_ms,gap_p99_ms,transitions_within_500ms_share,"
            + "viewers_in_best_500ms_share,viewers_in_centred_500ms_share,viewer_pairs_within_500ms_share,spread_p01_p999_p50_ms\n"
        func cell(_ row: ViewerScalingRow, _ key: String, _ decimals: Int) -> String {
            (row.figures[key] ?? nil).map { Format.fixed($0, decimals) } ?? ""
        }
        for row in rows {
            csv += "\(row.label),\(Format.fixed(row.meanViewers, 3)),\(row.changes),\(cell(row, Figure.transitionGapMsP50.key, 3)),"
                + "\(cell(row, Figure.transitionGapMsP99.key, 3)),\(cell(row, Figure.transitionsWithin500msShare.key, 6)),"
                + "\(cell(row, Figure.viewersInBest500msShare.key, 6)),\(cell(row, Figure.viewersInCentred500msShare.key, 6)),"
                + "\(cell(row, Figure.viewerPairsWithin500msShare.key, 6)),\(cell(row, Figure.transitionSpread999MsP50.key, 3))\n"
        }
        let lines: [(key: String, name: String)] = [
            (Figure.viewerPairsWithin500msShare.key, "pairs ≤ 500 ms"),
            (Figure.viewersInBest500msShare.key, "in best 500 ms"),
            (Figure.viewersInCentred500msShare.key, "within ±250 ms"),
            (Figure.transitionsWithin500msShare.key, "worst pair ≤ 500 ms"),
        ]
        // Widths fall series by series, so lines that coincide (a design at 100%) all show.
        let series = lines.enumerated().map { k, line in
            LineSeries(name: line.name, color: ChartPalette.color(k), dashed: k == 3, width: [6, 4, 2, 2][k],
                       runs: [rows.compactMap { row in (row.figures[line.key] ?? nil).map { ChartPoint(row.meanViewers, $0) } }])
        }
        let viewers = rows.map(\.meanViewers)
        var lower = 1.0, upper = 10.0
        while lower * 10 <= (viewers.min() ?? 1) { lower *= 10 }
        while upper < (viewers.max() ?? 10) { upper *= 10 }
        var ticks: [ChartTick] = []
        var v = lower
        while v <= upper { ticks.append(ChartTick(v, Format.grouped(v))); v *= 10 }
        let x = ChartAxis(label: "viewers per item change (mean; log scale)", lower: lower, upper: upper,
                          scale: .logarithmic, ticks: ticks)
        let y = ChartAxis(label: "share", lower: 0, upper: 1,
                          ticks: [0, 0.25, 0.5, 0.75, 1].map { ChartTick($0, Format.fixed($0 * 100, 0) + "%") })
        let chart = LineChart(title: "The 500 ms figures against the number of viewers", x: x, y: y,
                              series: rows.count < 2 ? [] : series,
                              noDataMessage: "no data: fewer than two viewer subsets averaged two or more viewers per change")
        return ChartFile(name: "gap_vs_viewers", title: chart.title,
                         caption: "Each point measures the same run on a random subset of its players (all of them, about 1/10, 1/100, …): "
                            + "the share of viewer pairs at most 500 ms apart, of viewers inside the best 500 ms window and within ±250 ms of "
                            + "the true instant (all three converge as viewers grow), and of changes whose latest and earliest viewers are "
                            + "within 500 ms (dashed: it falls, since the range of more viewers is wider).",
                         svg: chart.svg(), csv: csv)
    }
}
