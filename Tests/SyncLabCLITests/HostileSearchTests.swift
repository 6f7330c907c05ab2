import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
import SyncLabReports

/// The third hostile sweep's rows on `search`, `merge` and `sweep --vary`: each repro through the
/// command line, its exit status and its message. Bad input is refused before any run (no
/// "seeds" line on stdout) and writes nothing; no path, name or value reaches the terminal or a
/// report with a raw control character.
@Suite struct HostileSearchTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    /// A folder holding small.json (300 players, 40 simulated minutes) and loose.json (it, with
    /// one easy budget), as the sweep's repros use.
    static func folder() throws -> String {
        let dir = CLITests.temporaryDirectory()
        _ = try CLITests.smallScenario(in: dir)
        try """
            { "extends": "small.json", "name": "loose", "budgets": [ { "name": "bare", "metric": "bareShare", "max": 0.05 } ] }
            """.write(toFile: dir + "/loose.json", atomically: true, encoding: .utf8)
        return dir
    }

    static func write(_ text: String, _ path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    /// A search over loose.json with `knobs` (and `extra` top-level members).
    static func search(_ dir: String, _ name: String, knobs: String, objective: String = "servers", extra: String = "") throws -> String {
        try write("{ \"base\": \"loose.json\", \"knobs\": [\(knobs)], \"objective\": \"\(objective)\"\(extra) }", dir + "/" + name)
        return dir + "/" + name
    }

    /// Exit 2, `expected` in the message, nothing run and nothing written to `out`.
    static func expectRefused(_ r: (status: Int32, out: String, err: String), _ expected: String, out: String? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 2, "\(r.out) \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains(expected), "\(r.err)", sourceLocation: sourceLocation)
        #expect(!r.out.contains("seeds"), "it ran: \(r.out)", sourceLocation: sourceLocation)
        if let out { #expect(!FileManager.default.fileExists(atPath: out), "wrote \(out)", sourceLocation: sourceLocation) }
    }

    static let escape = "\u{1B}]0;PWNED\u{07}"

    // MARK: F01: control characters from a path, a knob value or a constraint's name

    @Test func f01PathsNamesAndValuesAreEscapedOnTheTerminalAndInReports() throws {
        let dir = try Self.folder()
        let file = dir + "/x\(Self.escape).json"
        let search = Self.synclab(["search", file])
        Self.expectRefused(search, "x\\u{1B}]0;PWNED\\u{7}.json: cannot read the file: it does not exist")
        #expect(!search.err.contains("\u{1B}") && !search.err.contains("\u{07}"))
        let merge = Self.synclab(["merge", dir + "/x\(Self.escape)", "--out", dir + "/m"])
        Self.expectRefused(merge, "x\\u{1B}]0;PWNED\\u{7}/sweep-part.csv: cannot read the file: it does not exist", out: dir + "/m")
        #expect(!merge.err.contains("\u{1B}") && !merge.err.contains("\u{07}"))
        // A search whose file name, constraint name and a knob value hold ESC … BEL prints and
        // writes them escaped (or, where the scenario format refuses such text, says so escaped).
        let named = dir + "/s\(Self.escape).json"
        try Self.write("""
            { "base": "loose.json", "knobs": [ { "key": "description", "values": ["b", "a\\u001b]0;PWNED\\u0007"] } ],
              "constraints": [ { "name": "c\\u001b]0;PWNED\\u0007", "metric": "bareShare", "max": 0.5 } ], "objective": "servers" }
            """, named)
        let r = Self.synclab(["search", named, "--out", dir + "/esc", "--threads", "1", "--quiet"])
        #expect(!(r.out + r.err).contains("\u{1B}") && !(r.out + r.err).contains("\u{07}"))
        guard r.status == 0 else {
            Self.expectRefused(r, "\\u{1B}]0;PWNED\\u{7}", out: dir + "/esc")
            return
        }
        #expect(r.out.contains("description=a\\u{1B}]0;PWNED\\u{7}"), "\(r.out)")
        for name in ["search.md", "candidates.csv", "pareto.csv"] {
            let text = try String(contentsOfFile: dir + "/esc/" + name, encoding: .utf8)
            #expect(!text.contains("\u{1B}") && !text.contains("\u{07}"), "\(name)")
        }
        let md = try String(contentsOfFile: dir + "/esc/search.md", encoding: .utf8)
        #expect(md.contains("- c\\u{1B}]0;PWNED\\u{7}: `bareShare`") && md.contains("# Search of loose: s\\u{1B}]0;PWNED\\u{7}"), "\(md)")
        // best.json's scenario name is one a scenario may have, so it runs as it is.
        #expect(Self.synclab(["validate", dir + "/esc/best.json"]).status == 0)
    }

    // MARK: F02, F03: the grid's size

    @Test func f02SixtyFourKnobsOfTwoValuesNameTheGridsLimit() throws {
        let dir = try Self.folder()
        let knobs = (0..<64).map { "{ \"key\": \"a.b\($0)\", \"values\": [1, 2] }" }.joined(separator: ", ")
        let file = try Self.search(dir, "ovf64.json", knobs: knobs)
        Self.expectRefused(Self.synclab(["search", file, "--out", dir + "/so"]),
                           "ovf64.json: knobs[16].values: the space would have more than 100000 candidates (knobs[0] to knobs[16] have 2 × 2 × 2 × … × 2 values); a search may have at most 100000",
                           out: dir + "/so")
        // A sweep's grid too: 64 keys of two values are refused by the grid's limit, not a trap.
        let vary = (0..<64).flatMap { ["--vary", "a.b\($0)=1,2"] }
        let sweep = Self.synclab(["sweep", dir + "/loose.json"] + vary + ["--out", dir + "/sw"])
        Self.expectRefused(sweep, "the grid has more than 100000 points (2 × 2", out: dir + "/sw")
    }

    @Test func f03AMillionValuesAreRefusedAtOnce() throws {
        let dir = try Self.folder()
        let values = (1...1_000_000).map(String.init).joined(separator: ",")
        let file = try Self.search(dir, "big1m.json", knobs: "{ \"key\": \"network.requestBytes\", \"values\": [\(values)] }")
        let start = Date()
        let r = Self.synclab(["search", file, "--out", dir + "/sb"])
        Self.expectRefused(r, "big1m.json: knobs[0].values: the space would have more than 100000 candidates (knobs[0] has 1000000 values)",
                           out: dir + "/sb")
        // About 2 s on a busy machine (reading 7.9 MB); the quadratic repeat check took minutes.
        #expect(Date().timeIntervalSince(start) < 30)
        // 100,000 values of one knob, the last repeating: the repeat check is linear.
        let many = (1...99_999).map(String.init).joined(separator: ",")
        let fine = try Self.search(dir, "many.json", knobs: "{ \"key\": \"network.requestBytes\", \"values\": [\(many), 5] }")
        let t = Date()
        Self.expectRefused(Self.synclab(["search", fine, "--out", dir + "/sm"]), "many.json: knobs[0].values[99999]: the value 5 repeats values[4]")
        #expect(Date().timeIntervalSince(t) < 30)
    }

    // MARK: F04, F05, F07: one key, one value, in any spelling

    @Test func f04OneKeyInTwoSpellingsIsGivenTwice() throws {
        let dir = try Self.folder()
        let file = try Self.search(dir, "dup1.json", knobs: "{ \"key\": \"client.probes\", \"values\": [1, 3] }, { \"key\": \"client[\\\"probes\\\"]\", \"values\": [2, 4] }",
                                   objective: "peakRequestsPerSecond")
        Self.expectRefused(Self.synclab(["search", file, "--out", dir + "/sdup1"]),
                           "dup1.json: knobs[1].key: the knob 'client[\"probes\"]' (client.probes) is given twice (knobs[0] sets it too)", out: dir + "/sdup1")
        let sweep = Self.synclab(["sweep", dir + "/loose.json", "--vary", "client.probes=1,3", "--vary", "client[\"probes\"]=2,4", "--out", dir + "/swd2"])
        Self.expectRefused(sweep, "--vary client[\"probes\"] (client.probes) is given twice", out: dir + "/swd2")
    }

    @Test func f05SeedAndSchemaInBracketsAreRefusedAsThemselves() throws {
        let dir = try Self.folder()
        let file = try Self.search(dir, "seedk.json", knobs: "{ \"key\": \"[\\\"seed\\\"]\", \"values\": [1, 2, 3] }")
        Self.expectRefused(Self.synclab(["search", file, "--out", dir + "/sseed"]), "seedk.json: knobs[0].key: '[\"seed\"]' (seed) cannot be a knob",
                           out: dir + "/sseed")
        let schema = try Self.search(dir, "schemak.json", knobs: "{ \"key\": \"[\\\"$schema\\\"]\", \"values\": [\"a\"] }")
        Self.expectRefused(Self.synclab(["search", schema, "--out", dir + "/ssc"]), "knobs[0].key: '[\"$schema\"]' cannot be a knob", out: dir + "/ssc")
        Self.expectRefused(Self.synclab(["sweep", dir + "/loose.json", "--vary", "[\"seed\"]=1,2", "--out", dir + "/swseed"]),
                           "--vary [\"seed\"] (seed): use --seeds N", out: dir + "/swseed")
        Self.expectRefused(Self.synclab(["sweep", dir + "/loose.json", "--vary", "[\"$schema\"]=a", "--out", dir + "/swsc"]),
                           "--vary [\"$schema\"]: it changes nothing in a run", out: dir + "/swsc")
    }

    @Test func f07ValuesThatReadAlikeRepeat() throws {
        let dir = try Self.folder()
        let file = try Self.search(dir, "rep.json", knobs: "{ \"key\": \"server.fleet.servers\", \"values\": [1, 1.0, 1e0, 10e-1] }")
        Self.expectRefused(Self.synclab(["search", file, "--out", dir + "/srep"]), "rep.json: knobs[0].values[1]: the value 1.0 repeats values[0] (1)",
                           out: dir + "/srep")
        let objects = try Self.search(dir, "obj.json", knobs: "{ \"key\": \"client.estimator\", \"values\": [{ \"kind\": \"ntp\", \"window\": 8 }, { \"window\": 8.0, \"kind\": \"ntp\" }] }")
        Self.expectRefused(Self.synclab(["search", objects, "--out", dir + "/sobj"]), "obj.json: knobs[0].values[1]: the value {\"window\":8.0,\"kind\":\"ntp\"} repeats values[0]")
        Self.expectRefused(Self.synclab(["sweep", dir + "/loose.json", "--vary", "server.fleet.servers=1,1.0", "--out", dir + "/sw"]),
                           "--vary 'server.fleet.servers=1,1.0': a value repeats", out: dir + "/sw")
    }

    // MARK: F06, F08, F09: questions a search cannot answer truthfully

    @Test func f06PlayersCannotBeAKnob() throws {
        let dir = try Self.folder()
        let file = try Self.search(dir, "pk.json", knobs: "{ \"key\": \"population.players\", \"values\": [100, 5000] }",
                                   objective: "peakRequestsPerSecond", extra: ", \"screen\": { \"players\": 200, \"slack\": 0 }")
        Self.expectRefused(Self.synclab(["search", file, "--out", dir + "/spk"]),
                           "pk.json: knobs[0].key: 'population.players' cannot be a knob: every candidate is confirmed at the base's size (300 players)",
                           out: dir + "/spk")
        // Nor through a knob on the whole population.
        let whole = try Self.search(dir, "pop.json", knobs: "{ \"key\": \"population\", \"values\": [{ \"players\": 100 }] }")
        Self.expectRefused(Self.synclab(["search", whole, "--out", dir + "/spop"]),
                           "pop.json: knobs: candidate 0 (population={\"players\":100}): population.players is 100, not the base's 300", out: dir + "/spop")
    }

    @Test func f08AnObjectiveTheBaseNeverMeasuresIsRefused() throws {
        let dir = try Self.folder()
        let file = try Self.search(dir, "ko.json", knobs: "{ \"key\": \"client.probes\", \"values\": [1, 2] }", objective: "originalPlan.earlyShowShare")
        Self.expectRefused(Self.synclab(["search", file, "--out", dir + "/sko"]),
                           "ko.json: objective: 'originalPlan.earlyShowShare' is never measured by the base scenario: only the original plan's database measures it",
                           out: dir + "/sko")
    }

    @Test func f09MaxFailingSeedsMustBeBelowTheSeeds() throws {
        let dir = try Self.folder()
        let file = try Self.search(dir, "mf.json", knobs: "{ \"key\": \"client.probes\", \"values\": [1, 2] }",
                                   extra: ", \"seeds\": 1, \"maxFailingSeeds\": 1")
        Self.expectRefused(Self.synclab(["search", file, "--out", dir + "/smf"]), "mf.json: maxFailingSeeds: must be below \"seeds\" (1); got 1",
                           out: dir + "/smf")
    }

    @Test func f09StopWhenClearNeedsSeedsToStopShortOf() throws {
        let dir = try Self.folder()
        let least = try Self.search(dir, "sw.json", knobs: "{ \"key\": \"client.probes\", \"values\": [1, 2] }",
                                    extra: ", \"seeds\": 5, \"stopWhenClear\": { \"minimumSeeds\": 5 }")
        Self.expectRefused(Self.synclab(["search", least, "--out", dir + "/ssw"]),
                           "sw.json: stopWhenClear.minimumSeeds: must be below \"seeds\" (5); got 5", out: dir + "/ssw")
        let sure = try Self.search(dir, "sc.json", knobs: "{ \"key\": \"client.probes\", \"values\": [1, 2] }",
                                   extra: ", \"seeds\": 20, \"stopWhenClear\": { \"confidence\": 1 }")
        Self.expectRefused(Self.synclab(["search", sure, "--out", dir + "/ssc"]),
                           "sc.json: stopWhenClear.confidence: must be from 0.5 to 0.999999; got 1", out: dir + "/ssc")
    }

    // MARK: F10, F11: merging edited parts

    /// The parts of a search over 12 candidates in 3 groups: shards 0/3, 1/3, 2/3 and 0/1.
    static func parts(_ dir: String) throws -> String {
        let file = try Self.search(dir, "sm.json", knobs: "{ \"key\": \"client.probes\", \"values\": [1, 2, 3] }, "
            + "{ \"key\": \"server.fleet.servers\", \"values\": [1, 2, 4, 8], \"monotone\": true }",
            objective: "peakRequestsPerSecond", extra: ", \"seeds\": 2, \"screen\": { \"players\": 200, \"slack\": 0.02 }")
        for shard in ["0/3", "1/3", "2/3", "0/1"] {
            let r = Self.synclab(["search", file, "--shard", shard, "--out", dir + "/p" + shard.replacingOccurrences(of: "/", with: "-"),
                                  "--threads", "1", "--quiet"])
            #expect(r.status == 0, "\(r.err)")
        }
        return file
    }

    /// `part` with its lines changed by `edit`, written as a part folder `name`.
    static func edited(_ dir: String, _ part: String, _ name: String, _ edit: ([String]) -> [String]) throws -> String {
        let lines = try String(contentsOfFile: dir + "/" + part + "/" + SearchPart.fileName, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
        try Self.write(edit(lines).joined(separator: "\n"), dir + "/" + name + "/" + SearchPart.fileName)
        return dir + "/" + name
    }

    @Test func f10AndF11EditedPartsAreRefused() throws {
        let dir = try Self.folder()
        _ = try Self.parts(dir)
        // F10: a share edited to 7, bareShare to -5 (the last column), on candidate 3's first full run.
        func cell(_ column: Int?, _ value: String) -> ([String]) -> [String] {
            { lines in lines.map { line in
                var f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard f.count > 4, f[0] == "3", f[1] == "full", f[2] == "1" else { return line }
                f[column ?? (f.count - 1)] = value
                return f.joined(separator: ",")
            } }
        }
        let seven = try Self.edited(dir, "p0-3", "pi", cell(3, "7"))
        Self.expectRefused(Self.synclab(["merge", seven, dir + "/p1-3", dir + "/p2-3", "--out", dir + "/mm7"]),
                           "pi/search-part.csv: line 5, figure transitionBest500msShare.p1: expected a share from 0 to 1 or nothing; got '7'", out: dir + "/mm7")
        let negative = try Self.edited(dir, "p0-3", "pn", cell(nil, "-5"))
        Self.expectRefused(Self.synclab(["merge", negative, dir + "/p1-3", dir + "/p2-3", "--out", dir + "/mm8"]),
                           "pn/search-part.csv: line 5, figure bareShare: expected a share from 0 to 1 or nothing; got '-5'", out: dir + "/mm8")
        // F11: maxFailingSeeds -1 (it trapped), players -5, slack nan, more shards than --shard allows.
        let header: [(String, String, String)] = [
            ("\"maxFailingSeeds\":\"0\"", "\"maxFailingSeeds\":\"-1\"", "maxFailingSeeds must be a whole number from 0 to 1 (below the 2 seeds); got \"-1\""),
            ("\"maxFailingSeeds\":\"0\"", "\"maxFailingSeeds\":\"2\"", "maxFailingSeeds must be a whole number from 0 to 1"),
            ("\"players\":\"300\"", "\"players\":\"-5\"", "players must be a whole number from 1 to 20000000; got \"-5\""),
            ("\"slack\":\"0.02\"", "\"slack\":\"nan\"", "screen.slack must be a number from 0 to 10; got \"nan\""),
            ("\"max\":\"0.05\"", "\"max\":\"nan\"", "constraints[0] needs a finite max or min"),
        ]
        for (i, (from, to, expected)) in header.enumerated() {
            let part = try Self.edited(dir, "p0-1", "ph\(i)", { lines in
                var l = lines
                #expect(l[1].contains(from), "\(l[1])")
                l[1] = l[1].replacingOccurrences(of: from, with: to)
                return l
            })
            Self.expectRefused(Self.synclab(["merge", part, "--out", dir + "/mh\(i)"]),
                               "ph\(i)/search-part.csv: the search description (line 2): \(expected)", out: dir + "/mh\(i)")
        }
        let shards = try Self.edited(dir, "p0-1", "pshards", { lines in ["# synclab search part 0/9223372036854775807"] + lines.dropFirst() })
        Self.expectRefused(Self.synclab(["merge", shards, "--out", dir + "/mshards"]), "bad shard in the header", out: dir + "/mshards")
        // The parts as written still merge.
        #expect(Self.synclab(["merge", dir + "/p0-3", dir + "/p1-3", dir + "/p2-3", "--out", dir + "/ok"]).status == 0)
    }

    // MARK: F12, F13, F24, F25

    @Test func f12ABaseThatIsNotAScenarioIsNotQuoted() throws {
        let dir = try Self.folder()
        try Self.write("secretword123 is here\n", dir + "/secret.txt")
        try Self.write("{ \"base\": \"secret.txt\", \"knobs\": [ { \"key\": \"client.probes\", \"values\": [1] } ], \"objective\": \"servers\" }", dir + "/sbase.json")
        let r = Self.synclab(["search", dir + "/sbase.json", "--out", dir + "/sbs"])
        Self.expectRefused(r, "sbase.json: base: the base scenario does not load: \(dir)/secret.txt: not a JSON scenario file (line 1, column 1); "
                           + "its content is not quoted because its name does not end in .json", out: dir + "/sbs")
        #expect(!r.err.contains("secretword"))
        // A part naming such a base: the same.
        _ = try Self.parts(dir)
        let part = try Self.edited(dir, "p0-1", "psecret", { lines in
            var l = lines
            l[1] = l[1].replacingOccurrences(of: "\"base\":\"\(dir)/loose.json\"", with: "\"base\":\"\(dir)/secret.txt\"")
            return l
        })
        let merge = Self.synclab(["merge", part, "--out", dir + "/msecret"])
        Self.expectRefused(merge, "the search's base scenario: \(dir)/secret.txt: not a JSON scenario file", out: dir + "/msecret")
        #expect(!merge.err.contains("secretword"))
    }

    @Test func f13BestJsonRunsWhereverItIsCopied() throws {
        let dir = try Self.folder(), elsewhere = CLITests.temporaryDirectory()
        let file = try Self.search(dir, "sm.json", knobs: "{ \"key\": \"server.fleet.servers\", \"values\": [1, 2], \"monotone\": true }")
        // Written through a linked folder, where no path relative to the base is right from both sides.
        try FileManager.default.createDirectory(atPath: elsewhere + "/a/b", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/lnk", withDestinationPath: elsewhere + "/a/b")
        let r = Self.synclab(["search", file, "--out", dir + "/lnk/res", "--threads", "1", "--quiet"])
        #expect(r.status == 0, "\(r.err)")
        let text = try String(contentsOfFile: elsewhere + "/a/b/res/best.json", encoding: .utf8)
        let best = try JSONParser.parse(text)
        #expect(best["extends"] == nil && best["$schema"] == .string("scenario.schema.json"), "\(text)")
        // The base's budgets come with it (the search file gave none of its own).
        guard case .array(let budgets)? = best["budgets"] else { Issue.record("no budgets: \(text)"); return }
        #expect(budgets.map { $0["metric"] } == [.string("bareShare")], "\(text)")
        let servers = try #require(best["server"]?["fleet"]?["servers"])
        // Alone in a fresh folder: it validates, checks, and runs as the base with the winner's knob.
        let alone = CLITests.temporaryDirectory()
        try text.write(toFile: alone + "/best.json", atomically: true, encoding: .utf8)
        #expect(try FileManager.default.contentsOfDirectory(atPath: alone) == ["best.json"])
        #expect(Self.synclab(["validate", alone + "/best.json"]).status == 0)
        let check = Self.synclab(["check", alone + "/best.json", "--quiet"])
        #expect(check.status == 0, "\(check.out) \(check.err)")
        let copied = try ScenarioLoader().load(path: alone + "/best.json")
        let knobbed = try ScenarioLoader().load(path: dir + "/loose.json", overrides: [.init(keyPath: "server.fleet.servers", value: servers)])
        let a = Simulation.run(copied, threads: 1), b = Simulation.run(knobbed, threads: 1)
        #expect(a.figures.count == b.figures.count)
        for (key, value) in b.figures { #expect(a.figures[key] == value, "\(key)") }
        #expect(copied.budgets.map(\.metric) == knobbed.budgets.map(\.metric))
    }

    @Test func f24StdoutAndCandidatesCsvNumberCandidatesAlike() throws {
        let dir = try Self.folder()
        let file = try Self.search(dir, "num.json", knobs: "{ \"key\": \"client.probes\", \"values\": [1, 2, 3] }, "
            + "{ \"key\": \"server.fleet.servers\", \"values\": [1, 2, 4], \"monotone\": true }")
        let r = Self.synclab(["search", file, "--out", dir + "/num", "--threads", "1", "--quiet"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("search of loose: 9 candidates (0 to 8) in 3 groups of 3\n"), "\(r.out)")
        let rows = try String(contentsOfFile: dir + "/num/candidates.csv", encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",").map(String.init) }
        var lines = 0
        for line in r.out.split(separator: "\n") where line.hasPrefix("candidate ") {
            // "candidate 5 (client.probes=2 server.fleet.servers=4), full seed 1: meets"
            let words = line.split(separator: " ")
            let n = try #require(Int(words[1]))
            let row = try #require(rows.first { $0[0] == String(n) })
            #expect(line.contains("(client.probes=\(row[1]) server.fleet.servers=\(row[2]))"), "\(line) against \(row)")
            lines += 1
        }
        #expect(lines > 0)
        let winner = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("winner: candidate ") })
        let w = try #require(Int(winner.split(separator: " ")[2]))
        #expect(rows.first { $0[0] == String(w) }?[3] == "meets")
    }

    @Test func f25TwoByteOrderMarksAreRefused() throws {
        let dir = try Self.folder()
        let text = "{ \"base\": \"loose.json\", \"knobs\": [ { \"key\": \"client.probes\", \"values\": [1] } ], \"objective\": \"servers\" }"
        try (Data([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF]) + Data(text.utf8)).write(to: URL(fileURLWithPath: dir + "/bom2.json"))
        Self.expectRefused(Self.synclab(["search", dir + "/bom2.json", "--out", dir + "/sbom"]),
                           "bom2.json: the file starts with two byte order marks; remove them", out: dir + "/sbom")
        // One is fine, as in a scenario.
        try (Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)).write(to: URL(fileURLWithPath: dir + "/bom1.json"))
        #expect(Self.synclab(["search", dir + "/bom1.json", "--out", dir + "/sbom1", "--threads", "1", "--quiet"]).status == 0)
    }

    // MARK: F26, F29: refused before the work

    @Test func f26HoldingEveryCandidateIsRefusedAsARunTooLargeIs() throws {
        let dir = try Self.folder()
        let samples = [String](repeating: "1", count: 1_000_000).joined(separator: ",")
        let file = try Self.search(dir, "memsearch.json", knobs: "{ \"key\": \"population.sessionsPerVisit\", \"values\": [{ \"kind\": \"empirical\", \"samples\": [\(samples)] }] }, "
            + "{ \"key\": \"client.probes\", \"values\": [\((1...16).map(String.init).joined(separator: ", "))] }, "
            + "{ \"key\": \"server.fleet.servers\", \"values\": [\((1...1000).map(String.init).joined(separator: ", "))], \"monotone\": true }")
        let start = Date()
        let r = Self.synclab(["search", file, "--out", dir + "/smem"])
        Self.expectRefused(r, "memsearch.json: knobs: the search would hold about ", out: dir + "/smem")
        #expect(r.err.contains("of scenarios before its first run (16000 candidates, each about 16 KiB and its knob values, "
            + "the values of population.sessionsPerVisit about 1,000,001 numbers and strings per candidate); ")
            && r.err.contains("use fewer candidates or smaller knob values"), "\(r.err)")
        #expect(Date().timeIntervalSince(start) < 30, "refused after loading candidates")
    }

    @Test func f29AnOutInsideAFileIsRefusedBeforeAnyCandidateLoads() throws {
        let dir = try Self.folder()
        let file = try Self.search(dir, "v10k.json", knobs: "{ \"key\": \"network.requestBytes\", \"values\": [\((1...625).map(String.init).joined(separator: ","))] }, "
            + "{ \"key\": \"client.probes\", \"values\": [\((1...16).map(String.init).joined(separator: ","))] }")
        try Self.write("x\n", dir + "/afile")
        let start = Date()
        let r = Self.synclab(["search", file, "--out", dir + "/afile/sub"])
        Self.expectRefused(r, "'\(dir)/afile' is a file, not a folder, so '\(dir)/afile/sub' cannot be created inside it")
        // Loading the 10,000 candidates took 8 s to 2 min; the refusal comes before any.
        #expect(Date().timeIntervalSince(start) < 10, "\(Date().timeIntervalSince(start)) s")
        #expect(try String(contentsOfFile: dir + "/afile", encoding: .utf8) == "x\n")
    }
}
