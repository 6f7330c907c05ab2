import Foundation
import SyncLab

/// `synclab validate`: load scenario files without running them.
struct ValidateCommand {
    let cli: CLI

    static let help = """
    synclab validate — check scenario files without running them

    USAGE
      synclab validate SCENARIO.json...

    Prints "ok NAME" per valid file, or the first problem with its file and key path.
    JSON Schema files (*.schema.json) are skipped. Exit status 0 when all are valid, 2 otherwise.

    EXAMPLE
      synclab validate Scenarios/*.json

    """

    /// No options: a single-dash word is refused below with its own message.
    static let options = OptionTable(command: "validate", options: [], help: help, refusesRepeats: false)

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard !parsed.positional.isEmpty else { return cli.usageError("validate", "missing scenario files") }
        if let option = parsed.positional.first(where: { $0.hasPrefix("-") && $0.count > 1 }) {
            return cli.usageError("validate", "unknown option \(option)")
        }
        var status: Int32 = 0
        for path in parsed.positional {
            if path.hasSuffix(".schema.json") {
                cli.out("skipped \(path) (a JSON Schema, not a scenario)\n")
                continue
            }
            do {
                let s = try cli.loader.load(path: path)
                cli.out("ok \(s.name) (\(path))\n")
            } catch {
                cli.err("synclab validate: \(error)\n")
                status = 2
            }
        }
        return status
    }
}

/// `synclab list`: the scenarios in a folder, with their descriptions.
struct ListCommand {
    let cli: CLI

    static let help = """
    synclab list — list the scenarios in a folder, or the plug-in kinds scenarios can name

    USAGE
      synclab list [DIR]      (default: Scenarios)
      synclab list --kinds

    Prints one line per scenario: name, file, the first sentence of its description.
    JSON Schema files (*.schema.json) are left out. With --kinds, one line per plug-in kind
    of the registry: family, kind, what it does.

    EXAMPLE
      synclab list Scenarios
      synclab list --kinds

    """

    static let options = OptionTable(command: "list", options: [OptionSpec("--kinds", .flag)], help: help, refusesRepeats: false)

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        if parsed.flags.contains("--kinds") {
            guard parsed.positional.isEmpty else { return cli.usageError("list", "--kinds takes no folder") }
            cli.out(ListCommand.kinds(cli.plugins))
            return 0
        }
        guard parsed.positional.count <= 1 else { return cli.usageError("list", "expected at most one folder") }
        let dir = parsed.positional.first ?? "Scenarios"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            cli.err("synclab list: cannot read the folder '\(dir)'\n")
            return 2
        }
        var status: Int32 = 0
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasSuffix(".schema.json") {
            let path = (dir as NSString).appendingPathComponent(name)
            do {
                let s = try cli.loader.load(path: path)
                let summary = s.description.split(separator: ".").first.map(String.init) ?? ""
                cli.out("\(s.name)\t\(path)\t\(summary)\n")
            } catch {
                cli.err("synclab list: \(error)\n")
                status = 2
            }
        }
        return status
    }
}

extension ListCommand {
    /// One line per kind of `registry`: family, kind and its schema description, tab-separated.
    static func kinds(_ registry: PluginRegistry) -> String {
        registry.families.flatMap { family in
            registry.kinds(of: family).map { "\(family.name)\t\($0.kind)\t\($0.schema.description)\n" }
        }.joined()
    }
}
