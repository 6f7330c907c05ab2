import Testing
@testable import SyncLab
import SyncLabKernel

/// The staged search on closed forms (no simulation): bisection finds exactly the derivable
/// optimum, pruning never drops the optimum of a space run in full, fates are explained.
@Suite struct SearchPlanTests {
    static func number(_ n: Int) -> JSONValue { .number(Double(n), literal: String(n)) }

    /// A fleet of `n` servers, each serving `rate` requests a second, turns away
    /// max(0, peak − n × rate) requests in the busiest second (a fluid model with no waiting
    /// room): it turns nothing away exactly when n × rate ≥ peak.
    static func refused(servers n: Int, rate: Double, peak: Double) -> Double { max(0, peak - Double(n) * rate) }

    static func serversPlan(_ values: ClosedRange<Int>, screen: SearchScreen? = nil, extra: [SearchKnob] = []) -> SearchPlan {
        SearchPlan(knobs: extra + [SearchKnob(keyPath: "server.fleet.servers", values: values.map(number), monotone: true)],
                   constraints: [Budget(name: "nothing turned away", metric: "refusedPerSecond", comparison: .atMost, limit: 0)],
                   objective: .servers, seeds: [1, 2, 3], screen: screen)
    }

    @Test func bisectionFindsTheFewestServersAboveThePeakExactly() {
        // Peaks and pool rates chosen so that n × rate never equals the peak: the answer is
        // ⌊peak / rate⌋ + 1, the smallest n with n × rate above the peak.
        var random = RandomStream(state: 43)
        for _ in 0..<200 {
            let rate = Double(100 + Int(random.next() % 900)) + 0.5
            let peak = Double(Int(random.next() % 20_000)) + 0.25
            let expected = Int((peak / rate).rounded(.down)) + 1
            let plan = Self.serversPlan(1...64)
            var evaluations = 0
            let runs = plan.search(group: 0) { c, _, _ in
                evaluations += 1
                let n = plan.values(of: c)[0].intValue
                return plan.figures.map { $0 == "servers" ? Double(n) : $0 == "refusedPerSecond" ? Self.refused(servers: n, rate: rate, peak: peak) : 1 }
            }
            let outcome = plan.outcome(runs)
            if expected <= 64 {
                #expect(outcome.winner.map { plan.values(of: $0)[0].intValue } == expected, "peak \(peak), rate \(rate)")
                // The largest value, then a bisection of 64 values: at most 1 + 6 candidates × 3 seeds.
                #expect(evaluations <= 7 * 3)
                #expect(outcome.fates.filter { $0.verdict == .meets }.allSatisfy { plan.values(of: $0.candidate)[0].intValue >= expected })
            } else {
                #expect(outcome.winner == nil && outcome.nearestMiss == 63, "the most servers come nearest")
                #expect(evaluations == 1, "a miss at the most servers stops after its first failing seed")
            }
        }
    }

    /// A space of probes × tick × servers whose figures are closed forms: the staged search
    /// finds the optimum a full run of the grid finds, and every candidate's fate is consistent.
    @Test func pruningNeverDropsTheOptimumOfASpaceRunInFull() {
        let probes = SearchKnob(keyPath: "client.probes", values: [1, 2, 3, 4].map(Self.number))
        let tick = SearchKnob(keyPath: "client.tick", values: [.string("timer"), .string("aligned")])
        let constraints = [Budget(name: "500 ms", metric: SearchSpace.mainFigure, comparison: .atLeast, limit: 0.99),
                           Budget(name: "nothing turned away", metric: "refusedPerSecond", comparison: .atMost, limit: 0)]
        let screen = SearchScreen(players: 100, slack: 0.02)
        var random = RandomStream(state: 7)
        for trial in 0..<100 {
            let peakPerProbe = Double(500 + Int(random.next() % 3000))
            let shares = (0..<8).map { _ in 0.95 + Double(random.next() % 600) / 10_000 }   // 0.95 … 1.01 → clamped
            let plan = SearchPlan(knobs: [probes, tick, SearchKnob(keyPath: "server.fleet.servers", values: (1...20).map(Self.number), monotone: true)],
                                  constraints: constraints, objective: .servers, seeds: [1, 2], screen: screen)
            func figures(_ c: Int, _ stage: SearchStage) -> [Double?] {
                let v = plan.values(of: c)
                let p = v[0].intValue, n = v[2].intValue
                let design = (p - 1) * 2 + (v[1] == .string("aligned") ? 1 : 0)
                // The 500 ms figure is the design's, the same at screening (common random numbers);
                // the load is lighter at screening size, so it can only look better there.
                let share = min(1, shares[design])
                let load = Self.refused(servers: n, rate: 577, peak: Double(p) * peakPerProbe * (stage == .screen ? 0.1 : 1))
                return plan.figures.map { $0 == "servers" ? Double(n) : $0 == "refusedPerSecond" ? load : share }
            }
            // Every candidate at full size: the true optimum.
            let truth = (0..<plan.candidates).filter { c in
                let run = SearchRun(candidate: c, stage: .full, seed: 1, values: figures(c, .full))
                return plan.meets(run)
            }.min { (plan.values(of: $0)[2].intValue, $0) < (plan.values(of: $1)[2].intValue, $1) }
            var evaluations = 0
            let runs = (0..<plan.groups).flatMap { g in plan.search(group: g) { c, stage, _ in evaluations += 1; return figures(c, stage) } }
            let outcome = plan.outcome(runs)
            #expect(outcome.winner == truth, "trial \(trial)")
            #expect(evaluations < plan.candidates * plan.seeds.count)
            #expect(outcome.fates.count == plan.candidates)
            for fate in outcome.fates {
                // A verdict implied without a run agrees with what a run would have shown.
                let real = plan.meets(SearchRun(candidate: fate.candidate, stage: .full, seed: 1, values: figures(fate.candidate, .full)))
                switch fate.verdict {
                case .meets: #expect(real)
                case .misses, .impliedMiss, .prunedAtScreen, .prunedWithGroup: #expect(!real, "\(fate)")
                case .notNeeded: #expect(real)
                }
            }
        }
    }

    @Test func aSpaceWhereNothingPassesNamesTheNearestMiss() {
        let plan = SearchPlan(knobs: [SearchKnob(keyPath: "client.probes", values: [1, 2, 3].map(Self.number))],
                              constraints: [Budget(name: "500 ms", metric: SearchSpace.mainFigure, comparison: .atLeast, limit: 0.99)],
                              objective: .servers, seeds: [5])
        let shares = [0.90, 0.985, 0.95]
        let runs = (0..<plan.groups).flatMap { g in
            plan.search(group: g) { c, _, _ in plan.figures.map { $0 == "servers" ? 5 : shares[c] } }
        }
        let outcome = plan.outcome(runs)
        #expect(outcome.winner == nil)
        #expect(outcome.nearestMiss == 1)
        let fate = outcome.fates[1]
        #expect(fate.verdict == .misses && fate.reason.contains("transitionBest500msShare.p1 0.985 against min 0.99"), "\(fate.reason)")
        // Relative shortfall: (0.99 − 0.985) / 0.99.
        #expect(abs((fate.shortfall ?? 0) - 0.005 / 0.99) < 1e-12)
    }

    /// Two designs on the same 4 servers both meet a 3G p99 of at most 250 ms and a 500 ms share
    /// of at least 0.99: design 0 at 248.2 ms (margin (250 − 248.2)/250 = 0.0072) and share 0.999
    /// ((0.999 − 0.99)/0.99 ≈ 0.00909), design 1 at 101 ms ((250 − 101)/250 = 0.596) and share
    /// 0.995 ((0.995 − 0.99)/0.99 ≈ 0.00505). Their worst constraints leave 0.0072 and 0.00505
    /// of room: design 0 wins, though design 1 is far better on 3G — margin is the worst
    /// constraint's. With design 0's share at 0.9999 too, the 3G figure decides for design 1.
    @Test func equalCostIsDecidedByTheWorstConstraintsMargin() {
        let plan = SearchPlan(knobs: [SearchKnob(keyPath: "client.probes", values: [2, 3].map(Self.number)),
                                      SearchKnob(keyPath: "server.fleet.servers", values: [4].map(Self.number), monotone: true)],
                              constraints: [Budget(name: "3g", metric: "clientErrorMs.byLink.3g.p99", comparison: .atMost, limit: 250),
                                            Budget(name: "500 ms", metric: SearchSpace.mainFigure, comparison: .atLeast, limit: 0.99)],
                              objective: .servers, seeds: [1])
        func outcome(_ p99: [Double], _ share: [Double]) -> SearchOutcome {
            let runs = (0..<plan.groups).flatMap { g in
                plan.search(group: g) { c, _, _ in
                    plan.figures.map { $0 == "servers" ? 4 : $0 == SearchSpace.mainFigure ? share[c] : p99[c] }
                }
            }
            return plan.outcome(runs)
        }
        let close = outcome([248.2, 101], [0.999, 0.995])
        #expect(close.fates.map(\.verdict) == [.meets, .meets])
        #expect(abs((close.fates[0].margin ?? 0) - 1.8 / 250) < 1e-12)
        #expect(abs((close.fates[1].margin ?? 0) - 0.005 / 0.99) < 1e-12)
        #expect(close.winner == 0)
        let roomy = outcome([248.2, 101], [0.9999, 0.9999])
        #expect(abs((roomy.fates[1].margin ?? 0) - 0.0099 / 0.99) < 1e-12)
        #expect(roomy.winner == 1, "the 3G p99 of 248.2 ms leaves 0.0072 of room, 101 ms leaves 0.596")
        // Equal margins: the space's order.
        #expect(outcome([101, 101], [0.9999, 0.9999]).winner == 0)
        // A lower objective wins whatever its margin.
        let cheaper = SearchPlan(knobs: [SearchKnob(keyPath: "server.fleet.servers", values: [4, 5].map(Self.number))],
                                 constraints: plan.constraints, objective: .servers, seeds: [1])
        let runs = (0..<cheaper.groups).flatMap { g in
            cheaper.search(group: g) { c, _, _ in
                cheaper.figures.map { $0 == "servers" ? Double(4 + c) : $0 == SearchSpace.mainFigure ? 0.9999 : (c == 0 ? 249.9 : 1) }
            }
        }
        #expect(cheaper.outcome(runs).winner == 0)
    }

    @Test func marginIsTheRoomRelativeToTheLimit() {
        let most = Budget(name: "", metric: "x", comparison: .atMost, limit: 250)
        let least = Budget(name: "", metric: "x", comparison: .atLeast, limit: 0.5)
        #expect(SearchPlan.margin(most, 200) == 0.2)
        #expect(SearchPlan.margin(most, 300) == -0.2)
        #expect(SearchPlan.margin(least, 0.75) == 0.5)
        // On the limit: 0, not −0 (a CSV cell reads "0").
        #expect(SearchPlan.margin(most, 250).sign == .plus)
        // A limit of 0: the absolute room.
        #expect(SearchPlan.margin(Budget(name: "", metric: "x", comparison: .atMost, limit: 0), 0) == 0)
        #expect(SearchPlan.margin(least, nil) == -.infinity)
    }

    @Test func candidatesPutTheMonotoneKnobInnermost() {
        let plan = Self.serversPlan(3...5, extra: [SearchKnob(keyPath: "client.probes", values: [1, 2].map(Self.number))])
        #expect(plan.candidates == 6 && plan.groups == 2 && plan.steps == 3)
        #expect(plan.describe(4) == "client.probes=2 server.fleet.servers=4")
        #expect(plan.figures == [SearchSpace.mainFigure, "servers", "refusedPerSecond"])
        #expect(SearchPlan.relativeMiss(Budget(name: "", metric: "x", comparison: .atMost, limit: 0), 3) == 3)
        #expect(SearchPlan.relativeMiss(Budget(name: "", metric: "x", comparison: .atLeast, limit: 0.5), 0.25) == 0.5)
        #expect(SearchPlan.relativeMiss(Budget(name: "", metric: "x", comparison: .atLeast, limit: 0.5), nil) == .infinity)
    }
}

extension JSONValue {
    /// A knob value's whole number (−1 for anything else), for the search's tests.
    var intValue: Int {
        if case .number(let d, _) = self { return Int(d) }
        return -1
    }
}

/// The search file's schema: the committed file is the reader's text, and it names exactly the
/// keys the reader accepts.
@Suite struct SearchSchemaTests {
    @Test func theCommittedSchemaIsTheReadersAndNamesItsKeys() throws {
        let root = ScenarioFixtures.packageRoot
        let committed = try String(contentsOfFile: root + "/Scenarios/search/search.schema.json", encoding: .utf8)
        #expect(committed == SearchSpace.schema, "Scenarios/search/search.schema.json differs from SearchSpace.schema")
        let schema = try JSONParser.parse(SearchSpace.schema)
        guard case .object(let members)? = schema["properties"] else { Issue.record("no properties"); return }
        #expect(members.map(\.key) == SearchSpace.keys)
        // The gallery's search reads, and with a key the schema lacks it is refused naming it.
        let gallery = root + "/Scenarios/search/gallery.json"
        let text = try String(contentsOfFile: gallery, encoding: .utf8)
        _ = try SearchSpace.read(text: text, file: gallery)
        let bad = text.replacingOccurrences(of: "\"seeds\": 20,", with: "\"seeds\": 20, \"sedes\": 2,")
        #expect(bad != text, "the gallery's search no longer sets \"seeds\": 20")
        #expect(throws: InputError.self) { _ = try SearchSpace.read(text: bad, file: gallery) }
    }
}
