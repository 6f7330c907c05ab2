import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// The `synclab` command line. The only code that touches the file system or the host clock
/// (for timing figures on stderr, never in reports).
///
/// Exit status: 0 success, 1 a run finished but a budget failed (`check`), 2 bad input
/// or usage — with a message naming the file and key path, and no report written.
///
/// An app team's own `synclab` is this command line with the app's registry: its executable's
/// `main.swift` is `CLI.main(plugins: AppPlugins.registry)` (docs/library.md), and every
/// command then loads, validates, checks and sweeps scenarios that name the app's kinds.
public struct CLI {
    /// The plug-in kinds scenarios may name: the built-ins, or an app's registry.
    public var plugins: PluginRegistry
    public var out: (String) -> Void
    public var err: (String) -> Void
    /// Whether long runs report progress on `err` (`--quiet` turns it off for one command):
    /// a line updated in place on a terminal, a plain line now and then elsewhere (Progress.swift).
    public var showsProgress: Bool
    /// Whether `err` is a terminal, which with `terminalType` decides how progress is shown.
    public var stderrIsTerminal: Bool
    /// The terminal's type (`TERM`): "dumb", empty or none gets plain progress lines, never
    /// cursor controls, even on a terminal.
    public var terminalType: String?
    /// Wall seconds, read for progress only.
    var progressClock: () -> Double = ProgressMeter.hostClock

    public init(plugins: PluginRegistry = .builtIn,
                out: @escaping (String) -> Void = { StandardOutput.write($0) },
                err: @escaping (String) -> Void = { StandardError.write($0) },
                showsProgress: Bool = true, stderrIsTerminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.init(plugins: plugins, out: out, err: err, showsProgress: showsProgress, stderrIsTerminal: stderrIsTerminal,
                  terminalType: ProcessInfo.processInfo.environment["TERM"])
    }

    /// The same with the terminal's type given (tests), not read from `TERM`.
    init(plugins: PluginRegistry = .builtIn,
         out: @escaping (String) -> Void = { StandardOutput.write($0) },
         err: @escaping (String) -> Void = { StandardError.write($0) },
         showsProgress: Bool = true, stderrIsTerminal: Bool = isatty(STDERR_FILENO) != 0,
         terminalType: String?) {
        self.plugins = plugins
        self.out = out
        self.err = err
        self.showsProgress = showsProgress
        self.stderrIsTerminal = stderrIsTerminal
        self.terminalType = terminalType
    }

    public static let usage = """
    synclab — a deterministic lab for "everyone sees the same thing at the same second" designs

    USAGE
      synclab run SCENARIO.json [--out DIR] [--seed N] [--clients N] [--duration D]
      synclab check SCENARIO.json... [--junit FILE] [--seeds N] [--max-failures M]
      synclab compare A.json B.json... [--out DIR] [--seed S]
      synclab sweep SCENARIO.json --vary KEYPATH=v1,v2,... [--vary ...] [--seeds N] [--shard i/n] [--out DIR]
      synclab search SEARCH.json [--shard i/n] [--out DIR]
      synclab merge PART_DIR... --out DIR
      synclab validate SCENARIO.json...
      synclab list [DIR] | --kinds
      synclab schema [--out FILE]
      synclab index REPORT_DIR... [--notes FILE] [--out FILE]
      synclab trace-stats UPLINK DOWNLINK [--against PRESET]
      synclab fit TELEMETRY.csv --out DIR [--base SCENARIO] [--holdout SHARE]
      synclab help [COMMAND]

    COMMANDS
      run        simulate one scenario and write its report folder
      check      run scenarios and judge their budgets (CI gate; exit 1 when one fails)
      compare    run scenarios on the same seed and report them side by side
      sweep      run a grid of scenario variants (shardable across machines)
      search     the cheapest design in a space that meets the budgets (exit 1 when none does)
      merge      combine the parts of a sharded sweep or search
      validate   check scenario files without running them
      list       list the scenarios in a folder (default: Scenarios), or the plug-in kinds
      schema     print or write the scenario JSON Schema, generated from the plug-in kinds
      index      one table of several reports' headline figures (the gallery index)
      trace-stats crossing times, lag correlations and outages of a Mahimahi trace pair
      fit        link profiles fitted to an app's telemetry of its time requests

    Run 'synclab COMMAND --help' for a command's options and examples.
    Exit status: 0 success, 1 a budget fails (check) or no design meets (search), 2 bad input or usage.

    """

    /// Runs the process's command line with `plugins` and exits with its status: the whole
    /// of an executable's `main.swift`. Output that could not be written to standard output
    /// (a full disk, the file size limit) fails the command: its data is incomplete.
    public static func main(plugins: PluginRegistry = .builtIn) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let status = CLI(plugins: plugins).main(arguments)
        if let problem = StandardOutput.failure {
            let command = arguments.first.flatMap { CLI.commands.contains($0) ? " " + $0 : nil } ?? ""
            StandardError.write("synclab\(command): cannot write the standard output: \(problem)\n")
            exit(status == 0 ? 2 : status)
        }
        exit(status)
    }

    /// The loader of every command: it knows the kinds of `plugins`, and an `extends` that names
    /// no file beside the extending one may name a shipped scenario ("r1.json"), so an app's own
    /// scenarios need no copy of the lab's folder (where the executable has its resource bundle).
    var loader: ScenarioLoader {
        ScenarioLoader(plugins: plugins, files: FileSystemScenarioResolver(fallback: ShippedScenarios.folderIfBundled))
    }

    static let commands: Set<String> = ["run", "check", "compare", "sweep", "search", "merge", "validate", "list", "schema", "index", "trace-stats", "fit"]
    static let helpWords: Set<String> = ["help", "--help", "-h"]

    /// Runs one command line (without the program name); returns the exit status.
    public func main(_ arguments: [String]) -> Int32 {
        // Past the file size limit (ulimit -f) a write fails with EFBIG, which we report as
        // "file size limit", instead of the signal killing the process without a word.
        signal(SIGXFSZ, SIG_IGN)
        StandardError.prepareStandardStreams()
        // An interrupted command removes its temporary files and folders (LabTemporary).
        Interruption.install()
        guard let command = arguments.first else {
            err(CLI.usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "run": return RunCommand(cli: self).main(rest)
        case "check": return CheckCommand(cli: self).main(rest)
        case "compare": return CompareCommand(cli: self).main(rest)
        case "sweep": return SweepCommand(cli: self).main(rest)
        case "search": return SearchCommand(cli: self).main(rest)
        case "merge": return MergeCommand(cli: self).main(rest)
        case "validate": return ValidateCommand(cli: self).main(rest)
        case "list": return ListCommand(cli: self).main(rest)
        case "schema": return SchemaCommand(cli: self).main(rest)
        case "index": return IndexCommand(cli: self).main(rest)
        case "trace-stats": return TraceStatsCommand(cli: self).main(rest)
        case "fit": return FitCommand(cli: self).main(rest)
        case "help", "--help", "-h":
            // "help help", "--help help", "-h -h": the usage, not help about help forever.
            guard let sub = rest.first, !CLI.helpWords.contains(sub) else {
                out(CLI.usage)
                return 0
            }
            guard CLI.commands.contains(sub) else {
                err("synclab help: unknown command \(SafePaths.quoted(sub))\n\n" + CLI.usage)
                return 2
            }
            return main([sub, "--help"])
        default:
            err("synclab: unknown command \(SafePaths.quoted(command))\n\n" + CLI.usage)
            return 2
        }
    }

    /// What parsing a command's arguments leads to: arguments to act on, or an exit status
    /// (0 after printing the help, 2 after a usage error).
    enum Parsed {
        case parsed(ParsedArguments)
        case done(Int32)
    }

    /// The preamble every command shares: parse, answer `--help`, report usage errors.
    func parse(_ arguments: [String], command: String, valued: Set<String>, flags: Set<String> = [], help: String) -> Parsed {
        switch ParsedArguments.parse(arguments, valued: valued, flags: flags) {
        case .failure(let e):
            return .done(usageError(command, e.message))
        case .success(let p) where p.flags.contains("--help"):
            out(help)
            return .done(0)
        case .success(let p):
            return .parsed(p)
        }
    }

    /// A usage error: message, pointer to help, status 2.
    func usageError(_ command: String, _ message: String) -> Int32 {
        err("synclab \(command): \(message)\nRun 'synclab \(command) --help' for usage.\n")
        return 2
    }

    /// `--threads N` (1 to 256; every core when absent); nil after reporting a usage error.
    func threads(_ parsed: ParsedArguments, _ command: String) -> Int? {
        guard let text = parsed.options["--threads"] else { return Simulation.defaultThreads }
        guard let n = CLI.wholeNumber(text, as: Int.self), n >= 1, n <= 256 else {
            _ = usageError(command, "--threads expects a whole number from 1 to 256; got \(SafePaths.quoted(text))")
            return nil
        }
        return n
    }

    /// `--shard i/n` (0 ≤ i < n ≤ 10,000; the whole job, 0/1, when absent); nil after reporting
    /// a usage error.
    func shard(_ parsed: ParsedArguments, _ command: String) -> (index: Int, count: Int)? {
        guard let text = parsed.options["--shard"] else { return (0, 1) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = CLI.wholeNumber(String(parts[0]), as: Int.self),
              let n = CLI.wholeNumber(String(parts[1]), as: Int.self), n >= 1, n <= SweepPart.maximumShards, i >= 0, i < n else {
            _ = usageError(command, "--shard expects i/n with 0 ≤ i < n ≤ \(SweepPart.maximumShards), like 0/3; got \(SafePaths.quoted(text))")
            return nil
        }
        return (i, n)
    }
}

extension CLI {
    /// A whole number written with the digits 0–9 only: "+5", " 5", "0x5" and "5_000" are not
    /// numbers on our command line, however lenient `Int("+5")` is.
    static func wholeNumber<T: FixedWidthInteger>(_ text: String, as: T.Type = T.self) -> T? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return T(text)
    }
}

/// Command-line options of the form `--name value`, with positional arguments kept in order.
struct ParsedArguments {
    var positional: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []
    /// The values of options the table lets repeat (`--vary`), in the order given.
    var repeated: [String: [String]] = [:]

    /// Parses `arguments` given which options take a value and which are bare flags.
    static func parse(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String>) -> Result<ParsedArguments, ArgumentError> {
        var parsed = ParsedArguments()
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--help" || a == "-h" {
                parsed.flags.insert("--help")
            } else if a.hasPrefix("--") {
                var name = a
                var inline: String? = nil
                if let eq = a.firstIndex(of: "=") {
                    name = String(a[..<eq])
                    inline = String(a[a.index(after: eq)...])
                }
                if valued.contains(name) {
                    if let v = inline {
                        parsed.options[name] = v
                    } else {
                        guard i + 1 < arguments.count else { return .failure(ArgumentError("\(name) needs a value")) }
                        i += 1
                        parsed.options[name] = arguments[i]
                    }
                } else if allowedFlags.contains(name) {
                    parsed.flags.insert(name)
                } else {
                    let known = (valued.union(allowedFlags)).sorted()
                    let hint = NearMiss.suggestion(for: name, among: known).map { "; did you mean \($0)?" } ?? ""
                    return .failure(ArgumentError("unknown option \(name)\(hint)"))
                }
            } else {
                parsed.positional.append(a)
            }
            i += 1
        }
        return .success(parsed)
    }
}

struct ArgumentError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
