import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
import SyncLabKernel

/// `run --telemetry` and `check --telemetry` end to end: telemetry drawn from the scenario's own
/// link law agrees, the same rows half again as slow do not, labels without a partner are listed,
/// the files without the option are unchanged, and `check` gates on the verdict.
@Suite struct TelemetryOptionsTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    /// v115-idealised with two links, wifi (lognormal 15 ms up and down, σ 0.5) and edge, and no
    /// budgets: 2,000 players visiting every few minutes for 20 minutes.
    static func scenario(in dir: String) throws -> String {
        let shipped = (#filePath.components(separatedBy: "/Tests/").first ?? ".") + "/Scenarios/v115-idealised.json"
        try String(contentsOfFile: shipped, encoding: .utf8).write(toFile: dir + "/base.json", atomically: true, encoding: .utf8)
        let text = """
        { "extends": "base.json", "name": "telemetry", "duration": "20m", "warmup": "5m", "budgets": null,
          "population": { "players": 2000, "release": null, "visitGap": { "kind": "exponential", "mean": "5m" } },
          "network": { "requestBytes": 400, "profiles": [
            { "name": "wifi", "share": 0.8, "uplink": { "kind": "lognormal", "median": "15ms", "sigma": 0.5 },
              "downlink": { "kind": "lognormal", "median": "15ms", "sigma": 0.5 },
              "bandwidth": { "kind": "uniform", "min": "1MB/s", "max": "6MB/s" }, "failure": 0.002, "timeout": "30s" },
            { "name": "edge", "share": 0.2, "uplink": { "kind": "lognormal", "median": "150ms", "sigma": 0.6 },
              "downlink": { "kind": "lognormal", "median": "120ms", "sigma": 0.6 },
              "bandwidth": { "kind": "uniform", "min": "20kB/s", "max": "80kB/s" }, "failure": 0.02, "timeout": "30s" } ] } }
        """
        try text.write(toFile: dir + "/telemetry.json", atomically: true, encoding: .utf8)
        return dir + "/telemetry.json"
    }

    /// 2,000 rows on wifi whose round trips are an uplink and a downlink drawn from wifi's law
    /// (the same `Distribution`, a fixed stream), times `scale`, each row a device of its own so
    /// every row starts a burst; `extra` rows on another label. Without `labelled`, no link column.
    static func telemetry(in dir: String, name: String, scale: Double = 1, extra: String? = nil, labelled: Bool = true) throws -> String {
        let law = Distribution.lognormal(median: 15e6, sigma: 0.5)
        var rng = RandomStream(seed: 20_261_129)
        var csv = labelled ? "device,sent,rtt_ms,link\n" : "device,sent,rtt_ms\n"
        for i in 0..<2_000 {
            let rtt = Distribution.duration(law.sample(&rng)) + Distribution.duration(law.sample(&rng))
            let ms = NumberText.fixed(Double(rtt) / 1e6 * scale, 6)
            csv += "d\(i),\(1_764_000_000_000 + Int64(i) * 1_000),\(ms)" + (labelled ? ",wifi\n" : "\n")
        }
        if let extra { for i in 0..<50 { csv += "x\(i),\(1_764_000_000_000 + Int64(i) * 1_000),30.000000,\(extra)\n" } }
        let path = dir + "/" + name
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func summary(_ folder: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: folder + "/summary.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func telemetryFromTheLinksLawAgreesAndASlowerOneDoesNot() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.scenario(in: dir)
        let same = try Self.telemetry(in: dir, name: "same.csv", extra: "wifi-5g")
        let slow = try Self.telemetry(in: dir, name: "slow.csv", scale: 1.5)

        let plain = Self.synclab(["run", scenario, "--out", dir + "/plain", "--quiet"])
        let agreeing = Self.synclab(["run", scenario, "--out", dir + "/same", "--telemetry", same, "--quiet"])
        let slower = Self.synclab(["run", scenario, "--out", dir + "/slow", "--telemetry", slow, "--quiet"])
        #expect(plain.status == 0 && agreeing.status == 0 && slower.status == 0, "\(agreeing.err)\(slower.err)")

        let a = try Self.summary(dir + "/same")
        let t = try #require(a["telemetry"] as? [String: Any])
        #expect(t["agrees"] as? Bool == true, "\(agreeing.out)")
        #expect(t["file"] as? String == same)
        let links = try #require(t["links"] as? [[String: Any]])
        #expect(links.count == 1)
        let wifi = links[0]
        #expect(wifi["link"] as? String == "wifi" && wifi["agrees"] as? Bool == true)
        #expect(wifi["telemetryRows"] as? Int == 2_000)
        #expect((wifi["runRoundTrips"] as? Int ?? 0) > 1_000)
        #expect(Set((wifi["telemetryMs"] as? [String: Any])?.keys.map { $0 } ?? []) == ["p50", "p90", "p99", "p999"])
        // The law's median: two 15 ms lognormals (σ 0.5) sum to about 31.6 ms at the median.
        let runP50 = try #require((wifi["runMs"] as? [String: Any])?["p50"] as? Double)
        #expect(runP50 > 28 && runP50 < 35)
        #expect(t["unmatched"] as? [String] == ["no telemetry for link 'edge'", "telemetry link 'wifi-5g' is not in the scenario"])
        #expect(agreeing.out.contains("telemetry: 1 of 1 link compared agrees\n"))
        let report = try String(contentsOfFile: dir + "/same/report.md", encoding: .utf8)
        #expect(report.contains("\n## Telemetry\n") && report.contains("- no telemetry for link 'edge'\n"))
        #expect(report.contains("| wifi | 2,000 | "))

        let s = try #require(try Self.summary(dir + "/slow")["telemetry"] as? [String: Any])
        #expect(s["agrees"] as? Bool == false)
        #expect(slower.out.contains("telemetry: link 'wifi' disagrees: "))
        #expect(try String(contentsOfFile: dir + "/slow/report.md", encoding: .utf8).contains("| **no** ("))

        // Without the option: no section, no key, and every other byte as the run held against telemetry.
        let plainReport = try String(contentsOfFile: dir + "/plain/report.md", encoding: .utf8)
        let plainSummary = try String(contentsOfFile: dir + "/plain/summary.json", encoding: .utf8)
        #expect(!plainReport.contains("## Telemetry") && !plainSummary.contains("\"telemetry\": {"))
        let heldSummary = try String(contentsOfFile: dir + "/same/summary.json", encoding: .utf8)
        #expect(heldSummary.components(separatedBy: ",\n  \"telemetry\"").first.map { $0 + "\n}\n" } == plainSummary)
        #expect(report.replacingOccurrences(of: #"\n## Telemetry\n[\s\S]*?(?=\n## )"#, with: "", options: .regularExpression) == plainReport)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/plain").sorted()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/same").sorted() == names)
        for name in names where name != "report.md" && name != "summary.json" {
            #expect(FileManager.default.contents(atPath: dir + "/plain/" + name) == FileManager.default.contents(atPath: dir + "/same/" + name), "\(name)")
        }
    }

    @Test func unlabelledTelemetryIsComparedWithTheLinksPooled() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.scenario(in: dir)
        let all = try Self.telemetry(in: dir, name: "all.csv", labelled: false)
        let r = Self.synclab(["run", scenario, "--out", dir + "/all", "--telemetry", all, "--burst-gap", "1m", "--quiet"])
        #expect(r.status == 0, "\(r.err)")
        let t = try #require(try Self.summary(dir + "/all")["telemetry"] as? [String: Any])
        #expect(t["pooled"] as? Bool == true && t["burstGapMs"] as? Double == 60_000)
        let links = try #require(t["links"] as? [[String: Any]])
        #expect(links.count == 1 && links[0]["link"] as? String == "all" && links[0]["runLinks"] as? [String] == ["wifi", "edge"])
        #expect(r.out.contains("(its rows name no link: the run's links pooled)"))
        #expect(try String(contentsOfFile: dir + "/all/report.md", encoding: .utf8).contains("compared with the run's links `wifi`, `edge` pooled"))
    }

    @Test func checkGatesOnTheTelemetry() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.scenario(in: dir)
        let same = try Self.telemetry(in: dir, name: "same.csv")
        let slow = try Self.telemetry(in: dir, name: "slow.csv", scale: 1.5)
        let pass = Self.synclab(["check", scenario, "--telemetry", same, "--quiet"])
        #expect(pass.status == 0, "\(pass.out)\(pass.err)")
        #expect(pass.out.contains("\tthe run agrees with the telemetry\t") && pass.out.contains("\tPASS\n"), "\(pass.out)")
        let fail = Self.synclab(["check", scenario, "--telemetry", slow, "--quiet"])
        #expect(fail.status == 1, "\(fail.out)\(fail.err)")
        #expect(fail.out.contains("FAIL") && fail.out.contains("telemetry: link 'wifi' disagrees"))
        #expect(fail.out.contains("reproduce with: synclab run \(scenario) --seed 1 --telemetry \(slow)\n"))
        // Without --telemetry the scenario sets no budgets: nothing to check.
        #expect(Self.synclab(["check", scenario, "--quiet"]).status == 2)
    }

    @Test func badTelemetryInputIsRefused() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try Self.scenario(in: dir)
        let missing = Self.synclab(["run", scenario, "--out", dir + "/x", "--telemetry", dir + "/none.csv", "--quiet"])
        #expect(missing.status == 2 && missing.err.hasPrefix("synclab run: ") && missing.err.contains("none.csv"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/x"))
        let gap = Self.synclab(["run", scenario, "--out", dir + "/x", "--burst-gap", "1m"])
        #expect(gap.status == 2 && gap.err.contains("--burst-gap needs --telemetry FILE"))
        let same = try Self.telemetry(in: dir, name: "same.csv")
        let badGap = Self.synclab(["check", scenario, "--telemetry", same, "--burst-gap", "soon"])
        #expect(badGap.status == 2 && badGap.err.contains("--burst-gap"))
        let badMap = Self.synclab(["run", scenario, "--telemetry", same, "--telemetry-columns", "nonsense"])
        #expect(badMap.status == 2 && badMap.err.contains("--telemetry-columns"))
    }
}
