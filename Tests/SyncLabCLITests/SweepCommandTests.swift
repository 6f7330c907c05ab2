import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
import SyncLabReports

/// `synclab sweep` and `synclab merge` end to end: shards merged are the unsharded sweep byte for
/// byte, merge refuses bad sets of parts, and bad key paths are input errors.
@Suite struct SweepCommandTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    static let vary = ["--vary", "client.clock=suspending,uptime", "--vary", "population.players=200,300,400", "--seeds", "2", "--threads", "1"]

    static func files(_ dir: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            out[name] = FileManager.default.contents(atPath: dir + "/" + name)
        }
        return out
    }

    @Test func shardsMergedAreTheUnshardedSweepByteForByte() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let whole = Self.synclab(["sweep", scenario, "--out", dir + "/whole"] + Self.vary)
        #expect(whole.status == 0, "stderr: \(whole.err)")
        #expect(whole.out.hasPrefix("seeds 1, 2\nsweep of small: 6 points × 2 seeds\n"))
        for i in 0..<3 {
            let r = Self.synclab(["sweep", scenario, "--shard", "\(i)/3", "--out", dir + "/part\(i)"] + Self.vary)
            #expect(r.status == 0, "stderr: \(r.err)")
            #expect(r.out.contains("shard \(i)/3 runs 2 points"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/part\(i)").sorted() == [ReportWriter.marker, "sweep-part.csv"])
        }
        // Any order of the parts.
        let merged = Self.synclab(["merge", dir + "/part2", dir + "/part0", dir + "/part1", "--out", dir + "/merged"])
        #expect(merged.status == 0, "stderr: \(merged.err)")
        let a = try Self.files(dir + "/whole"), b = try Self.files(dir + "/merged")
        #expect(a.keys.sorted() == [ReportWriter.marker, "sweep.csv", "sweep.md", "sweep_chart.csv", "sweep_chart.svg"])
        #expect(a == b)

        let csv = try String(contentsOfFile: dir + "/whole/sweep.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 1 + 6 * 2)
        #expect(csv[0].hasPrefix("point,seed,client.clock,population.players,budgets,point_budgets,transitionBest500msShare.p1,"))
        #expect(csv[1].hasPrefix("0,1,suspending,200,"))
        #expect(csv[12].hasPrefix("5,2,uptime,400,"))
        // A row is the run that `synclab run` with that point's values and seed gives.
        let point = try ScenarioLoader().load(path: scenario, overrides: [
            .init(keyPath: "client.clock", value: .string("uptime")), .init(keyPath: "population.players", value: .number(300, literal: "300"))])
        var seeded = point
        seeded.seed = 2
        let gap = Simulation.run(seeded).figures["transitionGapMs.p99"] ?? nil
        let header = csv[0].split(separator: ",").map(String.init)
        let row = csv[10].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(row[0] == "4" && row[1] == "2")
        #expect(row[header.firstIndex(of: "transitionGapMs.p99")!] == Headline.cell(gap))
        let md = try String(contentsOfFile: dir + "/whole/sweep.md", encoding: .utf8)
        #expect(md.contains("![viewers in the best 500 ms window, worst 1% of changes (share) against client.clock](sweep_chart.svg)"))
        #expect(!md.contains(" s wall"), "timings belong on stderr")
    }

    /// Each point is judged as `synclab check --seeds 2` judges the scenario with its values; each
    /// link's figures are columns; the chart follows the key that varies, not a first one of one value.
    @Test func everyPointIsJudgedAsCheckJudgesItAndEveryLinkIsAColumn() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let r = Self.synclab(["sweep", scenario, "--out", dir + "/judged", "--vary", "population.players=300",
                              "--vary", "client.clock=suspending,continuous", "--seeds", "2", "--threads", "1"])
        #expect(r.status == 0, "stderr: \(r.err)")
        let csv = try String(contentsOfFile: dir + "/judged/sweep.csv", encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = csv[0]
        let links = try ScenarioLoader().load(path: scenario).links.map(\.name)
        #expect(links == ["wifi", "lte", "3g"])
        for link in links {
            for key in ["clientErrorMs.byLink.\(link).p50", "clientErrorMs.byLink.\(link).p99", "clientErrorMs.byLink.\(link).max",
                        "boundCoverageShare.byLink.\(link)"] {
                #expect(header.contains(key), "\(key) in \(header)")
            }
        }
        let budgets = try #require(header.firstIndex(of: "budgets")), point = try #require(header.firstIndex(of: "point_budgets"))
        for (p, clock) in ["suspending", "continuous"].enumerated() {
            let file = dir + "/point\(p).json"
            try "{ \"extends\": \"small.json\", \"name\": \"point\(p)\", \"client\": { \"clock\": \"\(clock)\" } }"
                .write(toFile: file, atomically: true, encoding: .utf8)
            let check = Self.synclab(["check", file, "--seeds", "2", "--quiet"])
            #expect(check.status <= 1, "\(check.err)")
            let rows = csv.dropFirst().filter { $0[0] == String(p) }
            #expect(rows.count == 2 && rows.allSatisfy { $0[point] == (check.status == 0 ? "PASS" : "FAIL") }, "\(clock): \(check.out)")
            // A seed's verdict is its run's, as `synclab run` gives it.
            for row in rows {
                var seeded = try ScenarioLoader().load(path: file)
                seeded.seed = UInt64(row[1])!
                let result = Simulation.run(seeded, threads: 1)
                #expect(row[budgets] == (result.budgetVerdicts.allSatisfy(\.pass) ? "PASS" : "FAIL"))
                let p99 = result.figures["clientErrorMs.byLink.3g.p99"] ?? nil
                #expect(row[header.firstIndex(of: "clientErrorMs.byLink.3g.p99")!] == Headline.cell(p99))
            }
            #expect(r.out.contains("point \(p): population.players=300 client.clock=\(clock), budgets \(check.status == 0 ? "PASS" : "FAIL")\n"), "\(r.out)")
        }
        let md = try String(contentsOfFile: dir + "/judged/sweep.md", encoding: .utf8)
        #expect(md.contains("against client.clock](sweep_chart.svg)"))
        let chart = try String(contentsOfFile: dir + "/judged/sweep_chart.csv", encoding: .utf8)
        #expect(chart.hasPrefix("client.clock,series,"), "\(chart)")
    }

    @Test func mergeRefusesOverlappingAndMissingParts() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let vary = ["--vary", "population.players=200,300", "--threads", "1"]
        for i in 0..<2 { #expect(Self.synclab(["sweep", scenario, "--shard", "\(i)/2", "--out", dir + "/p\(i)"] + vary).status == 0) }
        let overlap = Self.synclab(["merge", dir + "/p0", dir + "/p1", dir + "/p1", "--out", dir + "/m"])
        #expect(overlap.status == 2)
        #expect(overlap.err.contains("overlapping parts: \(dir)/p1 and \(dir)/p1 are both shard 1/2"))
        let missing = Self.synclab(["merge", dir + "/p0", "--out", dir + "/m"])
        #expect(missing.status == 2)
        #expect(missing.err.contains("missing parts: shard 1/2 (got 0/2)"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/m"), "no partial report")
        // A part of another grid.
        #expect(Self.synclab(["sweep", scenario, "--shard", "1/2", "--out", dir + "/q1", "--vary", "population.players=200,301", "--threads", "1"]).status == 0)
        let foreign = Self.synclab(["merge", dir + "/p0", dir + "/q1", "--out", dir + "/m"])
        #expect(foreign.status == 2 && foreign.err.contains("is a part of another sweep"))
        let notAPart = Self.synclab(["merge", dir, "--out", dir + "/m"])
        #expect(notAPart.status == 2 && notAPart.err.contains("sweep-part.csv: cannot read the file"))
        #expect(Self.synclab(["merge", dir + "/p0"]).err.contains("--out DIR is required"))
        // Merging into one of the parts would delete it.
        let intoPart = Self.synclab(["merge", dir + "/p0", dir + "/p1", "--out", dir + "/p0"])
        #expect(intoPart.status == 2)
        #expect(intoPart.err == "synclab merge: refusing to replace '\(dir)/p0': it holds '\(dir)/p0', an input of this command; choose another folder\n")
        #expect(FileManager.default.fileExists(atPath: dir + "/p0/" + SweepPart.fileName))
    }

    @Test func badKeyPathsAndValuesExitTwoNamingThem() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let unknown = Self.synclab(["sweep", scenario, "--vary", "client.clok=a,b", "--out", dir + "/x"])
        #expect(unknown.status == 2)
        #expect(unknown.err.contains("small.json: client: unknown key 'clok'"), "stderr: \(unknown.err)")
        #expect(unknown.err.contains("client.clok"))
        let index = Self.synclab(["sweep", scenario, "--vary", "network.profiles[9].failure=0.1", "--out", dir + "/x"])
        #expect(index.status == 2 && index.err.contains("network.profiles[9].failure: cannot set this key path"))
        let range = Self.synclab(["sweep", scenario, "--vary", "population.players=100,-5", "--out", dir + "/x"])
        #expect(range.status == 2 && range.err.contains("population.players: must be between 1 and"), "stderr: \(range.err)")
        #expect(range.err.contains("at point 1"))
        let malformed = Self.synclab(["sweep", scenario, "--vary", "a..b=1"])
        #expect(malformed.status == 2 && malformed.err.contains("'a..b' is not a key path"))
        #expect(Self.synclab(["sweep", scenario]).err.contains("give at least one --vary"))
        #expect(Self.synclab(["sweep", scenario, "--vary", "seed=1,2"]).err.contains("use --seeds N"))
        #expect(Self.synclab(["sweep", scenario, "--vary", "population.players=1", "--shard", "3/3"]).err.contains("--shard expects i/n"))
        #expect(Self.synclab(["sweep", scenario, "--vary", "population.players=1", "--chart", "nope"]).err.contains("is not a headline figure"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/x"))
    }
}
