import Foundation
import SyncLab

/// `synclab schema`: the scenario JSON Schema, generated from the plug-in registry.
struct SchemaCommand {
    let cli: CLI

    static let help = """
    synclab schema — print or write the scenario JSON Schema

    USAGE
      synclab schema [--out FILE]

    The schema is generated from the built-in plug-in kinds (clocks, estimators, tick, refetch
    and retry policies, server designs, price models, device events) and the shared definitions
    in Sources/SyncLab/Scenario/ScenarioSchema+Base.swift. Without --out it is printed.

    EXAMPLE
      synclab schema --out Scenarios/scenario.schema.json

    """

    /// `schema` never refused a repeated option: the last value wins.
    static let options = OptionTable(command: "schema", options: [OptionSpec("--out", .path, "FILE")], help: help, refusesRepeats: false)

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard parsed.positional.isEmpty else { return cli.usageError("schema", "unexpected argument \(parsed.positional[0])") }
        let text = ScenarioSchema.text(for: cli.plugins)
        guard let out = parsed.options["--out"] else {
            cli.out(text)
            return 0
        }
        let destination: OutputFile.Destination
        switch OutputFile.prepare(out, kind: .schema, inputs: []) {
        case .success(let d): destination = d
        case .failure(let problem):
            cli.err("synclab schema: --out: \(problem.message)\n")
            return 2
        }
        do {
            try OutputFile.write(Data(text.utf8), to: destination)
        } catch {
            cli.err("synclab schema: cannot write \(out): \(ReportWriter.reason(error))\n")
            return 2
        }
        cli.out("wrote \(out)\n")
        return 0
    }
}
