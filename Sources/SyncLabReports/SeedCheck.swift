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

    public init(scenario: String, file: String, seeds: [UInt64], failingSeeds: [UInt64], maxFailures: Int, budgets: [Budget]) {
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
            let value = b.metric == "seedFailureRate.upper95" ? interval.upper : failureRate
            return BudgetVerdict(budget: b, value: value, pass: b.holds(value))
        }
    }

    public var pass: Bool { withinMaxFailures && verdicts.allSatisfy(\.pass) }

    /// "0.15 (3 of 20 seeds; 95% Wilson 0.0524–0.3604)".
    public var rateText: String {
        "\(Format.compact(failureRate, 4)) (\(failingSeeds.count) of \(seeds.count) seeds; 95% Wilson "
            + "\(Format.fixed(interval.lower, 4))–\(Format.fixed(interval.upper, 4)))"
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
        var out = "\(oneLine(s.scenario)): \(s.failingSeeds.count) of \(s.seeds.count) seeds fail"
        if !s.failingSeeds.isEmpty { out += " (seeds \(s.failingSeeds.map(String.init).joined(separator: ", ")))" }
        out += "; at most \(s.maxFailures) may: \(s.withinMaxFailures ? "PASS" : "FAIL")\n"
        for v in s.verdicts {
            let value = v.budget.metric == "seedFailureRate.upper95"
                ? "\(Format.fixed(v.value ?? 0, 4)) (upper end of the interval; rate \(s.rateText))" : s.rateText
            out += [s.scenario, v.budget.name, limit(v.budget), value, verdict(v)].map(oneLine).joined(separator: "\t") + "\n"
        }
        return out
    }

    /// A Markdown verdict table across seeds, for a CI job summary.
    public static func seedMarkdown(_ summaries: [SeedCheckOutcome]) -> String {
        func cell(_ s: String) -> String {
            oneLine(s).replacingAll("|", with: "\\|").replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;")
                .replacingAll(">", with: "&gt;").replacingAll("$", with: "\\$")
        }
        let failed = summaries.filter { !$0.pass }.count
        var md = "### synclab check across seeds: \(failed == 0 ? "✅ all \(summaries.count) scenarios pass" : "❌ \(failed) of \(summaries.count) scenarios fail")\n\n"
        md += "| scenario | seeds | failing seeds | allowed | failure rate (95% Wilson) | verdict |\n|---|---|---|---|---|---|\n"
        for s in summaries {
            md += "| \(cell(s.scenario)) | \(s.seeds.count) | \(s.failingSeeds.isEmpty ? "none" : s.failingSeeds.map(String.init).joined(separator: ", ")) | "
                + "\(s.maxFailures) | \(Format.compact(s.failureRate, 4)) (\(Format.fixed(s.interval.lower, 4))–\(Format.fixed(s.interval.upper, 4))) | "
                + "\(s.pass ? "✅ PASS" : "❌ FAIL") |\n"
        }
        let budgets = summaries.flatMap { s in s.verdicts.map { (s, $0) } }
        if !budgets.isEmpty {
            md += "\n| scenario | budget | limit | measured | verdict |\n|---|---|---|---|---|\n"
            for (s, v) in budgets {
                md += "| \(cell(s.scenario)) | \(cell(v.budget.name)) | `\(limit(v.budget))` | \(measured(v)) | \(v.pass ? "✅ PASS" : "❌ FAIL") |\n"
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
        func attr(_ s: String) -> String { Format.xml(s, attribute: true) }
        var suites: [String] = []
        var tests = 0, failures = 0
        for o in outcomes {
            var renamed = o
            renamed.scenario = "\(o.scenario) seed \(o.seed)"
            suites.append(suite(renamed))
            tests += o.verdicts.count
            failures += o.failures
        }
        for s in summaries {
            let name = "\(s.scenario) across seeds"
            var cases: [(String, String?)] = [("at most \(s.maxFailures) of \(s.seeds.count) seeds fail",
                s.withinMaxFailures ? nil : "\(s.failingSeeds.count) seeds fail: \(s.failingSeeds.map(String.init).joined(separator: ", "))")]
            for v in s.verdicts {
                cases.append((v.budget.name, v.pass ? nil : "\(v.budget.metric) measured \(CheckReport.measured(v)); limit \(CheckReport.limit(v.budget)); rate \(s.rateText)"))
            }
            let failed = cases.filter { $0.1 != nil }.count
            tests += cases.count
            failures += failed
            var xml = "  <testsuite name=\"\(attr(name))\" tests=\"\(cases.count)\" failures=\"\(failed)\" errors=\"0\" skipped=\"0\">\n"
            xml += "    <properties>\n      <property name=\"file\" value=\"\(attr(s.file))\"/>\n"
            xml += "      <property name=\"seeds\" value=\"\(s.seeds.map(String.init).joined(separator: ","))\"/>\n    </properties>\n"
            for (caseName, failure) in cases {
                let open = "    <testcase classname=\"\(attr(name))\" name=\"\(attr(caseName))\""
                if let failure {
                    let body = failure + "\n" + s.failingSeeds.prefix(10).map { "reproduce: " + s.reproduce($0) }.joined(separator: "\n")
                    xml += open + ">\n      <failure type=\"budget\" message=\"\(attr(failure))\">\(Format.xml(body))</failure>\n    </testcase>\n"
                } else {
                    xml += open + "/>\n"
                }
            }
            suites.append(xml + "  </testsuite>\n")
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"synclab check\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\">\n"
            + suites.joined() + "</testsuites>\n"
    }
}
