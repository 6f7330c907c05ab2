import Foundation
import SyncLab

/// One option a command accepts: its name, the kind of value it takes, and the word its
/// `--help` shows for the value.
///
/// A command's options are one `OptionTable`: `CLI.parse(_:_:)` reads the command line from it
/// alone, so which options exist, which take a value and which may repeat is written once.
/// The `--help` text stays hand-written (its wording is documented in docs/cli.md and pinned
/// by tests); `OptionTableTests` checks that the help lists exactly the table's options.
struct OptionSpec {
    /// What follows the option on the command line.
    enum Kind: Equatable {
        /// No value: present or not (`--quiet`).
        case flag
        /// A value kept as written (a name, a key path, a column map).
        case text
        /// A file or folder path.
        case path
        /// A whole number of the digits 0–9 within `range`.
        case whole(ClosedRange<UInt64>)
        /// A duration with a unit ("30s", "24h").
        case duration
        /// A share: a decimal number from 0 to 1.
        case share
        /// `i/n`, a shard of a job.
        case shard
        /// A value that may be given more than once; every value is kept, in order.
        case repeated
    }

    var name: String
    var kind: Kind
    /// The value's word in `--help` ("DIR", "N"); empty for a flag.
    var value: String
    /// What follows the name in the usage error for a value out of its limits, before
    /// "; got 'VALUE'"; nil for the common " expects a whole number from LOW to HIGH".
    var refusal: String?

    init(_ name: String, _ kind: Kind, _ value: String = "", refusal: String? = nil) {
        self.name = name
        self.kind = kind
        self.value = value
        self.refusal = refusal
    }

    var takesValue: Bool { kind != .flag && kind != .repeated }
}

/// The options of one command, and how its command line is checked before it is read.
struct OptionTable {
    /// The command's name in messages ("run" in "synclab run: …").
    var command: String
    var options: [OptionSpec]
    /// The command's `--help` text, printed for `--help` and `-h`.
    var help: String
    /// Whether an option given twice, a single-dash word and an option where a value belongs
    /// are refused (`OptionTable.shapeProblem`). Commands that never refused them keep
    /// taking them as before: the last value wins.
    var refusesRepeats: Bool = true
    /// Whether the message of such a refusal has control characters escaped, for commands that
    /// print arguments back only escaped.
    var escapesControls: Bool = false

    var valued: Set<String> { Set(options.filter(\.takesValue).map(\.name)) }
    var flags: Set<String> { Set(options.filter { $0.kind == .flag }.map(\.name)) }
    var repeated: [String] { options.filter { $0.kind == .repeated }.map(\.name) }
    /// Every option name, sorted: what `--help` must list.
    var names: [String] { options.map(\.name).sorted() }

    /// The option called `name`; every name a command reads is in its table.
    subscript(name: String) -> OptionSpec {
        guard let spec = options.first(where: { $0.name == name }) else { preconditionFailure("\(command) has no option \(name)") }
        return spec
    }

    /// `--threads N`: every command that simulates takes it.
    static let threads = OptionSpec("--threads", .whole(1...256), "N")
    /// `--quiet`: every command that reports progress takes it.
    static let quiet = OptionSpec(CLI.quietFlag, .flag)
    /// `--telemetry FILE [--telemetry-columns MAP] [--burst-gap D]`, shared by `run` and `check`.
    static let telemetry = [OptionSpec("--telemetry", .path, "FILE"), OptionSpec("--telemetry-columns", .text, "MAP"),
                            OptionSpec("--burst-gap", .duration, "D")]
}

extension OptionTable {
    /// Problems `ParsedArguments` lets through: an option given twice (the last would silently
    /// win), a single-dash word that is not a number ("-x", "-seed"), and a value that is
    /// itself an option ("--out --seed 3"). Nil when the arguments are well formed.
    static func shapeProblem(_ arguments: [String], valued: Set<String>) -> String? {
        var seen: Set<String> = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" { return "unexpected '--'; options and the scenario file may come in any order" }
            if a.hasPrefix("--") {
                let name = a.firstIndex(of: "=").map { String(a[..<$0]) } ?? a
                if !seen.insert(name).inserted && name != "--help" { return "\(name) is given more than once" }
                if valued.contains(name), !a.contains("="), i + 1 < arguments.count, arguments[i + 1].hasPrefix("--") {
                    return "\(name) needs a value; got the option \(arguments[i + 1])"
                }
                if valued.contains(name), !a.contains("=") { i += 1 }
            } else if a.hasPrefix("-"), a != "-h", a.count > 1 {
                return "unknown option \(a); options start with '--', like --seed"
            }
            i += 1
        }
        return nil
    }

    /// Takes every occurrence of the repeated option `name` out of `arguments` (`--vary X`,
    /// `--vary=X`): its values in order and the arguments left, or the problem of a missing value.
    static func takeRepeated(_ name: String, from arguments: [String], value: String) -> Result<(values: [String], rest: [String]), ArgumentError> {
        var rest: [String] = []
        var values: [String] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == name {
                guard i + 1 < arguments.count, !arguments[i + 1].hasPrefix("--") else { return .failure(ArgumentError("\(name) needs \(value)")) }
                values.append(arguments[i + 1])
                i += 2
                continue
            }
            if a.hasPrefix(name + "=") { values.append(String(a.dropFirst(name.count + 1))); i += 1; continue }
            rest.append(a)
            i += 1
        }
        return .success((values, rest))
    }
}

/// A usage error already reported: the command exits with status 2.
struct UsageRefused: Error {}

extension CLI {
    /// The whole-number option `name` of `table`, checked against the table's limits: nil when
    /// absent; a failure after reporting the usage error.
    func whole<T: FixedWidthInteger>(_ name: String, _ parsed: ParsedArguments, _ table: OptionTable, as: T.Type = T.self) -> Result<T?, UsageRefused> {
        guard let text = parsed.options[name] else { return .success(nil) }
        let spec = table[name]
        guard case .whole(let limits) = spec.kind else { preconditionFailure("\(name) is not a whole number") }
        if let n = CLI.wholeNumber(text, as: T.self), let wide = UInt64(exactly: n), limits.contains(wide) { return .success(n) }
        let refusal = spec.refusal ?? " expects a whole number from \(limits.lowerBound) to \(limits.upperBound)"
        let message = "\(name)\(refusal); got \(SafePaths.quoted(text))"
        _ = usageError(table.command, table.escapesControls ? InputError.escapingControls(message) : message)
        return .failure(UsageRefused())
    }

    /// The one parser of every command: the table's repeated options taken out, the shape
    /// refused (when the table says so), `--help` answered, usage errors reported with status 2.
    func parse(_ arguments: [String], _ table: OptionTable) -> Parsed {
        var rest = arguments
        var repeated: [String: [String]] = [:]
        for spec in table.options where spec.kind == .repeated {
            switch OptionTable.takeRepeated(spec.name, from: rest, value: spec.value) {
            case .failure(let e): return .done(usageError(table.command, table.escapesControls ? InputError.escapingControls(e.message) : e.message))
            case .success(let taken):
                repeated[spec.name] = taken.values
                rest = taken.rest
            }
        }
        if table.refusesRepeats, let problem = OptionTable.shapeProblem(rest, valued: table.valued) {
            return .done(usageError(table.command, table.escapesControls ? InputError.escapingControls(problem) : problem))
        }
        switch parse(rest, command: table.command, valued: table.valued, flags: table.flags, help: table.help) {
        case .done(let status): return .done(status)
        case .parsed(var p):
            p.repeated = repeated
            return .parsed(p)
        }
    }
}
