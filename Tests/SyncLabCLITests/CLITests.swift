import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// The folders the CLI tests write, all inside one folder per test process that is removed when
/// the process exits (a run of the suite used to leave dozens behind).
enum CLITestFolders {
    static let root: String = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("synclab-cli-tests-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: CLITestFolders.root) }
        return root
    }()
}

/// The command line as a user meets it: exit statuses, messages naming file and key path, and
/// report folders that are complete, byte-identical, and never written over a user's files.
@Suite struct CLITests {
    /// Runs `synclab` in-process, capturing stdout and stderr.
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) {
        final class Box: @unchecked Sendable { var out = ""; var err = "" }
        let box = Box()
        let cli = CLI(out: { box.out += $0 }, err: { box.err += $0 })
        let status = cli.main(args)
        return (status, box.out, box.err)
    }

    /// A fresh folder inside this test process's own (`CLITestFolders`).
    static func temporaryDirectory() -> String {
        let dir = CLITestFolders.root + "/cli-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static var shippedPausing: String {
        (#filePath.components(separatedBy: "/Tests/").first ?? ".") + "/Scenarios/v115-pausing.json"
    }

    /// A small variant of the shipped scenario, written next to a copy of it.
    static func smallScenario(in dir: String, overrides: String = "") throws -> String {
        let base = try String(contentsOfFile: shippedPausing, encoding: .utf8)
        try base.write(toFile: dir + "/base.json", atomically: true, encoding: .utf8)
        let text = """
        { "extends": "base.json", "name": "small", "duration": "30m", "warmup": "10m",
          "population": { "players": 300, "release": { "at": "15m", "multiplier": 50, "window": "1m" } }\(overrides) }
        """
        try text.write(toFile: dir + "/small.json", atomically: true, encoding: .utf8)
        return dir + "/small.json"
    }

    @Test func runWritesEveryFileAndIsByteIdentical() throws {
        let dir = Self.temporaryDirectory()
        let scenario = try Self.smallScenario(in: dir)
        let a = Self.synclab(["run", scenario, "--out", dir + "/a"])
        let b = Self.synclab(["run", scenario, "--out", dir + "/b"])
        #expect(a.status == 0)
        #expect(b.status == 0)
        #expect(a.out.hasPrefix("seed 1\n"))
        let names = ["report.md", "summary.json", "load.csv", "transitions.csv", "error_by_clock.csv",
                     "error_by_link.csv", "error_by_wake.csv", ReportWriter.marker]
        for name in names {
            let x = FileManager.default.contents(atPath: dir + "/a/" + name)
            let y = FileManager.default.contents(atPath: dir + "/b/" + name)
            #expect(x != nil, "missing \(name)")
            #expect(x == y, "\(name) differs between identical runs")
        }
        let summary = try String(contentsOfFile: dir + "/a/summary.json", encoding: .utf8)
        for key in ["\"scenario\"", "\"seed\"", "\"clients\": 300", "\"simulatedSeconds\": 1800.000", "\"transitionGapMs\"",
                    "\"clientErrorMs\"", "\"transitionsWithin500msShare\"", "\"requests\"", "\"peakRequestsPerSecond\"",
                    "\"p99RequestsPerSecond\"", "\"meanRequestsPerSecond\"", "\"bareShare\"", "\"budgets\""] {
            #expect(summary.contains(key), "summary.json lacks \(key)")
        }
        // No NaN or infinity as a value (key names such as "standbyPause" may contain the letters).
        #expect(summary.range(of: #"[:\[,]\s*-?(nan|inf)"#, options: [.regularExpression, .caseInsensitive]) == nil)
    }

    @Test func overridesApply() throws {
        let dir = Self.temporaryDirectory()
        let scenario = try Self.smallScenario(in: dir)
        let r = Self.synclab(["run", scenario, "--out", dir + "/o", "--seed", "9", "--clients", "120", "--duration", "20m"])
        #expect(r.status == 0)
        let summary = try String(contentsOfFile: dir + "/o/summary.json", encoding: .utf8)
        #expect(summary.contains("\"seed\": 9,"))
        #expect(summary.contains("\"clients\": 120,"))
        #expect(summary.contains("\"simulatedSeconds\": 1200.000,"))
    }

    /// Each bad scenario: exit 2, a message naming the file and key path, and no report folder.
    @Test(arguments: [
        ("{ \"name\": \"x\", ", "bad.json: line 1, column"),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"network\": {\"profiles\": [{\"name\": \"wifi\", \"share\": 1, \"uplnk\": \"5ms\", \"uplink\": \"5ms\", \"downlink\": \"5ms\", \"bandwidth\": \"1MB/s\"}]}}",
         "bad.json: network.profiles[0]: unknown key 'uplnk'"),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"duration\": \"5 sec\"}", "bad.json: duration: "),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"duration\": 5}", "bad.json: duration: expected a duration"),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"duration\": \"-5m\"}", "bad.json: duration: must be greater than zero"),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"population\": {\"lockShare\": 1.5}}", "bad.json: population.lockShare: "),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"population\": {\"players\": -5}}", "bad.json: population.players: "),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"client\": {\"clock\": \"sundial\"}}", "bad.json: client.clock: unknown clock 'sundial'"),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"store\": {\"shelfLife\": {\"kind\": \"uniform\", \"min\": \"4m\", \"max\": \"45s\"}}}",
         "bad.json: store.shelfLife.max: must be at least min"),
        ("{\"extends\": \"base.json\", \"name\": \"bad\", \"budgets\": [{\"name\": \"g\", \"metric\": \"transitionGapMs.p98\", \"max\": 1}]}",
         "bad.json: budgets[0].metric: unknown figure 'transitionGapMs.p98'; did you mean"),
        ("{\"extends\": \"missing.json\", \"name\": \"bad\"}", "bad.json: extends: no such file 'missing.json'"),
        ("{\"extends\": \"bad.json\", \"name\": \"bad\"}", "extends cycle: bad.json → bad.json"),
    ])
    func badScenarioIsRefusedCleanly(text: String, message: String) throws {
        let dir = Self.temporaryDirectory()
        _ = try Self.smallScenario(in: dir)
        try text.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let r = Self.synclab(["run", dir + "/bad.json", "--out", dir + "/report"])
        #expect(r.status == 2)
        #expect(r.err.contains(message), "stderr was: \(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/report"))
    }

    @Test func shareSumIsChecked() throws {
        let dir = Self.temporaryDirectory()
        _ = try Self.smallScenario(in: dir)
        let profile = "{\"name\": \"%@\", \"share\": %@, \"uplink\": \"5ms\", \"downlink\": \"5ms\", \"bandwidth\": \"1MB/s\"}"
        let profiles = [profile.replacingOccurrences(of: "%@", with: "a").replacingOccurrences(of: "a\", \"share\": a", with: "a\", \"share\": 0.5"),
                        "{\"name\": \"b\", \"share\": 0.4, \"uplink\": \"5ms\", \"downlink\": \"5ms\", \"bandwidth\": \"1MB/s\"}"]
        let text = "{\"extends\": \"base.json\", \"name\": \"bad\", \"network\": {\"profiles\": [\(profiles.joined(separator: ","))]}}"
        try text.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let r = Self.synclab(["validate", dir + "/bad.json"])
        #expect(r.status == 2)
        #expect(r.err.contains("bad.json: network.profiles: shares must sum to 1 (within 0.000001); they sum to 0.9"), "stderr was: \(r.err)")
    }

    @Test(arguments: [
        (["run"], "synclab run: missing the scenario file\n"),
        (["run", "x.json", "--clients", "-5"], "synclab run: --clients expects a whole number from 1 to 20000000; got '-5'\n"),
        (["run", "x.json", "--clients", "0"], "synclab run: --clients expects a whole number from 1 to 20000000; got '0'\n"),
        (["run", "x.json", "--clients", "20000001"], "synclab run: --clients expects a whole number from 1 to 20000000; got '20000001'\n"),
        (["run", "x.json", "--clients", "1e3"], "synclab run: --clients expects a whole number from 1 to 20000000; got '1e3'\n"),
        (["run", "x.json", "--seed"], "synclab run: --seed needs a value\n"),
        (["run", "x.json", "--seed", "-1"], "synclab run: --seed expects a whole number from 0 to 9223372036854775807; got '-1'\n"),
        (["run", "x.json", "--seed", "9223372036854775808"],
         "synclab run: --seed expects a whole number from 0 to 9223372036854775807; got '9223372036854775808'\n"),
        (["run", "x.json", "--out", "--seed", "3"], "synclab run: --out needs a value; got the option --seed\n"),
        (["run", "x.json", "--out="], "synclab run: --out needs a folder; got an empty value\n"),
        (["run", "x.json", "--seed", "1", "--seed", "2"], "synclab run: --seed is given more than once\n"),
        (["run", "x.json", "--sed", "3"], "synclab run: unknown option --sed; did you mean --seed?\n"),
        (["run", "x.json", "-x"], "synclab run: unknown option -x; options start with '--', like --seed\n"),
        (["run", "x.json", "y.json"], "synclab run: expected one scenario file, got 2: 'x.json', 'y.json'\n"),
        (["run", "x.json", "--duration", "5 sec"],
         "synclab run: --duration: unknown unit 'sec' in \"5 sec\"; expected one of ns, us, ms, s, m, h, d (did you mean 's'?)\n"),
        (["run", "x.json", "--duration", "0s"], "synclab run: --duration must be greater than zero and at most 30d; got '0s'\n"),
        (["run", "x.json", "--duration", "31d"], "synclab run: --duration must be greater than zero and at most 30d; got '31d'\n"),
        (["validate"], "synclab validate: missing scenario files\n"),
        (["validate", "--strict", "x.json"], "synclab validate: unknown option --strict\n"),
        (["validate", "-q", "x.json"], "synclab validate: unknown option -q\n"),
        (["frobnicate"], "synclab: unknown command 'frobnicate'\n"),
    ])
    func usageErrorsExitTwo(args: [String], message: String) {
        let r = Self.synclab(args)
        #expect(r.status == 2)
        #expect(r.err.hasPrefix(message), "stderr was: \(r.err)")
        #expect(r.out.isEmpty)
    }

    /// The overrides can make a run too big for memory: refused with the estimate, before the
    /// world is allocated, and no report is written.
    @Test func overridesThatExhaustMemoryAreRefused() throws {
        let dir = Self.temporaryDirectory()
        let scenario = try Self.smallScenario(in: dir)
        let r = Self.synclab(["run", scenario, "--out", dir + "/r", "--clients", "20000000", "--duration", "30d"])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("synclab run: \(scenario) with --clients 20000000 --duration 30d: this scenario would need about "),
                "stderr was: \(r.err)")
        #expect(r.err.contains("(20000000 players × 584 B = 10.9 GiB; "))
        // The limit is this process's real one (the lowest of its rlimits, cgroup and available
        // memory, at most the lab's 16 GiB ceiling), named with where it comes from.
        #expect(r.err.contains("; the limit is "))
        #expect(r.err.hasSuffix("; use fewer players, a shorter duration or fewer positions\n"))
        #expect(r.out.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir + "/r"))
    }

    @Test func missingScenarioFile() {
        let r = Self.synclab(["run", "/nonexistent/nowhere.json"])
        #expect(r.status == 2)
        #expect(r.err == "synclab run: /nonexistent/nowhere.json: cannot read the file: it does not exist\n")
        let v = Self.synclab(["validate", "/nonexistent/nowhere.json"])
        #expect(v.status == 2)
        #expect(v.err == "synclab validate: /nonexistent/nowhere.json: cannot read the file: it does not exist\n")
    }

    @Test func validateSkipsTheSchemaAndReportsEachFile() throws {
        let dir = Self.temporaryDirectory()
        let scenario = try Self.smallScenario(in: dir)
        try "{\"extends\": \"base.json\", \"name\": \"bad\", \"warmup\": \"-1m\"}".write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let schema = (#filePath.components(separatedBy: "/Tests/").first ?? ".") + "/Scenarios/scenario.schema.json"
        let r = Self.synclab(["validate", scenario, dir + "/bad.json", schema])
        #expect(r.status == 2)
        #expect(r.out == "ok small (\(scenario))\nskipped \(schema) (a JSON Schema, not a scenario)\n")
        #expect(r.err == "synclab validate: \(dir)/bad.json: warmup: must not be negative; got \"-1m\"\n")
    }

    @Test func refusesToReplaceAFolderItDidNotWrite() throws {
        let dir = Self.temporaryDirectory()
        let scenario = try Self.smallScenario(in: dir)
        let mine = dir + "/mine"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        try "precious".write(toFile: mine + "/thesis.txt", atomically: true, encoding: .utf8)
        let r = Self.synclab(["run", scenario, "--out", mine])
        #expect(r.status == 2)
        #expect(r.err.contains("is not a SyncLab report folder"))
        #expect((try? String(contentsOfFile: mine + "/thesis.txt", encoding: .utf8)) == "precious")
        let dot = Self.synclab(["run", scenario, "--out", "."])
        #expect(dot.status == 2)
        #expect(dot.err.hasPrefix("synclab run: refusing to write a report into '.' ("))
        // A literal "~" (quoted in the shell) is the home folder too, and so is its full path.
        for home in ["~", FileManager.default.homeDirectoryForCurrentUser.path] {
            let r = Self.synclab(["run", scenario, "--out", home])
            #expect(r.status == 2)
            #expect(r.err.hasPrefix("synclab run: refusing to write a report into '\(home)' ("), "stderr was: \(r.err)")
            #expect(r.out.isEmpty)   // refused before the run: no seed line
        }
        // A file is not replaced either.
        try "notes".write(toFile: dir + "/notes.txt", atomically: true, encoding: .utf8)
        let file = Self.synclab(["run", scenario, "--out", dir + "/notes.txt"])
        #expect(file.status == 2)
        #expect(file.err == "synclab run: '\(dir)/notes.txt' exists and is not a folder; refusing to replace it\n")
        #expect((try? String(contentsOfFile: dir + "/notes.txt", encoding: .utf8)) == "notes")
    }

    /// A run that measures nothing says so in words, and its figures are null, never NaN.
    @Test func emptyRunSaysSo() throws {
        let dir = Self.temporaryDirectory()
        _ = try Self.smallScenario(in: dir)
        let text = """
        { "extends": "base.json", "name": "empty", "duration": "1m", "warmup": "0s",
          "population": { "players": 1, "visitGap": "1d", "release": { "at": "1s", "multiplier": 1 } } }
        """
        try text.write(toFile: dir + "/empty.json", atomically: true, encoding: .utf8)
        let r = Self.synclab(["run", dir + "/empty.json", "--out", dir + "/e"])
        #expect(r.status == 0)
        let report = try String(contentsOfFile: dir + "/e/report.md", encoding: .utf8)
        #expect(report.contains("> No item change was shown by two or more players, so the cross-player figures are not measured"))
        #expect(report.contains("> No player had the Store on screen at a sample instant, so client error is not measured."))
        let summary = try String(contentsOfFile: dir + "/e/summary.json", encoding: .utf8)
        #expect(summary.contains("\"transitionGapMs\": { \"p50\": null, \"p99\": null, \"max\": null }"))
        #expect(summary.contains("\"clientErrorMs\": { \"p50\": null, \"p99\": null, \"max\": null }"))
        for name in try FileManager.default.contentsOfDirectory(atPath: dir + "/e") {
            let contents = try String(contentsOfFile: dir + "/e/" + name, encoding: .utf8)
            #expect(!ScenarioFuzzTests.containsNonFinite(contents), "\(name)")
        }
    }

    @Test func replacesItsOwnReport() throws {
        let dir = Self.temporaryDirectory()
        let scenario = try Self.smallScenario(in: dir)
        #expect(Self.synclab(["run", scenario, "--out", dir + "/r"]).status == 0)
        try "stale".write(toFile: dir + "/r/extra.txt", atomically: true, encoding: .utf8)
        #expect(Self.synclab(["run", scenario, "--out", dir + "/r"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: dir + "/r/extra.txt"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") || $0.contains(".old-") }
        #expect(leftovers.isEmpty)
    }

    @Test func helpOnEveryCommand() {
        for command in ["run", "validate", "list"] {
            let r = Self.synclab([command, "--help"])
            #expect(r.status == 0)
            #expect(r.out.contains("USAGE"))
            #expect(r.out.contains("synclab \(command)"))
        }
        let top = Self.synclab(["--help"])
        #expect(top.status == 0 && top.out.contains("COMMANDS"))
    }

    @Test func validateAndListShippedScenarios() {
        let dir = (#filePath.components(separatedBy: "/Tests/").first ?? ".") + "/Scenarios"
        let v = Self.synclab(["validate", dir + "/v115-pausing.json", dir + "/v115-uptime.json"])
        #expect(v.status == 0)
        #expect(v.out.contains("ok v115-pausing") && v.out.contains("ok v115-uptime"))
        let l = Self.synclab(["list", dir])
        #expect(l.status == 0)
        #expect(l.out.contains("v115-uptime\t"))
    }
}

/// `synclab schema` and `synclab list --kinds`: both read the plug-in registry.
@Suite struct RegistryCommandTests {
    @Test func schemaPrintsTheGeneratedSchema() throws {
        let r = CLITests.synclab(["schema"])
        #expect(r.status == 0 && r.err == "")
        #expect(r.out == ScenarioSchema.text(for: .builtIn))
        let dir = CLITests.temporaryDirectory()
        let written = CLITests.synclab(["schema", "--out", dir + "/s.json"])
        #expect(written.status == 0 && written.out == "wrote \(dir)/s.json\n")
        #expect(try String(contentsOfFile: dir + "/s.json", encoding: .utf8) == r.out)
        #expect(CLITests.synclab(["schema", "extra"]).status == 2)
    }

    @Test func listKindsShowsEveryRegisteredKind() {
        let r = CLITests.synclab(["list", "--kinds"])
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == PluginRegistry.builtIn.kinds.count)
        #expect(lines.first == "clock\tsuspending\tmach_absolute_time / CACurrentMediaTime: stops while the device is in deep sleep (default).")
        #expect(lines.contains("costModel\tflat\tA flat-rate server; the peak second decides how many it takes."))
        #expect(lines.contains { $0.hasPrefix("deviceEvent\tstandbyWakes\t") })
        #expect(lines.contains { $0.hasPrefix("delayProcess\treplay\t") })
        #expect(lines.contains { $0.hasPrefix("radio\trrc\t") })
        #expect(lines.contains { $0.hasPrefix("leapSecond\tsmear\t") })
        #expect(lines.last?.hasPrefix("serverClockFault\tdrift\t") == true)
        #expect(CLITests.synclab(["list", "--kinds", "Scenarios"]).status == 2)
    }
}
