// Typed, path-aware reading of a parsed scenario file.
//
// Every error a user sees about scenario content should say which file, which key and what
// was expected, e.g. `lab.json: network.profiles[2].uplink.median: expected a duration with a
// unit, like "250ms"; got 5 (a number)`. InputNode carries the file and key path along as a
// reader descends, and remembers which keys were asked for so typos are reported rather than
// silently ignored.

/// A problem with scenario content, located by file and key path.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// Where in the file: "" for the whole file, else like "network.profiles[2].uplink".
    public var keyPath: String
    public var message: String
    /// The path of the offending key itself when `keyPath` names its object (an unknown key is
    /// reported at its object). Not part of the message: it finds which file of an `extends`
    /// chain wrote the key. Ignored by `==`.
    var subjectPath: String?
    /// Another key the value was judged against ("duration" for a release time), whose file an
    /// `extends` chain names when it differs. Ignored by `==`.
    var relatedPath: String?

    public init(file: String, keyPath: String, message: String) {
        self.file = file
        self.keyPath = keyPath
        self.message = message
    }

    public static func == (a: InputError, b: InputError) -> Bool {
        a.file == b.file && a.keyPath == b.keyPath && a.message == b.message
    }

    /// "file: keyPath: message", or "file: message" when there is no key path. Control
    /// characters (a path from `extends` or a trace may hold ESC or NUL) are shown escaped, so a
    /// message cannot drive the terminal it is printed on.
    public var description: String {
        InputError.escapingControls(keyPath.isEmpty ? "\(file): \(message)" : "\(file): \(keyPath): \(message)")
    }

    /// `text` with every control character but the line break written as `\u{1B}`.
    public static func escapingControls(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if (v < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(v) {
                out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// A reader over one JSON value that knows its file and key path.
///
/// It is a class so that the bookkeeping of asked-for keys is shared by everyone holding the
/// node; `child(_:)` and `elements()` return the same child objects on every call for the same
/// reason. The intended pattern for an object is: read keys with `required`, `child`,
/// `optional` or `value`, then call `rejectUnknownKeys()`.
public final class InputNode {
    public let value: JSONValue
    public let file: String
    /// "" for the root, else like "network.profiles[2].uplink".
    public let path: String
    /// Where asked-for keys are recorded (shared by the whole tree), or nil.
    public let trace: KeyTrace?
    /// Where files the scenario names (latency traces) are read from.
    public let resolver: any ScenarioResolver

    /// Keys asked for on this object, in first-asked order (also the order used in messages).
    private var askedKeys: [String] = []
    private var askedKeySet: Set<String> = []
    /// Children already handed out, so repeated lookups share one node (lookup only, never iterated).
    private var childCache: [String: InputNode] = [:]
    private var elementCache: [InputNode]?

    public init(_ value: JSONValue, file: String, path: String = "", trace: KeyTrace? = nil,
                resolver: any ScenarioResolver = FileSystemScenarioResolver()) {
        self.value = value
        self.file = file
        self.path = path
        self.trace = trace
        self.resolver = resolver
    }

    /// Parses `text` and returns the root node; syntax errors become an `InputError` with the
    /// line and column at the start of the message.
    public static func parse(_ text: String, file: String) throws(InputError) -> InputNode {
        do {
            return InputNode(try JSONParser.parse(text), file: file)
        } catch {
            throw InputError(file: file, keyPath: "", message: error.description)
        }
    }

    /// An error located at this node.
    public func error(_ message: String) -> InputError {
        InputError(file: file, keyPath: path, message: message)
    }

    // MARK: Structure

    /// Throws unless this node is an object, naming what it is instead.
    public func expectObject() throws(InputError) {
        guard case .object = value else { throw error("expected an object; got \(InputNode.describe(value))") }
    }

    /// The member `key`, marking it as read; `nil` when absent or when this is not an object.
    ///
    /// A non-object is not an error here so that optional reads stay simple; `required`,
    /// `keys` and `rejectUnknownKeys` report it.
    public func child(_ key: String) -> InputNode? {
        if askedKeySet.insert(key).inserted {
            askedKeys.append(key)
            trace?.record(key, at: path)
        }
        if let cached = childCache[key] { return cached }
        guard let member = value[key] else { return nil }
        let node = InputNode(member, file: file, path: InputNode.path(path, appending: key), trace: trace, resolver: resolver)
        childCache[key] = node
        return node
    }

    /// The member `key`; a missing key is an error located at where the key should be.
    public func required(_ key: String) throws(InputError) -> InputNode {
        try expectObject()
        if let node = child(key) { return node }
        var message = "missing required key"
        if let typo = unknownKeys().first(where: { InputNode.isLikelyTypo($0, of: key) }) {
            message += "; found '\(typo)', is it misspelled?"
        }
        throw InputError(file: file, keyPath: InputNode.path(path, appending: key), message: message)
    }

    /// The elements of an array, with paths like "x[0]", "x[1]".
    public func elements() throws(InputError) -> [InputNode] {
        if let elementCache { return elementCache }
        guard case .array(let values) = value else { throw error("expected an array; got \(InputNode.describe(value))") }
        let nodes = values.enumerated().map { index, element in
            InputNode(element, file: file, path: "\(path)[\(index)]", trace: trace, resolver: resolver)
        }
        elementCache = nodes
        return nodes
    }

    /// The keys of an object in file order; does not mark them as read.
    public func keys() throws(InputError) -> [String] {
        guard case .object(let members) = value else { throw error("expected an object; got \(InputNode.describe(value))") }
        return members.map(\.key)
    }

    /// Reads `key` with `read` when present.
    public func optional<T>(_ key: String, _ read: (InputNode) throws -> T) throws -> T? {
        guard let node = child(key) else { return nil }
        return try read(node)
    }

    /// Reads `key` with `read`, or returns `default` when the key is absent.
    public func value<T>(_ key: String, default defaultValue: T, _ read: (InputNode) throws -> T) throws -> T {
        try optional(key, read) ?? defaultValue
    }

    /// Fails on the first key (in file order) that no reader asked for.
    ///
    /// Suggests the intended key by the near-miss rule (`NearMiss`), saying so when that key is
    /// set as well; otherwise lists the allowed keys. Only this object is checked: each reader
    /// checks its own objects.
    public func rejectUnknownKeys() throws(InputError) {
        try expectObject()
        guard let unknown = unknownKeys().first else { return }
        let shown = InputNode.describeKey(unknown)
        var problem: InputError
        if let suggestion = NearMiss.suggestion(for: unknown, among: askedKeys) {
            let present = ((try? keys()) ?? []).contains(suggestion)
            problem = error("unknown key \(shown); did you mean '\(suggestion)'?" + (present ? " ('\(suggestion)' is set too)" : ""))
        } else if askedKeys.isEmpty {
            problem = error("unknown key \(shown); this object takes no keys")
        } else {
            problem = error("unknown key \(shown); allowed keys are \(askedKeys.map { "'\($0)'" }.joined(separator: ", "))")
        }
        problem.subjectPath = InputNode.path(path, appending: unknown)
        throw problem
    }

    /// A key for messages: `'uplnk'`, or shortened and escaped when long or odd.
    static func describeKey(_ key: String) -> String {
        let printable = key.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && $0 != "'" }
        if printable && key.count <= 40 { return "'\(key)'" }
        return describeScalar(.string(key))
    }

    /// Keys present in this object that nobody asked for, in file order.
    private func unknownKeys() -> [String] {
        ((try? keys()) ?? []).filter { !askedKeySet.contains($0) }
    }

    // MARK: Leaves

    public func string() throws(InputError) -> String {
        guard case .string(let text) = value else { throw expected("a string") }
        return text
    }

    /// A string that is printed as it is (a name, a description): one without control characters
    /// (ESC, BEL, line breaks and the rest of C0, DEL and C1), line or paragraph separators, or
    /// the marks that reorder text (bidirectional embeddings, overrides and isolates), any of
    /// which could drive or disguise the terminal or the Markdown it is shown in.
    public func printableText() throws(InputError) -> String {
        let text = try string()
        for (offset, scalar) in text.unicodeScalars.enumerated() where !InputNode.isPrintable(scalar) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            throw error("must be printable text, without control characters; character \(offset + 1) is U+\(code)")
        }
        return text
    }

    /// Whether `scalar` may be printed as it is (`printableText`).
    public static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: return false                          // C0, DEL, C1
        case 0x2028, 0x2029: return false                                  // line and paragraph separators
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return false   // bidirectional marks
        default: return true
        }
    }

    public func bool() throws(InputError) -> Bool {
        guard case .bool(let flag) = value else { throw expected("true or false") }
        return flag
    }

    /// A finite number.
    public func double() throws(InputError) -> Double {
        guard case .number(let number, _) = value, number.isFinite else { throw expected("a number") }
        return number
    }

    /// A whole number within `min...max` (either bound optional); "5", "5.0" and "5e0" all read as 5.
    ///
    /// Plain integer literals are read exactly, so values beyond 2^53 are not rounded.
    public func int(min: Int? = nil, max: Int? = nil) throws(InputError) -> Int {
        guard case .number(let number, let literal) = value else { throw expected("a whole number") }
        let integer: Int
        if let exact = Int(literal) {
            integer = exact
        } else if InputNode.isWhole(number), number >= -0x1p63, number < 0x1p63 {
            integer = Int(number)
        } else if InputNode.isWhole(number) {
            throw error("\(InputNode.describeScalar(value)) is too large for a whole number")
        } else {
            throw expected("a whole number")
        }
        switch (min, max) {
        case let (low?, high?) where integer < low || integer > high:
            throw error("must be between \(low) and \(high); got \(literal)")
        case let (low?, nil) where integer < low:
            throw error("must be at least \(low); got \(literal)")
        case let (nil, high?) where integer > high:
            throw error("must be at most \(high); got \(literal)")
        default:
            return integer
        }
    }

    /// A duration string such as "250ms", in nanoseconds; may be negative or zero.
    public func duration() throws(InputError) -> Int64 {
        guard case .string(let text) = value else { throw expected("a duration with a unit, like \"250ms\"") }
        switch Units.parseDuration(text) {
        case .success(let nanoseconds): return nanoseconds
        case .failure(let unitError): throw error(unitError.message)
        }
    }

    /// A duration greater than zero, such as a poll interval.
    public func positiveDuration() throws(InputError) -> Int64 {
        let nanoseconds = try duration()
        guard nanoseconds > 0 else { throw error("must be greater than zero; got \(InputNode.describeScalar(value))") }
        return nanoseconds
    }

    /// A duration of zero or more, such as a delay that may be absent.
    public func nonNegativeDuration() throws(InputError) -> Int64 {
        let nanoseconds = try duration()
        guard nanoseconds >= 0 else { throw error("must not be negative; got \(InputNode.describeScalar(value))") }
        return nanoseconds
    }

    /// A number in [0, 1].
    public func probability() throws(InputError) -> Double {
        let number = try double()
        guard number >= 0, number <= 1 else { throw error("must be between 0 and 1; got \(InputNode.describeScalar(value))") }
        return number
    }

    /// A size such as "20kB", in bytes; must be greater than zero.
    public func bytes() throws(InputError) -> Double {
        guard case .string(let text) = value else { throw expected("a size with a unit, like \"20kB\"") }
        return try positive(Units.parseBytes(text))
    }

    /// A bandwidth such as "1Mbit/s", in bytes per second; must be greater than zero.
    public func rate() throws(InputError) -> Double {
        guard case .string(let text) = value else { throw expected("a rate with a unit, like \"1Mbit/s\"") }
        return try positive(Units.parseRate(text))
    }

    private func positive(_ result: Result<Double, UnitError>) throws(InputError) -> Double {
        switch result {
        case .failure(let unitError):
            throw error(unitError.message)
        case .success(let amount):
            guard amount > 0 else { throw error("must be greater than zero; got \(InputNode.describeScalar(value))") }
            return amount
        }
    }

    // MARK: Helpers

    /// "expected <what>; got 5 (a number)".
    private func expected(_ what: String) -> InputError {
        error("expected \(what); got \(InputNode.describe(value))")
    }

    /// Whether a finite `number` has no fractional part.
    ///
    /// Decided from the bit pattern rather than `rounded()`, which needs libm and so fails to
    /// link in targets that do not import Foundation.
    static func isWhole(_ number: Double) -> Bool {
        guard number.isFinite else { return false }
        if number == 0 { return true }
        let exponent = Int(number.exponent)
        if exponent < 0 { return false }
        if exponent >= Double.significandBitCount { return true }
        let fractionBits = UInt64(Double.significandBitCount - exponent)
        return number.significandBitPattern & ((1 << fractionBits) - 1) == 0
    }

    /// A value for messages: `5 (a number)`, `"abc" (a string)`, `null`, `an array`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null, .array, .object: return value.typeName
        default: return "\(describeScalar(value)) (\(value.typeName))"
        }
    }

    /// A scalar as written: `5`, `true`, `"abc"`; long strings are shortened.
    static func describeScalar(_ value: JSONValue) -> String {
        if case .string(let text) = value, text.count > 40 {
            return JSONValue.string(String(text.prefix(37)) + "...").serialized(indent: 0)
        }
        // A number is echoed as written, up to 40 characters: a 5,000-digit one is not a message.
        if case .number(_, let literal) = value, literal.count > 40 {
            return String(literal.prefix(20)) + "… (\(literal.count) characters)"
        }
        return value.serialized(indent: 0)
    }

    /// `base.key`, or `base["odd key"]` when the key is not a plain identifier.
    static func path(_ base: String, appending key: String) -> String {
        let plain = key.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } ?? false
            && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        if !plain { return base + "[" + JSONValue.string(key).serialized(indent: 0) + "]" }
        return base.isEmpty ? key : base + "." + key
    }

    static func isLikelyTypo(_ found: String, of key: String) -> Bool {
        NearMiss.suggestion(for: found, among: [key]) != nil
    }
}
