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
            spec.seeds.map { seed in SweepPart.Row(point: p, seed: seed, cells: ["\(100 * p + Int(seed))", p == 5 ? "" : "0.01"]) }
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
            fields[2] = bad
            lines[3] = fields.joined(separator: ",")
            #expect(SweepPart.parse(lines.joined(separator: "\n")) == .failure(SweepError(
                "line 4, figure transitionGapMs.p99: expected milliseconds ≥ 0 or nothing; got '\(bad)'")))
        }
    }

    @Test func shardsMergeToTheUnshardedBytes() throws {
        let whole = try SweepReport.merge([("all", Self.part(0, of: 1))]).get()
        let merged = try SweepReport.merge([("b", Self.part(2, of: 3)), ("a", Self.part(0, of: 3)), ("c", Self.part(1, of: 3))]).get()
        #expect(whole.map(\.name) == ["sweep.md", "sweep.csv", "sweep_chart.svg", "sweep_chart.csv"])
        #expect(whole.map(\.contents) == merged.map(\.contents))
        let csv = whole[1].contents.split(separator: "\n").map(String.init)
        #expect(csv[0] == "point,seed,client.clock,population.players,transitionGapMs.p99,bareShare")
        #expect(csv[1] == "0,7,suspending,100,7,0.01")
        #expect(csv[12] == "5,8,continuous,200,508,")
        // The chart's data: the mean over the two seeds, per value of the first key, one series per players value.
        #expect(whole[3].contents.contains("uptime,players=100,207.5,2\n"))
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
