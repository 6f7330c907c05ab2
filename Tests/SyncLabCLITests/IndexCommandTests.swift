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

    /// A summary.json that is not what `run` writes: exit 2 naming the key, never a trap or a row of nonsense.
    @Test(arguments: [
        (#""clients": 300"#, #""clients": 1e19"#, "clients: expected a whole number of players; got 1e19 (a number)"),
        (#""clients": 300"#, #""clients": "lots""#, #"clients: expected a whole number of players; got "lots" (a string)"#),
        (#""transitionGapMs": { "p50": "#, #""transitionGapMs": { "p50": 1e17, "was": "#,
         "transitionGapMs.p50: expected milliseconds ≥ 0 or null; got 1e17 (a number)"),
        (#""transitionsWithin500msShare": "#, #""transitionsWithin500msShare": 7, "was": "#,
         "transitionsWithin500msShare: expected a share from 0 to 1 or null; got 7 (a number)"),
        // A figure the table does not show is checked all the same (issue 40).
        (#""viewersInBest500msShare": "#, #""viewersInBest500msShare": 7, "was": "#,
         "viewersInBest500msShare: expected a share from 0 to 1 or null; got 7 (a number)"),
    ])
    func aSummaryWithImpossibleFiguresIsAnInputError(original: String, replacement: String, message: String) throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        #expect(CLITests.synclab(["run", scenario, "--out", dir + "/a"]).status == 0)
        let path = dir + "/a/summary.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(original))
        try text.replacingOccurrences(of: original, with: replacement).write(toFile: path, atomically: true, encoding: .utf8)
        let r = CLITests.synclab(["index", dir + "/a"])
        #expect(r.status == 2)
        #expect(r.err == "synclab index: \(path): \(message)\n")
        try "[]".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(CLITests.synclab(["index", dir + "/a"]).err.hasSuffix("expected an object (a summary written by 'synclab run'); got an array\n"))
    }

    @Test func theIndexIsNeverWrittenOverItsInputsOrAFolder() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        #expect(CLITests.synclab(["run", scenario, "--out", dir + "/a"]).status == 0)
        let summary = try String(contentsOfFile: dir + "/a/summary.json", encoding: .utf8)
        let over = CLITests.synclab(["index", dir + "/a", "--out", dir + "/a/summary.json"])
        #expect(over.status == 2)
        #expect(over.err.contains("an input of this command; refusing to overwrite it"))
        #expect(try String(contentsOfFile: dir + "/a/summary.json", encoding: .utf8) == summary)
        let folder = CLITests.synclab(["index", dir + "/a", "--out", dir + "/a"])
        #expect(folder.status == 2)
        #expect(folder.err == "synclab index: --out: '\(dir)/a' is a folder; expected a file name\n")
    }

    @Test func aFolderWithoutSummaryIsAnInputError() {
        let dir = CLITests.temporaryDirectory()
        let r = CLITests.synclab(["index", dir])
        #expect(r.status == 2)
        #expect(r.err.contains("summary.json"))
        #expect(CLITests.synclab(["index"]).status == 2)
    }
}

/// The gallery's row in human units, from a summary written by hand.
@Suite struct IndexRowFormatTests {
    @Test func rowReadsInHumanUnits() throws {
        let summary = try JSONParser.parse("""
            { "scenario": "v115-pausing", "clients": 5000,
              "transitionGapMs": { "p50": 832648.7, "p99": 3191181.438, "max": 1164.4 },
              "transitionsWithin500msShare": 0, "bareShare": 0.00378, "peakRequestsPerSecond": 3803,
              "p99RequestsPerSecond": 7, "dominantErrorSource": "standbyPause",
              "transitionBest500msShare": { "p50": 0.35, "p1": 0.2270, "min": 0.22 }, "viewerPairsWithin500msShare": 0.51236,
              "budgets": [{ "pass": false }, { "pass": true }, { "pass": false }] }
            """)
        let md = IndexCommand.render(title: "t", rows: [("Reports/v115-pausing", try IndexRow(summary))], notes: "")
        // 832,648.7 ms is 13 min 52.6 s; 3,191,181 ms is 53 min 11 s; two of three budgets fail.
        #expect(md.contains("| [v115-pausing](v115-pausing/report.md) | 5,000 | 2 of 3 fail | 22.70% | 51.24% | 13 min 53 s / 53 min 11 s | 3,803 | 0.378% | standbyPause |\n"), "\(md)")
        // A summary written before the cross-player shares leaves their cells empty, not an error.
        let old = try JSONParser.parse("""
            { "scenario": "old", "clients": 5000, "transitionGapMs": { "p50": 1, "p99": 2, "max": 3 },
              "transitionsWithin500msShare": 1, "bareShare": 0, "peakRequestsPerSecond": 1, "p99RequestsPerSecond": 1,
              "dominantErrorSource": null }
            """)
        let oldRow = IndexCommand.render(title: "t", rows: [("Reports/old", try IndexRow(old))], notes: "")
        #expect(oldRow.contains("| [old](old/report.md) | 5,000 | n/a | n/a | n/a | 1.0 ms / 2.0 ms | 1 | 0.000% | n/a |\n"), "\(oldRow)")
    }
}
