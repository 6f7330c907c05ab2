// A strict RFC 8259 JSON reader and writer of our own.
//
// Scenario files are JSON. We do not use JSONSerialization or JSONDecoder because we need
// three things they do not give: object keys in the order they were written (so output and
// messages are deterministic), the exact text of every number (so "0.1" stays "0.1"), and
// line/column positions in syntax errors (so a user can find the mistake).

/// One `"key": value` pair of a JSON object.
///
/// Objects are stored as arrays of members rather than dictionaries so that key order survives.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A parsed JSON value.
///
/// Numbers keep both their `Double` value and the literal text they were written with, so
/// re-serializing a scenario reproduces its numbers exactly and integer readers can be exact
/// beyond 2^53. Two numbers are equal only when both value and literal agree.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double, literal: String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The kind of value with its article, for messages such as "got 5 (a number)".
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value for a message, as input errors show it: `"many" (a string)`, `5 (a number)`, `an array`.
    public var describedForMessage: String { InputNode.describe(self) }

    /// Looks up `key` in an object; `nil` for a missing key or when this is not an object.
    ///
    /// The parser rejects duplicate keys, so at most one member can match.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    /// Deep-merges `override` onto `base`; this is how a scenario's `extends` works.
    ///
    /// When both sides are objects, members merge key by key: base keys keep their order
    /// (taking the override's value where present, merged recursively) and keys only in the
    /// override are appended in the override's order. In every other case (arrays, scalars,
    /// `null`, or mismatched kinds) the override replaces the base whole, because merging lists
    /// element-wise would be surprising. So does an object whose `"kind"` differs from the
    /// base's: a lognormal replacing a uniform must not inherit the uniform's `min` and `max`.
    /// A member whose override is `null` is removed, so a scenario can drop an inherited key
    /// and get its default back (the original plan drops v1.1.5's fleet).
    public static func merging(base: JSONValue, override: JSONValue) -> JSONValue {
        guard case .object(let baseMembers) = base, case .object(let overrideMembers) = override else {
            return override
        }
        if let kind = override["kind"], kind != base["kind"] { return override }
        var merged: [JSONMember] = baseMembers.compactMap { member in
            guard let replacement = override[member.key] else { return member }
            if replacement == .null { return nil }
            return JSONMember(key: member.key, value: merging(base: member.value, override: replacement))
        }
        for member in overrideMembers where base[member.key] == nil && member.value != .null {
            merged.append(member)
        }
        return .object(merged)
    }

    /// Writes the value as JSON text, keys in stored order and numbers by their literal.
    ///
    /// `indent` > 0 gives one member or element per line indented by that many spaces per
    /// level; `indent` 0 gives compact output with no whitespace. No trailing newline. The same
    /// value always produces the same text.
    public func serialized(indent: Int = 2) -> String {
        var out = ""
        write(into: &out, indent: max(0, indent), level: 0)
        return out
    }

    private func write(into out: inout String, indent: Int, level: Int) {
        switch self {
        case .null:
            out += "null"
        case .bool(let flag):
            out += flag ? "true" : "false"
        case .number(let number, let literal):
            out += literal.isEmpty ? "\(number)" : literal
        case .string(let text):
            JSONValue.writeString(text, into: &out)
        case .array(let elements):
            writeContainer(open: "[", close: "]", count: elements.count, into: &out, indent: indent, level: level) { index, out in
                elements[index].write(into: &out, indent: indent, level: level + 1)
            }
        case .object(let members):
            writeContainer(open: "{", close: "}", count: members.count, into: &out, indent: indent, level: level) { index, out in
                JSONValue.writeString(members[index].key, into: &out)
                out += indent > 0 ? ": " : ":"
                members[index].value.write(into: &out, indent: indent, level: level + 1)
            }
        }
    }

    private func writeContainer(
        open: String, close: String, count: Int, into out: inout String, indent: Int, level: Int,
        element: (Int, inout String) -> Void
    ) {
        out += open
        guard count > 0 else { out += close; return }
        let inner = String(repeating: " ", count: indent * (level + 1))
        for index in 0..<count {
            if index > 0 { out += "," }
            if indent > 0 { out += "\n" + inner }
            element(index, &out)
        }
        if indent > 0 { out += "\n" + String(repeating: " ", count: indent * level) }
        out += close
    }

    /// Writes `text` as a quoted JSON string, escaping only what JSON requires.
    static func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + hex4(scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

/// Four uppercase hex digits, zero-padded, as used in `\uXXXX` and `U+XXXX`.
func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// A JSON syntax error with a 1-based line and column.
///
/// Columns count Unicode scalars from the start of the line, so they match what an editor shows
/// for most text.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// "line 3, column 7: expected ':' after an object key".
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// Strict RFC 8259 parsing.
///
/// Strict because lenient parsers hide mistakes: a trailing comma or comment that one tool
/// accepts and another rejects makes scenario files non-portable.
public enum JSONParser {
    /// Objects and arrays may nest at most this deep; deeper input is rejected, not crashed on.
    public static let maximumDepth = 200

    /// Parses one JSON value filling the whole of `text` (surrounding whitespace allowed).
    ///
    /// Rejects trailing commas, comments, NaN/Infinity, single quotes, unescaped control
    /// characters in strings, unpaired surrogates, duplicate keys within one object, nesting
    /// deeper than `maximumDepth`, and anything after the value. A leading byte order mark is
    /// skipped because some editors add one.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var parser = Parser(bytes: Array(text.utf8))
        return try parser.parseDocument()
    }
}

/// The byte-level recursive-descent parser behind `JSONParser.parse`.
private struct Parser {
    let bytes: [UInt8]
    /// Where the text starts: 3 when a byte order mark is skipped, so columns ignore it.
    let contentStart: Int
    var position: Int
    var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        contentStart = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        position = contentStart
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count {
            throw failure("unexpected \(describeHere()) after the JSON value")
        }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = peek() else { throw failure("expected a JSON value but found the end of the input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "'"): throw failure("strings must use double quotes, not single quotes")
        case UInt8(ascii: "/"): throw failure("comments are not allowed in JSON")
        default:
            if isWordByte(byte) { return try parseWord() }
            throw failure("unexpected \(describeHere()); expected a JSON value")
        }
    }

    mutating func parseWord() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        while let byte = peek(), isWordByte(byte) { position += 1 }
        let word = String(decoding: bytes[start..<position], as: UTF8.self)
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case "NaN", "Infinity":
            throw failure("\(word) is not allowed; JSON numbers must be finite", at: start)
        case "True", "TRUE", "False", "FALSE", "Null", "NULL", "None", "nil":
            let suggestion = word == "None" || word == "nil" ? "null" : word.lowercased()
            throw failure("unexpected word '\(word)'; did you mean '\(suggestion)'?", at: start)
        default:
            throw failure("unexpected word '\(word)'; strings must be in double quotes", at: start)
        }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        position += 1 // "{"
        var members: [JSONMember] = []
        var seen: Set<String> = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                if peek() == UInt8(ascii: "}") { throw failure("trailing comma before '}' is not allowed") }
                if peek() == UInt8(ascii: "'") { throw failure("strings must use double quotes, not single quotes") }
                if peek() == UInt8(ascii: "/") { throw failure("comments are not allowed in JSON") }
                if let byte = peek(), isWordByte(byte) { throw failure("object keys must be strings in double quotes") }
                throw failure("expected a string key in double quotes")
            }
            let keyStart = position
            let key = try parseString()
            if !seen.insert(key).inserted {
                throw failure("duplicate key \"\(key)\"", at: keyStart)
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':' after an object key") }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(key: key, value: value))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(members)
            default:
                throw failure("expected ',' or '}' after an object member")
            }
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        position += 1 // "["
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { throw failure("trailing comma before ']' is not allowed") }
            elements.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default:
                throw failure("expected ',' or ']' after an array element")
            }
        }
    }

    mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maximumDepth {
            throw failure("nesting is deeper than \(JSONParser.maximumDepth) levels")
        }
    }

    // MARK: Numbers

    /// Scans `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` and keeps the literal text.
    mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        if peek() == UInt8(ascii: "-") {
            position += 1
            if let byte = peek(), isWordByte(byte), !isDigit(byte) {
                let wordStart = position
                while let next = peek(), isWordByte(next) { position += 1 }
                if String(decoding: bytes[wordStart..<position], as: UTF8.self) == "Infinity" {
                    throw failure("-Infinity is not allowed; JSON numbers must be finite", at: start)
                }
                position = wordStart
            }
        }
        guard let first = peek(), isDigit(first) else { throw failure("expected a digit after '-'") }
        position += 1
        if first == UInt8(ascii: "0"), let next = peek(), isDigit(next) {
            throw failure("leading zeros are not allowed in numbers", at: start)
        }
        skipDigits()
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let byte = peek(), isDigit(byte) else { throw failure("expected a digit after the decimal point") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let byte = peek(), isDigit(byte) else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        let literal = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let number = Double(literal), number.isFinite else {
            let shown = literal.count > 40 ? "\(literal.prefix(20))… (\(literal.count) characters)" : literal
            throw failure("number \(shown) is too large", at: start)
        }
        return .number(number, literal: literal)
    }

    mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    // MARK: Strings

    /// Parses a double-quoted string starting at the opening quote, decoding every escape.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = position
        position += 1
        var buffer: [UInt8] = []
        while true {
            guard let byte = peek() else { throw failure("unterminated string", at: open) }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer, stringStart: open)
            case 0..<0x20:
                let hint = byte == UInt8(ascii: "\n") ? " (missing closing quote?)" : ""
                throw failure("control character U+\(hex4(UInt32(byte))) must be escaped in a string\(hint)")
            default:
                buffer.append(byte)
                position += 1
            }
        }
    }

    mutating func parseEscape(into buffer: inout [UInt8], stringStart: Int) throws(JSONSyntaxError) {
        let escapeStart = position
        position += 1 // "\"
        guard let byte = peek() else { throw failure("unterminated string", at: stringStart) }
        position += 1
        let simple: UInt8?
        switch byte {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default:
            position -= 1
            throw failure("invalid escape '\\\(describeHere(quoted: false))' in a string", at: escapeStart)
        }
        if let simple {
            buffer.append(simple)
            return
        }
        let first = try parseHex4(escapeStart: escapeStart)
        var scalarValue = first
        if (0xD800...0xDBFF).contains(first) {
            let lowStart = position
            guard peek() == UInt8(ascii: "\\"), peek(offset: 1) == UInt8(ascii: "u") else {
                throw failure("unpaired surrogate \\u\(hex4(first)) in a string", at: escapeStart)
            }
            position += 2
            let second = try parseHex4(escapeStart: lowStart)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw failure("unpaired surrogate \\u\(hex4(first)) in a string", at: escapeStart)
            }
            scalarValue = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw failure("unpaired surrogate \\u\(hex4(first)) in a string", at: escapeStart)
        }
        // Every value here is a valid scalar: surrogates were paired or rejected above.
        UTF8.encode(Unicode.Scalar(scalarValue)!) { buffer.append($0) }
    }

    /// Reads the four hex digits after `\u`.
    mutating func parseHex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = hexValue(byte) else {
                throw failure("invalid \\u escape: expected 4 hex digits", at: escapeStart)
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    // MARK: Helpers

    func peek(offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    mutating func skipWhitespace() {
        while let byte = peek(),
              byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t") {
            position += 1
        }
    }

    /// Names what is at the current position: "end of input", "character 'x'" or "U+0007".
    func describeHere(quoted: Bool = true) -> String {
        guard position < bytes.count else { return "end of input" }
        var end = position + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let text = String(decoding: bytes[position..<end], as: UTF8.self)
        guard let scalar = text.unicodeScalars.first else { return "end of input" }
        if !quoted { return text }
        if scalar.value < 0x20 || scalar.value == 0x7F { return "character U+\(hex4(scalar.value))" }
        return "character '\(text)'"
    }

    /// A syntax error at `offset` (default: the current position) with its line and column.
    func failure(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let end = min(offset ?? position, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes[min(contentStart, end)..<end] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(line: line, column: column, message: message)
    }
}

private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

/// Letters, digits and underscore: the bytes of a bare word such as `true` or `NaN`.
private func isWordByte(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
}

private func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
    default: return nil
    }
}
