import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40, a second hostile sweep: no hang, no trap, no user file touched. One test per row of
/// its table (docs/safety.md lists them). Tests that need a real process (a deleted current
/// folder, closed or failing stderr, resource limits, signals, another user) run the built
/// executable with a deadline; the others call the command line in-process.
@Suite struct HostileSweepTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    static func run(_ arguments: [String], through shell: String, in folder: String? = nil, timeout: TimeInterval = 60) throws
        -> (status: Int32, out: String, err: String, timedOut: Bool)? {
        try SafetyTests.runExecutable(arguments, in: folder, through: shell, timeout: timeout)
    }

    static func entries(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// A folder an unprivileged user (nobody, uid 65534) owns, and the prefix that runs a shell
    /// command as that user; nil (with the reason printed) where that is impossible. As a user
    /// other than root, the command runs as that user itself.
    static func unprivileged(in dir: String) -> (folder: String, prefix: String)? {
        let folder = dir + "/u"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        guard geteuid() == 0 else { return (folder, "") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            print("skipped: running as root without setpriv, so no unprivileged user can be tried")
            return nil
        }
        guard chown(folder, 65534, 65534) == 0 else {
            print("skipped: cannot give a folder to the user nobody here")
            return nil
        }
        // A clone under a private folder (mktemp -d makes one) hides the built executable from
        // other users: then no unprivileged run can be tried.
        guard let path = ReportFolderTests.synclabExecutable()?.path, Self.othersCanRun(path) else {
            print("skipped: the user nobody cannot reach the built executable (a folder above it is private)")
            return nil
        }
        return (folder, "setpriv --reuid=65534 --regid=65534 --clear-groups -- ")
    }

    /// Whether a user who is neither the owner nor in the group may execute `path`: every folder
    /// above it searchable by others, and the file executable by them.
    static func othersCanRun(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
        var folder = (path as NSString).deletingLastPathComponent
        while folder.count > 1 {
            guard stat(folder, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return true
    }

    // MARK: Row 1: a deleted current folder

    @Test func aDeletedCurrentFolderNeitherHangsNorLoops() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        // Every command that checks its output path, from a folder deleted under it.
        let shell = #"""
        mkdir "$1/gone" && cd "$1/gone" && rmdir "$1/gone" || exit 99
        "$SYNCLAB" run "$2" --out "$1/r" > /dev/null; echo "run $?"
        "$SYNCLAB" compare "$2" "$2" --out "$1/c" > /dev/null; echo "compare $?"
        "$SYNCLAB" sweep "$2" --vary population.players=100 --out "$1/s" > /dev/null; echo "sweep $?"
        "$SYNCLAB" merge "$1/no-such-part" --out "$1/m" > /dev/null; echo "merge $?"
        "$SYNCLAB" run "$2" --out relative > /dev/null; echo "relative $?"
        """#
        guard let r = try Self.run([dir, scenario], through: shell, timeout: 120) else { return }
        #expect(!r.timedOut, "a command hung with its current folder deleted")
        #expect(r.out == "run 0\ncompare 0\nsweep 0\nmerge 2\nrelative 2\n", "\(r.out)\n\(r.err)")
        #expect(r.err.contains("the current folder no longer exists (it was deleted), so the relative path 'relative' names nothing"))
        #expect(FileManager.default.fileExists(atPath: dir + "/r/report.md"))
        #expect(FileManager.default.fileExists(atPath: dir + "/s/sweep.md"))
    }

    // MARK: Row 2: help about help

    @Test(arguments: [["help", "help"], ["help", "--help"], ["--help", "help"], ["-h", "-h"], ["help", "-h"]])
    func helpAboutHelpPrintsTheUsage(arguments: [String]) {
        let r = Self.synclab(arguments)
        #expect(r.status == 0)
        #expect(r.out == CLI.usage)
        #expect(r.err.isEmpty)
    }

    @Test func helpAboutAnUnknownCommandSaysSo() {
        let r = Self.synclab(["help", "frobnicate"])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("synclab help: unknown command 'frobnicate'\n"))
        #expect(Self.synclab(["help", "run"]).out == RunCommand.help)
    }

    // MARK: Row 3: a failed write to stderr

    @Test func aFailedStderrWriteNeitherTrapsNorLosesTheReport() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        try "{".write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let shell = #"""
        "$SYNCLAB" validate "$1/bad.json" 2>/dev/full; echo "full $?"
        "$SYNCLAB" run "$2" --out "$1/closed" 2>&- > /dev/null; echo "closed $?"
        "$SYNCLAB" run "$2" --out "$1/quiet" 2>&- >&-; echo "both closed $?"
        (ulimit -f 0; "$SYNCLAB" validate "$1/bad.json" 2>"$1/err.txt"); echo "size limit $?"
        """#
        guard let r = try Self.run([dir, scenario], through: shell) else { return }
        #expect(!r.timedOut)
        // 132 (SIGILL) was the trap of FileHandle.write.
        #expect(r.out == "full 2\nclosed 0\nboth closed 0\nsize limit 2\n", "\(r.out)\n\(r.err)")
        for folder in ["closed", "quiet"] {
            #expect(FileManager.default.fileExists(atPath: "\(dir)/\(folder)/\(ReportWriter.marker)"), "no report in \(folder)")
            // With fd 2 closed, no message may land in a file the run opened as fd 2.
            let report = try String(contentsOfFile: "\(dir)/\(folder)/report.md", encoding: .utf8)
            #expect(!report.contains("simulated in"))
        }
    }

    // MARK: Row 4: the real memory limit in every command that simulates

    @Test func sweepCheckAndCompareCheckTheRealMemoryLimit() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try SafetyTests.budgeted(in: dir)
        try #"{ "extends": "small.json", "name": "huge", "duration": "1h", "population": { "players": 20000000 } }"#
            .write(toFile: dir + "/huge.json", atomically: true, encoding: .utf8)
        let shell = #"""
        ulimit -v 3000000
        "$SYNCLAB" sweep "$2" --vary population.players=20000000 --out "$1/o"; echo "sweep $?" >&3
        "$SYNCLAB" check "$1/huge.json"; echo "check $?" >&3
        "$SYNCLAB" compare "$2" "$1/huge.json" --out "$1/c"; echo "compare $?" >&3
        """#
        guard let r = try Self.run([dir, scenario], through: "exec 3>&1 1>/dev/null; " + shell, timeout: 120) else { return }
        #expect(!r.timedOut)
        // 134 was "failed to allocate".
        #expect(r.out == "sweep 2\ncheck 2\ncompare 2\n", "\(r.out)\n\(r.err)")
        #expect(r.err.components(separatedBy: "the address-space limit (ulimit -v 3000000, 2.9 GiB) less about ").count == 4, "\(r.err)")
        #expect(!r.err.contains("seed"))
        #expect(Self.entries(dir) == ["base.json", "huge.json", "small.json"])
    }

    /// Under `ulimit -v 200000` a 200-player run was refused with "the limit is 0 MiB".
    @Test func aTinyAddressSpaceLimitGetsASaneFigure() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        guard let r = try Self.run([scenario, dir + "/r"], through: #"ulimit -v 200000 && exec "$SYNCLAB" run "$1" --out "$2""#)
        else { return }
        #expect(r.status == 2, "\(r.err)")
        #expect(r.err.contains("the address-space limit (ulimit -v 200000, 195 MiB) less about "), "\(r.err)")
        #expect(r.err.contains("leaves nothing for the run") && r.err.contains("raise the limit to at least ulimit -v "))
        #expect(!r.err.contains("the limit is 0 MiB"))
    }

    // MARK: Row 5: nothing without the lab's mark is removed or moved

    @Test func leftoversWithoutTheLabsMarkAreNeverTouched() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let fm = FileManager.default
        // The issue's repro: a user's folder and file named like the lab's old leftovers.
        try fm.createDirectory(atPath: dir + "/.rep.old-x", withIntermediateDirectories: false)
        try "data\n".write(toFile: dir + "/.rep.old-x/thesis.txt", atomically: true, encoding: .utf8)
        try "keep\n".write(toFile: dir + "/.rep.tmp-keep", atomically: true, encoding: .utf8)
        // A folder named like a temporary one, with a token that names another folder.
        try fm.createDirectory(atPath: dir + "/.rep.tmp-1-forged", withIntermediateDirectories: false)
        try LabTemporary.token(folder: ".rep.tmp-1-other", target: "rep")
            .write(toFile: dir + "/.rep.tmp-1-forged/" + LabTemporary.tokenFile, atomically: true, encoding: .utf8)
        try "mine\n".write(toFile: dir + "/.rep.tmp-1-forged/notes.txt", atomically: true, encoding: .utf8)
        // A marked leftover of a killed run: the only thing that goes.
        let deadID = try ReportFolderTests.deadProcessID()
        let dead = try ReportFolderTests.markedLeftover(in: dir, for: "rep", tag: "\(deadID)-dead")
        for _ in 0..<2 {   // `rep` absent, then present
            let r = Self.synclab(["run", scenario, "--out", dir + "/rep"])
            #expect(r.status == 0, "\(r.err)")
        }
        #expect(try String(contentsOfFile: dir + "/.rep.old-x/thesis.txt", encoding: .utf8) == "data\n")
        #expect(try String(contentsOfFile: dir + "/.rep.tmp-keep", encoding: .utf8) == "keep\n")
        #expect(try String(contentsOfFile: dir + "/.rep.tmp-1-forged/notes.txt", encoding: .utf8) == "mine\n")
        #expect(!fm.fileExists(atPath: dead))
        #expect(!fm.fileExists(atPath: dir + "/rep/thesis.txt"), "a user's folder was moved into the report's place")
        #expect(Self.entries(dir) == [".rep.old-x", ".rep.tmp-1-forged", ".rep.tmp-keep", "base.json", "rep", "small.json"])
    }

    // MARK: Rows 6 and 7: interrupted writes leave nothing behind

    /// Starts `arguments`, waits until a temporary entry whose name starts with `prefix` appears
    /// in `dir` (the write phase), sends `sig` and waits. True when the signal landed in the
    /// write phase; false when the write was never seen (then nothing is asserted of it).
    static func interruptDuringWrite(_ arguments: [String], dir: String, prefix: String, signal sig: Int32) throws
        -> (caught: Bool, status: Int32, reason: Process.TerminationReason)? {
        guard let synclab = ReportFolderTests.synclabExecutable() else {
            Issue.record("the synclab executable is not built")
            return nil
        }
        let process = Process()
        process.executableURL = synclab
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var caught = false
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline {
            guard let d = opendir(dir) else { break }
            while let entry = readdir(d) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                if name.hasPrefix(prefix) { caught = true; break }
            }
            closedir(d)
            if caught {
                kill(process.processIdentifier, sig)
                break
            }
        }
        if !caught, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (caught, process.terminationStatus, process.terminationReason)
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalDuringAWriteLeavesNoTemporaryFile(signal sig: Int32) throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let fm = FileManager.default
        #expect(Self.synclab(["run", scenario, "--out", dir + "/r"]).status == 0)
        // Notes of almost 10 MB make an index whose write takes long enough to be caught.
        let line = String(repeating: "n", count: 99) + "\n"
        try String(repeating: line, count: 99_000).write(toFile: dir + "/notes.md", atomically: true, encoding: .utf8)
        var landed = 0
        for attempt in 0..<8 where landed < 2 {
            let out = dir + "/index-\(attempt).md"
            guard let r = try Self.interruptDuringWrite(["index", dir + "/r", "--notes", dir + "/notes.md", "--out", out],
                                                        dir: dir, prefix: ".index-\(attempt).md.tmp-", signal: sig) else { return }
            #expect(Self.entries(dir).allSatisfy { !$0.contains(".tmp-") }, "left behind: \(Self.entries(dir))")
            guard r.caught else { continue }
            // The signal waits for the write to finish, then ends the process with itself (or the
            // write had just ended when the signal came, and the process with it: not a landing).
            #expect((r.reason == .uncaughtSignal && r.status == sig) || (r.reason == .exit && r.status == 0), "\(r.reason) \(r.status)")
            if let text = fm.contents(atPath: out) { #expect(text.count > 9_000_000, "a partial index") }
            if r.reason == .uncaughtSignal { landed += 1 }
        }
        if landed == 0 { print("note: no signal ended a write phase in 8 tries; only the exits and the absence of leftovers were checked") }
        // The report folder's write phase too (row 7).
        for attempt in 0..<4 {
            guard let r = try Self.interruptDuringWrite(["run", scenario, "--out", dir + "/r", "--seed", "\(attempt + 2)"],
                                                        dir: dir, prefix: ".r.tmp-", signal: sig) else { return }
            #expect(Self.entries(dir).allSatisfy { !$0.contains(".tmp-") }, "left behind: \(Self.entries(dir))")
            #expect(fm.fileExists(atPath: dir + "/r/" + ReportWriter.marker), "the report is gone")
            if r.caught { #expect((r.reason == .uncaughtSignal && r.status == sig) || (r.reason == .exit && r.status == 0), "\(r.reason) \(r.status)") }
        }
    }

    /// A signal before anything is written ends the run at once with that signal, as before.
    @Test func aSignalDuringTheSimulationEndsTheRunWithIt() throws {
        guard let synclab = ReportFolderTests.synclabExecutable() else { Issue.record("not built"); return }
        let dir = CLITests.temporaryDirectory()
        let (path, before) = try ReportFolderTests.previousReport(in: dir)
        let process = Process()
        process.executableURL = synclab
        process.arguments = ["run", dir + "/small.json", "--out", path, "--clients", "200000", "--duration", "24h"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1)
        kill(process.processIdentifier, SIGTERM)
        // The simulation holds every thread of Dispatch's pool: the signal must not wait for it.
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!process.isRunning, "SIGTERM did not end the run within 20 s")
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM,
                "\(process.terminationReason) \(process.terminationStatus)")
        #expect(ReportFolderTests.snapshot(path) == before)
        #expect(Self.entries(dir) == ["base.json", "r", "small.json"])
    }

    // MARK: Row 8: a read-only report folder, as an unprivileged user

    @Test func aReadOnlyReportFolderIsRefusedBeforeTheRun() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        guard let (folder, prefix) = Self.unprivileged(in: dir) else { return }
        let shell = prefix + #"sh -c '"$0" run "$1" --out "$2/rep" > /dev/null && chmod 555 "$2/rep" && exec "$0" run "$1" --out "$2/rep"' "$SYNCLAB" "$@""#
        guard let r = try Self.run([scenario, folder], through: shell) else { return }
        #expect(r.status == 2, "exit 0 without a word was the bug: \(r.out)\n\(r.err)")
        #expect(r.err.contains("is a report folder this user cannot change"), "\(r.err)")
        #expect(r.out.isEmpty, "the run started: \(r.out)")
        #expect(Self.entries(folder) == ["rep"])
        chmod(folder + "/rep", 0o755)
    }

    // MARK: Row 9: two outputs naming one file

    @Test func twoOutputsNamingOneFileAreRefused() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try SafetyTests.budgeted(in: dir)
        try FileManager.default.createSymbolicLink(atPath: dir + "/alias.xml", withDestinationPath: "out.xml")
        for summary in [dir + "/out.xml", dir + "/alias.xml"] {
            final class Box: @unchecked Sendable { var out = ""; var err = "" }
            let box = Box()
            let cli = CLI(out: { box.out += $0 }, err: { box.err += $0 }, showsProgress: false)
            let status = CheckCommand(cli: cli, environment: ["GITHUB_STEP_SUMMARY": summary]).main([scenario, "--junit", dir + "/out.xml"])
            #expect(status == 2)
            #expect(box.err.contains("and GITHUB_STEP_SUMMARY name the same file"), "\(box.err)")
            #expect(!box.out.contains("seed"), "simulated before refusing")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.xml"))
        }
    }

    // MARK: Row 12: refusals known before simulating

    @Test func aFileOnTheWayIsRefusedBeforeTheRunInEveryCommand() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try SafetyTests.budgeted(in: dir)
        try "x\n".write(toFile: dir + "/afile", atomically: true, encoding: .utf8)
        let out = dir + "/afile/sub"
        for arguments in [["run", scenario, "--out", out], ["compare", scenario, scenario, "--out", out],
                          ["sweep", scenario, "--vary", "population.players=100", "--out", out],
                          ["merge", dir, "--out", out], ["check", scenario, "--junit", out],
                          ["index", dir, "--out", out], ["schema", "--out", out]] {
            let r = Self.synclab(arguments)
            #expect(r.status == 2, "\(arguments[0])")
            #expect(r.err.contains("'\(dir)/afile' is a file, not a folder, so '\(out)' cannot be created inside it"), "\(arguments[0]): \(r.err)")
            #expect(!r.out.contains("seed"), "\(arguments[0]) simulated before refusing")
        }
        #expect(try String(contentsOfFile: dir + "/afile", encoding: .utf8) == "x\n")
    }

    @Test func aDefaultReportsThatIsAFileOrAFIFOIsRefusedBeforeTheRun() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        for (make, kind) in [("echo x > Reports", "a file"), ("mkfifo Reports", "a FIFO (named pipe)")] {
            let shell = #"rm -f Reports && "# + make + #" && exec "$SYNCLAB" run "$1""#
            guard let r = try Self.run([scenario], through: shell, in: dir) else { return }
            #expect(!r.timedOut)
            #expect(r.status == 2)
            #expect(r.err.contains("'Reports' is \(kind), not a folder, so 'Reports/small' cannot be created inside it"), "\(r.err)")
            #expect(r.out.isEmpty, "the run started: \(r.out)")
        }
    }

    @Test func longNamesAreWrittenOrRefusedBeforeTheRun() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        // 240 characters: the hidden temporary name once passed 255 bytes and failed after the run.
        let long = String(repeating: "a", count: 240)
        let r = Self.synclab(["run", scenario, "--out", dir + "/" + long])
        #expect(r.status == 0, "\(r.err)")
        #expect(FileManager.default.fileExists(atPath: dir + "/" + long + "/report.md"))
        let junit = Self.synclab(["schema", "--out", dir + "/" + long + ".json"])
        #expect(junit.status == 0, "\(junit.err)")
        // 256 bytes cannot be a name: refused first.
        let tooLong = String(repeating: "é", count: 128)
        let refused = Self.synclab(["run", scenario, "--out", dir + "/" + tooLong])
        #expect(refused.status == 2)
        #expect(refused.err.contains("has 256 bytes; a file or folder name may have at most 255"), "\(refused.err)")
        #expect(!refused.out.contains("seed"))
        #expect(Self.entries(dir) == [long, long + ".json", "base.json", "small.json"])
    }

    @Test func anotherUsersReportInAStickyFolderIsRefusedBeforeTheRun() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        guard geteuid() == 0 else { print("skipped: needs root to make a report of another user"); return }
        guard let (_, prefix) = Self.unprivileged(in: dir) else { return }
        // A sticky folder like /tmp, holding root's report.
        let sticky = dir + "/sticky"
        try FileManager.default.createDirectory(atPath: sticky, withIntermediateDirectories: false)
        chmod(sticky, 0o1777)
        #expect(Self.synclab(["run", scenario, "--out", sticky + "/rep"]).status == 0)
        let before = ReportFolderTests.snapshot(sticky + "/rep")
        guard let r = try Self.run([scenario, sticky], through: prefix + #""$SYNCLAB" run "$1" --out "$2/rep""#) else { return }
        #expect(r.status == 2)
        #expect(r.err.contains("belongs to another user (uid 0)") && r.err.contains("a folder with the sticky bit"), "\(r.err)")
        #expect(r.out.isEmpty, "the run started: \(r.out)")
        #expect(ReportFolderTests.snapshot(sticky + "/rep") == before)
        #expect(Self.entries(sticky) == ["rep"])
    }

    // MARK: Row 13: control characters from files are escaped

    @Test func pathsFromExtendsAndTracesAreEscaped() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try CLITests.smallScenario(in: dir)
        let hostile = "\\u001b]0;x\\u0007"
        try #"{ "extends": "\#(hostile).json" }"#.write(toFile: dir + "/a.json", atomically: true, encoding: .utf8)
        try #"{ "extends": "small.json", "network": { "profiles": [ { "preset": "wifi", "share": 1, "uplink": { "trace": "\#(hostile)\u0000.csv" } } ] } }"#
            .write(toFile: dir + "/b.json", atomically: true, encoding: .utf8)
        for file in ["a.json", "b.json"] {
            let r = Self.synclab(["validate", dir + "/" + file])
            #expect(r.status == 2)
            #expect(!r.err.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(file): a raw control character reached the terminal")
            #expect(r.err.contains("\\u{1B}]0;x\\u{7}"), "\(file): \(r.err)")
        }
    }

    // MARK: Also unclear to a user

    @Test func unreadableInputsSayWhatTheyAre() throws {
        let dir = CLITests.temporaryDirectory()
        let fm = FileManager.default
        #expect(mkfifo(dir + "/fifo.json", 0o644) == 0)
        try fm.createSymbolicLink(atPath: dir + "/loop.json", withDestinationPath: "loop.json")
        try "x".write(toFile: dir + "/file", atomically: true, encoding: .utf8)
        let long = dir + "/" + String(repeating: "b", count: 300) + ".json"
        for (path, words) in [(dir + "/fifo.json", "it is a FIFO (named pipe); expected a regular file"),
                              ("/dev/null", "it is a device; expected a regular file"),
                              (dir + "/loop.json", "it is a symbolic link loop"),
                              (dir + "/file/x.json", "a component of its path is a file, not a folder"),
                              (long, "a name in its path is too long")] {
            let r = Self.synclab(["validate", path])
            #expect(r.status == 2)
            #expect(r.err.contains(words), "\(path.suffix(40)): \(r.err)")
        }
    }

    @Test func aReleaseTimePastAChildsDurationNamesTheChild() throws {
        let dir = CLITests.temporaryDirectory()
        _ = try CLITests.smallScenario(in: dir)
        try #"{ "extends": "small.json", "duration": "10m" }"#.write(toFile: dir + "/short.json", atomically: true, encoding: .utf8)
        let r = Self.synclab(["validate", dir + "/short.json"])
        #expect(r.status == 2)
        #expect(r.err.contains("population.release.at: must fall inside the run's duration (10m); got \"15m\" (duration is set in \(dir)/short.json)"), "\(r.err)")
    }

    @Test func schemaJunitAndIndexNeverOverwriteAUsersFile() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try SafetyTests.budgeted(in: dir)
        let text = "a user's own file\n"
        try text.write(toFile: dir + "/mine.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.xml", withDestinationPath: "mine.txt")
        #expect(Self.synclab(["run", scenario, "--out", dir + "/r"]).status == 0)
        let schema = Self.synclab(["schema", "--out", dir + "/base.json"])
        #expect(schema.status == 2)
        #expect(schema.err.contains("is not a scenario schema written by 'synclab schema'; refusing to overwrite it"), "\(schema.err)")
        let junit = Self.synclab(["check", scenario, "--junit", dir + "/link.xml"])
        #expect(junit.status == 2)
        #expect(junit.err.contains("(through a symbolic link to '") && junit.err.contains("is not a JUnit file written by 'synclab check'"), "\(junit.err)")
        #expect(!junit.out.contains("seed"))
        let index = Self.synclab(["index", dir + "/r", "--out", dir + "/mine.txt"])
        #expect(index.status == 2)
        #expect(index.err.contains("is not an index written by 'synclab index'"), "\(index.err)")
        #expect(try String(contentsOfFile: dir + "/mine.txt", encoding: .utf8) == text)
        #expect(try String(contentsOfFile: dir + "/base.json", encoding: .utf8).contains("\"name\""))
        // Its own earlier output is replaced.
        #expect(Self.synclab(["schema", "--out", dir + "/s.json"]).status == 0)
        #expect(Self.synclab(["schema", "--out", dir + "/s.json"]).status == 0)
    }
}
