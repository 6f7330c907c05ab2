import Foundation
import SyncLabKernel

/// Latency traces: a distribution read from a CSV file of recorded samples, drawn as an
/// empirical distribution (each request draws one recorded sample uniformly).
///
/// In a scenario: `{"trace": "traces/lte-uplink.csv", "column": "uplink_ms", "unit": "ms"}`
/// wherever a delay distribution goes. The path is relative to the scenario file that names it
/// (`ScenarioLoader` anchors it before merging an `extends` chain). The file: one sample per
/// line, comma-separated columns; a first line that is not all numbers is the header; blank lines
/// and lines starting with `#` (a note on where the numbers come from) are skipped. `column`
/// names a header column; without it the file must have a single column. Every problem — no
/// file, no samples, a cell that is not a number — names the file, the line and the key path.
public enum LatencyTrace {
    /// Trace files larger than this are refused unread: latency traces (a million samples is
    /// ~10 MB) and Mahimahi delivery traces (`MahimahiTrace`) alike (docs/safety.md).
    public static let maximumFileBytes = 50_000_000
    public static let maximumSamples = 1_000_000
    /// Units a trace's numbers may be in, with their size in nanoseconds.
    public static let units: [(name: String, ns: Double)] = [("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9)]

    /// A problem in a trace file at a line (1-based; 0: the file as a whole).
    public struct Problem: Error, Equatable {
        public var line: Int
        public var message: String
        /// The problem is the `column` named (or missing), not the file's content.
        public var aboutColumn = false
    }

    /// The samples of `column` (or of the only column) in `text`, in the file's unit (not yet
    /// scaled). Pure: the file system is read by the caller.
    public static func samples(in text: String, column: String?) throws(Problem) -> [Double] {
        var header: [String]? = nil
        var index: Int? = nil
        var values: [Double] = []
        var lineNumber = 0
        var sawData = false
        // "\r\n" is one Character in Swift, which a split on "\n" would not split.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if !sawData && header == nil && cells.contains(where: { Double($0) == nil }) {
                header = cells
                index = try columnIndex(cells, column, line: lineNumber)
                continue
            }
            sawData = true
            if index == nil { index = try columnIndex(nil, column, cells: cells.count, line: lineNumber) }
            let i = index!
            guard i < cells.count else {
                throw Problem(line: lineNumber, message: "has \(cells.count) column\(cells.count == 1 ? "" : "s"); expected at least \(i + 1)")
            }
            let cell = cells[i]
            guard let value = Double(cell), value.isFinite else {
                let name = header.map { "column '\($0[i])'" } ?? "the cell"
                throw Problem(line: lineNumber, message: "\(name) is \"\(cell)\", not a number")
            }
            guard value >= 0 else {
                throw Problem(line: lineNumber, message: "\"\(cell)\" is negative; a latency cannot be")
            }
            guard values.count < maximumSamples else {
                throw Problem(line: lineNumber, message: "more than \(maximumSamples) samples")
            }
            values.append(value)
        }
        guard !values.isEmpty else { throw Problem(line: 0, message: "has no samples") }
        return values
    }

    static func columnIndex(_ header: [String]?, _ column: String?, cells: Int = 0, line: Int) throws(Problem) -> Int {
        if let header {
            guard let column else {
                guard header.count == 1 else {
                    throw Problem(line: line, message: "has \(header.count) columns (\(header.joined(separator: ", "))); name one with 'column'",
                              aboutColumn: true)
                }
                return 0
            }
            guard let i = header.firstIndex(of: column) else {
                throw Problem(line: line, message: "has no column '\(column)' in its header (\(header.joined(separator: ", ")))",
                              aboutColumn: true)
            }
            return i
        }
        guard column == nil else {
            throw Problem(line: line, message: "has no header line, so no column can be named '\(column!)'", aboutColumn: true)
        }
        guard cells == 1 else { throw Problem(line: line, message: "has \(cells) columns and no header; a file without one must have one column") }
        return 0
    }

    /// `value` with every relative `trace` path of its objects made relative to the folder of
    /// `file` (the scenario file that wrote it), so a trace follows its scenario through
    /// `extends` chains and working folders.
    public static func anchorPaths(_ value: JSONValue, in file: String) -> JSONValue {
        let folder = (file as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return value }
        return anchor(value, folder)
    }

    static func anchor(_ value: JSONValue, _ folder: String) -> JSONValue {
        switch value {
        case .array(let elements): return .array(elements.map { anchor($0, folder) })
        case .object(let members):
            return .object(members.map { m in
                if m.key == "trace", case .string(let path) = m.value, !path.isEmpty, !path.hasPrefix("/") {
                    return JSONMember(key: m.key, value: .string(folder + "/" + path))
                }
                return JSONMember(key: m.key, value: anchor(m.value, folder))
            })
        default: return value
        }
    }
}

extension InputNode {
    /// `{"trace": FILE, "column": NAME, "unit": "ms"}` as an empirical distribution of durations.
    func traceDistribution(_ q: Quantity, _ bounds: Bounds) throws -> Distribution {
        let traceNode = try required("trace")
        guard q == .duration else {
            throw traceNode.error("latency traces hold durations; this key takes a \(q == .rate ? "rate" : "number")")
        }
        let path = try traceNode.string()
        let column = try optional("column") { try $0.string() }
        let unitNode = child("unit")
        let unitName = try unitNode.map { try $0.string() } ?? "ms"
        guard let unit = LatencyTrace.units.first(where: { $0.name == unitName }) else {
            throw unitNode!.error("unknown unit '\(unitName)'; expected one of \(LatencyTrace.units.map { "'\($0.name)'" }.joined(separator: ", "))")
        }
        try rejectUnknownKeys()
        let text = try Self.readTrace(path, at: traceNode)
        let raw: [Double]
        do {
            raw = try LatencyTrace.samples(in: text, column: column)
        } catch {
            let at = error.line == 0 ? "" : " line \(error.line)"
            // Cells and headers are quoted only from a file named .csv: a trace path can name any
            // readable file, whose lines an error message must not reveal (docs/safety.md).
            let message = path.lowercased().hasSuffix(".csv") || error.line == 0 ? error.message
                : "not a trace of samples (its content is not quoted because its name does not end in .csv)"
            throw (error.aboutColumn ? child("column") ?? traceNode : traceNode)
                .error("trace file '\(path)'\(at): \(message)")
        }
        var samples: [Double] = []
        samples.reserveCapacity(raw.count)
        for (i, v) in raw.enumerated() {
            let ns = (v * unit.ns).rounded()
            if let most = bounds.most, ns > most {
                throw traceNode.error("trace file '\(path)': sample \(i + 1) (\(Bounds.describe(ns, .duration))) is above the limit of \(Bounds.describe(most, .duration))")
            }
            samples.append(ns)
        }
        return .empirical(samples)
    }

    /// The text of a trace file, read through the scenario's resolver, or an error naming it.
    static func readTrace(_ path: String, at node: InputNode) throws(InputError) -> String {
        let data: Data
        do {
            data = try node.resolver.contents(of: node.resolver.name(of: path, from: nil), maximumBytes: LatencyTrace.maximumFileBytes)
        } catch {
            switch error {
            case .missing: throw node.error("trace file '\(path)' does not exist (paths are relative to the scenario file)")
            case .folder: throw node.error("trace file '\(path)' is a folder; expected a CSV file")
            case .tooLarge(let bytes):
                throw node.error("trace file '\(path)' has \(bytes) bytes; at most \(LatencyTrace.maximumFileBytes) are allowed")
            case .unreadable(let reason): throw node.error("trace file '\(path)' cannot be read: \(reason)")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else { throw node.error("trace file '\(path)' is not UTF-8 text") }
        return text
    }
}
