import Testing
import SyncLab
@testable import SyncLabReports

/// Search parts and their merge on hand-made runs (no simulation): a part reads back as
/// written, merge replays each group's search and refuses parts that are not exactly its runs.
@Suite struct SearchReportTests {
    static func number(_ n: Int) -> JSONValue { .number(Double(n), literal: String(n)) }

    static let plan = SearchPlan(
        knobs: [SearchKnob(keyPath: "client.probes", values: [1, 2].map(number)),
                SearchKnob(keyPath: "server.fleet.servers", values: [2, 4, 6, 8].map(number), monotone: true)],
        constraints: [Budget(name: "load", metric: "failedRequestShare", comparison: .atMost, limit: 0.01)],
        objective: .servers, seeds: [3, 4], screen: SearchScreen(players: 10, slack: 0.5))
    static let spec = SearchSpec(name: "t", scenario: "s", basePath: "s.json", fingerprint: "0123456789abcdef",
                                 plan: plan, players: 100, constraintsGiven: true)

    /// Failures fall with servers and rise with probes: probes p on n servers fail 0.03 p / n.
    static func runs(shard: Int, of shards: Int) -> [SearchRun] {
        (0..<plan.groups).filter { SearchPlan.shard(ofGroup: $0, count: shards) == shard }.flatMap { g in
            plan.search(group: g) { c, _, _ in
                let v: [Double] = plan.values(of: c).map { value -> Double in
                    guard case .number(let d, _) = value else { return 0 }
                    return d
                }
                return plan.figures.map { key -> Double? in key == "servers" ? v[1] : key == "failedRequestShare" ? SearchPart.rounded(0.03 * v[0] / v[1]) : 0.99 }
            }
        }
    }

    @Test func aPartReadsBackAsWrittenAndMergesLikeOneMachine() throws {
        let whole = SearchPart(spec: Self.spec, shard: 0, shards: 1, runs: Self.runs(shard: 0, of: 1))
        let parsed = try SearchPart.parse(whole.text).get()
        #expect(parsed.text == whole.text && parsed.runs == whole.runs)
        let parts = (0..<2).map { i in ("p\(i)", SearchPart(spec: Self.spec, shard: i, shards: 2, runs: Self.runs(shard: i, of: 2))) }
        let one = try SearchReport.merge([("whole", parsed)]).get()
        let two = try SearchReport.merge(parts.reversed()).get()
        #expect(one.1 == two.1)
        let a = SearchReport.files(one.0, runs: one.1, best: "best.json"), b = SearchReport.files(two.0, runs: two.1, best: "best.json")
        #expect(a.map(\.contents) == b.map(\.contents))
        // 1 probe needs 0.03 / n ≤ 0.01: n = 4 (3 is not a value); 2 probes: n = 6. The winner is 1 probe on 4.
        let outcome = Self.plan.outcome(one.1)
        #expect(outcome.winner == Self.plan.candidate(group: 0, step: 1))
        #expect(a[0].contents.contains("**Winner: `client.probes`=1, `server.fleet.servers`=4.**"))
    }

    /// A search that stops a pass once it is clear writes the rule in its part's header, so a
    /// merge replays it and stops where the search stopped; search.md states it.
    @Test func aPartCarriesTheRuleThatStopsAPassShort() throws {
        var plan = Self.plan
        plan.seeds = Array(3...10)
        plan.sequential = SequentialConfirmation(minimumSeeds: 2, confidence: 0.99)
        let spec = SearchSpec(name: "t", scenario: "s", basePath: "s.json", fingerprint: "0123456789abcdef",
                              plan: plan, players: 100, constraintsGiven: true)
        // Figures alike on every seed: no spread, so a pass above its limit is clear at 2 seeds.
        let runs = (0..<plan.groups).flatMap { g in
            plan.search(group: g) { c, _, _ in
                let v: [Double] = plan.values(of: c).map { if case .number(let d, _) = $0 { d } else { 0 } }
                return plan.figures.map { $0 == "servers" ? v[1] : $0 == "failedRequestShare" ? SearchPart.rounded(0.03 * v[0] / v[1]) : 0.99 }
            }
        }
        let part = SearchPart(spec: spec, shard: 0, shards: 1, runs: runs)
        let parsed = try SearchPart.parse(part.text).get()
        #expect(parsed.spec.plan.sequential == plan.sequential && parsed.text == part.text)
        let (merged, mergedRuns) = try SearchReport.merge([("whole", parsed)]).get()
        let outcome = plan.outcome(mergedRuns)
        #expect(outcome.fates.filter { $0.verdict == .meets }.allSatisfy { $0.seedsRun == 2 })
        let files = SearchReport.files(merged, runs: mergedRuns, best: "best.json")
        let md = try #require(files.first { $0.name == "search.md" }?.contents)
        #expect(md.contains("a candidate stops short of its last seed once its pass is clear at 99% after at least 2 seeds"), "\(md)")
        let csv = try #require(files.first { $0.name == "candidates.csv" }?.contents)
        #expect(csv.contains("meets every constraint on 2 seeds (its pass clear after 2 of 8)"), "\(csv)")
        // The chart's axis says what its dots are means of: a candidate that meets stops at 2
        // seeds, one that fails at its first failing seed (every seed fails alike here), so
        // not "8 seeds".
        let svg = try #require(files.first { $0.name == "pareto.svg" }?.contents)
        #expect(svg.contains("1 to 2 seeds") && !svg.contains("mean of 8 seeds"), "\(svg.prefix(3_000))")
    }

    /// Each candidate's margin, where candidates are listed: 1 probe on 4 servers fails
    /// 0.03 / 4 = 0.0075 of requests against at most 0.01, a margin of (0.01 − 0.0075) / 0.01 =
    /// 0.25; on 8 servers 0.00375, a margin of 0.625; 2 probes on 2 servers 0.03, −2.
    @Test func everyListOfCandidatesGivesTheirMargin() throws {
        let (spec, runs) = try SearchReport.merge([("whole", SearchPart(spec: Self.spec, shard: 0, shards: 1, runs: Self.runs(shard: 0, of: 1)))]).get()
        let files = Dictionary(uniqueKeysWithValues: SearchReport.files(spec, runs: runs, best: "best.json").map { ($0.name, $0.contents) })
        let csv = try #require(files["candidates.csv"]).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let column = try #require(csv[0].firstIndex(of: "margin"))
        #expect(csv[0][column - 1] == "failing_seeds")
        #expect(csv[2][column] == "0.25" && csv[4][column] == "0.625", "\(csv)")
        let pareto = try #require(files["pareto.csv"]).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        let p = try #require(pareto[0].firstIndex(of: "margin"))
        #expect(pareto.first { $0[0] == "1" }?[p] == "0.25")
        let md = try #require(files["search.md"])
        #expect(md.contains("its worst constraint has a margin of 0.25"), "\(md)")
        #expect(md.contains("| 1 | 4 | 4 | 0.99 | 0.25 | meets |"), "\(md)")
    }

    @Test func mergeRefusesAPartWithARunTooManyOrTooFew() {
        var extra = SearchPart(spec: Self.spec, shard: 0, shards: 1, runs: Self.runs(shard: 0, of: 1))
        extra.runs.append(SearchRun(candidate: 0, stage: .full, seed: 9, values: extra.runs[0].values))
        guard case .failure(let e) = SearchReport.merge([("x", extra)]) else { Issue.record("merged a part with an extra run"); return }
        #expect(e.message.contains("its search makes"), "\(e)")
        var short = SearchPart(spec: Self.spec, shard: 0, shards: 1, runs: Self.runs(shard: 0, of: 1))
        short.runs.removeLast()
        guard case .failure(let f) = SearchReport.merge([("y", short)]) else { Issue.record("merged a part lacking a run"); return }
        #expect(f.message.contains("lacks the run"), "\(f)")
    }

    @Test func bestScenarioIsTheWholeDesignWithItsOwnNameAndSchema() throws {
        let plan = SearchPlan(knobs: [SearchKnob(keyPath: "network.profiles[1].share", values: [.number(0.5, literal: "0.5")]),
                                      SearchKnob(keyPath: "client.probes", values: [Self.number(2)])],
                              constraints: Self.plan.constraints, objective: .servers, seeds: [1])
        let design = try JSONParser.parse(#"{"$schema": "../x.json", "name": "s", "client": {"probes": 2}, "network": {"profiles": [{"preset": "wifi", "share": 0.5}, {"preset": "lte", "share": 0.5}]}, "budgets": []}"#)
        let spec = SearchSpec(name: "t", scenario: "s", basePath: "s.json", fingerprint: "0", plan: plan, players: 1, constraintsGiven: false)
        let value = try JSONParser.parse(SearchReport.bestScenario(spec, winner: 0, design: design))
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["$schema", "name", "description", "client", "network", "budgets"])
        #expect(value["$schema"] == .string("scenario.schema.json") && value["name"] == .string("s-t-best") && value["extends"] == nil)
        #expect(value["network"] == design["network"] && value["budgets"] == .array([]))
        // The search's own constraints replace the base's budgets.
        var given = spec
        given.constraintsGiven = true
        let withBudgets = try JSONParser.parse(SearchReport.bestScenario(given, winner: 0, design: design))
        guard case .array(let budgets)? = withBudgets["budgets"] else { Issue.record("no budgets"); return }
        #expect(budgets.map { $0["metric"] } == [.string("failedRequestShare")])
    }
}
