// `synclab sweep` and `synclab merge`: a grid of scenario variants, shardable across machines.
//
// A sweep is written in two steps on every path: its runs become a *part* (rows of figures for
// the points of one shard, plus a description of the whole grid), and parts are merged into the
// report. The unsharded sweep is the one part 0/1 merged, so `merge` of any complete set of
// shards writes exactly the bytes the unsharded sweep writes.

import SyncLab
import SyncLabKernel

/// One varied key and its values, as written on the command line.
public struct SweepAxis: Sendable, Equatable {
    public var keyPath: String
    /// The values' text; each is read as a JSON scalar if it parses as one, else as a string.
    public var values: [String]
    public init(keyPath: String, values: [String]) {
        self.keyPath = keyPath
        self.values = values
    }

    /// A command-line value as JSON: `5000` → number, `true` → boolean, `"x"` → string,
    /// anything else (`500ms`, `uptime`) → a string.
    public static func jsonValue(_ text: String) -> JSONValue {
        if let v = try? JSONParser.parse(text) {
            switch v {
            case .null, .bool, .number, .string: return v
            case .array, .object: break
            }
        }
        return .string(text)
    }
}

/// The whole grid: what every part of one sweep must agree on.
public struct SweepSpec: Sendable, Equatable {
    public var scenario: String
    /// FNV-1a 64 of the base scenario's merged JSON: parts of different scenario files never merge.
    public var fingerprint: String
    public var axes: [SweepAxis]
    public var seeds: [UInt64]
    /// The figure the chart plots against the varied key (`chartAxis`).
    public var chart: String
    /// The figure columns, in order: the headline figures, then each link's (`linkFigures`).
    public var figures: [String]

    public init(scenario: String, fingerprint: String, axes: [SweepAxis], seeds: [UInt64], chart: String, figures: [String]) {
        self.scenario = scenario
        self.fingerprint = fingerprint
        self.axes = axes
        self.seeds = seeds
        self.chart = chart
        self.figures = figures
    }

    /// Points a sweep may have, and seeds per point (`--seeds`): each bounds a loop of runs, and
    /// a part's header is held to them as the command line is.
    public static let maximumPoints = 100_000
    public static let maximumSeeds = 1000

    /// Points of the grid: the product of the axes' value counts (Int.max when that overflows,
    /// which no sweep may have: 64 keys of two values would).
    public var points: Int {
        var product = 1
        for a in axes {
            let (p, overflow) = product.multipliedReportingOverflow(by: a.values.count)
            if overflow { return Int.max }
            product = p
        }
        return product
    }

    /// The value index on each axis of point `p`: the first axis varies slowest.
    public func indices(ofPoint p: Int) -> [Int] {
        var rest = p
        var out = [Int](repeating: 0, count: axes.count)
        for a in axes.indices.reversed() {
            out[a] = rest % axes[a].values.count
            rest /= axes[a].values.count
        }
        return out
    }

    public func values(ofPoint p: Int) -> [String] {
        zip(axes, indices(ofPoint: p)).map { $0.values[$1] }
    }

    /// The point whose value index on each axis is `indices`: the inverse of `indices(ofPoint:)`.
    public func point(ofIndices indices: [Int]) -> Int {
        zip(axes, indices).reduce(0) { $0 * $1.0.values.count + $1.1 }
    }

    /// The axis the chart runs along: the first that varies (more than one value), else the first.
    public var chartAxis: Int { axes.firstIndex { $0.values.count > 1 } ?? 0 }

    /// The figures a scenario's runs measure per link, for each of its links (`Figure.keys`, the
    /// `<link>` ones: each link's displayed error p50, p99 and maximum and its bound coverage):
    /// what a budget on one link names, so a sweep shows where a link comes near its budget.
    public static func linkFigures(for scenario: Scenario) -> [String] {
        Figure.keys(for: scenario).filter { Figure.declared($0)?.placeholder == "<link>" }
    }

    /// The shard that runs point `p` of `count`: round robin, so every shard gets a similar mix.
    public static func shard(ofPoint p: Int, count: Int) -> Int { p % count }

    /// One line of JSON, the part file's header.
    var json: String {
        let axes = JSONValue.array(self.axes.map { a in
            .object([JSONMember(key: "key", value: .string(a.keyPath)),
                     JSONMember(key: "values", value: .array(a.values.map { .string($0) }))])
        })
        let v = JSONValue.object([
            JSONMember(key: "scenario", value: .string(scenario)),
            JSONMember(key: "fingerprint", value: .string(fingerprint)),
            JSONMember(key: "seeds", value: .array(seeds.map { .string(String($0)) })),
            JSONMember(key: "vary", value: axes),
            JSONMember(key: "chart", value: .string(chart)),
            JSONMember(key: "figures", value: .array(figures.map { .string($0) })),
        ])
        return v.serialized(indent: 0).split(separator: "\n").joined()
    }

    static func parse(_ text: String) -> SweepSpec? {
        guard let v = try? JSONParser.parse(text), case .string(let scenario)? = v["scenario"],
              case .string(let fingerprint)? = v["fingerprint"], case .array(let seedValues)? = v["seeds"],
              case .array(let axisValues)? = v["vary"], case .string(let chart)? = v["chart"],
              case .array(let figureValues)? = v["figures"] else { return nil }
        func strings(_ a: [JSONValue]) -> [String]? {
            let s = a.compactMap { if case .string(let x) = $0 { return x } else { return nil } }
            return s.count == a.count ? s : nil
        }
        guard let seedTexts = strings(seedValues), let figures = strings(figureValues) else { return nil }
        let seeds = seedTexts.compactMap { UInt64($0) }
        guard seeds.count == seedTexts.count, !seeds.isEmpty else { return nil }
        var axes: [SweepAxis] = []
        for a in axisValues {
            guard case .string(let key)? = a["key"], case .array(let vs)? = a["values"], let values = strings(vs), !values.isEmpty
            else { return nil }
            axes.append(SweepAxis(keyPath: key, values: values))
        }
        guard !axes.isEmpty, seeds.count <= maximumSeeds, Set(seeds).count == seeds.count else { return nil }
        let spec = SweepSpec(scenario: scenario, fingerprint: fingerprint, axes: axes, seeds: seeds, chart: chart, figures: figures)
        return spec.points <= maximumPoints ? spec : nil
    }

    /// FNV-1a, 64 bits, of `text`'s UTF-8 bytes, as 16 hex digits.
    public static func fingerprint(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// The runs of one shard: for each of its points and each seed, the figure cells.
public struct SweepPart: Sendable, Equatable {
    /// Shards a sweep or search may be split into (`--shard i/n`, n at most this), and so the
    /// most a part's header may claim: `merge` looks for every one of them.
    public static let maximumShards = 10_000

    public struct Row: Sendable, Equatable {
        public var point: Int
        public var seed: UInt64
        /// The run's budgets as `synclab run` and `check` judge them (`RunResult.budgetVerdicts`):
        /// PASS when every one holds, FAIL when one fails, empty when the point sets none.
        public var budgets: String
        /// `Headline.cell` of each of the spec's figures.
        public var cells: [String]
        public init(point: Int, seed: UInt64, budgets: String = "", cells: [String]) {
            self.point = point
            self.seed = seed
            self.budgets = budgets
            self.cells = cells
        }

        /// The words a row's budgets are judged in.
        public static let verdicts = ["PASS", "FAIL", ""]
    }

    public var spec: SweepSpec
    public var shard: Int
    public var shards: Int
    public var rows: [Row]

    public init(spec: SweepSpec, shard: Int, shards: Int, rows: [Row]) {
        self.spec = spec
        self.shard = shard
        self.shards = shards
        self.rows = rows
    }

    public static let fileName = "sweep-part.csv"

    /// The row of one run: its budgets' verdict and its figures as CSV cells.
    public static func row(point: Int, seed: UInt64, result: RunResult, figures: [String]) -> Row {
        let f = result.figures
        let verdicts = result.budgetVerdicts
        return Row(point: point, seed: seed, budgets: verdicts.isEmpty ? "" : verdicts.allSatisfy(\.pass) ? "PASS" : "FAIL",
                   cells: figures.map { Headline.cell(f[$0] ?? nil) })
    }

    /// The part file: two header lines, then `point,seed,budgets,<figures>` rows.
    public var text: String {
        var out = "# synclab sweep part \(shard)/\(shards)\n# \(spec.json)\n"
        out += "point,seed,budgets," + spec.figures.map(Format.csv).joined(separator: ",") + "\n"
        for r in rows { out += "\(r.point),\(r.seed),\(r.budgets)," + r.cells.joined(separator: ",") + "\n" }
        return out
    }

    /// Reads a part file; nil with a reason when it is not one.
    public static func parse(_ text: String) -> Result<SweepPart, SweepError> {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3, lines[0].hasPrefix("# synclab sweep part "), lines[1].hasPrefix("# ") else {
            return .failure(SweepError("not a sweep part (no '# synclab sweep part i/n' header)"))
        }
        let shardText = lines[0].dropFirst("# synclab sweep part ".count).split(separator: "/")
        guard shardText.count == 2, let shard = Int(shardText[0]), let shards = Int(shardText[1]), shards >= 1, shards <= SweepPart.maximumShards,
              shard >= 0, shard < shards
        else { return .failure(SweepError("bad shard in the header '\(lines[0])'")) }
        guard let spec = SweepSpec.parse(String(lines[1].dropFirst(2))) else {
            return .failure(SweepError("the sweep description (line 2) is not readable"))
        }
        var rows: [Row] = []
        for (i, line) in lines.dropFirst(3).enumerated() where !line.isEmpty {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 + spec.figures.count, let p = Int(fields[0]), let s = UInt64(fields[1]) else {
                return .failure(SweepError("line \(i + 4) is not a row of \(3 + spec.figures.count) fields"))
            }
            guard Row.verdicts.contains(fields[2]) else {
                let shown = fields[2].count > 40 ? "\(fields[2].prefix(20))… (\(fields[2].count) characters)" : fields[2]
                return .failure(SweepError("line \(i + 4), budgets: expected PASS, FAIL or nothing; got '\(shown)'"))
            }
            let cells = Array(fields.dropFirst(3))
            // A figure is one a run can write (`Headline.isPossible`, as `synclab index` checks), or
            // empty where the run had none.
            if let k = cells.indices.first(where: { k in
                !cells[k].isEmpty && !(Double(cells[k]).map { Headline.isPossible($0, figure: spec.figures[k]) } ?? false) }) {
                let shown = cells[k].count > 40 ? "\(cells[k].prefix(20))… (\(cells[k].count) characters)" : cells[k]
                return .failure(SweepError("line \(i + 4), figure \(spec.figures[k]): expected \(Headline.expected(figure: spec.figures[k])) "
                    + "or nothing; got '\(shown)'"))
            }
            rows.append(Row(point: p, seed: s, budgets: fields[2], cells: cells))
        }
        return .success(SweepPart(spec: spec, shard: shard, shards: shards, rows: rows))
    }
}

public struct SweepError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public enum SweepReport {
    /// Combines parts into the sweep's files. Every part must describe the same sweep with the
    /// same shard count, and the parts must be each shard exactly once, each holding exactly its
    /// points × seeds.
    public static func merge(_ parts: [(source: String, part: SweepPart)]) -> Result<[(name: String, contents: String)], SweepError> {
        guard let first = parts.first else { return .failure(SweepError("no parts given")) }
        let spec = first.part.spec, shards = first.part.shards
        var seen: [Int: String] = [:]
        for (source, part) in parts {
            guard part.spec == spec else {
                return .failure(SweepError("\(source) is a part of another sweep than \(first.source) (scenario, fingerprint, --vary, seeds or chart differ)"))
            }
            guard part.shards == shards else {
                return .failure(SweepError("\(source) is shard \(part.shard)/\(part.shards) but \(first.source) is of \(shards) shards"))
            }
            if let other = seen[part.shard] {
                return .failure(SweepError("overlapping parts: \(other) and \(source) are both shard \(part.shard)/\(shards)"))
            }
            seen[part.shard] = source
            // Exactly the shard's points, each with every seed once.
            let expected = (0..<spec.points).filter { SweepSpec.shard(ofPoint: $0, count: shards) == part.shard }
                .flatMap { p in spec.seeds.map { "\(p)/\($0)" } }
            let got = part.rows.map { "\($0.point)/\($0.seed)" }
            guard got.sorted() == expected.sorted() else {
                return .failure(SweepError("\(source): shard \(part.shard)/\(shards) should hold \(expected.count) rows "
                    + "(its points × \(spec.seeds.count) seeds) but holds \(got.count) that do not match; rerun that shard"))
            }
        }
        let missing = (0..<shards).filter { seen[$0] == nil }
        guard missing.isEmpty else {
            return .failure(SweepError("missing parts: shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(shards)" }.joined(separator: ", ")) "
                + "(got \(seen.keys.sorted().map { "\($0)/\(shards)" }.joined(separator: ", ")))"))
        }
        let seedOrder = Dictionary(uniqueKeysWithValues: spec.seeds.enumerated().map { ($1, $0) })
        let rows = parts.flatMap(\.part.rows).sorted {
            ($0.point, seedOrder[$0.seed] ?? 0) < ($1.point, seedOrder[$1.seed] ?? 0)
        }
        return .success(files(spec, rows: rows))
    }

    /// Columns of the Markdown table: the chart's figure first, then a few headline ones.
    static let tableFigures = [Figure.transitionBest500msShareP1, Figure.viewerPairsWithin500msShare, Figure.transitionGapMsP99, Figure.clientErrorMsP99,
                               Figure.wakeRecoveryMinutesDisplayedVsNoSleep, Figure.peakRequestsPerSecond, Figure.bareShare].map(\.key)

    /// A point's budgets over its seeds, as `synclab check --seeds N` judges them with no
    /// failure allowed: PASS when every seed's run passes, FAIL when one fails, empty when the
    /// point sets no budgets.
    public static func pointVerdict(_ rows: [SweepPart.Row]) -> String {
        if rows.contains(where: { $0.budgets == "FAIL" }) { return "FAIL" }
        return rows.contains { $0.budgets == "PASS" } ? "PASS" : ""
    }

    static func files(_ spec: SweepSpec, rows: [SweepPart.Row]) -> [(name: String, contents: String)] {
        let byPoint = Dictionary(grouping: rows, by: \.point)
        let pointVerdicts = (0..<spec.points).map { pointVerdict(byPoint[$0] ?? []) }
        var csv = "point,seed," + (spec.axes.map(\.keyPath) + ["budgets", "point_budgets"] + spec.figures).map(Format.csv).joined(separator: ",") + "\n"
        for r in rows {
            csv += "\(r.point),\(r.seed)," + spec.values(ofPoint: r.point).map(Format.csv).joined(separator: ",") + ","
                + "\(r.budgets),\(pointVerdicts[r.point])," + r.cells.joined(separator: ",") + "\n"
        }
        let chart = self.chart(spec, rows: rows)
        var md = "# Sweep of \(spec.scenario)\n\n"
        md += "\(spec.points) point\(spec.points == 1 ? "" : "s") (every combination of the varied keys, the first varying slowest) × "
            + "\(spec.seeds.count) seed\(spec.seeds.count == 1 ? "" : "s") (\(spec.seeds.map(String.init).joined(separator: ", "))) = \(rows.count) runs "
            + "of the scenario `\(spec.scenario)` (fingerprint `\(spec.fingerprint)`). Every point runs with the same seeds: "
            + "common random numbers, so a difference between points is the design's, not the dice's.\n\n"
        for a in spec.axes { md += "- `\(a.keyPath)` = " + a.values.map { "`\($0)`" }.joined(separator: ", ") + "\n" }
        let passing = pointVerdicts.indices.filter { pointVerdicts[$0] == "PASS" }, failing = pointVerdicts.indices.filter { pointVerdicts[$0] == "FAIL" }
        if passing.isEmpty && failing.isEmpty {
            md += "\nThe scenario sets no budgets, so no point is judged.\n"
        } else {
            func list(_ points: [Int]) -> String { points.count > 20 ? points.prefix(20).map(String.init).joined(separator: ", ") + " …" : points.map(String.init).joined(separator: ", ") }
            md += "\n**Budgets: \(passing.count) of \(spec.points) point\(spec.points == 1 ? "" : "s") pass** (every budget on every seed, "
                + "as `synclab check` judges a run)" + (passing.isEmpty ? "" : "; passing: \(list(passing))")
                + (failing.isEmpty ? "" : "; failing: \(list(failing))") + ".\n"
        }
        let columns = [spec.chart] + tableFigures.filter { $0 != spec.chart }
        let labels = Dictionary(Headline.figures.map { ($0.key, $0.label) }, uniquingKeysWith: { a, _ in a })
        md += "\n| point | seed | " + spec.axes.map { "`\($0.keyPath)`" }.joined(separator: " | ") + " | budgets | "
            + columns.map { labels[$0] ?? $0 }.joined(separator: " | ") + " |\n"
        md += "|---:|---:|" + String(repeating: "---|", count: spec.axes.count) + "---|" + String(repeating: "---:|", count: columns.count) + "\n"
        for r in rows {
            let cells = columns.map { key -> String in
                guard let i = spec.figures.firstIndex(of: key), !r.cells[i].isEmpty else { return "n/a" }
                return r.cells[i]
            }
            md += "| \(r.point) | \(r.seed) | " + spec.values(ofPoint: r.point).map { $0.replacingAll("|", with: "\\|") }.joined(separator: " | ")
                + " | " + (r.budgets.isEmpty ? "none" : r.budgets) + " | " + cells.joined(separator: " | ") + " |\n"
        }
        md += "\n## Chart\n\n![\(chart.title)](\(chart.svgFile))\n\n\(chart.caption) Data: [\(chart.csvFile)](\(chart.csvFile)).\n\n"
        md += "Every figure of every run: [sweep.csv](sweep.csv).\n"
        return [("sweep.md", md), ("sweep.csv", csv), (chart.svgFile, chart.svg), (chart.csvFile, chart.csv)]
    }

    /// The last step of a key path: "population.players" → "players".
    static func shortKey(_ keyPath: String) -> String {
        keyPath.split(separator: ".").last.map(String.init) ?? keyPath
    }

    /// The chart figure, averaged over seeds, against the first key that varies (`chartAxis`: one
    /// position per value, in the order given); one line per combination of the other keys.
    static func chart(_ spec: SweepSpec, rows: [SweepPart.Row]) -> ChartFile {
        let along = spec.chartAxis
        let first = spec.axes[along]
        let rest = spec.axes.indices.filter { $0 != along }
        let column = spec.figures.firstIndex(of: spec.chart)
        let others = rest.reduce(1) { $0 * spec.axes[$1].values.count }
        let label = Dictionary(Headline.figures.map { ($0.key, $0.label) }, uniquingKeysWith: { a, _ in a })[spec.chart] ?? spec.chart
        var csv = Format.csv(first.keyPath) + ",series,mean_" + Format.csv(spec.chart) + ",seeds\n"
        var series: [LineSeries] = []
        var values: [Double] = []
        let byPoint = Dictionary(grouping: rows, by: \.point)
        for o in 0..<others {
            var run: [ChartPoint] = []
            var name = ""
            // The other keys' value indices for line o, the first of them slowest.
            var indices = [Int](repeating: 0, count: spec.axes.count)
            var left = o
            for a in rest.reversed() {
                indices[a] = left % spec.axes[a].values.count
                left /= spec.axes[a].values.count
            }
            for (xi, xv) in first.values.enumerated() {
                indices[along] = xi
                let p = spec.point(ofIndices: indices)
                // The key's last step keeps legend lines short ("players=200").
                name = rest.map { "\(SweepReport.shortKey(spec.axes[$0].keyPath))=\(spec.axes[$0].values[indices[$0]])" }.joined(separator: ", ")
                let cells = (byPoint[p] ?? []).compactMap { r in column.flatMap { Double(r.cells[$0]) } }
                let mean = cells.isEmpty ? nil : cells.reduce(0, +) / Double(cells.count)
                csv += Format.csv(xv) + "," + Format.csv(name) + "," + Headline.cell(mean) + ",\(cells.count)\n"
                if let mean {
                    run.append(ChartPoint(Double(xi), mean))
                    values.append(mean)
                }
            }
            series.append(LineSeries(name: name.isEmpty ? label : name, color: ChartPalette.color(o), width: 2,
                                     runs: [run], inLegend: others > 1, markers: true))
        }
        let n = first.values.count
        let x = ChartAxis(label: first.keyPath, lower: -0.5, upper: Double(n) - 0.5,
                          ticks: first.values.enumerated().map { ChartTick(Double($0), $1) })
        // A time is drawn against the 500 ms the seeds' requirement names (`RunResult.gapWindow`).
        let isTime = Figure.declared(spec.chart)?.unit == .milliseconds
        let top = max(values.max() ?? 1, isTime ? 500 : 0)
        let yLabel = label + (spec.seeds.count > 1 ? ", mean of \(spec.seeds.count) seeds" : "")
        // Milliseconds spanning orders of magnitude (a stopped clock next to a working one) on a log axis.
        let positive = values.filter { $0 > 0 }
        let logarithmic = isTime && positive.count == values.count && (positive.min() ?? 0) > 0
            && (positive.max() ?? 0) / (positive.min() ?? 1) > 20
        let y = logarithmic ? ChartAxis.logTimeMs(label: yLabel + " (log scale)", values: values + [500])
            : ChartAxis.linear(label: yLabel, lower: min(0, values.min() ?? 0), upper: top > 0 ? top : 1, target: 5)
        let chart = LineChart(
            title: "\(label) against \(first.keyPath)", x: x, y: y, series: values.isEmpty ? [] : series,
            references: isTime ? [ReferenceLine(.horizontal, at: 500, label: "500 ms")] : [],
            noDataMessage: "no data: the figure was not measured at any point")
        return ChartFile(name: "sweep_chart", title: chart.title,
                         caption: "`\(spec.chart)` at each value of `\(first.keyPath)`" + (spec.seeds.count > 1 ? ", the mean over the seeds" : "")
                            + (others > 1 ? "; one line per combination of the other varied keys." : "."),
                         svg: chart.svg(), csv: csv)
    }
}
