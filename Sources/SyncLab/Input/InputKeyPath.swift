// Key paths as data: splitting "network.profiles[2].uplink" back into its steps, looking a path
// up in a JSON value, and recording which keys a reader asks for.
//
// Two users: an `extends` chain merges several files into one value, and an error found in the
// merged value must name the file that wrote the offending key (`lookup`); and the JSON Schema
// test compares the keys the loader asks for with the keys the schema lists (`KeyTrace`).

/// One step of a key path: an object member or an array element.
public enum KeyPathStep: Equatable, Sendable {
    case key(String)
    case index(Int)
}

public enum InputKeyPath {
    /// The steps of a path written by `InputNode.path(_:appending:)`: `a.b[2]["odd key"].c`.
    /// Returns nil for text that no reader could have produced.
    public static func steps(_ path: String) -> [KeyPathStep]? {
        let chars = Array(path.unicodeScalars)
        var steps: [KeyPathStep] = []
        var i = 0
        func plainKey() -> String {
            var key = ""
            while i < chars.count, chars[i] != ".", chars[i] != "[", chars[i] != "]" {
                key.unicodeScalars.append(chars[i])
                i += 1
            }
            return key
        }
        if i < chars.count, chars[i] != "[" {
            let key = plainKey()
            guard !key.isEmpty else { return nil }
            steps.append(.key(key))
        }
        while i < chars.count {
            if chars[i] == "." {
                i += 1
                let key = plainKey()
                guard !key.isEmpty else { return nil }
                steps.append(.key(key))
            } else if chars[i] == "[" {
                i += 1
                if i < chars.count, chars[i] == "\"" {
                    // A JSON string literal up to its closing quote, then "]".
                    let start = i
                    i += 1
                    while i < chars.count, chars[i] != "\"" {
                        i += chars[i] == "\\" ? 2 : 1
                    }
                    guard i < chars.count else { return nil }
                    i += 1
                    var literal = ""
                    literal.unicodeScalars.append(contentsOf: chars[start..<i])
                    guard case .string(let key)? = try? JSONParser.parse(literal) else { return nil }
                    steps.append(.key(key))
                } else {
                    var digits = ""
                    while i < chars.count, chars[i] != "]" {
                        digits.unicodeScalars.append(chars[i])
                        i += 1
                    }
                    guard let index = Int(digits), index >= 0 else { return nil }
                    steps.append(.index(index))
                }
                guard i < chars.count, chars[i] == "]" else { return nil }
                i += 1
            } else {
                return nil
            }
        }
        return steps
    }

    /// The value at `path` inside `value`, or nil when some step is absent.
    public static func lookup(_ path: String, in value: JSONValue) -> JSONValue? {
        guard let steps = steps(path) else { return nil }
        var current = value
        for step in steps {
            switch (step, current) {
            case (.key(let key), .object):
                guard let next = current[key] else { return nil }
                current = next
            case (.index(let index), .array(let elements)):
                guard index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// `path` with every bracketed step erased: "network.profiles[2].uplink" →
    /// "network.profiles[].uplink" (a quoted odd key such as `["a b"]` also becomes `[]`).
    public static func pattern(_ path: String) -> String {
        var out = ""
        var inIndex = false
        for scalar in path.unicodeScalars {
            if inIndex {
                if scalar == "]" { inIndex = false; out += "[]" }
                continue
            }
            if scalar == "[" {
                inIndex = true
                continue
            }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}

/// Records every key readers ask for, by object path with array indices erased.
///
/// Readers ask for every key an object may have (optional ones too: that is how unknown keys are
/// found), so a trace of loading a scenario lists the keys the loader accepts at each object it
/// visited. A class so that every node of one tree shares it.
public final class KeyTrace {
    /// Object path pattern ("" for the root, "network.profiles[]") → keys in first-asked order.
    public private(set) var keys: [String: [String]] = [:]

    public init() {}

    func record(_ key: String, at path: String) {
        let pattern = InputKeyPath.pattern(path)
        if !(keys[pattern]?.contains(key) ?? false) { keys[pattern, default: []].append(key) }
    }
}
