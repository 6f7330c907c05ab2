import SyncLab
import SyncLabKernel

/// Number formatting that is the same on every machine and locale: integer rounding, no
/// `String(format:)`.
public enum Format {
    /// `x` with exactly `decimals` digits after the point ("-1.250"); "NaN" never appears:
    /// non-finite input renders as "n/a".
    public static func fixed(_ x: Double, _ decimals: Int) -> String {
        guard x.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(x) * scale).rounded(.toNearestOrEven)
        guard scaled < 9e18 else { return x < 0 ? "-\(abs(x))" : "\(x)" }
        let n = Int64(scaled)
        let negative = x < 0 && n != 0
        let p = Int64(scale)
        var s = "\(n / p)"
        if decimals > 0 {
            let frac = "\(n % p)"
            s += "." + String(repeating: "0", count: decimals - frac.count) + frac
        }
        return negative ? "-" + s : s
    }

    /// A time for people: "123.4 ms" below 10 s, else "21m22.6s" (signed).
    public static func human(_ ns: Int64?) -> String {
        guard let ns else { return "n/a" }
        if abs(ns) < 10 * 1_000_000_000 { return fixed(Double(ns) / 1e6, 1) + " ms" }
        let tenths = (abs(ns) + 50_000_000) / 100_000_000 * 100_000_000
        return (ns < 0 ? "-" : "") + Units.formatDuration(tenths)
    }
    /// Milliseconds (as a Double figure) for people.
    public static func humanMs(_ ms: Double?) -> String {
        guard let ms, ms.isFinite else { return "n/a" }
        // Beyond what nanoseconds in 64 bits hold (about 292 years): whole seconds.
        guard abs(ms) < 9e12 else { return fixed(ms / 1000, 0) + " s" }
        return human(Int64((ms * 1e6).rounded()))
    }

    /// Milliseconds from nanoseconds with 3 decimals.
    public static func ms(_ ns: Int64) -> String { fixed(Double(ns) / 1e6, 3) }
    public static func ms(_ ns: Int64?) -> String { ns.map(ms) ?? "n/a" }
    public static func percent(_ share: Double?, _ decimals: Int = 2) -> String {
        share.map { fixed($0 * 100, decimals) + "%" } ?? "n/a"
    }
    public static func optional(_ x: Double?, _ decimals: Int) -> String { x.map { fixed($0, decimals) } ?? "n/a" }

    /// `x` with at most `decimals` digits after the point and no trailing zeros ("500", "0.25").
    public static func compact(_ x: Double, _ decimals: Int = 3) -> String {
        var s = fixed(x, decimals)
        guard s.contains("."), x.isFinite else { return s }
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }

    /// A whole number with thousands separated by commas ("2,472,240"), for people.
    public static func grouped(_ x: Double) -> String {
        let digits = fixed(x, 0)
        guard x.isFinite, digits.count > 3 else { return digits }
        let negative = digits.hasPrefix("-")
        let body = Array(negative ? digits.dropFirst() : Substring(digits))
        var out = ""
        for (i, c) in body.enumerated() {
            if i > 0 && (body.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (negative ? "-" : "") + out
    }

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
