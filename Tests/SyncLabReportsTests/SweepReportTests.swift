import Testing
import SyncLab
@testable import SyncLabReports

/// The sweep grid, its shards and merging parts, on hand-built rows (no simulation).
@Suite struct SweepReportTests {
    static let spec = SweepSpec(scenario: "s", fingerprint: SweepSpec.fingerprint("{}"),
                                axes: [SweepAxis(keyPath: "client.clock", values: ["suspending", "uptime", "continuous"]),
                                       SweepAxis(keyPath: "population.players", values: ["100", "200"])],
                                seeds: [7, 8], chart: "transitionGapMs.p99", figures: ["transitionGapMs.p99", "bareShare"])

    static func part(_ shard: Int, of shards: Int, spec: SweepSpec = spec) -> SweepPart {
        let rows = (0..<spec.points).filter { SweepSpec.shard(ofPoint: $0, count: shards) == shard }.flatMap { p in
            // Point 1 fails its budgets on seed 8; point 5 sets none.
            spec.seeds.map { seed in SweepPart.Row(point: p, seed: seed, budgets: p == 5 ? "" : p == 1 && seed == 8 ? "FAIL" : "PASS",
                                                   cells: ["\(100 * p + Int(seed))", p == 5 ? "" : "0.01"]) }
        }
        return SweepPart(spec: spec, shard: shard, shards: shards, rows: rows)
    }

    @Test func gridIsRowMajorFirstKeySlowest() {
        #expect(Self.spec.points == 6)
        #expect((0..<6).map { Self.spec.values(ofPoint: $0) } == [
            ["suspending", "100"], ["suspending", "200"], ["uptime", "100"], ["uptime", "200"], ["continuous", "100"], ["continuous", "200"]])
        // Round robin over 4 shards.
        #expect((0..<6).map { SweepSpec.shard(ofPoint: $0, count: 4) } == [0, 1, 2, 3, 0, 1])
    }

    @Test func valuesAreJSONScalarsOrText() {
        #expect(SweepAxis.jsonValue("5000") == .number(5000, literal: "5000"))
        #expect(SweepAxis.jsonValue("true") == .bool(true))
        #expect(SweepAxis.jsonValue("\"uptime\"") == .string("uptime"))
        #expect(SweepAxis.jsonValue("uptime") == .string("uptime"))
        #expect(SweepAxis.jsonValue("500ms") == .string("500ms"))
        #expect(SweepAxis.jsonValue("[1]") == .string("[1]"))
    }

    @Test func partTextRoundTrips() throws {
        let p = Self.part(1, of: 3)
        let back = try SweepPart.parse(p.text).get()
        #expect(back == p)
        #expect(p.text.hasPrefix("# synclab sweep part 1/3\n# {\"scenario\":\"s\","))
    }

    @Test func aPartWhoseFigureIsNotANumberIsRefused() {
        let text = Self.part(1, of: 3).text
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for bad in ["abc", "nan", "inf", "1e400"] {
            var fields = lines[3].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[3] = bad
            lines[3] = fields.joined(separator: ",")
            #expect(SweepPart.parse(lines.joined(separator: "\n")) == .failure(SweepError(
                "line 4, figure transitionGapMs.p99: expected milliseconds ≥ 0 or nothing; got '\(bad)'")))
        }
        var fields = lines[3].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[2] = "pass"
        lines[3] = fields.joined(separator: ",")
        #expect(SweepPart.parse(lines.joined(separator: "\n")) == .failure(SweepError("line 4, budgets: expected PASS, FAIL or nothing; got 'pass'")))
    }

    @Test func shardsMergeToTheUnshardedBytes() throws {
        let whole = try SweepReport.merge([("all", Self.part(0, of: 1))]).get()
        let merged = try SweepReport.merge([("b", Self.part(2, of: 3)), ("a", Self.part(0, of: 3)), ("c", Self.part(1, of: 3))]).get()
        #expect(whole.map(\.name) == ["sweep.md", "sweep.csv", "sweep_chart.svg", "sweep_chart.csv"])
        #expect(whole.map(\.contents) == merged.map(\.contents))
        let csv = whole[1].contents.split(separator: "\n").map(String.init)
        #expect(csv[0] == "point,seed,client.clock,population.players,budgets,point_budgets,transitionGapMs.p99,bareShare")
        #expect(csv[1] == "0,7,suspending,100,PASS,PASS,7,0.01")
        // A point fails when one of its seeds does, as `check --seeds 2` judges it.
        #expect(csv[3] == "1,7,suspending,200,PASS,FAIL,107,0.01")
        #expect(csv[4] == "1,8,suspending,200,FAIL,FAIL,108,0.01")
        #expect(csv[12] == "5,8,continuous,200,,,508,")
        #expect(whole[0].contents.contains("**Budgets: 4 of 6 points pass** (every budget on every seed, as `synclab check` judges a run); "
            + "passing: 0, 2, 3, 4; failing: 1.\n"), "\(whole[0].contents)")
        #expect(whole[0].contents.contains("| 1 | 8 | suspending | 200 | FAIL | 108 |"))
        // The chart's data: the mean over the two seeds, per value of the first key, one series per players value.
        #expect(whole[3].contents.contains("uptime,players=100,207.5,2\n"))
    }

    /// The chart runs along the first key with more than one value: a first key of one value
    /// (players=100) is a line's name, not the axis.
    @Test func theChartFollowsTheKeyThatVaries() throws {
        let spec = SweepSpec(scenario: "s", fingerprint: SweepSpec.fingerprint("{}"),
                             axes: [SweepAxis(keyPath: "population.players", values: ["100"]),
                                    SweepAxis(keyPath: "client.clock", values: ["suspending", "uptime", "continuous"]),
                                    SweepAxis(keyPath: "client.probes", values: ["1", "2"])],
                             seeds: [7, 8], chart: "transitionGapMs.p99", figures: ["transitionGapMs.p99", "bareShare"])
        #expect(spec.chartAxis == 1)
        #expect(spec.point(ofIndices: [0, 1, 1]) == 3 && spec.indices(ofPoint: 3) == [0, 1, 1])
        let files = try SweepReport.merge([("all", Self.part(0, of: 1, spec: spec))]).get()
        let chart = files[3].contents.split(separator: "\n").map(String.init)
        #expect(chart[0] == "client.clock,series,mean_transitionGapMs.p99,seeds")
        // uptime with 2 probes is point 1 × 2 + 1 = 3: seeds 7 and 8 give 307 and 308.
        #expect(chart.contains("uptime,\"players=100, probes=2\",307.5,2"), "\(chart)")
        #expect(chart.count == 1 + 3 * 2)
        #expect(files[0].contents.contains("against client.clock](sweep_chart.svg)"))
        // Every key with one value: the first.
        let flat = SweepSpec(scenario: "s", fingerprint: "0", axes: [SweepAxis(keyPath: "a", values: ["1"]), SweepAxis(keyPath: "b", values: ["2"])],
                             seeds: [1], chart: "bareShare", figures: ["bareShare"])
        #expect(flat.chartAxis == 0)
    }

    @Test func mergeRefusesOverlappingMissingAndForeignParts() {
        func message(_ parts: [(String, SweepPart)]) -> String {
            if case .failure(let e) = SweepReport.merge(parts) { return e.message }
            return "merged"
        }
        #expect(message([("a", Self.part(0, of: 3)), ("b", Self.part(1, of: 3)), ("b2", Self.part(1, of: 3)), ("c", Self.part(2, of: 3))])
            == "overlapping parts: b and b2 are both shard 1/3")
        #expect(message([("a", Self.part(0, of: 3)), ("c", Self.part(2, of: 3))]) == "missing parts: shard 1/3 (got 0/3, 2/3)")
        #expect(message([("a", Self.part(0, of: 2)), ("b", Self.part(1, of: 3))]).contains("is shard 1/3 but a is of 2 shards"))
        var other = Self.spec
        other.seeds = [7]
        #expect(message([("a", Self.part(0, of: 2)), ("b", Self.part(1, of: 2, spec: other))]).contains("is a part of another sweep"))
        var short = Self.part(1, of: 2)
        short.rows.removeLast()
        #expect(message([("a", Self.part(0, of: 2)), ("b", short)]).contains("should hold 6 rows"))
        #expect(message([]) == "no parts given")
    }
}
