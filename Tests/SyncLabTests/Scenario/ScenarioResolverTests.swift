import Foundation
import Testing
@testable import SyncLab

@Suite struct ScenarioResolverTests {
    @Test func directoryNamesAreRelativeToTheReferrersFolder() {
        let r = DirectoryScenarioResolver(root: URL(fileURLWithPath: "/nowhere"), label: "the test folder")
        #expect(r.name(of: "recommended.json", from: nil) == "recommended.json")
        #expect(r.name(of: "./a/../b.json", from: nil) == "b.json")
        #expect(r.name(of: "devices-wall.json", from: "examples/devices-uptime.json") == "examples/devices-wall.json")
        #expect(r.name(of: "../v115-uptime.json", from: "examples/devices-wall.json") == "v115-uptime.json")
        #expect(r.name(of: "../../x.json", from: "examples/a.json") == "../x.json")
        #expect(r.name(of: "/etc/hostname", from: "a.json") == "/etc/hostname")
        #expect(r.identity(of: "examples/../recommended.json") == "recommended.json")
        #expect(throws: ScenarioFileProblem.missing(lookedFor: "../x.json, which is outside the test folder")) {
            try r.contents(of: "../x.json", maximumBytes: 10)
        }
        #expect(throws: ScenarioFileProblem.missing(lookedFor: "a.json among the test folder")) {
            try r.contents(of: "a.json", maximumBytes: 10)
        }
    }

    /// File-system names are the paths the loader has always used: relative to the current
    /// folder, parents joined to the extending file's folder.
    @Test func fileSystemNamesArePaths() throws {
        let r = FileSystemScenarioResolver()
        #expect(r.name(of: "Scenarios/x.json", from: nil) == "Scenarios/x.json")
        #expect(r.name(of: "/abs/y.json", from: "/dir/x.json") == "/abs/y.json")
        #expect(r.name(of: "y.json", from: "/dir/x.json") == "/dir/y.json")
        let dir = ScenarioFixtures.temporaryDirectory()
        try "{}".write(toFile: dir + "/a.json", atomically: true, encoding: .utf8)
        #expect(try r.contents(of: dir + "/a.json", maximumBytes: 2) == Data("{}".utf8))
        #expect(throws: ScenarioFileProblem.tooLarge(bytes: 2)) { try r.contents(of: dir + "/a.json", maximumBytes: 1) }
        #expect(throws: ScenarioFileProblem.folder) { try r.contents(of: dir, maximumBytes: 1) }
    }

    /// `load(text:)` follows `extends` relative to the file it is given as.
    @Test func aTextFollowsExtendsOnTheFileSystem() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        let base = try String(contentsOfFile: ScenarioFixtures.shippedPath("v115-pausing.json"), encoding: .utf8)
        try base.write(toFile: dir + "/base.json", atomically: true, encoding: .utf8)
        let s = try ScenarioLoader().load(text: #"{"extends": "base.json", "name": "t", "client": {"clock": "uptime"}}"#,
                                          file: dir + "/t.json")
        #expect(s.name == "t" && s.client.clock.name == "uptime")
        #expect(throws: InputError(file: dir + "/t.json", keyPath: "extends",
                                   message: "no such file 'gone.json' (looked for \(dir)/gone.json)")) {
            try ScenarioLoader().load(text: #"{"extends": "gone.json", "name": "t"}"#, file: dir + "/t.json")
        }
    }
}
