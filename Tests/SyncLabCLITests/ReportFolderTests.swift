import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// A report folder is replaced whole or not at all: a failed or killed run leaves the previous
/// report byte-identical, and leftovers of killed runs are cleaned up by the next write.
@Suite struct ReportFolderTests {
    /// Every file of a folder, by name, with its bytes.
    static func snapshot(_ dir: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            files[name] = FileManager.default.contents(atPath: dir + "/" + name)
        }
        return files
    }

    static func previousReport(in dir: String) throws -> (path: String, files: [String: Data]) {
        let scenario = try CLITests.smallScenario(in: dir)
        let r = CLITests.synclab(["run", scenario, "--out", dir + "/r"])
        #expect(r.status == 0)
        let files = snapshot(dir + "/r")
        #expect(files.count >= 8, "files: \(files.keys.sorted())")
        #expect(files[ReportWriter.marker] != nil)
        return (dir + "/r", files)
    }

    /// The process id of a process that has exited (so no live run owns a leftover named by it).
    static func deadProcessID() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exit 0"]
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    /// An output never replaces what the command reads: a report folder holding the scenario,
    /// or a JUnit file named as the scenario.
    @Test func anOutputThatWouldDeleteAnInputIsRefused() throws {
        let dir = CLITests.temporaryDirectory()
        let (report, files) = try Self.previousReport(in: dir)
        let scenario = try String(contentsOfFile: dir + "/small.json", encoding: .utf8)
        try scenario.write(toFile: report + "/small.json", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: dir + "/base.json", toPath: report + "/base.json")
        let held = Self.snapshot(report)
        for arguments in [["run", report + "/small.json"], ["compare", report + "/small.json", dir + "/small.json"]] {
            let r = CLITests.synclab(arguments + ["--out", report])
            #expect(r.status == 2)
            #expect(r.err.contains("refusing to replace '\(report)': it holds '\(report)/small.json', an input of this command"))
            #expect(Self.snapshot(report) == held)
        }
        #expect(held.count == files.count + 2)
        let junit = CLITests.synclab(["check", dir + "/small.json", "--junit", dir + "/small.json"])
        #expect(junit.status == 2)
        #expect(junit.err.contains("an input of this command; refusing to overwrite it"))
        #expect(try String(contentsOfFile: dir + "/small.json", encoding: .utf8) == scenario)
        let folder = CLITests.synclab(["check", dir + "/small.json", "--junit", report])
        #expect(folder.status == 2)
        #expect(folder.err.contains("--junit: '\(report)' is a folder; expected a file name"))
    }

    @Test func aFailedWriteLeavesThePreviousReportUntouched() throws {
        let dir = CLITests.temporaryDirectory()
        let (path, before) = try Self.previousReport(in: dir)
        // A file name the file system refuses makes the write fail half-way through.
        #expect(throws: ReportWriter.WriteError.self) {
            try ReportWriter.write([("report.md", "new"), ("no/such/folder.csv", "x")], to: path)
        }
        #expect(Self.snapshot(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["base.json", "r", "small.json"])
    }

    /// A temporary folder as a killed writer leaves it: named `.TARGET.tmp-…` and marked with
    /// the lab's token (`LabTemporary`).
    @discardableResult
    static func markedLeftover(in dir: String, for target: String, tag: String) throws -> String {
        let name = ".\(target).tmp-\(tag)"
        try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: false)
        try LabTemporary.token(folder: name, target: target).write(toFile: dir + "/" + name + "/" + LabTemporary.tokenFile,
                                                                  atomically: false, encoding: .utf8)
        return dir + "/" + name
    }

    @Test func leftoversOfKilledRunsAreRemovedAndADisplacedReportIsRestored() throws {
        let dir = CLITests.temporaryDirectory()
        let (path, before) = try Self.previousReport(in: dir)
        let fm = FileManager.default
        let dead = try Self.deadProcessID()
        // A temporary folder of a killed run (marked; no one holds the folder's lock): removed.
        let leftover = try Self.markedLeftover(in: dir, for: "r", tag: "\(dead)-dead")
        LabTemporary.cleanUp(in: dir)
        #expect(!fm.fileExists(atPath: leftover))
        // A run killed between the two renames of the non-atomic swap: the report is inside it.
        let aside = try Self.markedLeftover(in: dir, for: "r", tag: "\(dead)-x")
        try fm.moveItem(atPath: path, toPath: aside + "/" + LabTemporary.previousName)
        LabTemporary.cleanUp(in: dir)
        #expect(Self.snapshot(path) == before)
        #expect(try fm.contentsOfDirectory(atPath: dir).sorted() == ["base.json", "r", "small.json"])
        // And a full write starts by cleaning up.
        try Self.markedLeftover(in: dir, for: "r", tag: "\(dead)-again")
        try ReportWriter.write([("report.md", "# new\n")], to: path)
        #expect(try fm.contentsOfDirectory(atPath: dir).sorted() == ["base.json", "r", "small.json"])
        #expect(fm.contents(atPath: path + "/report.md") == Data("# new\n".utf8))
    }

    @Test func replacementIsASingleExchangeOnLinux() throws {
        #if os(Linux)
        let dir = CLITests.temporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/a", withIntermediateDirectories: false)
        try fm.createDirectory(atPath: dir + "/b", withIntermediateDirectories: false)
        try "A".write(toFile: dir + "/a/x", atomically: false, encoding: .utf8)
        try "B".write(toFile: dir + "/b/x", atomically: false, encoding: .utf8)
        #expect(ReportWriter.exchange(dir + "/a", dir + "/b"))
        #expect(try String(contentsOfFile: dir + "/a/x", encoding: .utf8) == "B")
        #expect(try String(contentsOfFile: dir + "/b/x", encoding: .utf8) == "A")
        #endif
    }

    /// The `synclab` executable beside this test bundle (the build products folder), or nil.
    static func synclabExecutable() -> URL? {
        var folders: [URL] = []
        #if os(Linux)
        folders.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        #endif
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        folders.append(Bundle.main.bundleURL)
        for folder in folders {
            let candidate = folder.appendingPathComponent("synclab")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// SIGKILL a real run mid-simulation: the previous report must be byte-identical and
    /// nothing may replace it or be left beside it.
    @Test func aKilledRunLeavesThePreviousReportByteIdentical() throws {
        guard let synclab = Self.synclabExecutable() else {
            Issue.record("the synclab executable is not beside the test bundle; build it with 'swift build' to run this test")
            return
        }
        let dir = CLITests.temporaryDirectory()
        let (path, before) = try Self.previousReport(in: dir)
        let process = Process()
        process.executableURL = synclab
        // 200 000 players for a simulated day: minutes of work, killed after about a second.
        process.arguments = ["run", dir + "/small.json", "--out", path, "--clients", "200000", "--duration", "24h"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for the run to start simulating ("running …" is flushed before the world starts).
        var printed = Data()
        let deadline = Date().addingTimeInterval(30)
        while !String(decoding: printed, as: UTF8.self).contains("running "), Date() < deadline, process.isRunning {
            printed += output.fileHandleForReading.availableData
        }
        #expect(String(decoding: printed, as: UTF8.self).hasPrefix("seed 1\nrunning small: 200,000 players, 1d simulated\n"))
        Thread.sleep(forTimeInterval: 1)
        #expect(process.isRunning, "the run finished before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGKILL)
        #expect(Self.snapshot(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["base.json", "r", "small.json"])
    }
}
