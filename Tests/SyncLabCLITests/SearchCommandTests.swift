import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
import SyncLabReports

/// `synclab search` end to end on a small, loaded scenario: the search finds what running every
/// candidate finds, shards merge into the same bytes, nothing passing exits 1 with the nearest
/// miss, bad input exits 2 naming the key path, and best.json runs as it is.
@Suite struct SearchCommandTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    /// 3,000 players whose release meets single-worker servers of 10 requests a second with
    /// two places to wait: too few servers turn requests away.
    static func loadedScenario(in dir: String) throws -> String {
        _ = try CLITests.smallScenario(in: dir, overrides: """
            , "server": { "workers": 1, "queueLimit": 2, "serviceTime": { "kind": "constant", "value": "100ms" } }
            """)
        let text = """
            { "extends": "small.json", "name": "loaded", "population": { "players": 3000 } }
            """
        try text.write(toFile: dir + "/loaded.json", atomically: true, encoding: .utf8)
        return dir + "/loaded.json"
    }

    static func searchFile(_ dir: String, _ name: String, knobs: String, failed: Double = 0.01, extra: String = "") throws -> String {
        let text = """
            { "base": "loaded.json", "knobs": [\(knobs)],
              "constraints": [ { "name": "few requests fail", "metric": "failedRequestShare", "max": \(failed) } ],
              "objective": "servers", "seeds": 2\(extra) }
            """
        try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        return dir + "/" + name
    }

    static func files(_ dir: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) where name != ReportWriter.marker {
            out[name] = FileManager.default.contents(atPath: dir + "/" + name)
        }
        return out
    }

    @Test func bisectionFindsTheFewestServersThatRunningEveryCountFinds() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try Self.loadedScenario(in: dir)
        let servers = "{ \"key\": \"server.fleet.servers\", \"values\": [2, 3, 4, 5, 6, 7, 8, 10]"
        let every = try Self.searchFile(dir, "every.json", knobs: servers + " }")
        let bisect = try Self.searchFile(dir, "bisect.json", knobs: servers + ", \"monotone\": true }")
        let a = Self.synclab(["search", every, "--out", dir + "/every", "--threads", "1", "--quiet"])
        let b = Self.synclab(["search", bisect, "--out", dir + "/bisect", "--threads", "1", "--quiet"])
        #expect(a.status == 0 && b.status == 0, "stderr: \(a.err) \(b.err)")
        // Running every count: the fewest servers meeting the constraint on both seeds.
        let rows = try String(contentsOfFile: dir + "/every/candidates.csv", encoding: .utf8).split(separator: "\n").dropFirst()
        let meeting = rows.filter { $0.contains(",meets,full,") }.map { Int($0.split(separator: ",")[1])! }
        let fewest = try #require(meeting.min())
        #expect(fewest > 2, "the space must hold a count that turns requests away")
        // Candidates are numbered from 0, as in candidates.csv: the value v is candidate v − 2.
        #expect(b.out.contains("winner: candidate \(fewest - 2) (server.fleet.servers=\(fewest)), servers \(fewest)"), "\(b.out)")
        // Fewer runs than the grid, and the counts run by both have the same figures (same seeds).
        let bisected = try String(contentsOfFile: dir + "/bisect/candidates.csv", encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(bisected.filter { $0.contains(",full,") }.count < rows.count)
        for line in bisected where line.contains(",meets,full,") {
            #expect(rows.contains(line), "\(line)")
        }
        // best.json is the base in full with the winner, and holds its constraint when checked.
        let best = try String(contentsOfFile: dir + "/bisect/best.json", encoding: .utf8)
        #expect(!best.contains("\"extends\"") && best.contains("\"servers\": \(fewest)") && best.contains("\"players\": 3000"), "\(best)")
        let check = Self.synclab(["check", dir + "/bisect/best.json", "--quiet"])
        #expect(check.status == 0, "\(check.out) \(check.err)")
    }

    @Test func shardsMergedAreTheUnshardedSearchByteForByte() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try Self.loadedScenario(in: dir)
        let file = try Self.searchFile(dir, "space.json",
            knobs: "{ \"key\": \"client.clock\", \"values\": [\"suspending\", \"continuous\", \"uptime\"] }, "
                + "{ \"key\": \"server.fleet.servers\", \"values\": [3, 4, 5, 6, 8], \"monotone\": true }",
            extra: ", \"screen\": { \"players\": 500, \"slack\": 0.5 }")
        let whole = Self.synclab(["search", file, "--out", dir + "/whole", "--threads", "2", "--quiet"])
        #expect(whole.status == 0, "stderr: \(whole.err)")
        #expect(whole.out.hasPrefix("seeds 1, 2\nsearch of loaded: 15 candidates (0 to 14) in 3 groups of 5\n"), "\(whole.out)")
        #expect(whole.out.contains("candidate 4 (client.clock=suspending server.fleet.servers=8), screen seed 1: passes screening"))
        for i in 0..<2 {
            let r = Self.synclab(["search", file, "--shard", "\(i)/2", "--out", dir + "/part\(i)", "--threads", "1", "--quiet"])
            #expect(r.status == 0, "stderr: \(r.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/part\(i)").sorted() == [ReportWriter.marker, SearchPart.fileName])
        }
        let merged = Self.synclab(["merge", dir + "/part1", dir + "/part0", "--out", dir + "/merged"])
        #expect(merged.status == 0, "stderr: \(merged.err)")
        let a = try Self.files(dir + "/whole"), b = try Self.files(dir + "/merged")
        #expect(Set(a.keys) == ["search.md", "candidates.csv", "pareto.csv", "pareto.svg", "best.json"])
        #expect(a == b, "merged parts differ from the unsharded search")
        // A missing shard is refused and writes nothing.
        let missing = Self.synclab(["merge", dir + "/part0", "--out", dir + "/half"])
        #expect(missing.status == 2 && missing.err.contains("missing parts: shard 1/2"), "\(missing.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/half"))
    }

    @Test func aSpaceWhereNothingPassesExitsOneNamingTheNearestMiss() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try Self.loadedScenario(in: dir)
        // Every run loses some requests to the links' own failures: none fails none.
        let file = try Self.searchFile(dir, "none.json", knobs: "{ \"key\": \"server.fleet.servers\", \"values\": [2, 8], \"monotone\": true }", failed: 0)
        let r = Self.synclab(["search", file, "--out", dir + "/none", "--threads", "1", "--quiet"])
        #expect(r.status == 1, "\(r.out) \(r.err)")
        #expect(r.out.contains("no design meets every constraint; nearest miss: candidate 1 (server.fleet.servers=8), which misses failedRequestShare"), "\(r.out)")
        let md = try String(contentsOfFile: dir + "/none/search.md", encoding: .utf8)
        #expect(md.contains("**No design in the space meets every constraint.** The nearest miss is `server.fleet.servers`=8"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/none/best.json"))
    }

    @Test func badInputExitsTwoNamingTheFileAndKeyPathBeforeAnyRun() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try Self.loadedScenario(in: dir)
        let cases: [(knobs: String, extra: String, expected: String)] = [
            ("{ \"key\": \"client.probes\", \"values\": [] }", "", "knobs[0].values: a knob needs at least one value"),
            ("{ \"key\": \"client..probes\", \"values\": [1] }", "", "knobs[0].key: 'client..probes' is not a key path"),
            ("{ \"key\": \"client.clock\", \"values\": [\"sundial\"] }", "", "candidate 0 (client.clock=sundial)"),
            ("{ \"key\": \"server.fleet.servers\", \"values\": [4, 2], \"monotone\": true }", "", "knobs[0].values[1]: a monotone knob's values must increase"),
            ("{ \"key\": \"client.probes\", \"values\": [1, 1] }", "", "knobs[0].values[1]: the value 1 repeats"),
            ("{ \"key\": \"client.probes\", \"values\": [1] }", ", \"objective\": \"servrs\"", "objective: 'servrs' is not a figure to minimise; did you mean 'servers'?"),
            ("{ \"key\": \"client.probes\", \"values\": [1] }", ", \"screen\": { \"players\": 0 }", "screen.players"),
        ]
        for (i, c) in cases.enumerated() {
            var text = try String(contentsOfFile: try Self.searchFile(dir, "bad\(i).json", knobs: c.knobs), encoding: .utf8)
            if c.extra.contains("objective") { text = text.replacingOccurrences(of: "\"objective\": \"servers\"", with: "\"objective\": \"x\"") }
            text = String(text.dropLast()) + c.extra + "}"
            if c.extra.contains("objective") { text = text.replacingOccurrences(of: "\"objective\": \"x\", ", with: "") }
            try text.write(toFile: dir + "/bad\(i).json", atomically: true, encoding: .utf8)
            let r = Self.synclab(["search", dir + "/bad\(i).json", "--out", dir + "/out\(i)"])
            #expect(r.status == 2, "case \(i): \(r.out) \(r.err)")
            #expect(r.err.contains("bad\(i).json") && r.err.contains(c.expected), "case \(i): \(r.err)")
            #expect(!r.out.contains("seeds"), "case \(i) ran")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out\(i)"))
        }
    }

    @Test func progressSaysWhichCandidateOfHowManyAndHelpHasExamples() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try Self.loadedScenario(in: dir)
        let file = try Self.searchFile(dir, "p.json", knobs: "{ \"key\": \"server.fleet.servers\", \"values\": [6, 8], \"monotone\": true }")
        let r = ProgressAndHelpTests.synclab(["search", file, "--out", dir + "/p", "--threads", "1"], progress: true)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("\rcandidate 1 (0 to 1), full seed 1: ") && r.err.contains("\rcandidate 0 (0 to 1), full seed 2: "), "stderr: \(r.err)")
        #expect(!r.out.contains("\r"), "progress only on stderr")
        let help = ProgressAndHelpTests.synclab(["search", "--help"], progress: false)
        #expect(help.status == 0 && help.out.hasPrefix("synclab search — ") && help.out.contains("USAGE\n") && help.out.contains("EXAMPLES"))
        #expect(ProgressAndHelpTests.synclab(["help", "search"], progress: false).out == help.out)
        #expect(ProgressAndHelpTests.synclab(["help"], progress: false).out.contains("synclab search "))
    }
}
