// Quantities written with units in scenario files: durations, sizes and rates.
//
// Scenario authors write "250ms" or "2MB/s" rather than bare numbers because a bare number
// hides its unit and invites off-by-1000 mistakes. Everything here is pure and Foundation-free.

/// Why a quantity with a unit could not be read; the message quotes the offending text.
public struct UnitError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Parsing and formatting of quantities with units, in base units (nanoseconds, bytes, bytes/s).
///
/// Spaces between number and unit are rejected (with a hint) so that every quantity has one
/// spelling. Negative values parse as negative; the caller decides whether they make sense.
public enum Units {
    /// A unit spelling and how many base units one of it is.
    private struct Unit<Magnitude: Sendable>: Sendable {
        let symbol: String
        let size: Magnitude
    }

    private static let durationUnits: [Unit<Int64>] = [
        Unit(symbol: "ns", size: 1),
        Unit(symbol: "us", size: 1_000),
        Unit(symbol: "ms", size: 1_000_000),
        Unit(symbol: "s", size: 1_000_000_000),
        Unit(symbol: "m", size: 60_000_000_000),
        Unit(symbol: "h", size: 3_600_000_000_000),
        Unit(symbol: "d", size: 86_400_000_000_000),
    ]
    /// Accepted but not advertised: the micro sign (U+00B5) and Greek mu (U+03BC).
    private static let durationAliases: [Unit<Int64>] = [
        Unit(symbol: "\u{B5}s", size: 1_000),
        Unit(symbol: "\u{3BC}s", size: 1_000),
    ]

    private static let byteUnits: [Unit<Double>] = [
        Unit(symbol: "B", size: 1),
        Unit(symbol: "kB", size: 1_000),
        Unit(symbol: "MB", size: 1_000_000),
        Unit(symbol: "GB", size: 1_000_000_000),
        Unit(symbol: "KiB", size: 1_024),
        Unit(symbol: "MiB", size: 1_048_576),
        Unit(symbol: "GiB", size: 1_073_741_824),
    ]

    private static let rateUnits: [Unit<Double>] =
        byteUnits.map { Unit(symbol: $0.symbol + "/s", size: $0.size) } + [
            Unit(symbol: "bit/s", size: 0.125),
            Unit(symbol: "kbit/s", size: 125),
            Unit(symbol: "Mbit/s", size: 125_000),
            Unit(symbol: "Gbit/s", size: 125_000_000),
        ]

    /// Common spellings we do not accept, with what to write instead.
    private static let hints: [String: String] = [
        "KB": "'kB' (1000 bytes) or 'KiB' (1024 bytes)",
        "KB/s": "'kB/s' (1000 bytes) or 'KiB/s' (1024 bytes)",
        "bps": "'bit/s'", "kbps": "'kbit/s'", "Kbps": "'kbit/s'", "Mbps": "'Mbit/s'", "Gbps": "'Gbit/s'",
        "b/s": "'bit/s'", "kb/s": "'kbit/s'", "Mb/s": "'Mbit/s'", "Gb/s": "'Gbit/s'",
        "sec": "'s'", "secs": "'s'", "second": "'s'", "seconds": "'s'", "S": "'s'",
        "min": "'m'", "mins": "'m'", "minute": "'m'", "minutes": "'m'", "M": "'m' (minutes)",
        "hr": "'h'", "hrs": "'h'", "hour": "'h'", "hours": "'h'", "H": "'h'",
        "day": "'d'", "days": "'d'", "D": "'d'",
        "msec": "'ms'", "millis": "'ms'", "usec": "'us'", "nsec": "'ns'",
    ]

    // MARK: Parsing

    /// Parses a duration such as "250ms", "1.5s", "6m", "24h", "2d" or "500us" into nanoseconds.
    ///
    /// Units: ns, us (also µs), ms, s, m, h, d. Decimals are computed exactly in integers, never
    /// through `Double`, so "1.5s" is exactly 1_500_000_000; a value finer than 1ns (like "1.5ns")
    /// is an error rather than silently rounded.
    public static func parseDuration(_ text: String) -> Result<Int64, UnitError> {
        let parsed: Quantity
        switch split(text, kind: "duration", example: "250ms", likeUnits: ["ms", "s"], units: durationUnits.map(\.symbol)) {
        case .failure(let error): return .failure(error)
        case .success(let quantity): parsed = quantity
        }
        guard let unit = (durationUnits + durationAliases).first(where: { $0.symbol == parsed.unit }) else {
            return .failure(unknownUnit(parsed.unit, in: text, units: durationUnits.map(\.symbol)))
        }
        guard let magnitude = exactNanoseconds(integer: parsed.integerDigits, fraction: parsed.fractionDigits, unitSize: unit.size)
        else {
            return .failure(UnitError(message: "duration \"\(text)\" is too large; the limit is about 292 years"))
        }
        switch magnitude {
        case .tooPrecise:
            return .failure(UnitError(message: "duration \"\(text)\" is not a whole number of nanoseconds"))
        case .value(let nanoseconds):
            return .success(parsed.negative ? -nanoseconds : nanoseconds)
        }
    }

    /// Parses a size such as "512B", "20kB" (20_000), "2MB", "1KiB" (1024) or "1MiB" into bytes.
    ///
    /// A bare number is rejected: "20000" could mean bytes or kilobytes, so the unit is required.
    public static func parseBytes(_ text: String) -> Result<Double, UnitError> {
        parseDecimal(text, kind: "size", example: "20kB", likeUnits: ["B", "kB"], units: byteUnits)
    }

    /// Parses a bandwidth such as "50kB/s", "2MB/s", "1Mbit/s" (125_000) or "1Gbit/s" into bytes/s.
    ///
    /// Bit units are accepted because link speeds are usually quoted in bits; the result is
    /// always bytes per second.
    public static func parseRate(_ text: String) -> Result<Double, UnitError> {
        let result = parseDecimal(text, kind: "rate", example: "1Mbit/s", likeUnits: ["kB/s", "Mbit/s"], units: rateUnits)
        // "20kB" is a size, not a rate: say what is missing instead of "unknown unit".
        if case .failure = result, case .success(let quantity) = split(text, kind: "rate", example: "1Mbit/s", likeUnits: ["kB/s", "Mbit/s"], units: []),
           byteUnits.contains(where: { $0.symbol == quantity.unit })
            || rateUnits.contains(where: { $0.symbol == quantity.unit + "/s" }) {
            return .failure(UnitError(
                message: "missing '/s' in \"\(text)\"; a rate is an amount per second, like \"\(compact(text))/s\""))
        }
        return result
    }

    private static func parseDecimal(
        _ text: String, kind: String, example: String, likeUnits: [String], units: [Unit<Double>]
    ) -> Result<Double, UnitError> {
        let symbols = units.map(\.symbol)
        let parsed: Quantity
        switch split(text, kind: kind, example: example, likeUnits: likeUnits, units: symbols) {
        case .failure(let error): return .failure(error)
        case .success(let quantity): parsed = quantity
        }
        guard let unit = units.first(where: { $0.symbol == parsed.unit }) else {
            return .failure(unknownUnit(parsed.unit, in: text, units: symbols))
        }
        let digits = parsed.integerDigits + (parsed.fractionDigits.isEmpty ? "" : "." + parsed.fractionDigits)
        let value = (Double(digits) ?? .infinity) * unit.size
        guard value.isFinite else {
            return .failure(UnitError(message: "\(kind) \"\(text)\" is too large"))
        }
        return .success(parsed.negative ? -value : value)
    }

    // MARK: Splitting "number unit"

    /// The pieces of "-1.5ms": sign, digits before and after the point, and the unit text.
    private struct Quantity {
        var negative: Bool
        var integerDigits: String
        var fractionDigits: String
        var unit: String
    }

    /// Splits `text` into number and unit, checking the number's shape and the spacing.
    ///
    /// `units` is only used for messages; whether the unit is known is the caller's business,
    /// except that a space is reported as a space when removing it would give a known unit.
    /// `likeUnits` are the units a bare number is shown with: more than one, so that the message
    /// never proposes a single reading of "250" that may be 1,000 times off ("250ms" or "250s").
    private static func split(
        _ text: String, kind: String, example: String, likeUnits: [String], units: [String]
    ) -> Result<Quantity, UnitError> {
        let squeezed = compact(text)
        if squeezed.isEmpty {
            return .failure(UnitError(message: "empty \(kind); expected a number with a unit, like \"\(example)\""))
        }
        var rest = Substring(squeezed)
        let negative = rest.first == "-"
        if negative { rest = rest.dropFirst() }
        // Signs are taken into the number so "+5s" and "--5s" are reported as malformed numbers.
        let numberText = rest.prefix(while: { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "+" || $0 == "-") })
        let unit = String(rest.dropFirst(numberText.count))
        if numberText.isEmpty {
            return .failure(UnitError(
                message: "missing number in \"\(text)\"; expected a number before the unit, like \"\(example)\""))
        }
        let pieces = numberText.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2, pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else {
            return .failure(UnitError(
                message: "malformed number '\(numberText)' in \"\(text)\"; expected digits with an optional decimal point, like \"\(example)\""))
        }
        if unit.isEmpty {
            return .failure(UnitError(
                message: "missing unit in \"\(text)\"; expected one of \(units.joined(separator: ", ")), like "
                    + likeUnits.map { "\"\(squeezed)\($0)\"" }.joined(separator: " or ")))
        }
        if squeezed != text, units.contains(unit) {
            return .failure(UnitError(
                message: "unexpected space in \"\(text)\"; write the number and unit together, like \"\(squeezed)\""))
        }
        return .success(Quantity(
            negative: negative, integerDigits: String(pieces[0]),
            fractionDigits: pieces.count == 2 ? String(pieces[1]) : "", unit: unit))
    }

    /// `text` without any whitespace.
    private static func compact(_ text: String) -> String {
        String(text.filter { !$0.isWhitespace })
    }

    private static func unknownUnit(_ unit: String, in text: String, units: [String]) -> UnitError {
        var message = "unknown unit '\(unit)' in \"\(text)\"; expected one of \(units.joined(separator: ", "))"
        if let hint = hints[unit] {
            message += " (did you mean \(hint)?)"
        } else if let match = units.first(where: { $0.lowercased() == unit.lowercased() }) {
            message += " (did you mean '\(match)'?)"
        }
        return UnitError(message: message)
    }

    // MARK: Exact decimal arithmetic

    private enum ExactValue {
        case value(Int64)
        case tooPrecise
    }

    /// `integer.fraction × unitSize` computed exactly; `nil` on Int64 overflow.
    ///
    /// The fraction contributes `fraction × unitSize / 10^digits`, which must be a whole number
    /// of nanoseconds. Dividing by the gcd first keeps every intermediate within Int64.
    private static func exactNanoseconds(integer: String, fraction: String, unitSize: Int64) -> ExactValue? {
        guard let whole = decimalInteger(integer) else { return nil }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: unitSize)
        if overflow { return nil }
        var fractionDigits = Substring(fraction)
        while fractionDigits.last == "0" { fractionDigits = fractionDigits.dropLast() }
        if fractionDigits.isEmpty { return .value(scaled) }
        // With no trailing zeros, more than 18 digits can never give whole nanoseconds for our units.
        guard fractionDigits.count <= 18, let numerator = decimalInteger(fractionDigits) else { return .tooPrecise }
        var denominator: Int64 = 1
        for _ in 0..<fractionDigits.count { denominator *= 10 }
        let common = gcd(unitSize, denominator)
        let reducedDenominator = denominator / common
        guard numerator % reducedDenominator == 0 else { return .tooPrecise }
        let (part, partOverflow) = (numerator / reducedDenominator).multipliedReportingOverflow(by: unitSize / common)
        if partOverflow { return nil }
        let (total, totalOverflow) = scaled.addingReportingOverflow(part)
        return totalOverflow ? nil : .value(total)
    }

    /// The value of a string of ASCII digits; `nil` on overflow.
    private static func decimalInteger<S: StringProtocol>(_ digits: S) -> Int64? {
        var value: Int64 = 0
        for character in digits {
            guard let digit = character.wholeNumberValue else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(Int64(digit))
            if overflow1 || overflow2 { return nil }
            value = next
        }
        return value
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }

    // MARK: Formatting

    /// Formats nanoseconds for people: "0s", "1.5ms", "42us", "59.25s", "6m", "1h30m", "2d3h".
    ///
    /// Below a minute the largest unit that keeps the number at least 1 is used, with exact
    /// decimals and no trailing zeros. From a minute up the value is split into d, h, m and s
    /// parts, omitting zero parts. Reports need this to be deterministic, so no Foundation
    /// formatters or floating point are involved. Compound outputs such as "1h30m" are for
    /// reading, not for `parseDuration`.
    public static func formatDuration(_ ns: Int64) -> String {
        if ns == 0 { return "0s" }
        let sign = ns < 0 ? "-" : ""
        let magnitude = ns.magnitude
        let second: UInt64 = 1_000_000_000
        let minute = 60 * second
        if magnitude < minute {
            let (size, symbol): (UInt64, String) =
                magnitude >= second ? (second, "s") : magnitude >= 1_000_000 ? (1_000_000, "ms")
                : magnitude >= 1_000 ? (1_000, "us") : (1, "ns")
            return sign + decimal(magnitude, unit: size) + symbol
        }
        let hour = 60 * minute
        let day = 24 * hour
        var parts: [String] = []
        var rest = magnitude
        for (size, symbol) in [(day, "d"), (hour, "h"), (minute, "m")] where rest >= size {
            parts.append("\(rest / size)\(symbol)")
            rest %= size
        }
        if rest > 0 { parts.append(decimal(rest, unit: second) + "s") }
        return sign + parts.joined()
    }

    /// `value / unit` as exact decimal text without trailing zeros; `unit` is a power of ten.
    private static func decimal(_ value: UInt64, unit: UInt64) -> String {
        let whole = value / unit
        let fraction = value % unit
        guard fraction > 0 else { return "\(whole)" }
        let width = String(unit).count - 1
        var digits = String(fraction)
        digits = String(repeating: "0", count: width - digits.count) + digits
        while digits.last == "0" { digits.removeLast() }
        return "\(whole).\(digits)"
    }
}
