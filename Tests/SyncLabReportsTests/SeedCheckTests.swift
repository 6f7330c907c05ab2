import Testing
import SyncLab
@testable import SyncLabReports

/// The failure rate across seeds and its Wilson score interval, against values worked by hand.
@Suite struct SeedCheckTests {
    static let z = WilsonInterval.z95   // 1.959963984540054, z² = 3.841459

    @Test func wilsonIntervalMatchesHandArithmetic() {
        // 0 of 10: lower 0, upper z²/(n + z²) = 3.841459 / 13.841459 = 0.277533.
        let none = WilsonInterval.interval(failures: 0, trials: 10)
        #expect(none.lower == 0)
        #expect(abs(none.upper - 3.841458820694124 / 13.841458820694124) < 1e-12)
        #expect(abs(none.upper - 0.277533) < 1e-6)
        // 2 of 20: p = 0.1, d = 1 + z²/20 = 1.192073, center = (0.1 + z²/40) / d = 0.164450,
        // half = z/d · √(0.1·0.9/20 + z²/1600) = 1.644166 · 0.083072 = 0.136584.
        let two = WilsonInterval.interval(failures: 2, trials: 20)
        #expect(abs(two.lower - 0.027866) < 1e-6)
        #expect(abs(two.upper - 0.301034) < 1e-6)
        // 3 of 3: upper 1; p = 1, so half = z/d · z/6 and lower = (1 + z²/6 − z²/6)/d = 1/(1 + z²/3) = 0.438503.
        let all = WilsonInterval.interval(failures: 3, trials: 3)
        #expect(all.upper == 1)
        #expect(abs(all.lower - 1 / (1 + 3.841458820694124 / 3)) < 1e-12)
        // No trials: nothing is known.
        #expect(WilsonInterval.interval(failures: 0, trials: 0) == (0, 1))
    }

    @Test func symmetricAndContainsTheRate() {
        for n in [1, 5, 20, 100] {
            for k in 0...n {
                let i = WilsonInterval.interval(failures: k, trials: n)
                let mirror = WilsonInterval.interval(failures: n - k, trials: n)
                #expect(abs(i.lower - (1 - mirror.upper)) < 1e-12)
                let p = Double(k) / Double(n)
                #expect(i.lower <= p && p <= i.upper)
            }
        }
    }

    static func outcome(failing: [UInt64], of n: UInt64, max: Int, budgets: [Budget]) -> SeedCheckOutcome {
        SeedCheckOutcome(scenario: "s", file: "s.json", seeds: Array(1...n), failingSeeds: failing, maxFailures: max, budgets: budgets)
    }

    @Test func budgetsOnTheRateAndItsUpperEnd() {
        let rate = Budget(name: "rate", metric: "seedFailureRate", comparison: .atMost, limit: 0.15)
        let upper = Budget(name: "upper", metric: "seedFailureRate.upper95", comparison: .atMost, limit: 0.15)
        let o = Self.outcome(failing: [4, 9], of: 20, max: 2, budgets: [rate, upper])
        #expect(o.failureRate == 0.1)
        #expect(o.withinMaxFailures)
        let v = o.verdicts
        #expect(v[0].value == 0.1 && v[0].pass)
        #expect(abs((v[1].value ?? 0) - 0.301034) < 1e-6 && !v[1].pass)
        #expect(!o.pass)
        #expect(o.reproduce(9) == "synclab run s.json --seed 9")
        let text = CheckReport.seedSummary(o)
        #expect(text.hasPrefix("s: 2 of 20 seeds fail (seeds 4, 9); 95% Wilson 2.79–30.10%; at most 2 may: PASS\n"))
        #expect(text.contains("s\trate\tseedFailureRate ≤ 15%\t10% (2 of 20 seeds; 95% Wilson 2.79–30.10%)\tPASS\n"))
        // One more failing seed than allowed fails the scenario even without rate budgets.
        #expect(!Self.outcome(failing: [1, 2, 3], of: 20, max: 2, budgets: []).pass)
        #expect(Self.outcome(failing: [], of: 20, max: 0, budgets: []).pass)
    }

    @Test func junitAcrossSeedsIsWellFormedAndCountsCases() throws {
        let budget = Budget(name: "gap", metric: "transitionGapMs.p99", comparison: .atMost, limit: 500)
        let outcomes = [CheckOutcome(scenario: "s", file: "s.json", seed: 1, verdicts: [BudgetVerdict(budget: budget, value: 400, pass: true)]),
                        CheckOutcome(scenario: "s", file: "s.json", seed: 2, verdicts: [BudgetVerdict(budget: budget, value: 600, pass: false)])]
        let summary = Self.outcome(failing: [2], of: 2, max: 0, budgets: [])
        let xml = JUnitReport.render(outcomes, across: [summary])
        #expect(xml.contains("<!-- synclab check: 3 budgets, 2 failing -->\n<testsuites>\n"))
        #expect(xml.contains("<testsuite name=\"s seed 2\" package=\"synclab.check\" id=\"1\" tests=\"1\" failures=\"1\""))
        #expect(xml.contains("<testcase name=\"at most 0 of 2 seeds may fail\" classname=\"s across seeds\" time=\"0\">"))
        #expect(xml.contains("<failure type=\"budget\" message=\"1 seed of 2 fails (seeds 2); at most 0 may\">"))
        #expect(xml.contains("reproduce: synclab run s.json --seed 2"))
        let tree = try #require(XMLTree(xml), "not well-formed")
        #expect(tree.all("testsuite").count == 3)
        #expect(tree.all("failure").count == 2)
    }
}
