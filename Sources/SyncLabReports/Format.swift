import SyncLab
import SyncLabKernel

/// Number formatting that is the same on every machine and locale: integer rounding, no
/// `String(format:)`.
public enum Format {
    /// `x` with exactly `decimals` digits after the point ("-1.250"); "NaN" never appears:
    /// non-finite input renders as "n/a".
    public static func fixed(_ x: Double, _ decimals: Int) -> String { NumberText.fixed(x, decimals) }

    /// Nanoseconds for people: `duration(ms:)`, the one duration format.
    public static func human(_ ns: Int64?) -> String { duration(ms: ns.map { Double($0) / 1e6 }) }
    /// Milliseconds (as a Double figure) for people: `duration(ms:)`, the one duration format.
    public static func humanMs(_ ms: Double?) -> String { duration(ms: ms) }

    /// A duration for people, from milliseconds, with the unit that keeps it short:
    /// below 10 ms one decimal ("3.2 ms"), below 1 s whole milliseconds ("399 ms"), below
    /// 1 min tenths of a second ("12.3 s"), below 1 h minutes and seconds ("13 min 53 s"),
    /// else hours and minutes ("2 h 05 min"). Each step rounds first and then picks the unit, so
    /// 59.96 s reads "1 min 00 s", never "60.0 s". Signed; "n/a" for nil or non-finite.
    public static func duration(ms: Double?) -> String {
        guard let ms, ms.isFinite else { return "n/a" }
        let sign = ms < 0 ? "-" : ""
        let m = abs(ms)
        func whole(_ x: Double) -> Int64 { x < 9e18 ? Int64(x.rounded(.toNearestOrEven)) : Int64.max }
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if whole(m * 10) < 100 { return sign + fixed(m, 1) + " ms" }
        if whole(m) < 1000 { return sign + "\(whole(m)) ms" }
        let tenths = whole(m / 100)
        if tenths < 600 { return sign + fixed(Double(tenths) / 10, 1) + " s" }
        let seconds = whole(m / 1000)
        if seconds < 3600 { return sign + "\(seconds / 60) min \(two(seconds % 60)) s" }
        let minutes = whole(m / 60_000)
        return sign + "\(minutes / 60) h \(two(minutes % 60)) min"
    }

    /// A figure of `RunResult.figures` for people, in the unit its declaration (`Figure`) gives.
    /// "not measured" for nil. Data files keep the figure's own unit.
    public static func figure(_ value: Double?, metric: String) -> String {
        guard let value, value.isFinite else { return "not measured" }
        return figure(value, unit: Figure.declared(metric)?.unit ?? .count)
    }

    /// `value` in `unit` for people: milliseconds as a duration ("13 min 53 s"), a share as a
    /// percentage ("99.9%"), minutes ("2 min"), dollars ("$1,234.57"), bytes with a decimal
    /// prefix, requests per second ("98 req/s"), anything else a plain number with thousands
    /// grouped.
    public static func figure(_ value: Double, unit: FigureUnit) -> String {
        switch unit {
        case .milliseconds: return duration(ms: value)
        case .share: return groupedCompact(value * 100, 3) + "%"
        case .minutes: return compact(value, 1) + " min"
        case .dollars: return (value < 0 ? "-$" : "$") + groupedCompact(abs(value), 2)
        case .bytes: return bytes(value)
        case .requestsPerSecond: return groupedCompact(value, 2) + " req/s"
        case .count, .ratio, .flag: return groupedCompact(value, 3)
        }
    }

    /// Bytes with a decimal prefix and one decimal: "950 B", "12.7 kB", "143.0 MB", "2.1 GB".
    public static func bytes(_ x: Double) -> String {
        guard x.isFinite else { return "n/a" }
        let units = ["kB", "MB", "GB", "TB", "PB"]
        if abs(x) < 999.5 { return fixed(x, 0) + " B" }
        var v = x / 1000
        for (i, unit) in units.enumerated() {
            if abs(v) < 999.95 || i == units.count - 1 { return fixed(v, 1) + " " + unit }
            v /= 1000
        }
        return fixed(x, 0) + " B"
    }

    /// `compact` with the whole part's thousands grouped: "1,234.5", "0.25".
    public static func groupedCompact(_ x: Double, _ decimals: Int) -> String {
        let s = compact(abs(x), decimals)
        guard x.isFinite else { return s }
        let dot = s.firstIndex(of: ".") ?? s.endIndex
        let body = grouped(Double(String(s[..<dot])) ?? 0) + String(s[dot...])
        return x < 0 && body != "0" ? "-" + body : body
    }

    /// "1 scenario", "2 scenarios": `count` with the noun in the number it takes.
    public static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(grouped(Double(n))) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    /// Milliseconds from nanoseconds with 3 decimals.
    public static func ms(_ ns: Int64) -> String { fixed(Double(ns) / 1e6, 3) }
    public static func ms(_ ns: Int64?) -> String { ns.map(ms) ?? "n/a" }
    public static func percent(_ share: Double?, _ decimals: Int = 2) -> String {
        share.map { fixed($0 * 100, decimals) + "%" } ?? "n/a"
    }
    public static func optional(_ x: Double?, _ decimals: Int) -> String { x.map { fixed($0, decimals) } ?? "n/a" }

    /// `x` with at most `decimals` digits after the point and no trailing zeros ("500", "0.25").
    public static func compact(_ x: Double, _ decimals: Int = 3) -> String { NumberText.compact(x, decimals) }

    /// A whole number with thousands separated by commas ("2,472,240"), for people.
    public static func grouped(_ x: Double) -> String { NumberText.grouped(x) }

    /// Text for XML character data or a quoted attribute: `& < > " '` escaped, the control
    /// characters XML 1.0 forbids replaced by U+FFFD, and (in attributes, where parsers would
    /// turn them into spaces) tab and line breaks written as character references.
    public static func xml(_ s: String, attribute: Bool = false) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r":
                if attribute { out += "&#\(scalar.value);" } else { out.unicodeScalars.append(scalar) }
            default:
                let v = scalar.value
                if v < 0x20 || v == 0xFFFE || v == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A CSV field, quoted when it needs to be.
    public static func csv(_ field: String) -> String {
        if field.contains(",") || field.contains("\"") || field.contains("\n") {
            return "\"" + field.replacingAll("\"", with: "\"\"") + "\""
        }
        return field
    }

    /// A JSON string literal (the input layer's writer, so both escape alike).
    public static func jsonString(_ s: String) -> String { JSONValue.string(s).serialized() }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
