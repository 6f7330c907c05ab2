import Foundation
import Testing
import SyncLab
import SyncLabCLI
@testable import AppSync

/// The app's own `synclab` (Sources/AppSyncLab: SyncLab's command line with the app's registry)
/// runs and validates scenarios that name the app's kinds, and refuses an unknown kind as the
/// lab's does: status 2 and the key path.
@Suite struct AppCommandLineTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios")

    /// Runs `arguments` through the app's command line; returns the status, stdout and stderr.
    static func appLab(_ arguments: [String]) -> (status: Int32, out: String, err: String) {
        final class Box: @unchecked Sendable { var out = "", err = "" }
        let box = Box()
        let cli = CLI(plugins: AppPlugins.registry, out: { box.out += $0 }, err: { box.err += $0 }, showsProgress: false)
        let status = cli.main(arguments)
        return (status, box.out, box.err)
    }

    /// `app-design.json` names "kronos" and "slotted" and extends the app's own
    /// `constant-latency.json`, which extends the shipped `r1.json`: not beside it, so the command
    /// line finds it among the shipped scenarios.
    @Test func runsAScenarioWithTheAppsKinds() throws {
        let file = Self.scenarios.appendingPathComponent("app-design.json").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("appsync-lab-\(getpid())")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = Self.appLab(["run", file, "--clients", "40", "--duration", "20m", "--out", out.path, "--quiet"])
        #expect(run.status == 0, "\(run.err)")
        let report = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(report.contains("estimator `kronos`"), "the report names the app's estimator")
        #expect(Self.appLab(["validate", file]) == (0, "ok app-design (\(file))\n", ""))
        // The lab's own command line does not know the app's kinds.
        let lab = CLI(out: { _ in }, err: { _ in }, showsProgress: false)
        #expect(lab.main(["validate", file]) == 2)
    }

    @Test func anUnknownKindExitsTwoNamingTheKeyPath() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("appsync-unknown-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try #"{"extends": "r1.json", "name": "m", "client": {"estimator": {"kind": "chrony"}}}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let r = Self.appLab(["validate", file.path])
        #expect(r.status == 2)
        #expect(r.err.contains("\(file.path): client.estimator.kind: unknown estimator 'chrony'"), "\(r.err)")
        #expect(r.err.contains("'kronos'"), "the app's kinds are among those offered: \(r.err)")
    }
}
