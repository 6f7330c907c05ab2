import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// `synclab index`: the gallery table is built from the reports' own summary.json.
@Suite struct IndexCommandTests {
    @Test func tableRowsComeFromEachSummaryInOrder() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        #expect(CLITests.synclab(["run", scenario, "--out", dir + "/a"]).status == 0)
        #expect(CLITests.synclab(["run", scenario, "--out", dir + "/b", "--seed", "2"]).status == 0)
        try "A story.\n".write(toFile: dir + "/notes.md", atomically: true, encoding: .utf8)
        let r = CLITests.synclab(["index", dir + "/b", dir + "/a", "--notes", dir + "/notes.md", "--title", "T"])
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "# T")
        let rows = lines.filter { $0.hasPrefix("| [small]") }
        #expect(rows.count == 2)
        #expect(rows.first?.contains("(b/report.md)") == true)
        #expect(rows.last?.contains("(a/report.md)") == true)
        #expect(r.out.hasSuffix("A story.\n"))
        // Each row shows the figures of its own summary: the peak from summary.json.
        let summary = try JSONParser.parse(String(contentsOfFile: dir + "/a/summary.json", encoding: .utf8))
        guard case .number(let peak, _)? = summary["peakRequestsPerSecond"] else {
            Issue.record("no peak in summary.json")
            return
        }
        #expect(rows.last?.contains("| \(Int(peak)) |") == true)
    }

    @Test func aFolderWithoutSummaryIsAnInputError() {
        let dir = CLITests.temporaryDirectory()
        let r = CLITests.synclab(["index", dir])
        #expect(r.status == 2)
        #expect(r.err.contains("summary.json"))
        #expect(CLITests.synclab(["index"]).status == 2)
    }
}
