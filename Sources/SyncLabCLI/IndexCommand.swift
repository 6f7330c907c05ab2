import Foundation
import SyncLab
import SyncLabReports

/// `synclab index`: one Markdown table comparing the headline figures of report folders (the
/// gallery's `Reports/README.md`), read from each folder's `summary.json`.
struct IndexCommand {
    let cli: CLI

    static let help = """
    synclab index — a table of the headline figures of several report folders

    USAGE
      synclab index REPORT_DIR... [--title TEXT] [--notes FILE] [--out FILE]

    Reads REPORT_DIR/summary.json of each folder and writes one Markdown table (one row per
    folder, in the order given, linking to its report.md) followed by the text of --notes.
    Links are relative to the folders' parent, so write the index beside them. The notes link
    to reports relative to where the notes file lives (../Reports/v115-uptime/report.md from
    Scenarios/); a link into a folder named like an indexed one becomes a link from the
    index (v115-uptime/report.md).
    Default output: standard output.

    EXAMPLE
      synclab index Reports/v115-pausing Reports/v115-uptime --notes Scenarios/gallery-notes.md \\
        --out Reports/README.md

    """

    /// A summary.json or a notes file larger than this is not one SyncLab wrote.
    static let maximumSummaryBytes = 10_000_000

    /// `index` never refused a repeated option: the last value wins.
    static let options = OptionTable(command: "index", options: [
        OptionSpec("--title", .text, "TEXT"), OptionSpec("--notes", .path, "FILE"), OptionSpec("--out", .path, "FILE"),
    ], help: help, refusesRepeats: false)

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard !parsed.positional.isEmpty else { return cli.usageError("index", "missing report folders") }
        // The output first: a problem with it is reported before any summary is read.
        var destination: OutputFile.Destination? = nil
        if let out = parsed.options["--out"] {
            let inputs = parsed.positional.map { ($0 as NSString).appendingPathComponent("summary.json") }
                + [parsed.options["--notes"]].compactMap { $0 }
            switch OutputFile.prepare(out, kind: .index, inputs: inputs) {
            case .success(let d): destination = d
            case .failure(let problem):
                cli.err("synclab index: --out: \(problem.message)\n")
                return 2
            }
        }
        var rows: [(folder: String, figures: IndexRow)] = []
        for folder in parsed.positional {
            let path = (folder as NSString).appendingPathComponent("summary.json")
            let text: String
            switch SafePaths.readInput(path, limit: IndexCommand.maximumSummaryBytes) {
            case .success(let t): text = t
            case .failure(let e):
                cli.err("synclab index: \(path): \(e.message); expected a report folder written by 'synclab run'\n")
                return 2
            }
            do {
                rows.append((folder, try IndexRow(try JSONParser.parse(text))))
            } catch {
                cli.err("synclab index: \(path): \(error)\n")
                return 2
            }
        }
        var notes = ""
        if let notesPath = parsed.options["--notes"] {
            switch SafePaths.readInput(notesPath, limit: IndexCommand.maximumSummaryBytes) {
            case .success(let text): notes = text
            case .failure(let e):
                cli.err("synclab index: \(notesPath): the notes file: \(e.message)\n")
                return 2
            }
            notes = IndexCommand.rebase(notes, notesFolder: URL(fileURLWithPath: notesPath).deletingLastPathComponent().path,
                                        reportFolders: parsed.positional.map { URL(fileURLWithPath: $0).lastPathComponent })
        }
        let title = parsed.options["--title"] ?? "SyncLab reports"
        let markdown = IndexCommand.render(title: title, rows: rows, notes: notes)
        guard let out = parsed.options["--out"], let destination else {
            cli.out(markdown)
            return 0
        }
        do {
            try OutputFile.write(Data(markdown.utf8), to: destination)
        } catch {
            cli.err("synclab index: cannot write \(out): \(ReportWriter.reason(error))\n")
            return 2
        }
        cli.out("wrote \(out)\n")
        return 0
    }

    /// Text for a table cell: a `|` would end the cell and a line break the table, and `[`/`]`
    /// would end a link's text, so each is escaped (a line break becomes a space).
    static func cellText(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "|", "[", "]", "\\": out += "\\" + String(c)
            case "\n", "\r", "\r\n": out += " "
            default: out.append(c)
            }
        }
        return out
    }

    /// `notes` with each relative Markdown link that leads into one of `reportFolders` (by
    /// name: "../Reports/recommended/report.md" read from `notesFolder`) written from the
    /// index's folder instead ("recommended/report.md"), so the notes' links work both where
    /// the notes file lives and in the index beside the report folders. Other links are kept.
    static func rebase(_ notes: String, notesFolder: String, reportFolders: [String]) -> String {
        let names = Set(reportFolders)
        var out = ""
        var rest = Substring(notes)
        while let open = rest.range(of: "](") {
            out += rest[..<open.upperBound]
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ")") else { break }
            let target = String(rest[..<close])
            rest = rest[close...]
            guard !target.contains(":"), !target.hasPrefix("#"), !target.hasPrefix("/") else { out += target; continue }
            let resolved = URL(fileURLWithPath: notesFolder).appendingPathComponent(target).standardized.pathComponents
            if let i = resolved.lastIndex(where: { names.contains($0) }), i + 1 < resolved.count {
                out += resolved[i...].joined(separator: "/")
            } else {
                out += target
            }
        }
        return out + rest
    }

    static func render(title: String, rows: [(folder: String, figures: IndexRow)], notes: String) -> String {
        var md = "# \(title)\n\n"
        md += "Generated by `synclab index` from each report's `summary.json`; regenerate with `make reports`.\n\n"
        md += "| scenario | players | budgets | in best 500 ms window, worst 1% of changes | viewer pairs within 500 ms "
            + "| worst pair p50 / p99 (grows with viewers) | peak req/s | bare | dominant error source |\n"
        md += "|---|---|---|---|---|---|---|---|---|\n"
        for (folder, f) in rows {
            let link = URL(fileURLWithPath: folder).lastPathComponent + "/report.md"
            let budgets = f.budgets.map { $0.total == 0 ? "none set" : ($0.passed == $0.total ? "all \($0.total) hold" : "\($0.total - $0.passed) of \($0.total) fail") } ?? "n/a"
            func rate(_ x: Double?) -> String { x.map { Format.groupedCompact($0, 0) } ?? "n/a" }
            md += "| [\(cellText(f.scenario))](\(link)) | \(Format.grouped(Double(f.players))) | \(budgets) | \(Format.percent(f.bestWindowShareP1, 2)) | "
                + "\(Format.percent(f.pairsWithin500msShare, 2)) | \(Format.duration(ms: f.gapP50)) / \(Format.duration(ms: f.gapP99)) | "
                + "\(rate(f.peakRequestsPerSecond)) | "
                + "\(Format.percent(f.bareShare, 3)) | \(cellText(f.dominantErrorSource ?? "n/a")) |\n"
        }
        if !notes.isEmpty { md += "\n" + notes + (notes.hasSuffix("\n") ? "" : "\n") }
        return md
    }
}

/// The figures of one `summary.json` that the index shows, checked as they are read: a file that
/// is not what `synclab run` writes is an input error naming the key, not a row of nonsense.
struct IndexRow {
    var scenario: String
    var players: Int
    var gapP50, gapP99, gapMax: Double?
    var within500msShare, bareShare: Double?
    /// The cross-player shares that settle as viewers grow (nil in summaries written before them).
    var bestWindowShareP1, pairsWithin500msShare: Double?
    /// Budgets that passed, of how many (nil in a summary without its budgets).
    var budgets: (passed: Int, total: Int)?
    var peakRequestsPerSecond, p99RequestsPerSecond: Double?
    var dominantErrorSource: String?

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    init(_ summary: JSONValue) throws {
        guard case .object = summary else {
            throw Invalid(description: "expected an object (a summary written by 'synclab run'); got \(summary.typeName)")
        }
        // Every figure the summary holds, shown here or not, is one a run can write.
        if let problem = Headline.impossibleFigure(in: summary) { throw Invalid(description: problem) }
        func value(_ path: [String]) -> JSONValue? {
            var node: JSONValue? = summary
            for key in path { node = node?[key] }
            return node
        }
        /// Figure `figure` at its path in summary.json (`Figure.json`), one it can take (the check
        /// `synclab merge` makes of a sweep part), or nil where the run wrote null (a figure it
        /// could not measure) or, with `mayBeMissing`, left out (a figure added after the summary
        /// was written).
        func number(_ figure: Figure, mayBeMissing: Bool = false) throws -> Double? {
            let key = figure.json ?? figure.key
            switch value(key.split(separator: ".").map(String.init)) {
            case .number(let x, _)? where figure.isPossible(x): return x
            case .null?: return nil
            case nil where mayBeMissing: return nil
            case let other?:
                throw Invalid(description: "\(key): expected \(figure.expected) or null; got \(other.describedForMessage)")
            case nil:
                throw Invalid(description: "\(key): missing; expected \(figure.expected) or null")
            }
        }
        func text(_ key: String, nullable: Bool) throws -> String? {
            switch summary[key] {
            case .string(let s)?: return s
            case .null? where nullable: return nil
            case let other?: throw Invalid(description: "\(key): expected a string; got \(other.describedForMessage)")
            case nil: throw Invalid(description: "\(key): missing; expected a string")
            }
        }
        guard let scenario = try text("scenario", nullable: false) else { throw Invalid(description: "scenario: expected a string; got null") }
        self.scenario = scenario
        guard case .number(let count, _)? = value(["clients"]), (0...1e12).contains(count), let whole = Int(exactly: count) else {
            throw Invalid(description: "clients: expected a whole number of players; got \(value(["clients"])?.describedForMessage ?? "nothing")")
        }
        players = whole
        gapP50 = try number(Figure.transitionGapMsP50)
        gapP99 = try number(Figure.transitionGapMsP99)
        gapMax = try number(Figure.transitionGapMsMax)
        within500msShare = try number(Figure.transitionsWithin500msShare)
        bareShare = try number(Figure.bareShare)
        peakRequestsPerSecond = try number(Figure.peakRequestsPerSecond)
        p99RequestsPerSecond = try number(Figure.p99RequestsPerSecond)
        dominantErrorSource = try text("dominantErrorSource", nullable: true)
        bestWindowShareP1 = try number(Figure.transitionBest500msShareP1, mayBeMissing: true)
        pairsWithin500msShare = try number(Figure.viewerPairsWithin500msShare, mayBeMissing: true)
        switch summary["budgets"] {
        case .array(let list)?:
            var passed = 0
            for (i, entry) in list.enumerated() {
                guard case .bool(let pass)? = entry["pass"] else {
                    throw Invalid(description: "budgets[\(i)].pass: expected true or false; got \(entry["pass"]?.describedForMessage ?? "nothing")")
                }
                if pass { passed += 1 }
            }
            budgets = (passed, list.count)
        case nil: budgets = nil
        case let other?: throw Invalid(description: "budgets: expected an array; got \(other.describedForMessage)")
        }
    }
}
