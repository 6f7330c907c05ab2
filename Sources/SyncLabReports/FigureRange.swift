import SyncLab

// One answer, for `synclab index` (a summary.json) and `synclab merge` (a sweep part), to "could a
// run have written this figure?", read from the figure's declaration (`Figure`): a file that is
// not what SyncLab wrote is refused the same way by both, never turned into a row of nonsense.

extension Headline {
    /// A time above this is not from any run (a millennium, in milliseconds).
    public static let largestMs = FigureUnit.largestMs
    /// A request rate above this is not from any run (a billion requests a second).
    public static let largestRate = FigureUnit.largestRate

    /// What figure `key` is, for messages: "a share from 0 to 1", "milliseconds ≥ 0", …
    public static func expected(figure key: String) -> String {
        Figure.declared(key)?.expected ?? "a figure SyncLab writes (no run writes '\(key)')"
    }

    /// Whether `value` is one figure `key` of a run can take: a declared figure, finite and inside
    /// its range.
    public static func isPossible(_ value: Double, figure key: String) -> Bool {
        Figure.declared(key)?.isPossible(value) ?? false
    }
}

extension Headline {
    /// The first figure of a `summary.json` that no run could have written, as "key path:
    /// expected …; got …", or nil when every declared figure it holds (`Figure.json`) is one its
    /// figure can take or null. Figures a summary leaves out are not checked: older summaries
    /// lack the newer ones.
    public static func impossibleFigure(in summary: JSONValue) -> String? {
        func node(_ path: Substring) -> JSONValue? {
            var n: JSONValue? = summary
            for part in path.split(separator: ".") { n = n?[String(part)] }
            return n
        }
        func check(_ figure: Figure, _ path: String, _ value: JSONValue) -> String? {
            switch value {
            case .null: return nil
            case .bool(let b) where figure.unit == .flag: return figure.isPossible(b ? 1 : 0) ? nil : path
            case .number(let x, _) where figure.unit != .flag && figure.isPossible(x): return nil
            default:
                let want = figure.unit == .flag ? "true or false" : figure.expected
                return "\(path): expected \(want) or null; got \(value.describedForMessage)"
            }
        }
        for figure in Figure.all {
            guard let json = figure.json else { continue }
            if let open = json.firstIndex(of: "<"), let close = json.firstIndex(of: ">") {
                // One member per link (or model), the placeholder last: every member of its object.
                let head = json[..<open].dropLast()
                guard json.index(after: close) == json.endIndex, case .object(let members)? = node(head) else { continue }
                for m in members {
                    if let problem = check(figure, "\(head).\(m.key)", m.value) { return problem }
                }
            } else if let value = node(Substring(json)), let problem = check(figure, json, value) {
                return problem
            }
        }
        return nil
    }
}

/// docs/summary-json.md's table of every figure, written from the declarations (`Figure.all`,
/// `Figure.audit`); a test checks the page holds it as written here.
public enum FigureTable {
    static func range(_ f: Figure) -> String {
        func n(_ x: Double) -> String {
            if abs(x) == Double.greatestFiniteMagnitude { return x < 0 ? "−∞" : "∞" }
            if abs(x) >= 1e6 {
                // Large bounds as mantissa and power of ten: "3.2e13".
                var m = abs(x), e = 0
                while m >= 10 { m /= 10; e += 1 }
                return (x < 0 ? "−" : "") + Format.compact(m, 2) + "e\(e)"
            }
            return (x < 0 ? "−" : "") + Format.compact(abs(x), 3)
        }
        return f.unit == .flag ? "true or false" : "\(n(f.range.lowerBound)) to \(n(f.range.upperBound))"
    }

    static func scope(_ f: Figure) -> String {
        switch f.scope {
        case .run: return f.json.map { "`\($0)`" } ?? "budgets only"
        case .deviceEvents: return (f.json.map { "`\($0)`" } ?? "budgets only") + " (device events on)"
        case .acrossSeeds: return "`synclab check --seeds`"
        }
    }

    /// The budget figures: key, unit, range, where summary.json holds it, meaning.
    public static func figures() -> String {
        var md = "| figure | unit | range | in summary.json | meaning |\n|---|---|---|---|---|\n"
        for f in Figure.all {
            md += "| `\(f.key)` | \(f.unit.rawValue) | \(range(f)) | \(scope(f)) | \(f.meaning.replacingOccurrences(of: "|", with: "\\|")) |\n"
        }
        return md
    }

    /// The model audit's figures.
    public static func audit() -> String {
        var md = "| audit figure | unit | meaning |\n|---|---|---|\n"
        for f in Figure.audit { md += "| `\(f.key)` | \(f.unit.rawValue) | \(f.meaning) |\n" }
        return md
    }
}
