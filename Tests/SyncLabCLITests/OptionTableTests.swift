import Foundation
import Testing
@testable import SyncLabCLI

/// Each command's option table is the one list of its options: its `--help` names every option
/// in the table, and its USAGE lines name no option the table lacks.
@Suite struct OptionTableTests {
    static let tables: [OptionTable] = [
        RunCommand.options, CheckCommand.options, CompareCommand.options, SweepCommand.options, SearchCommand.options,
        MergeCommand.options, ValidateCommand.options, ListCommand.options, SchemaCommand.options, IndexCommand.options,
        TraceStatsCommand.options, FitCommand.options,
    ]

    /// The `--name` words of `text`, without `--help`.
    static func optionNames(_ text: Substring) -> Set<String> {
        var names: Set<String> = []
        var rest = text[...]
        while let start = rest.range(of: "--") {
            let word = rest[start.lowerBound...].prefix { $0 == "-" || $0.isLetter }
            if word.count > 2 && word != "--help" { names.insert(String(word)) }
            rest = rest[start.upperBound...]
        }
        return names
    }

    /// The help's USAGE block: from "USAGE" to the first blank line.
    static func usageBlock(_ help: String) -> Substring {
        guard let start = help.range(of: "USAGE\n") else { return "" }
        let rest = help[start.upperBound...]
        return rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)]
    }

    @Test func everyCommandHasOneTable() {
        #expect(Set(Self.tables.map(\.command)) == CLI.commands)
    }

    @Test func helpNamesExactlyTheTablesOptions() {
        for table in Self.tables {
            let inHelp = Self.optionNames(table.help[...])
            for name in table.names {
                #expect(inHelp.contains(name), "synclab \(table.command) --help does not name \(name)")
            }
            let inUsage = Self.optionNames(Self.usageBlock(table.help))
            #expect(inUsage.isSubset(of: Set(table.names)), "synclab \(table.command) USAGE names \(inUsage.subtracting(table.names).sorted()) not in its table")
        }
    }

    @Test func namesAreUniqueAndWellFormed() {
        for table in Self.tables {
            #expect(Set(table.names).count == table.names.count, "synclab \(table.command) declares an option twice")
            for spec in table.options {
                #expect(spec.name.hasPrefix("--") && !spec.name.contains("="), "\(spec.name)")
                #expect(spec.kind == .flag ? spec.value.isEmpty : !spec.value.isEmpty, "\(table.command) \(spec.name)")
            }
        }
    }

    @Test func theParserRefusesARepeatedOptionFromTheTable() {
        var err = ""
        let cli = CLI(out: { _ in }, err: { err += $0 }, showsProgress: false, stderrIsTerminal: false, terminalType: nil)
        guard case .done(let status) = cli.parse(["x.json", "--out", "a", "--out=b"], MergeCommand.options) else {
            Issue.record("a repeated --out was accepted")
            return
        }
        #expect(status == 2)
        #expect(err == "synclab merge: --out is given more than once\nRun 'synclab merge --help' for usage.\n")
    }

    @Test func aRepeatedKindKeepsEveryValueInOrder() {
        let cli = CLI(out: { _ in }, err: { _ in }, showsProgress: false, stderrIsTerminal: false, terminalType: nil)
        guard case .parsed(let p) = cli.parse(["s.json", "--vary", "a=1", "--vary=b=2,3"], SweepCommand.options) else {
            Issue.record("sweep's --vary was refused")
            return
        }
        #expect(p.repeated["--vary"] == ["a=1", "b=2,3"])
        #expect(p.positional == ["s.json"])
    }
}
