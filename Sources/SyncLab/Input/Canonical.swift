// One spelling for things a user may write several ways, so that two spellings of the same key
// or value are found to be the same: `client.probes` and `client["probes"]` name one key, and
// `1`, `1.0` and `1e0` are one value. Search knobs and `sweep --vary` compare by these.

extension InputKeyPath {
    /// `path` as `InputNode.path(_:appending:)` writes it (and so as error messages name it):
    /// plain keys dotted, odd keys quoted in brackets, indices bracketed. Nil when `path` is not
    /// a key path (`steps` gives nil or nothing).
    public static func canonical(_ path: String) -> String? {
        guard let steps = steps(path), !steps.isEmpty else { return nil }
        var out = ""
        for step in steps {
            switch step {
            case .key(let key): out = InputNode.path(out, appending: key)
            case .index(let i): out += "[\(i)]"
            }
        }
        return out
    }
}

extension JSONValue {
    /// Text that is the same for two values a scenario reads alike: numbers by their value
    /// (`1`, `1.0`, `1e0` and `10e-1` all give `1`), object members sorted by key, compact.
    /// Integers beyond 2^53 keep their literal, since integer readers see every digit.
    public var canonicalText: String {
        var out = ""
        writeCanonical(into: &out)
        return out
    }

    private func writeCanonical(into out: inout String) {
        switch self {
        case .null, .bool, .string:
            out += serialized(indent: 0)
        case .number(let value, let literal):
            let integerLiteral = !literal.isEmpty && literal.allSatisfy { $0 == "-" || $0.isASCII && $0.isNumber }
            if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
                out += String(Int64(value))
            } else if integerLiteral {
                out += literal
            } else {
                out += "\(value)"
            }
        case .array(let elements):
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                e.writeCanonical(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, m) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(m.key, into: &out)
                out += ":"
                m.value.writeCanonical(into: &out)
            }
            out += "}"
        }
    }
}
