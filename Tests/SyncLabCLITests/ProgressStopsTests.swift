import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// Every command that simulates finishes with progress on, off a terminal (as in a CI log), on
/// a coupled fleet split into more shards than the machine has cores, and writes the bytes it
/// writes with `--quiet`. Progress stops every run at fixed simulated instants and starts it
/// again; the fake clock jumps 31 s a reading, so the plain progress lines are written too.
@Suite struct ProgressStopsTests {
    /// 14,000 players through a 5x release on v1.1.5's five queueing servers: seven shards of
    /// 2,000 at `--threads 7`.
    static func scenario(in dir: String) throws -> String {
        let base = try String(contentsOfFile: CLITests.shippedPausing, encoding: .utf8)
        try base.write(toFile: dir + "/base.json", atomically: true, encoding: .utf8)
        let path = dir + "/coupled.json"
        try """
            { "extends": "base.json", "name": "coupled", "duration": "20m", "warmup": "5m",
              "population": { "players": 14000, "release": { "at": "8m", "multiplier": 5, "window": "1m" } } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func synclab(_ args: [String], quiet: Bool) -> (status: Int32, out: String, err: String) {
        ProgressAndHelpTests.synclab(args + (quiet ? ["--quiet"] : []), progress: true, terminal: false, step: 31)
    }

    /// Runs `args` with progress and with `--quiet`, each writing to its own `--out`, and
    /// expects the same status, stdout and files.
    static func expectProgressChangesNothing(_ args: [String], dir: String, tag: String, status: Int32 = 0) throws {
        let shown = synclab(args + ["--out", "\(dir)/\(tag)-shown"], quiet: false)
        let quiet = synclab(args + ["--out", "\(dir)/\(tag)-quiet"], quiet: true)
        #expect(shown.status == status && quiet.status == status, "\(tag): \(shown.err) \(quiet.err)")
        #expect(shown.err.contains("simulated ("), "\(tag): progress lines were written: \(shown.err)")
        #expect(!quiet.err.contains("simulated ("), "\(tag)")
        #expect(shown.out.replacingOccurrences(of: "-shown", with: "") == quiet.out.replacingOccurrences(of: "-quiet", with: ""), "\(tag)")
        let a = try SweepCommandTests.files("\(dir)/\(tag)-shown"), b = try SweepCommandTests.files("\(dir)/\(tag)-quiet")
        #expect(a.keys.sorted() == b.keys.sorted() && a == b, "\(tag): the files differ")
    }

    @Test func runOnSevenShards() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.scenario(in: dir)
        try Self.expectProgressChangesNothing(["run", scenario, "--threads", "7"], dir: dir, tag: "run")
        // Seven shards: the run's timing line on stderr says how many threads it used.
        let shown = Self.synclab(["run", scenario, "--threads", "7", "--out", dir + "/again"], quiet: false)
        #expect(shown.out.contains("14,000 players") && shown.err.contains(", 7 threads"), "\(shown.err)")
    }

    @Test func sweepOnThreeShards() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.scenario(in: dir)
        try Self.expectProgressChangesNothing(["sweep", scenario, "--vary", "client.probes=1,2", "--seeds", "2", "--threads", "3"],
                                              dir: dir, tag: "sweep")
    }

    @Test func searchOnSevenShards() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try Self.scenario(in: dir)
        try """
            { "base": "coupled.json", "objective": "servers", "seeds": 1, "maxFailingSeeds": 0,
              "knobs": [ { "key": "server.fleet.servers", "values": [4, 5], "monotone": true } ] }
            """.write(toFile: dir + "/search.json", atomically: true, encoding: .utf8)
        let shown = Self.synclab(["search", dir + "/search.json", "--threads", "7", "--out", dir + "/search-shown"], quiet: false)
        let quiet = Self.synclab(["search", dir + "/search.json", "--threads", "7", "--out", dir + "/search-quiet"], quiet: true)
        #expect(shown.status == quiet.status && shown.status <= 1, "\(shown.err)")
        #expect(shown.err.contains("simulated ("))
        // best.json extends the base by a path relative to its folder: the same in both.
        #expect(try SweepCommandTests.files(dir + "/search-shown") == SweepCommandTests.files(dir + "/search-quiet"))
    }

    /// `check` runs every seed on the machine's cores: with progress, between seeds too.
    @Test func checkOverSeeds() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.scenario(in: dir)
        let shown = Self.synclab(["check", scenario, "--seeds", "3", "--junit", dir + "/shown.xml"], quiet: false)
        let quiet = Self.synclab(["check", scenario, "--seeds", "3", "--junit", dir + "/quiet.xml"], quiet: true)
        #expect(shown.status == quiet.status && shown.status <= 1, "\(shown.err)")
        #expect(shown.out.replacingOccurrences(of: "shown.xml", with: "") == quiet.out.replacingOccurrences(of: "quiet.xml", with: ""))
        #expect(FileManager.default.contents(atPath: dir + "/shown.xml") == FileManager.default.contents(atPath: dir + "/quiet.xml"))
    }
}
