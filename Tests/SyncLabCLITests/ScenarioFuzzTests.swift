import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel
import SyncLabReports

/// Mutates the shipped scenarios thousands of times (deterministically seeded) and requires
/// every result to be either a valid scenario or a clean `InputError` naming the file. A trap
/// anywhere — loader, simulator or renderers — crashes this test process: that is the point.
///
/// A sample of the valid mutants is also run (players capped at 30, 10 simulated minutes, no
/// warm-up) and rendered, and no report may contain NaN or infinity.
@Suite struct ScenarioFuzzTests {
    static let mutations = 5_000
    /// Runs are few because rendering a report takes about 0.3 s in a debug build.
    static let runEvery = 35
    static let maximumRuns = 20

    struct Tally {
        var valid = 0
        var invalid = 0
        var runs = 0
        var byClass: [String: (valid: Int, invalid: Int)] = [:]
    }

    @Test func mutatedScenariosLoadOrFailCleanly() throws {
        let started = DispatchTime.now().uptimeNanoseconds
        var runNanoseconds: UInt64 = 0
        let root = #filePath.components(separatedBy: "/Tests/").first ?? "."
        let loader = ScenarioLoader()
        var bases: [JSONValue] = []
        for name in ["v115-pausing.json", "v115-uptime.json"] {
            let layers = try loader.resolve(path: root + "/Scenarios/" + name, chain: [])
            let merged = layers.dropFirst().reduce(layers[0].value) { JSONValue.merging(base: $0, override: $1.value) }
            // Without the editor's `$schema` key, which the loader ignores: the fuzz mutates the model.
            guard case .object(let members) = merged else { continue }
            bases.append(.object(members.filter { $0.key != "$schema" }))
        }
        var rng = RandomStream(seed: 6, purpose: StreamPurpose("scenario-fuzz"))
        var tally = Tally()
        for index in 0..<Self.mutations {
            var mutator = Mutator(rng: rng)
            let base = bases[index % bases.count]
            let (text, classes) = mutator.mutate(base)
            rng = mutator.rng
            let label = classes.joined(separator: "+")
            do {
                var scenario = try loader.load(text: text, file: "fuzz.json")
                tally.valid += 1
                for c in classes { tally.byClass[c, default: (0, 0)].valid += 1 }
                #expect(ScenarioLoader.memoryProblem(scenario) == nil)
                if tally.valid % Self.runEvery == 0 && tally.runs < Self.maximumRuns {
                    tally.runs += 1
                    Self.cap(&scenario)
                    let runStarted = DispatchTime.now().uptimeNanoseconds
                    let files = ReportBundle.files(Simulation.run(scenario))
                    runNanoseconds += DispatchTime.now().uptimeNanoseconds - runStarted
                    for file in files {
                        #expect(!Self.containsNonFinite(file.contents), "mutation \(index) (\(label)): \(file.name) has NaN or infinity")
                    }
                }
            } catch {
                tally.invalid += 1
                for c in classes { tally.byClass[c, default: (0, 0)].invalid += 1 }
                #expect(error.file == "fuzz.json", "mutation \(index) (\(label)): \(error)")
                #expect(!error.message.isEmpty)
                #expect(!error.message.hasPrefix("internal error"), "mutation \(index) (\(label)): \(error)")
            }
        }
        #expect(tally.valid + tally.invalid == Self.mutations)
        // Both outcomes must be common, or the fuzz is not exploring both sides of the checks.
        #expect(tally.valid >= Self.mutations / 10)
        #expect(tally.invalid >= Self.mutations / 2)
        #expect(tally.runs >= 20)
        let classes = tally.byClass.keys.sorted().map { "\($0) \(tally.byClass[$0]!.valid)/\(tally.byClass[$0]!.invalid)" }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        print("scenario fuzz: \(Self.mutations) mutations, \(tally.valid) valid, \(tally.invalid) invalid, "
              + "\(tally.runs) runs (\(Double(runNanoseconds / 10_000_000) / 100) s of \(Double(Int(seconds * 100)) / 100) s); "
              + "valid/invalid by class: \(classes.joined(separator: ", "))")
    }

    /// Scenarios at the edges of the loader's ranges, where a simulator overflow would show:
    /// draws at the 10000-day ceiling, ±1 day offsets, ±10% drift, 1 s crons, 1 ms ticks,
    /// whole-day timestamps, enormous files on 1 B/s links. Each loads, runs and renders.
    static let edges: [String] = [
        #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": {"kind": "lognormal", "median": "15ms", "sigma": 1.75}, "downlink": {"kind": "pareto", "scale": "8ms", "shape": 1.45}, "bandwidth": {"kind": "lognormal", "median": "1B/s", "sigma": 5}, "failure": 0.5, "timeout": "1ms"}]}}"#,
        #"{"server": {"cron": {"period": "1s", "jitter": "1d", "horizon": "1d"}, "publish": {"lag": "1d", "duration": "1d"}, "timestampResolution": "1d", "serviceTime": "1d", "clockOffset": "-1d"}}"#,
        #"{"server": {"cron": {"period": "1s", "horizon": "1s"}, "clockOffset": "1d", "timestampResolution": "1ns", "serviceTime": {"kind": "exponential", "mean": "1d"}}}"#,
        #"{"devices": {"driftPpm": {"kind": "uniform", "min": -100000, "max": 100000}, "wallClockOffset": {"kind": "normal", "mean": "1d", "sd": "1d"}, "uptimeAtStart": "365d"}, "client": {"clock": "wall"}}"#,
        #"{"devices": {"driftPpm": -100000, "wallClockOffset": "-1d", "uptimeAtStart": "0s"}, "client": {"clock": {"kind": "uptime", "resolution": "1us"}}}"#,
        #"{"client": {"clock": "continuous", "tick": {"kind": "timer", "period": "1d", "clock": "wall"}, "refetch": {"kind": "uniform-after-load", "min": "1s", "max": "1s"}, "retry": {"kind": "fixed", "interval": "10ms"}}}"#,
        #"{"client": {"tick": {"kind": "timer", "period": "1ms", "clock": {"kind": "uptime", "resolution": "1s"}}, "refetch": {"kind": "uniform-after-load", "min": "1d", "max": "1d"}}}"#,
        #"{"store": {"positions": 1000, "shelfLife": "1s", "resolution": "1h"}}"#,
        #"{"store": {"shelfLife": {"kind": "pareto", "scale": "1s", "shape": 1.8}, "resolution": "1ns"}}"#,
        #"{"population": {"visitGap": "0s", "sessionsPerVisit": {"kind": "uniform", "min": 0, "max": 1000}, "viewing": "0s", "break": "0s", "lockShare": 1, "sleepDelay": "0s", "release": {"at": "0s", "multiplier": 10000, "window": "1ms"}}}"#,
        #"{"population": {"visitGap": {"kind": "exponential", "mean": "272d"}, "viewing": {"kind": "lognormal", "median": "1d", "sigma": 0.2}, "break": {"kind": "normal", "mean": "30d", "sd": "30d"}, "sleepDelay": "1d"}}"#,
        #"{"metrics": {"sampleEvery": "100ms"}, "epoch": "2199-12-31T23:59:59.999999999Z", "warmup": "1h"}"#,
        #"{"epoch": "1970-01-01T00:00:00Z", "devices": {"uptimeAtStart": "365d"}, "client": {"clock": "uptime"}}"#,
        #"{"network": {"requestBytes": 100000000, "profiles": [{"name": "slow", "share": 1, "uplink": "1d", "downlink": "1d", "bandwidth": "1B/s", "timeout": "1d"}]}, "store": {"file": {"overheadBytes": 100000000, "bytesPerItem": 1000000, "headerBytes": 1000000}}}"#,
    ]

    @Test(arguments: edges)
    func edgesOfTheRangesRunCleanly(override: String) throws {
        let root = #filePath.components(separatedBy: "/Tests/").first ?? "."
        let layers = try ScenarioLoader().resolve(path: root + "/Scenarios/v115-pausing.json", chain: [])
        // At 5,000 players: the edges are of the ranges, not of the fleet's size (a 1 s shelf life
        // at the shipped 170,000 players is refused for memory).
        let small = JSONValue.merging(base: layers.last!.value, override: try JSONParser.parse(#"{"population": {"players": 5000}}"#))
        let text = JSONValue.merging(base: small, override: try JSONParser.parse(override)).serialized()
        var scenario = try ScenarioLoader().load(text: text, file: "edge.json")
        Self.cap(&scenario)
        let files = ReportBundle.files(Simulation.run(scenario))
        for file in files { #expect(!Self.containsNonFinite(file.contents), "\(file.name) has NaN or infinity") }
    }

    /// Shrinks a valid mutant to a quick run: ≤ 30 players, ≤ 10 minutes, no warm-up.
    static func cap(_ s: inout Scenario) {
        s.population.players = min(s.population.players, 30)
        s.duration = min(s.duration, 10 * .minute)
        s.warmup = 0
        if let release = s.population.release, release.at.ns >= s.duration { s.population.release = nil }
    }

    /// Whether `text` has a "nan", "inf" or "infinity" token (case-insensitive, as a word).
    static func containsNonFinite(_ text: String) -> Bool {
        var word = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.properties.isAlphabetic {
                word.unicodeScalars.append(scalar)
            } else {
                if word == "nan" || word == "inf" || word == "infinity" { return true }
                word = ""
            }
        }
        return word == "nan" || word == "inf" || word == "infinity"
    }
}

/// Deterministic mutations of a scenario's JSON: structural (delete keys, change types, swap
/// units, extreme numbers, random strings, deep nesting, wrong kinds, renamed keys, arrays) and
/// textual (truncation, byte noise).
struct Mutator {
    var rng: RandomStream

    static let units = ["ns", "us", "µs", "ms", "s", "m", "h", "d", "", " s", "sec", "S", "kB", "MB/s", "Mbit/s",
                        "B", "KiB", "KB/s", "bit/s", "x", "mss", "/s"]
    static let durationUnits = ["ns", "us", "ms", "s", "m", "h", "d"]
    static let numberTexts = ["0", "-1", "-0.5", "0.5", "1", "2", "3", "49", "50", "1000", "1e3", "1e300", "1e-300",
                              "9223372036854775807", "9223372036854775808", "18446744073709551616", "1e20", "0.999999",
                              "-9223372036854775808", "20000000", "20000001", "1.5", "12", "100000", "1e6"]
    static let quantityNumbers = ["0", "-5", "-0", "1", "5", "0.5", ".5", "5.", "1e3", "99999999999", "999999999999999999999",
                                  "0.0000000001", "1.5", "30", "100", "4000", "106751", "1_000", "+5", "--5", ""]
    static let kinds = ["constant", "uniform", "normal", "lognormal", "exponential", "pareto", "geometric", "empirical",
                        "suspending", "continuous", "uptime", "wall", "upload-complete", "timer", "uniform-after-load",
                        "fixed", "flat", "per-request", "gaussian", "", "Uniform"]
    static let keys = ["kind", "value", "min", "max", "mean", "sd", "median", "sigma", "scale", "shape", "samples",
                       "period", "clock", "resolution", "interval", "name", "share", "uplink", "downlink", "bandwidth",
                       "failure", "timeout", "players", "release", "at", "multiplier", "window", "duration", "warmup",
                       "extends", "$schema", "seed", "epoch", "costs", "budgets", "metric"]

    mutating func below(_ n: Int) -> Int { Int(rng.below(UInt64(max(n, 1)))) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    mutating func chance(_ p: Double) -> Bool { rng.unit() < p }

    /// One mutant: one structural mutation (sometimes two or three), sometimes followed by a
    /// textual one.
    mutating func mutate(_ base: JSONValue) -> (text: String, classes: [String]) {
        var value = base
        var classes: [String] = []
        let count = chance(0.75) ? 1 : 2 + below(2)
        for _ in 0..<count {
            let paths = Mutator.paths(value)
            let path = pick(paths)
            let (mutated, name) = mutateNode(value, at: path[...], whole: value)
            value = mutated
            classes.append(name)
        }
        var text = value.serialized(indent: chance(0.2) ? 2 : 0)
        if chance(0.1) {
            let bytes = Array(text.utf8)
            if chance(0.5) {
                text = String(decoding: bytes.prefix(below(bytes.count)), as: UTF8.self)
                classes.append("truncate")
            } else {
                var noisy = bytes
                let at = below(noisy.count)
                switch below(3) {
                case 0: noisy.remove(at: at)
                case 1: noisy.insert(pick(Array("{}[],:\"\\0-e.x ".utf8)), at: at)
                default: noisy[at] = UInt8(below(256))
                }
                text = String(decoding: noisy, as: UTF8.self)
                classes.append("noise")
            }
        }
        return (text, classes)
    }

    /// Every node's path (the root is the empty path).
    static func paths(_ value: JSONValue) -> [[KeyPathStep]] {
        var out: [[KeyPathStep]] = []
        var prefix: [KeyPathStep] = []
        func walk(_ node: JSONValue) {
            out.append(prefix)
            switch node {
            case .object(let members):
                for m in members { prefix.append(.key(m.key)); walk(m.value); prefix.removeLast() }
            case .array(let elements):
                for (i, e) in elements.enumerated() { prefix.append(.index(i)); walk(e); prefix.removeLast() }
            default: break
            }
        }
        walk(value)
        return out
    }

    /// `value` with the node at `path` mutated; the mutation's class name.
    mutating func mutateNode(_ value: JSONValue, at path: ArraySlice<KeyPathStep>, whole: JSONValue) -> (JSONValue, String) {
        guard let step = path.first else { return mutateHere(value, whole: whole) }
        switch (step, value) {
        case (.key(let key), .object(var members)):
            guard let i = members.firstIndex(where: { $0.key == key }) else { return (value, "none") }
            // Operations on the member itself (delete, rename) happen at its parent.
            if path.count == 1 && chance(0.25) {
                if chance(0.6) {
                    members.remove(at: i)
                    return (.object(members), "delete-key")
                }
                let renamed = typo(key)
                if !members.contains(where: { $0.key == renamed }) { members[i].key = renamed }
                return (.object(members), "rename-key")
            }
            let (child, name) = mutateNode(members[i].value, at: path.dropFirst(), whole: whole)
            members[i].value = child
            return (.object(members), name)
        case (.index(let index), .array(var elements)):
            guard index < elements.count else { return (value, "none") }
            let (child, name) = mutateNode(elements[index], at: path.dropFirst(), whole: whole)
            elements[index] = child
            return (.array(elements), name)
        default:
            return (value, "none")
        }
    }

    mutating func mutateHere(_ value: JSONValue, whole: JSONValue) -> (JSONValue, String) {
        // Gentle changes keep many mutants valid, so the simulator sees odd but legal scenarios.
        if chance(0.4) {
            switch value {
            case .number(let x, _):
                let y = x * pick([0.5, 0.9, 1.1, 2, 3])
                return (.number(y, literal: "\(y)"), "nudge-number")
            case .string(let text):
                if let split = Mutator.splitQuantity(text), let x = Double(split.number), x >= 0 {
                    let y = Int64((x * pick([0.5, 1, 2, 10])).rounded())
                    let unit = chance(0.3) ? pick(Mutator.durationUnits.contains(split.unit) ? Mutator.durationUnits : [split.unit]) : split.unit
                    return (.string("\(y)\(unit)"), "nudge-quantity")
                }
                return (.string(pick(Mutator.kinds)), "other-name")
            case .bool(let flag):
                return (.bool(!flag), "flip-bool")
            default:
                break
            }
        }
        switch below(12) {
        case 0:
            return (randomValue(depth: 0), "change-type")
        case 1:
            guard case .string(let text) = value, let split = Mutator.splitQuantity(text) else { return (randomValue(depth: 0), "change-type") }
            return (.string(split.number + pick(Mutator.units)), "swap-unit")
        case 2:
            guard case .string(let text) = value, let split = Mutator.splitQuantity(text) else {
                let literal = pick(Mutator.numberTexts)
                return (.number(Double(literal) ?? 0, literal: literal), "extreme-number")
            }
            return (.string(pick(Mutator.quantityNumbers) + split.unit), "extreme-quantity")
        case 3:
            let literal = pick(Mutator.numberTexts)
            return (.number(Double(literal) ?? 0, literal: literal), "extreme-number")
        case 4:
            return (.string(randomString()), "random-string")
        case 5:
            var nested = value
            for _ in 0..<(1 + below(250)) {
                nested = chance(0.5) ? .array([nested]) : .object([JSONMember(key: "a", value: nested)])
            }
            return (nested, "deep-nesting")
        case 6:
            guard case .object(var members) = value else { return (.string(pick(Mutator.kinds)), "wrong-kind") }
            if let i = members.firstIndex(where: { $0.key == "kind" }) {
                members[i].value = .string(pick(Mutator.kinds))
            } else {
                members.append(JSONMember(key: "kind", value: .string(pick(Mutator.kinds))))
            }
            return (.object(members), "wrong-kind")
        case 7:
            guard case .object(var members) = value else { return (.object([JSONMember(key: pick(Mutator.keys), value: value)]), "wrap-object") }
            let key = chance(0.7) ? pick(Mutator.keys) : randomString()
            if !members.contains(where: { $0.key == key }) { members.append(JSONMember(key: key, value: randomValue(depth: 0))) }
            return (.object(members), "insert-key")
        case 8:
            guard case .array(var elements) = value else { return (.array(chance(0.5) ? [] : [value, value]), "wrap-array") }
            switch below(4) {
            case 0: elements = []
            case 1: if let e = elements.first { elements.append(e) }
            case 2: if !elements.isEmpty { elements.remove(at: below(elements.count)) }
            default: elements.append(randomValue(depth: 0))
            }
            return (.array(elements), "array")
        case 9:
            // A value from elsewhere in the scenario: plausible, but of the wrong meaning.
            let paths = Mutator.paths(whole)
            let other = KeyPathSupport.value(at: pick(paths), in: whole) ?? .null
            return (other, "swap-values")
        case 10:
            guard case .number(let x, _) = value else { return (.null, "null") }
            let factor = pick([-1.0, 0, 0.001, 10, 1000, 1e6])
            let y = x * factor
            return (.number(y, literal: "\(y)"), "scale-number")
        default:
            guard case .string(let text) = value, let split = Mutator.splitQuantity(text) else { return (.null, "null") }
            // Multiply the number part, keeping the unit: "15ms" → "15000ms".
            let digits = split.number + String(repeating: "0", count: 1 + below(12))
            return (.string(digits + split.unit), "scale-quantity")
        }
    }

    /// "250ms" → ("250", "ms"); nil when the text does not start with a number.
    static func splitQuantity(_ text: String) -> (number: String, unit: String)? {
        let number = text.prefix(while: { $0.isNumber || $0 == "." || $0 == "-" })
        guard !number.isEmpty else { return nil }
        return (String(number), String(text.dropFirst(number.count)))
    }

    mutating func typo(_ key: String) -> String {
        var chars = Array(key)
        guard !chars.isEmpty else { return "x" }
        switch below(4) {
        case 0: chars.remove(at: below(chars.count))
        case 1: chars.insert(pick(Array("abcxyz_")), at: below(chars.count + 1))
        case 2: if chars.count > 1 { let i = below(chars.count - 1); chars.swapAt(i, i + 1) }
        default: return key.uppercased()
        }
        return String(chars)
    }

    mutating func randomString() -> String {
        let pools: [[Character]] = [Array("abcdefghijklmnopqrstuvwxyz"), Array("0123456789.-+e sm"), Array("µμ\u{0}\u{7}\t\n\"\\é😀\u{FEFF}")]
        let pool = pick(pools)
        let length = chance(0.05) ? 5_000 : below(24)
        return String((0..<length).map { _ in pick(pool) })
    }

    mutating func randomValue(depth: Int) -> JSONValue {
        switch below(depth > 2 ? 4 : 6) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2:
            let literal = pick(Mutator.numberTexts)
            return .number(Double(literal) ?? 0, literal: literal)
        case 3: return .string(chance(0.5) ? randomString() : pick(Mutator.quantityNumbers) + pick(Mutator.units))
        case 4: return .array((0..<below(3)).map { _ in randomValue(depth: depth + 1) })
        default:
            return .object((0..<below(3)).map { i in JSONMember(key: "\(pick(Mutator.keys))\(i)", value: randomValue(depth: depth + 1)) })
        }
    }
}

/// Looking up a node by steps (the loader's `InputKeyPath` works on path text).
enum KeyPathSupport {
    static func value(at steps: [KeyPathStep], in value: JSONValue) -> JSONValue? {
        var current = value
        for step in steps {
            switch (step, current) {
            case (.key(let key), .object): guard let next = current[key] else { return nil }; current = next
            case (.index(let i), .array(let elements)): guard i < elements.count else { return nil }; current = elements[i]
            default: return nil
            }
        }
        return current
    }
}
