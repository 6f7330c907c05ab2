import SyncLab
import SyncLabKernel

// `synclab check --seeds N`: a scenario run with N seeds. A seed fails when one of its per-run
// budgets fails; the share of failing seeds is a proportion estimated from N trials, so it is
// reported with a confidence interval, and `seedFailureRate` budgets are judged on it.

/// The Wilson score interval for a binomial proportion (Wilson 1927): unlike the normal
/// approximation it stays inside [0, 1] and is not empty when no trial or every trial fails, so
/// "0 of 20 seeds failed" still says how high the failure rate could plausibly be.
public enum WilsonInterval {
    /// The two-sided 95% normal quantile, Φ⁻¹(0.975).
    public static let z95 = 1.959963984540054

    /// Interval for `failures` of `trials` at normal quantile `z`; (0, 1) when there is no trial.
    ///
    /// center = (p + z²/2n) / (1 + z²/n), half-width = z / (1 + z²/n) · √(p(1−p)/n + z²/4n²).
    public static func interval(failures k: Int, trials n: Int, z: Double = z95) -> (lower: Double, upper: Double) {
        guard n > 0 else { return (0, 1) }
        let nn = Double(n), p = Double(k) / nn, z2 = z * z
        let denominator = 1 + z2 / nn
        let center = (p + z2 / (2 * nn)) / denominator
        let half = z / denominator * (p * (1 - p) / nn + z2 / (4 * nn * nn)).squareRoot()
        // Clamp rounding only: the exact ends are 0 when k = 0 and 1 when k = n.
        return (k == 0 ? 0 : max(0, center - half), k == n ? 1 : min(1, center + half))
    }
}

/// What `synclab check` found for one scenario across its seeds.
public struct SeedCheckOutcome: Sendable, Equatable {
    public var scenario: String
    public var file: String
    /// Every seed run, in order, and the ones with a failing budget.
    public var seeds: [UInt64]
    public var failingSeeds: [UInt64]
    /// How many seeds may fail (`--max-failures`).
    public var maxFailures: Int
    /// The scenario's budgets judged across seeds (`seedFailureRate`, `seedFailureRate.upper95`).
    public var budgets: [Budget]
    /// The scenario's epoch (unix nanoseconds). JUnit writes no `timestamp` from it (`JUnitReport`).
    public var epochUnix: Int64

    public init(scenario: String, file: String, seeds: [UInt64], failingSeeds: [UInt64], maxFailures: Int, budgets: [Budget],
                epochUnix: Int64 = 0) {
        self.epochUnix = epochUnix
        self.scenario = scenario
        self.file = file
        self.seeds = seeds
        self.failingSeeds = failingSeeds
        self.maxFailures = maxFailures
        self.budgets = budgets
    }

    /// Share of seeds with a failing budget.
    public var failureRate: Double { seeds.isEmpty ? 0 : Double(failingSeeds.count) / Double(seeds.count) }
    public var interval: (lower: Double, upper: Double) {
        WilsonInterval.interval(failures: failingSeeds.count, trials: seeds.count)
    }
    public var withinMaxFailures: Bool { failingSeeds.count <= maxFailures }

    /// The across-seed budgets with their values: the rate, or the upper end of its interval.
    public var verdicts: [BudgetVerdict] {
        budgets.map { b in
            let value = b.metric == Figure.seedFailureRateUpper95.key ? interval.upper : failureRate
            return BudgetVerdict(budget: b, value: value, pass: b.holds(value))
        }
    }

    public var pass: Bool { withinMaxFailures && verdicts.allSatisfy(\.pass) }

    /// "15% (3 of 20 seeds; 95% Wilson 5.24–36.04%)".
    public var rateText: String {
        "\(Format.figure(failureRate, metric: Figure.seedFailureRate.key)) (\(failingSeeds.count) of \(Format.count(seeds.count, "seed")); "
            + "95% Wilson \(SeedCheckOutcome.intervalText(interval)))"
    }

    /// "5.24–36.04%": an interval of shares as percentages with two decimals.
    static func intervalText(_ i: (lower: Double, upper: Double)) -> String {
        "\(Format.fixed(i.lower * 100, 2))–\(Format.fixed(i.upper * 100, 2))%"
    }

    /// The command that replays one seed's run.
    public func reproduce(_ seed: UInt64) -> String { "synclab run \(file) --seed \(seed)" }
}

extension CheckReport {
    /// One compact line per seed: "scenario<TAB>seed 8<TAB>FAIL<TAB>budget: measured (limit); …".
    public static func seedLine(_ o: CheckOutcome) -> String {
        let failing = o.verdicts.filter { !$0.pass }
        var fields = [o.scenario, "seed \(o.seed)", failing.isEmpty ? "PASS" : "FAIL"]
        if !failing.isEmpty {
            fields.append(failing.map { "\($0.budget.name): \(measured($0)) (\(limit($0.budget)))" }.joined(separator: "; "))
        }
        return fields.map(oneLine).joined(separator: "\t") + "\n"
    }

    /// The verdict across seeds: failing seeds against `--max-failures`, then one tab-separated
    /// line per across-seed budget (scenario, name, limit, measured with its interval, verdict).
    public static func seedSummary(_ s: SeedCheckOutcome) -> String {
        var out = "\(oneLine(s.scenario)): \(s.failingSeeds.count) of \(Format.count(s.seeds.count, "seed")) \(s.failingSeeds.count == 1 ? "fails" : "fail")"
        if !s.failingSeeds.isEmpty { out += " (seeds \(s.failingSeeds.map(String.init).joined(separator: ", ")))" }
        // The rate's interval, so "0 of 20 fail" says how high the failure rate may still be.
        out += "; 95% Wilson \(SeedCheckOutcome.intervalText(s.interval))"
        out += "; at most \(s.maxFailures) may: \(s.withinMaxFailures ? "PASS" : "FAIL")\n"
        for v in s.verdicts {
            let value = v.budget.metric == Figure.seedFailureRateUpper95.key
                ? "\(measured(v)) (upper end of the interval; rate \(s.rateText))" : s.rateText
            out += [s.scenario, v.budget.name, limit(v.budget), value, verdict(v)].map(oneLine).joined(separator: "\t") + "\n"
        }
        return out
    }

    /// "all 3 scenarios pass", "the 1 scenario passes", "1 of 2 scenarios fails".
    public static func scenarioTally(failed: Int, of total: Int) -> String {
        if failed == 0 { return total == 1 ? "the 1 scenario passes" : "all \(total) scenarios pass" }
        return "\(failed) of \(Format.count(total, "scenario")) \(failed == 1 ? "fails" : "fail")"
    }

    /// A Markdown verdict table across seeds, for a CI job summary.
    public static func seedMarkdown(_ summaries: [SeedCheckOutcome]) -> String {
        func cell(_ s: String) -> String {
            oneLine(s).replacingAll("|", with: "\\|").replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;")
                .replacingAll(">", with: "&gt;").replacingAll("$", with: "\\$")
        }
        let failed = summaries.filter { !$0.pass }.count
        var md = "### synclab check across seeds: \(failed == 0 ? "✅ " : "❌ ")\(scenarioTally(failed: failed, of: summaries.count))\n\n"
        md += "| scenario | seeds | failing seeds | allowed | failure rate (95% Wilson) | verdict |\n|---|---|---|---|---|---|\n"
        for s in summaries {
            md += "| \(cell(s.scenario)) | \(s.seeds.count) | \(s.failingSeeds.isEmpty ? "none" : s.failingSeeds.map(String.init).joined(separator: ", ")) | "
                + "\(s.maxFailures) | \(Format.figure(s.failureRate, metric: Figure.seedFailureRate.key)) (\(SeedCheckOutcome.intervalText(s.interval))) | "
                + "\(s.pass ? "✅ PASS" : "❌ FAIL") |\n"
        }
        let budgets = summaries.flatMap { s in s.verdicts.map { (s, $0) } }
        if !budgets.isEmpty {
            md += "\n| scenario | budget | limit | measured | verdict |\n|---|---|---|---|---|\n"
            for (s, v) in budgets {
                md += "| \(cell(s.scenario)) | \(cell(v.budget.name)) | `\(limit(v.budget))` | \(cell(measured(v))) | \(v.pass ? "✅ PASS" : "❌ FAIL") |\n"
            }
        }
        let replay = summaries.flatMap { s in s.failingSeeds.prefix(3).map { s.reproduce($0) } }
        if !replay.isEmpty { md += "\nReproduce: " + replay.map { "`\(oneLine($0).replacingAll("|", with: "\\|"))`" }.joined(separator: ", ") + "\n" }
        return md + "\n"
    }
}

extension JUnitReport {
    /// JUnit XML for a check across seeds: one `testsuite` per scenario and seed ("NAME seed 8"),
    /// then per scenario one "NAME across seeds" suite with a case for `--max-failures` and one per
    /// across-seed budget.
    public static func render(_ outcomes: [CheckOutcome], across summaries: [SeedCheckOutcome]) -> String {
        guard !summaries.isEmpty else { return render(outcomes) }
        var suites: [String] = []
        var tests = 0, failures = 0
        for o in outcomes {
            var renamed = o
            renamed.scenario = "\(o.scenario) seed \(o.seed)"
            suites.append(suite(renamed, id: suites.count))
            tests += o.verdicts.count
            failures += o.failures
        }
        for s in summaries {
            let replay = s.failingSeeds.prefix(10).map { "reproduce: " + s.reproduce($0) }.joined(separator: "\n")
            let failingText = "\(Format.count(s.failingSeeds.count, "seed")) of \(s.seeds.count) \(s.failingSeeds.count == 1 ? "fails" : "fail")"
            var cases = [Case(name: "at most \(s.maxFailures) of \(Format.count(s.seeds.count, "seed")) may fail",
                              failure: s.withinMaxFailures ? nil
                                : ("\(failingText) (seeds \(s.failingSeeds.map(String.init).joined(separator: ", "))); at most \(s.maxFailures) may",
                                   failingText + "\n" + replay))]
            for v in s.verdicts {
                let message = CheckReport.failureMessage(v) + "; rate \(s.rateText)"
                cases.append(Case(name: v.budget.name, failure: v.pass ? nil : (message, message + "\n" + replay)))
            }
            tests += cases.count
            failures += cases.filter { $0.failure != nil }.count
            suites.append(suite(name: "\(s.scenario) across seeds", id: suites.count,
                                properties: [("file", s.file), ("seeds", s.seeds.map(String.init).joined(separator: ","))], cases: cases))
        }
        return document(suites, tests: tests, failures: failures)
    }
}
