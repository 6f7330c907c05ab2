import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
import SyncLabReports

/// The fuzz targets' fixed findings stay fixed (docs/fuzzing.md). Each input in
/// `Fuzz/regressions/<target>/` once made its target trap, abort or run out of memory; here it
/// goes through the commands that target reaches, as a user would run them, in a process of its
/// own: each must end with exit status 0, 1 or 2 (2 with a message), never a signal or a hang,
/// and print no raw control character.
///
/// The fuzzer itself (Fuzz/, its own package) is not built by the tests; `make fuzz-smoke` seeds
/// every target with the same inputs.
@Suite struct FuzzRegressionTests {
    static let root = #filePath.components(separatedBy: "/Tests/").first ?? "."
    static let fuzz = root + "/Fuzz"

    /// One fixed finding: the target it was found by and its file.
    struct Finding: Sendable, CustomTestStringConvertible {
        var target: String
        var path: String
        var testDescription: String { "\(target)/\((path as NSString).lastPathComponent)" }
    }

    /// Every file of Fuzz/regressions/<target>/ but the README.
    static var findings: [Finding] {
        let folder = fuzz + "/regressions"
        let targets = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return targets.flatMap { target -> [Finding] in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + target)) ?? []
            return files.sorted().filter { !$0.hasSuffix(".md") }.map { Finding(target: target, path: folder + "/" + target + "/" + $0) }
        }
    }

    /// The fuzz targets' names, from their list (Fuzz/Sources/SyncLabFuzz/FuzzTargets.swift and
    /// the `name:` of each target's file).
    static var targetNames: [String] {
        let sources = fuzz + "/Sources/SyncLabFuzz"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []
        return files.sorted().flatMap { file -> [String] in
            let text = (try? String(contentsOfFile: sources + "/" + file, encoding: .utf8)) ?? ""
            return text.components(separatedBy: "FuzzTarget(name: \"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        }
    }

    @Test(arguments: FuzzRegressionTests.findings)
    func aFixedFindingEndsCleanly(_ finding: Finding) throws {
        let dir = CLITests.temporaryDirectory()
        let input = try Data(contentsOf: URL(fileURLWithPath: finding.path))
        if Self.readInProcess.contains(finding.target) {
            Self.readTelemetry(input)
            return
        }
        let commands = try Self.commands(target: finding.target, input: input, in: dir)
        #expect(!commands.isEmpty, "no commands for the target \(finding.target): add them to FuzzRegressionTests.commands")
        for arguments in commands {
            guard let r = try Self.run(arguments, timeout: 300) else { return }
            #expect(!r.timedOut, "\(finding.testDescription): synclab \(arguments.joined(separator: " ")) did not end in 300 s")
            let status = Int(r.out.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
            #expect((0...2).contains(status), "\(finding.testDescription): synclab \(arguments.joined(separator: " ")) ended with \(status)\n\(r.err)")
            if status == 2 { #expect(!r.err.isEmpty, "\(finding.testDescription): exit 2 without a message") }
            // What a file holds must not drive the terminal (a `text-…` finding).
            let raw = r.err.unicodeScalars.first { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }
            #expect(raw == nil, "\(finding.testDescription): a raw control character in the messages: \(InputError.escapingControls(r.err))")
        }
    }

    /// Targets no command reaches yet: `telemetry-csv` (no command reads a telemetry CSV until the
    /// fit does). Their findings are read here, in this process; a trap still fails the run.
    static let readInProcess: Set<String> = ["telemetry-csv"]

    /// The telemetry CSV reader on `input`: a table or an InputError, as the fuzz target reads it.
    static func readTelemetry(_ input: Data) {
        do {
            let t = try TelemetryCSV.read(bytes: [UInt8](input), file: "fuzz.csv")
            #expect(t.count + t.droppedCount == t.linesRead)
        } catch {
            #expect(!error.message.isEmpty)
        }
    }

    /// Runs `synclab arguments` from the package's root through a shell, so that a signal shows
    /// as its status (128 + the signal), with 4 GB of address space at most, so that a finding
    /// that allocates without bound fails here instead of taking the machine's memory. `out` is
    /// "status=N".
    static func run(_ arguments: [String], timeout: TimeInterval) throws -> (status: Int32, out: String, err: String, timedOut: Bool)? {
        try SafetyTests.runExecutable(arguments, in: root, through: #"ulimit -v 4000000; "$SYNCLAB" "$@" > /dev/null; echo "status=$?""#,
                                      timeout: timeout)
    }

    /// The command lines that reach what the fuzz target `target` feeds `input` through, with
    /// the files they read written in `dir` (a copy of the shipped scenarios, as the fuzzer sees
    /// them beside its input). Mirrors Fuzz/Sources/SyncLabFuzz/<Target>Target.swift.
    static func commands(target: String, input: Data, in dir: String) throws -> [[String]] {
        let scenarios = dir + "/scenarios"
        // `Scenarios` is a link to the library's resource folder: copy what it links to.
        try FileManager.default.copyItem(atPath: URL(fileURLWithPath: root + "/Scenarios").resolvingSymlinksInPath().path, toPath: scenarios)
        func write(_ data: Data, _ name: String) throws -> String {
            let path = scenarios + "/" + name
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }
        func runs(_ scenario: String) -> [[String]] {
            [["validate", scenario], ["run", scenario, "--clients", "8", "--duration", "2m", "--out", dir + "/run", "--quiet"]]
        }
        switch target {
        case "scenario":
            return runs(try write(input, "fuzz.json"))
        case "scenario-base":
            _ = try write(input, "fuzz-base.json")
            return runs(try write(Data(#"{ "extends": "fuzz-base.json", "name": "fuzz-child", "description": "A scenario extending the fuzzed base." }"#.utf8), "fuzz.json"))
        case "search":
            return [["search", try write(input, "search/fuzz.json"), "--out", dir + "/search", "--quiet"]]
        case "mahimahi-trace":
            var files = parts(input, limit: 2)
            var options: [String] = []
            if files[0].starts(with: Array("#!".utf8)) {
                let line = files[0].prefix { $0 != UInt8(ascii: "\n") }
                let words = String(decoding: line.dropFirst(2), as: UTF8.self).split(separator: " ").map(String.init)
                var i = 0
                while i + 1 < words.count {
                    if ["--message-bytes", "--base-delay"].contains(words[i]) { options += [words[i], words[i + 1]]; i += 2 } else { i += 1 }
                }
                files[0] = files[0].dropFirst(line.count + 1)
            }
            let up = try write(Data(files[0]), "fuzz.up"), down = try write(Data(files.count > 1 ? files[1] : files[0]), "fuzz.down")
            let link = try write(Data("""
                { "extends": "r1.json", "name": "fuzz-link", "network": { "profiles": [ { "name": "trace", "share": 1,
                  "linkTrace": { "uplink": { "trace": "fuzz.up" }, "downlink": { "trace": "fuzz.down" }, "baseDelay": "20ms" } } ] } }
                """.utf8), "fuzz.json")
            return [["trace-stats", up, down] + options] + runs(link)
        case "latency-trace":
            _ = try write(input, "fuzz.csv")
            let text = String(decoding: input, as: UTF8.self)
            let first = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty && !$0.hasPrefix("#") }
            let header = first.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
            let column = header.first { Double($0) == nil }.map { #", "column": "\#($0)""# } ?? ""
            return runs(try write(Data("""
                { "extends": "r1.json", "name": "fuzz-latency", "network": { "profiles": [ { "preset": "wifi", "share": 1,
                  "uplink": { "trace": "fuzz.csv"\(column) } } ] } }
                """.utf8), "fuzz.json"))
        case "merge-sweep", "merge-search":
            let name = target == "merge-sweep" ? "sweep-part.csv" : "search-part.csv"
            var folders: [String] = []
            for (i, part) in parts(input, limit: 8).enumerated() {
                let folder = dir + "/part\(i)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(part).write(to: URL(fileURLWithPath: folder + "/" + name))
                folders.append(folder)
            }
            return [["merge"] + folders + ["--out", dir + "/merged"]]
        default:
            return []
        }
    }

    /// `data` cut at each "--8<--" line into at most `limit` files, as the fuzz targets cut it.
    static func parts(_ data: Data, limit: Int) -> [Data] {
        let bytes = [UInt8](data), separator = Array("--8<--\n".utf8)
        var out: [Data] = []
        var start = 0, i = 0
        while i + separator.count <= bytes.count, out.count < limit - 1 {
            if i == 0 || bytes[i - 1] == UInt8(ascii: "\n"), bytes[i..<(i + separator.count)].elementsEqual(separator) {
                out.append(Data(bytes[start..<i]))
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        out.append(Data(bytes[start...]))
        return out
    }

    // MARK: Findings fixed with their messages

    /// A folder holding `text` as the part file `name`.
    static func partFolder(_ text: Data, _ name: String) throws -> String {
        let dir = CLITests.temporaryDirectory() + "/part"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try text.write(to: URL(fileURLWithPath: dir + "/" + name))
        return dir
    }

    /// Found by the merge-search target: a part saying it is one of 12,147,483,648 shards made
    /// `merge` list every shard number and run out of memory (libFuzzer's limit, 2 GB). Now
    /// refused as it is read (`SweepPart.maximumShards`, as `--shard i/n` allows), sweep or search.
    @Test func aPartOfTooManyShardsIsRefusedAsItIsRead() throws {
        for (target, name, kind) in [("merge-search", "search-part.csv", "search"), ("merge-sweep", "sweep-part.csv", "sweep")] {
            let input = try Data(contentsOf: URL(fileURLWithPath: Self.fuzz + "/regressions/\(target)/oom-12147483648-shards"))
            let started = DispatchTime.now().uptimeNanoseconds
            guard let r = try Self.run(["merge", try Self.partFolder(input, name), "--out", CLITests.temporaryDirectory() + "/merged"], timeout: 60)
            else { return }
            #expect(r.out == "status=2\n" && !r.timedOut, "\(r.out) \(r.err)")
            #expect(r.err.contains("\(name): bad shard in the header '# synclab \(kind) part 0/12147483648'"), "\(r.err)")
            #expect(DispatchTime.now().uptimeNanoseconds - started < 10_000_000_000, "the refusal took seconds")
        }
        // The largest count --shard allows still reads: the last of 10,000 shards.
        let whole = try String(contentsOfFile: Self.fuzz + "/corpus/merge-sweep/whole", encoding: .utf8)
        let last = whole.replacingOccurrences(of: "# synclab sweep part 0/1\n", with: "# synclab sweep part 9999/10000\n")
        #expect(throws: Never.self) { _ = try SweepPart.parse(last).get() }
        let over = whole.replacingOccurrences(of: "# synclab sweep part 0/1\n", with: "# synclab sweep part 0/10001\n")
        #expect(throws: SweepError.self) { _ = try SweepPart.parse(over).get() }
    }

    /// A part's first line holding ESC … BEL was quoted raw in "bad shard in the header": the
    /// file's bytes reached the terminal. `merge` now escapes control characters.
    @Test func aPartHeaderIsQuotedWithItsControlCharactersEscaped() throws {
        for (target, name, kind) in [("merge-search", "search-part.csv", "search"), ("merge-sweep", "sweep-part.csv", "sweep")] {
            let input = try Data(contentsOf: URL(fileURLWithPath: Self.fuzz + "/regressions/\(target)/text-raw-escape-in-header"))
            guard let r = try Self.run(["merge", try Self.partFolder(input, name), "--out", CLITests.temporaryDirectory() + "/merged"], timeout: 60)
            else { return }
            #expect(r.out == "status=2\n", "\(r.out) \(r.err)")
            #expect(r.err.contains("bad shard in the header '# synclab \(kind) part \\u{1B}]0;X\\u{7}1/2'"), "\(r.err)")
            #expect(!r.err.contains("\u{1B}") && !r.err.contains("\u{7}"))
        }
    }

    // MARK: The findings' folders stay in order

    /// Every saved finding (open or fixed) belongs to a target that exists, has its line in its
    /// folder's README, and the commands above know every target.
    @Test func everySavedFindingIsDescribedAndItsTargetExists() throws {
        let targets = Self.targetNames
        #expect(targets.count >= 7, "the fuzz targets' names could not be read: \(targets)")
        for kind in ["crashes", "regressions"] {
            let folder = Self.fuzz + "/" + kind
            let readme = (try? String(contentsOfFile: folder + "/README.md", encoding: .utf8)) ?? ""
            #expect(!readme.isEmpty, "Fuzz/\(kind)/README.md is missing")
            for target in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() where target != "README.md" {
                #expect(targets.contains(target), "Fuzz/\(kind)/\(target): no fuzz target has that name")
                for file in ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + target)) ?? []).sorted() {
                    #expect(readme.contains("`\(file)`"), "Fuzz/\(kind)/\(target)/\(file) has no line in Fuzz/\(kind)/README.md")
                }
            }
        }
        for target in targets {
            let dir = CLITests.temporaryDirectory()
            #expect(try Self.readInProcess.contains(target) || !Self.commands(target: target, input: Data("x".utf8), in: dir).isEmpty,
                    "FuzzRegressionTests.commands does not know the target \(target)")
        }
        let docs = try String(contentsOfFile: Self.root + "/docs/fuzzing.md", encoding: .utf8)
        for target in targets { #expect(docs.contains("`\(target)`"), "docs/fuzzing.md does not list the target \(target)") }
    }
}
