import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// Progress on stderr only for a terminal, and help for every subcommand.
@Suite struct ProgressAndHelpTests {
    static func synclab(_ args: [String], progress: Bool) -> (status: Int32, out: String, err: String) {
        final class Box: @unchecked Sendable { var out = ""; var err = "" }
        let box = Box()
        let status = CLI(out: { box.out += $0 }, err: { box.err += $0 }, showsProgress: progress).main(args)
        return (status, box.out, box.err)
    }

    @Test func noProgressTextWhenStderrIsNotATerminal() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let quiet = Self.synclab(["run", scenario, "--out", dir + "/a"], progress: false)
        #expect(quiet.status == 0)
        #expect(!quiet.err.contains("% simulated") && !quiet.err.contains("\r"), "stderr: \(quiet.err)")
        // The same run on a terminal shows it, and the report files are the same bytes.
        let loud = Self.synclab(["run", scenario, "--out", dir + "/b"], progress: true)
        #expect(loud.status == 0)
        #expect(loud.err.contains("\rsmall: 100% simulated"))
        for name in ["report.md", "summary.json", "load.csv", "transitions.csv"] {
            #expect(FileManager.default.contents(atPath: dir + "/a/" + name) == FileManager.default.contents(atPath: dir + "/b/" + name))
        }
        #expect(quiet.out.replacingOccurrences(of: dir + "/a", with: dir + "/b") == loud.out, "stdout never carries progress")
    }

    @Test func everySubcommandHasHelpWithExamples() {
        for command in ["run", "check", "compare", "sweep", "merge", "validate", "list"] {
            let r = Self.synclab([command, "--help"], progress: false)
            #expect(r.status == 0, "\(command)")
            #expect(r.out.hasPrefix("synclab \(command) — "), "\(command)")
            #expect(r.out.contains("USAGE\n"), "\(command)")
            #expect(r.out.contains("EXAMPLE"), "\(command) --help has no example")
            #expect(Self.synclab(["help", command], progress: false).out == r.out)
            #expect(Self.synclab(["help"], progress: false).out.contains("synclab \(command) "), "\(command) missing from the usage")
        }
    }
}
