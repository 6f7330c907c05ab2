import Foundation

// Scenario variants from the command line: `synclab sweep --vary KEYPATH=v1,v2` loads a scenario
// with one key set to each value. The value goes into the merged JSON (after `extends`), so it is
// read and validated exactly like a value written in the file: an unknown key is an error naming
// its path, a value out of range is refused.

extension ScenarioLoader {
    /// One key of a scenario set to a value: `population.players` = 5000.
    public struct Override: Sendable, Equatable {
        /// A key path as errors write it: `client.clock`, `network.profiles[0].failure`.
        public var keyPath: String
        public var value: JSONValue
        public init(keyPath: String, value: JSONValue) {
            self.keyPath = keyPath
            self.value = value
        }
    }

    /// The scenario at `path` as one JSON value, its `extends` chain merged.
    public func mergedValue(path: String, resolver given: (any ScenarioResolver)? = nil) throws(InputError) -> JSONValue {
        let resolver = given ?? files
        let layers = try resolve(path: resolver.name(of: path, from: nil), chain: [], resolver: resolver)
        return layers.dropFirst().reduce(layers[0].value) { JSONValue.merging(base: $0, override: $1.value) }
    }

    /// The scenario at `path`, with `overrides` set, as one JSON value that needs no other
    /// scenario file: its `extends` chain merged, and every latency trace named by an absolute
    /// path (a trace is data, not a scenario; naming it absolutely is what lets the value be
    /// written to any folder and read the same). `search` writes its winner from this.
    public func standaloneValue(path: String, overrides: [Override] = []) throws(InputError) -> JSONValue {
        let layers = try resolve(path: files.name(of: path, from: nil), chain: []).map { LatencyTrace.anchorPaths($0.value, in: $0.file) }
        var merged = layers.dropFirst().reduce(layers[0]) { JSONValue.merging(base: $0, override: $1) }
        for o in overrides {
            guard let set = Self.setting(o.value, at: o.keyPath, in: merged) else {
                throw InputError(file: path, keyPath: o.keyPath, message: "cannot set this key path")
            }
            merged = set
        }
        // Relative trace paths are now relative to the working folder: make them absolute.
        return LatencyTrace.anchor(merged, FileManager.default.currentDirectoryPath)
    }

    /// Loads `path` with `overrides` applied, in order, to the merged JSON. A key path that is not
    /// well formed, or whose array index is out of range, is an error naming it; a key that is
    /// absent is added, so the usual reader reports an unknown one ("did you mean …").
    public func load(path: String, overrides: [Override]) throws(InputError) -> Scenario {
        // Trace paths are relative to the file that names them, as in load(path:).
        let layers = try resolve(path: path, chain: []).map { (file: $0.file, value: LatencyTrace.anchorPaths($0.value, in: $0.file)) }
        var merged = layers.dropFirst().reduce(layers[0].value) { JSONValue.merging(base: $0, override: $1.value) }
        for o in overrides {
            guard let set = Self.setting(o.value, at: o.keyPath, in: merged) else {
                throw InputError(file: path, keyPath: o.keyPath,
                                 message: "cannot set this key path: it is not like \"client.clock\" or \"network.profiles[0].failure\", "
                                 + "or an array index is out of range, or a step is not an object")
            }
            merged = set
        }
        let root = InputNode(merged, file: path)
        do {
            let scenario = try decode(root)
            try Self.checkMemory(scenario, file: path)
            return scenario
        } catch {
            // A problem at an overridden key is the override's, not the file's.
            let e = Self.inputError(error, file: path)
            let subject = e.subjectPath ?? e.keyPath
            if let o = overrides.last(where: { subject == $0.keyPath || subject.hasPrefix($0.keyPath + ".") || subject.hasPrefix($0.keyPath + "[") }) {
                var located = e
                located.message += " (set by the override \(o.keyPath)=\(o.value.serialized(indent: 0)))"
                throw located
            }
            throw Self.attribute(e, to: layers)
        }
    }

    /// `root` with the value at `path` replaced by (or, for an absent object key, set to) `value`;
    /// nil when the path is malformed, indexes past an array's end or steps into a scalar.
    public static func setting(_ value: JSONValue, at path: String, in root: JSONValue) -> JSONValue? {
        guard let steps = InputKeyPath.steps(path), !steps.isEmpty else { return nil }
        return set(value, steps[...], in: root)
    }

    private static func set(_ value: JSONValue, _ steps: ArraySlice<KeyPathStep>, in node: JSONValue) -> JSONValue? {
        guard let step = steps.first else { return value }
        switch (step, node) {
        case (.key(let key), .object(var members)):
            if let i = members.firstIndex(where: { $0.key == key }) {
                guard let child = set(value, steps.dropFirst(), in: members[i].value) else { return nil }
                members[i].value = child
            } else {
                guard let child = set(value, steps.dropFirst(), in: .object([])) else { return nil }
                members.append(JSONMember(key: key, value: child))
            }
            return .object(members)
        case (.index(let i), .array(var elements)):
            guard i < elements.count, let child = set(value, steps.dropFirst(), in: elements[i]) else { return nil }
            elements[i] = child
            return .array(elements)
        default:
            return nil
        }
    }
}
