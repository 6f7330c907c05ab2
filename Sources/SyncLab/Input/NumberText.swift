/// Numbers as text, the same on every machine and locale: integer rounding, no `String(format:)`.
/// Plug-in summaries use it; the reports' `Format` is built on it.
public enum NumberText {
    /// `x` with exactly `decimals` digits after the point ("-1.250"), rounding half to even;
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

    /// An amount of money in the scenario's currency: "$199.00".
    public static func money(_ x: Double) -> String { "$" + fixed(x, 2) }
}
