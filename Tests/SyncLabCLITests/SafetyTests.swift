import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
import SyncLabReports
#if canImport(Glibc)
import Glibc
#endif

/// The promises of docs/safety.md, one test per case of issue 29: no output deletes or
/// overwrites an input (any file a run reads), links are written through, devices and FIFOs
/// are never replaced and never block, concurrent runs never delete each other's folders, and
/// problems knowable before a run are reported before it, in words.
@Suite struct SafetyTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    /// The report folder `dir/r` of the small scenario, and a snapshot of its files.
    static func report(in dir: String) throws -> (path: String, files: [String: Data]) {
        try ReportFolderTests.previousReport(in: dir)
    }

    static func kind(_ path: String) -> PathKind { PathKind(path) }

    /// Runs the `synclab` executable with a deadline, or nil (with the reason recorded) when it is
    /// not built. Output goes through files, so a full pipe cannot stall it.
    static func runExecutable(_ arguments: [String], in folder: String? = nil, environment: [String: String] = [:],
                              through shell: String? = nil, timeout: TimeInterval = 120) throws
        -> (status: Int32, out: String, err: String, timedOut: Bool)? {
        guard let synclab = ReportFolderTests.synclabExecutable() else {
            Issue.record("the synclab executable is not beside the test bundle; build it with 'swift build' to run this test")
            return nil
        }
        let scratch = CLITests.temporaryDirectory()
        _ = FileManager.default.createFile(atPath: scratch + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: scratch + "/err", contents: nil)
        let process = Process()
        if let shell {
            // `shell` runs with "$SYNCLAB" set to the executable and the arguments as "$@".
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell, "sh"] + arguments
        } else {
            process.executableURL = synclab
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["SYNCLAB"] = synclab.path
        env.removeValue(forKey: "GITHUB_STEP_SUMMARY")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        process.standardOutput = FileHandle(forWritingAtPath: scratch + "/out")
        process.standardError = FileHandle(forWritingAtPath: scratch + "/err")
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let timedOut = process.isRunning
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let read = { (name: String) in String(decoding: FileManager.default.contents(atPath: scratch + "/" + name) ?? Data(), as: UTF8.self) }
        return (process.terminationStatus, read("out"), read("err"), timedOut)
    }

    /// The small scenario with a budget, for `check`.
    static func budgeted(in dir: String) throws -> String {
        try CLITests.smallScenario(in: dir, overrides: #", "budgets": [ { "name": "gap", "metric": "transitionGapMs.p99", "max": 1e9 } ]"#)
    }

    // MARK: 1. Every file a run reads is an input

    @Test func aReportFolderHoldingAnExtendsParentOrATraceIsRefused() throws {
        let dir = CLITests.temporaryDirectory()
        let (report, _) = try Self.report(in: dir)
        // The parent and a latency trace kept inside the report folder.
        try FileManager.default.copyItem(atPath: dir + "/base.json", toPath: report + "/base.json")
        try "# uplink samples\n30\n40\n50\n".write(toFile: report + "/up.csv", atomically: true, encoding: .utf8)
        let held = ReportFolderTests.snapshot(report)
        let child = #"{ "extends": "r/base.json", "name": "small", "duration": "30m", "warmup": "10m", "population": { "players": 300, "release": { "at": "15m", "multiplier": 50, "window": "1m" } } }"#
        try child.write(toFile: dir + "/child.json", atomically: true, encoding: .utf8)
        let traced = #"{ "extends": "base.json", "name": "small", "duration": "30m", "warmup": "10m", "population": { "players": 300, "release": { "at": "15m", "multiplier": 50, "window": "1m" } }, "network": { "profiles": [ { "preset": "wifi", "share": 1, "uplink": { "trace": "r/up.csv" } } ] } }"#
        try traced.write(toFile: dir + "/traced.json", atomically: true, encoding: .utf8)
        for (scenario, input) in [(dir + "/child.json", "r/base.json"), (dir + "/traced.json", "r/up.csv")] {
            for command in ["run", "sweep"] {
                let extra = command == "sweep" ? ["--vary", "population.players=300"] : []
                let r = Self.synclab([command, scenario, "--out", report] + extra)
                #expect(r.status == 2, "\(command) \(scenario): \(r.err)")
                #expect(r.err.contains("refusing to replace '\(report)': it holds '") && r.err.contains("\(input)', an input of this command"),
                        "\(r.err)")
                #expect(!r.out.contains("seed"))   // refused before anything ran
            }
            let c = Self.synclab(["compare", scenario, dir + "/small.json", "--out", report])
            #expect(c.status == 2)
            #expect(c.err.contains("an input of this command"))
        }
        #expect(ReportFolderTests.snapshot(report) == held)
        // A parent kept in the report folder as a symbolic link to a file elsewhere: replacing the
        // folder would delete the name the scenario extends.
        try FileManager.default.removeItem(atPath: report + "/base.json")
        try FileManager.default.createSymbolicLink(atPath: report + "/base.json", withDestinationPath: dir + "/base.json")
        let linked = Self.synclab(["run", dir + "/child.json", "--out", report])
        #expect(linked.status == 2)
        #expect(linked.err.contains("r/base.json', an input of this command"), "\(linked.err)")
        #expect(PathKind.isLink(report + "/base.json"))
    }

    @Test func junitNeverOverwritesAnExtendsParentOrATrace() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.budgeted(in: dir)
        let parent = try String(contentsOfFile: dir + "/base.json", encoding: .utf8)
        let r = Self.synclab(["check", scenario, "--junit", dir + "/base.json"])
        #expect(r.status == 2)
        #expect(r.err.contains("--junit: '\(dir)/base.json' is '") && r.err.contains("base.json', an input of this command; refusing to overwrite it"))
        #expect(!r.out.contains("seed"))
        #expect(try String(contentsOfFile: dir + "/base.json", encoding: .utf8) == parent)
        // Through a symbolic link to the parent too.
        try FileManager.default.createSymbolicLink(atPath: dir + "/alias.xml", withDestinationPath: dir + "/base.json")
        #expect(Self.synclab(["check", scenario, "--junit", dir + "/alias.xml"]).status == 2)
        #expect(try String(contentsOfFile: dir + "/base.json", encoding: .utf8) == parent)
    }

    @Test func aReportFolderHoldingTheCurrentFolderIsRefused() throws {
        let dir = CLITests.temporaryDirectory()
        let (report, files) = try Self.report(in: dir)
        try FileManager.default.createDirectory(atPath: report + "/work", withIntermediateDirectories: false)
        guard let r = try Self.runExecutable(["run", "../../small.json", "--out", ".."], in: report + "/work") else { return }
        #expect(r.status == 2)
        #expect(r.err.contains("it is or holds the current folder"), "\(r.err)")
        #expect(r.out.isEmpty)
        #expect(Self.kind(report + "/work") == .folder)
        #expect(ReportFolderTests.snapshot(report) == files)
    }

    // MARK: 2. Outputs write through links and never replace devices or FIFOs

    @Test func junitAndIndexWriteThroughASymbolicLink() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.budgeted(in: dir)
        // Empty: a file that holds anything but the lab's own output is refused (issue 40).
        try "".write(toFile: dir + "/real.xml", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.xml", withDestinationPath: "real.xml")
        let r = Self.synclab(["check", scenario, "--junit", dir + "/link.xml"])
        #expect(r.status == 0, "\(r.err)")
        #expect(PathKind.isLink(dir + "/link.xml"))
        #expect(PathKind.linkTarget(dir + "/link.xml") == "real.xml")
        #expect(try String(contentsOfFile: dir + "/real.xml", encoding: .utf8).hasPrefix("<?xml"))
        _ = Self.synclab(["run", scenario, "--out", dir + "/r"])
        // A second run replaces the XML the first wrote, through the link.
        #expect(Self.synclab(["check", scenario, "--junit", dir + "/link.xml"]).status == 0)
        try "".write(toFile: dir + "/real.md", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.md", withDestinationPath: "real.md")
        let index = Self.synclab(["index", dir + "/r", "--out", dir + "/link.md"])
        #expect(index.status == 0, "\(index.err)")
        #expect(PathKind.isLink(dir + "/link.md"))
        #expect(try String(contentsOfFile: dir + "/real.md", encoding: .utf8).hasPrefix("# SyncLab reports\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
                == ["base.json", "link.md", "link.xml", "r", "real.md", "real.xml", "small.json"])
    }

    @Test func aDeviceIsWrittenToAndNeverReplaced() throws {
        #if os(Linux)
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.budgeted(in: dir)
        _ = Self.synclab(["run", scenario, "--out", dir + "/r"])
        // /dev/full refuses every byte: the command says so (exit 2); the device stays a device.
        let junit = Self.synclab(["check", scenario, "--junit", "/dev/full"])
        #expect(junit.status == 2)
        #expect(junit.out.contains("small\tgap\t"))          // the verdict is printed all the same
        #expect(junit.err.contains("could not write --junit '/dev/full': No space left on device"))
        let index = Self.synclab(["index", dir + "/r", "--out", "/dev/full"])
        #expect(index.status == 2)
        #expect(index.err == "synclab index: cannot write /dev/full: No space left on device\n")
        #expect(Self.kind("/dev/full") == .characterDevice)
        // /dev/null takes them.
        #expect(Self.synclab(["check", scenario, "--junit", "/dev/null"]).status == 0)
        #expect(Self.synclab(["index", dir + "/r", "--out", "/dev/null"]).status == 0)
        #expect(Self.kind("/dev/null") == .characterDevice)
        #endif
    }

    /// `--junit /dev/stdout` with stdout redirected to a file: the XML follows the verdict in
    /// that file; the file is not replaced by one holding only the XML.
    @Test func junitToStandardOutputRedirectedToAFileAppendsToIt() throws {
        #if os(Linux)
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.budgeted(in: dir)
        guard let r = try Self.runExecutable([scenario, dir + "/log.txt"],
                                             through: #""$SYNCLAB" check "$1" --junit /dev/stdout > "$2""#) else { return }
        #expect(r.status == 0, "\(r.err)")
        let log = try String(contentsOfFile: dir + "/log.txt", encoding: .utf8)
        #expect(log.hasPrefix("seed 1: small"), "\(log.prefix(200))")
        let verdict = try #require(log.range(of: "small\tgap\t"))
        let xml = try #require(log.range(of: "<?xml"))
        #expect(verdict.lowerBound < xml.lowerBound)
        #expect(log.hasSuffix("wrote /dev/stdout\n"))
        #endif
    }

    @Test func aFIFOWithoutAReaderIsRefusedWithoutBlocking() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.budgeted(in: dir)
        #expect(mkfifo(dir + "/pipe", 0o644) == 0)
        let r = Self.synclab(["check", scenario, "--junit", dir + "/pipe"])
        #expect(r.status == 2)
        // Known before the run (issue 40, row 12): nothing is simulated.
        #expect(r.err.contains("--junit: '\(dir)/pipe' is a FIFO with no reader; start its reader first (nothing was run)"), "\(r.err)")
        #expect(!r.out.contains("seed"))
        #expect(Self.kind(dir + "/pipe") == .fifo)
    }

    // MARK: 3. A symbolic link as the report folder

    @Test func runThroughASymbolicLinkReplacesItsTargetAndKeepsTheLink() throws {
        let dir = CLITests.temporaryDirectory()
        let (report, _) = try Self.report(in: dir)
        try FileManager.default.createSymbolicLink(atPath: dir + "/latest", withDestinationPath: "r")
        let r = Self.synclab(["run", dir + "/small.json", "--out", dir + "/latest", "--seed", "2"])
        #expect(r.status == 0, "\(r.err)")
        #expect(PathKind.isLink(dir + "/latest"))
        #expect(PathKind.linkTarget(dir + "/latest") == "r")
        let summary = try String(contentsOfFile: report + "/summary.json", encoding: .utf8)
        #expect(summary.contains("\"seed\": 2") || summary.contains("\"seed\":2"), "the target holds the new report")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["base.json", "latest", "r", "small.json"])
    }

    // MARK: 4. Clean-up never deletes a live run's temporary folder

    @Test func aTemporaryFolderOfALiveRunIsKeptWhateverItsProcessID() throws {
        let dir = CLITests.temporaryDirectory()
        let fm = FileManager.default
        // A live run elsewhere (another container: its process id means nothing here) holds the
        // folder's lock while its temporary folder exists.
        let dead = try ReportFolderTests.deadProcessID()
        let leftover = try ReportFolderTests.markedLeftover(in: dir, for: "r", tag: "\(dead)-elsewhere")
        var other: FolderLock? = FolderLock(dir)
        other?.shared()
        try ReportWriter.write([("report.md", "# one\n")], to: dir + "/r")
        #expect(fm.fileExists(atPath: leftover))
        #expect(fm.contents(atPath: dir + "/r/report.md") == Data("# one\n".utf8))
        // Once it is gone, the next write cleans up.
        other = nil
        try ReportWriter.write([("report.md", "# two\n")], to: dir + "/r")
        #expect(!fm.fileExists(atPath: leftover))
        #expect(try fm.contentsOfDirectory(atPath: dir).sorted() == ["r"])
    }

    @Test func aLiveRunInAnotherPIDNamespaceKeepsItsTemporaryFolder() throws {
        let dir = CLITests.temporaryDirectory()
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: "/usr/bin/unshare"), fm.isExecutableFile(atPath: "/usr/bin/flock") else {
            print("skipped: needs unshare and flock (util-linux)")
            return
        }
        // In a new user and PID namespace: hold the lock as a run does, and make a temporary folder
        // named with the process id there (1 or 2 — meaningless here).
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["--user", "--map-root-user", "--pid", "--kill-child", "/usr/bin/flock", "-s", dir, "/bin/sh", "-c",
                            "d=.r.tmp-$$-ns && mkdir \"$0/$d\" && printf 'synclab temporary folder\\n%s\\nr\\n' \"$d\" > \"$0/$d/.synclab-temporary\" "
                                + "&& sleep 60", dir]
        holder.standardError = FileHandle.nullDevice
        // --kill-child: killing unshare ends the namespace too; otherwise its `sleep 60` keeps
        // the pipe Process waits on open, and the test waits out the minute.
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) }; holder.waitUntilExit() }
        let deadline = Date().addingTimeInterval(10)
        var leftover: String? = nil
        while leftover == nil, Date() < deadline, holder.isRunning {
            // Marked: without the lab's token it would be kept however the lock stood.
            leftover = (try? fm.contentsOfDirectory(atPath: dir))?.first { LabTemporary.target(ofLeftover: $0, in: dir) != nil }
            if leftover == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        guard let leftover else {
            print("skipped: unshare could not create a user and PID namespace here")
            return
        }
        try ReportWriter.write([("report.md", "# here\n")], to: dir + "/r")
        #expect(fm.fileExists(atPath: dir + "/" + leftover), "a live run's temporary folder was deleted")
        #expect(fm.contents(atPath: dir + "/r/report.md") == Data("# here\n".utf8))
    }

    // MARK: 5. The job summary never blocks and the verdict is never lost

    @Test func aStepSummaryFIFOWithoutAReaderNeitherHangsNorLosesTheVerdict() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.budgeted(in: dir)
        #expect(mkfifo(dir + "/summary", 0o644) == 0)
        guard let r = try Self.runExecutable(["check", scenario], environment: ["GITHUB_STEP_SUMMARY": dir + "/summary"], timeout: 60)
        else { return }
        #expect(!r.timedOut, "check blocked on the FIFO")
        #expect(r.status == 0)
        // The limit, 10^9 ms, in human units.
        #expect(r.out.contains("small\tgap\ttransitionGapMs.p99 ≤ 277 h 47 min\t"))
        #expect(r.out.contains("check: "))
        #expect(r.err.contains("warning: could not append to GITHUB_STEP_SUMMARY '\(dir)/summary': it is a FIFO with no reader"))
        #expect(Self.kind(dir + "/summary") == .fifo)
    }

    @Test func aStepSummaryThatIsNotARegularFileOrIsAnInputIsLeftAlone() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.budgeted(in: dir)
        let parent = try String(contentsOfFile: dir + "/base.json", encoding: .utf8)
        final class Box: @unchecked Sendable { var out = ""; var err = "" }
        try FileManager.default.createSymbolicLink(atPath: dir + "/gone.md", withDestinationPath: dir + "/nowhere.md")
        for (summary, reason) in [(dir + "/base.json", "an input of this command"), ("/dev/null", "it is not a regular file"),
                                  (dir + "/gone.md", "which does not exist; nothing was written")] {
            let box = Box()
            let cli = CLI(out: { box.out += $0 }, err: { box.err += $0 }, showsProgress: false)
            let status = CheckCommand(cli: cli, environment: ["GITHUB_STEP_SUMMARY": summary]).main([scenario])
            #expect(status == 0)
            #expect(box.err.contains("warning: could not append to GITHUB_STEP_SUMMARY '\(summary)'") && box.err.contains(reason), "\(box.err)")
        }
        #expect(try String(contentsOfFile: dir + "/base.json", encoding: .utf8) == parent)
        #expect(Self.kind("/dev/null") == .characterDevice)
        #expect(!FileManager.default.fileExists(atPath: dir + "/nowhere.md"))
        // A regular file (or a link to one) is appended to.
        try "# earlier step\n".write(toFile: dir + "/summary.md", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/summary-link.md", withDestinationPath: "summary.md")
        let cli = CLI(out: { _ in }, err: { _ in }, showsProgress: false)
        #expect(CheckCommand(cli: cli, environment: ["GITHUB_STEP_SUMMARY": dir + "/summary-link.md"]).main([scenario]) == 0)
        let appended = try String(contentsOfFile: dir + "/summary.md", encoding: .utf8)
        #expect(appended.hasPrefix("# earlier step\n") && appended.count > "# earlier step\n".count + 20)
        #expect(PathKind.isLink(dir + "/summary-link.md"))
    }

    // MARK: 6. Silently wrong results

    @Test func varyingExtendsIsRefused() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        for key in ["extends", "$schema"] {
            let r = Self.synclab(["sweep", scenario, "--vary", "\(key)=a.json,b.json", "--out", dir + "/s"])
            #expect(r.status == 2)
            #expect(r.err.hasPrefix("synclab sweep: --vary \(key)"))
            #expect(!FileManager.default.fileExists(atPath: dir + "/s"))
        }
    }

    /// A sweep part of the small scenario (one point, one seed) and its lines.
    static func part(in dir: String) throws -> (folder: String, lines: [String], figures: [String]) {
        let scenario = try CLITests.smallScenario(in: dir)
        let r = synclab(["sweep", scenario, "--vary", "population.players=300", "--shard", "0/1", "--threads", "1", "--out", dir + "/p"])
        #expect(r.status == 0, "\(r.err)")
        let text = try String(contentsOfFile: dir + "/p/sweep-part.csv", encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard case .array(let names)? = try JSONParser.parse(String(lines[1].dropFirst(2)))["figures"] else { return (dir + "/p", lines, []) }
        let figures = names.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        return (dir + "/p", lines, figures)
    }

    @Test func mergeRefusesTheFiguresIndexRefuses() throws {
        let dir = CLITests.temporaryDirectory()
        let (folder, lines, figures) = try Self.part(in: dir)
        let share = try #require(figures.firstIndex(of: "transitionsWithin500msShare"))
        let gap = try #require(figures.firstIndex(of: "transitionGapMs.p99"))
        for (column, value, expected) in [(share, "7", "expected a share from 0 to 1 or nothing; got '7'"),
                                          (gap, "-5", "expected milliseconds ≥ 0 or nothing; got '-5'")] {
            var edited = lines
            var fields = edited[3].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[3 + column] = value
            edited[3] = fields.joined(separator: ",")
            try edited.joined(separator: "\n").write(toFile: folder + "/sweep-part.csv", atomically: true, encoding: .utf8)
            let r = Self.synclab(["merge", folder, "--out", dir + "/m"])
            #expect(r.status == 2)
            #expect(r.err == "synclab merge: \(folder)/sweep-part.csv: line 4, figure \(figures[column]): \(expected)\n")
        }
        // The same values in a summary.json are refused by index with the same words.
        let (report, _) = try Self.report(in: dir)
        let summary = try String(contentsOfFile: report + "/summary.json", encoding: .utf8)
        let edited = try #require(summary.range(of: #""transitionsWithin500msShare": [^,\n]*"#, options: .regularExpression))
        try summary.replacingCharacters(in: edited, with: #""transitionsWithin500msShare": 7"#)
            .write(toFile: report + "/summary.json", atomically: true, encoding: .utf8)
        let index = Self.synclab(["index", report])
        #expect(index.status == 2)
        #expect(index.err.hasSuffix("transitionsWithin500msShare: expected a share from 0 to 1 or null; got 7 (a number)\n"))
    }

    // MARK: 7. Late or unclear errors

    @Test func aCRLFPartMergesLikeItsLFOriginal() throws {
        let dir = CLITests.temporaryDirectory()
        let (folder, lines, _) = try Self.part(in: dir)
        let lf = Self.synclab(["merge", folder, "--out", dir + "/lf"])
        #expect(lf.status == 0, "\(lf.err)")
        try lines.joined(separator: "\r\n").write(toFile: folder + "/sweep-part.csv", atomically: true, encoding: .utf8)
        let crlf = Self.synclab(["merge", folder, "--out", dir + "/crlf"])
        #expect(crlf.status == 0, "\(crlf.err)")
        #expect(ReportFolderTests.snapshot(dir + "/lf") == ReportFolderTests.snapshot(dir + "/crlf"))
    }

    @Test func aMountPointOrADanglingLinkAsOutSaysSo() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        #if os(Linux)
        let mount = Self.synclab(["run", scenario, "--out", "/proc"])
        #expect(mount.status == 2)
        #expect(mount.err == "synclab run: '/proc' is a mount point; a report replaces its folder by renaming, which cannot replace a mount point (use a folder inside it, such as /proc/report)\n")
        #expect(mount.out.isEmpty)
        #endif
        try FileManager.default.createSymbolicLink(atPath: dir + "/gone", withDestinationPath: "nowhere")
        let dangling = Self.synclab(["run", scenario, "--out", dir + "/gone"])
        #expect(dangling.status == 2)
        #expect(dangling.err == "synclab run: '\(dir)/gone' is a symbolic link to 'nowhere', which does not exist; refusing to write a report through it (remove the link or create its target)\n")
        #expect(dangling.out.isEmpty)
        let junit = Self.synclab(["check", try Self.budgeted(in: dir), "--junit", dir + "/gone"])
        #expect(junit.status == 2)
        #expect(junit.err.contains("--junit: '\(dir)/gone' is a symbolic link to 'nowhere', which does not exist; refusing to write through it"))
        #expect(PathKind.isLink(dir + "/gone"))
    }

    /// A read-only or nearly full file system is found before the simulation (no seed line),
    /// in a private mount namespace (`unshare`); skipped where namespaces are not allowed.
    @Test func aReadOnlyOrFullFileSystemIsFoundBeforeTheRun() throws {
        #if os(Linux)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { print("skipped: no unshare"); return }
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        try FileManager.default.createDirectory(atPath: dir + "/mnt", withIntermediateDirectories: false)
        let shell = #"unshare --user --map-root-user --mount sh -c 'mount -t tmpfs -o "$1" tmpfs "$2" || exit 99; "$SYNCLAB" run "$3" --out "$2/r"' sh "$@""#
        for (options, message) in [("ro", "cannot write in the folder '\(dir)/mnt': the file system is read-only"),
                                   ("size=64k", "the file system holding '\(dir)/mnt' has 64 KiB free")] {
            guard let r = try Self.runExecutable([options, dir + "/mnt", scenario], through: shell) else { return }
            if r.status == 99 || r.err.contains("unshare:") { print("skipped: cannot mount a tmpfs in a namespace here: \(r.err)"); return }
            #expect(r.status == 2)
            #expect(r.err.contains(message), "\(r.err)")
            #expect(r.out.isEmpty, "the run started: \(r.out)")
        }
        #endif
    }

    @Test func theFileSizeLimitIsReportedInWords() throws {
        let dir = CLITests.temporaryDirectory()
        let (report, files) = try Self.report(in: dir)
        // 8 blocks: the report's larger files pass the limit.
        guard let r = try Self.runExecutable([dir + "/small.json", report], through: #"ulimit -f 8 && exec "$SYNCLAB" run "$1" --out "$2" --seed 3"#)
        else { return }
        #expect(r.status == 2, "killed by a signal? \(r.err)")
        #expect(r.err.contains("file too large: the file size limit (ulimit -f) was reached"), "\(r.err)")
        #expect(ReportFolderTests.snapshot(report) == files)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["base.json", "r", "small.json"])
    }

    @Test func theExtendsDepthErrorNamesTheFileThatExtendsOneTooMany() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try CLITests.smallScenario(in: dir)   // base.json: the shipped scenario, no extends
        // f0 → f1 → … → f31 → base.json: 33 files, one more than allowed; f31 is the 32nd.
        for i in 0..<32 {
            let parent = i == 31 ? "base.json" : "f\(i + 1).json"
            try #"{ "extends": "\#(parent)" }"#.write(toFile: dir + "/f\(i).json", atomically: true, encoding: .utf8)
        }
        let r = Self.synclab(["validate", dir + "/f0.json"])
        #expect(r.status == 2)
        #expect(r.err.contains("\(dir)/f31.json: extends: this file is number 32 of its extends chain and extends one more; a chain may have at most 32 files"),
                "\(r.err)")
        #expect(!r.err.contains("base.json:"))
        // 32 files are fine.
        #expect(Self.synclab(["validate", dir + "/f1.json"]).status == 0)
    }

    @Test func aHugeNumberIsNotEchoedWhole() throws {
        let dir = CLITests.temporaryDirectory()
        let digits = String(repeating: "9", count: 5000)
        let scenario = try CLITests.smallScenario(in: dir, overrides: #", "seed": \#(digits)"#)
        let r = Self.synclab(["validate", scenario])
        #expect(r.status == 2)
        #expect(r.err.contains("number 99999999999999999999… (5000 characters) is too large"), "\(r.err.prefix(300))")
        #expect(r.err.count < 400)
        // A number that parses but is out of range is shortened the same way.
        let long = "1" + String(repeating: "0", count: 300)
        let inRange = Self.synclab(["validate", try CLITests.smallScenario(in: dir, overrides: #", "seed": \#(long)"#)])
        #expect(inRange.status == 2)
        #expect(inRange.err.contains("seed: 10000000000000000000… (301 characters) is too large"), "\(inRange.err.prefix(300))")
        #expect(inRange.err.count < 400)
        let option = Self.synclab(["run", scenario, "--clients", digits])
        #expect(option.status == 2)
        #expect(option.err.contains("got '\(String(repeating: "9", count: 40))…' (5000 characters)"))
        #expect(option.err.count < 400)
    }

    // MARK: 8. Low

    @Test func nothingIsQuotedFromAFileThatIsNotOurs() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try CLITests.smallScenario(in: dir)
        try "root:hunter2:0:0\nsecond line hunter3\n".write(toFile: dir + "/secret", atomically: true, encoding: .utf8)
        try #"{ "extends": "secret", "name": "x" }"#.write(toFile: dir + "/ext.json", atomically: true, encoding: .utf8)
        let ext = Self.synclab(["validate", dir + "/ext.json"])
        #expect(ext.status == 2)
        #expect(ext.err.contains("\(dir)/secret: not a JSON scenario file (line 1, column 1); its content is not quoted"), "\(ext.err)")
        #expect(!ext.err.contains("hunter"))
        let trace = #", "network": { "profiles": [ { "preset": "wifi", "share": 1, "uplink": { "trace": "secret" } } ] }"#
        let traced = try CLITests.smallScenario(in: dir, overrides: trace)
        let tr = Self.synclab(["validate", traced])
        #expect(tr.status == 2)
        #expect(tr.err.contains("trace file '\(dir)/secret' line 2: not a trace of samples"), "\(tr.err)")
        #expect(!tr.err.contains("hunter") && !tr.err.contains("root"))
        // Our own .csv is still quoted: the cell is the useful part of the message.
        try "ms\n12\nabc\n".write(toFile: dir + "/ours.csv", atomically: true, encoding: .utf8)
        let ours = Self.synclab(["validate", try CLITests.smallScenario(in: dir, overrides: trace.replacingOccurrences(of: "secret", with: "ours.csv"))])
        #expect(ours.err.contains("line 3: column 'ms' is \"abc\", not a number"), "\(ours.err)")
    }

    @Test func indexEscapesAScenarioNameThatWouldBreakTheTable() throws {
        let dir = CLITests.temporaryDirectory()
        let (report, _) = try Self.report(in: dir)
        let summary = try String(contentsOfFile: report + "/summary.json", encoding: .utf8)
        try summary.replacingOccurrences(of: #""scenario": "small""#, with: #""scenario": "a|b\nc]d""#)
            .write(toFile: report + "/summary.json", atomically: true, encoding: .utf8)
        let r = Self.synclab(["index", report])
        #expect(r.status == 0, "\(r.err)")
        let rows = r.out.split(separator: "\n").filter { $0.hasPrefix("| [") }
        #expect(rows.count == 1)
        #expect(rows.first?.hasPrefix(#"| [a\|b c\]d](r/report.md) | 300 |"#) == true, "\(rows)")
    }

    @Test func inputsReadWholeMustBeRegularFilesOfBoundedSize() throws {
        let dir = CLITests.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/p", withIntermediateDirectories: false)
        #if os(Linux)
        try FileManager.default.createSymbolicLink(atPath: dir + "/p/sweep-part.csv", withDestinationPath: "/dev/zero")
        let r = Self.synclab(["merge", dir + "/p", "--out", dir + "/m"])
        #expect(r.status == 2)
        #expect(r.err.contains("sweep-part.csv: cannot read the file: it is a character device; expected a regular file"))
        #endif
        try String(repeating: "x", count: 100).write(toFile: dir + "/big", atomically: true, encoding: .utf8)
        guard case .failure(let e) = SafePaths.readInput(dir + "/big", limit: 99) else { Issue.record("read past the cap"); return }
        #expect(e.message == "the file has 100 bytes; at most 99 are read")
        #expect(MergeCommand.maximumPartBytes == 500_000_000)
    }

    @Test(arguments: [["run", "S", "--clients", "+5"], ["run", "S", "--seed", "+1"], ["run", "S", "--threads", " 2"],
                      ["sweep", "S", "--vary", "population.players=300", "--shard", "+1/2"],
                      ["sweep", "S", "--vary", "population.players=300", "--shard", "0/+2"],
                      ["check", "S", "--seeds", "+2"], ["check", "S", "--max-failures", "+0"], ["compare", "S", "S", "--seed", "+1"]])
    func aSignedOrSpacedNumberIsNotAWholeNumber(arguments: [String]) throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let r = Self.synclab(arguments.map { $0 == "S" ? scenario : $0 })
        #expect(r.status == 2)
        #expect(r.err.contains("expects"), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func aDoubleByteOrderMarkIsRefused() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let text = try Data(contentsOf: URL(fileURLWithPath: scenario))
        try (Data([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF]) + text).write(to: URL(fileURLWithPath: scenario))
        let r = Self.synclab(["validate", scenario])
        #expect(r.status == 2)
        #expect(r.err.contains("\(scenario): the file starts with two byte order marks; remove them"))
        try (Data([0xEF, 0xBB, 0xBF]) + text).write(to: URL(fileURLWithPath: scenario))
        #expect(Self.synclab(["validate", scenario]).status == 0)
    }
}

/// A run too large for the memory this process may really use is refused with the estimate and
/// the limit it hit, not started and killed by the allocator.
@Suite struct MemoryLimitRefusalTests {
    /// Under `ulimit -v 3000000` (2.9 GiB of address space), 20 million players for an hour
    /// (about 12 GiB of state alone) trapped with "failed to allocate" (exit 134).
    @Test func anAddressSpaceLimitIsNamedInTheRefusal() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        guard let r = try SafetyTests.runExecutable(["run", scenario, "--clients", "20000000", "--duration", "1h", "--out", dir + "/r"],
                                                    through: "ulimit -v 3000000 && exec \"$SYNCLAB\" \"$@\"", timeout: 60)
        else { return }
        #expect(r.status == 2, "stderr: \(r.err)")
        #expect(r.err.contains("this scenario would need about "))
        #expect(r.err.contains("the address-space limit (ulimit -v 3000000, 2.9 GiB) less about "), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/r"))
        // A run that fits goes ahead under the same limit.
        guard let small = try SafetyTests.runExecutable(["run", scenario, "--out", dir + "/s"],
                                                        through: "ulimit -v 3000000 && exec \"$SYNCLAB\" \"$@\"", timeout: 60)
        else { return }
        #expect(small.status == 0, "stderr: \(small.err)")
    }
}
