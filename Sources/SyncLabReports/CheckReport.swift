import SyncLab
import SyncLabKernel

/// One scenario's budget verdicts, as `synclab check` judged them.
public struct CheckOutcome: Sendable, Equatable {
    /// The scenario's name and the file it was read from.
    public var scenario: String
    public var file: String
    public var seed: UInt64
    public var verdicts: [BudgetVerdict]
    /// The scenario's epoch (unix nanoseconds). JUnit writes no `timestamp` from it: a simulated
    /// instant would read as the date the tests ran (`JUnitReport`).
    public var epochUnix: Int64

    public init(scenario: String, file: String, seed: UInt64, verdicts: [BudgetVerdict], epochUnix: Int64 = 0) {
        self.scenario = scenario
        self.file = file
        self.seed = seed
        self.verdicts = verdicts
        self.epochUnix = epochUnix
    }

    public var failures: Int { verdicts.filter { !$0.pass }.count }
    /// The command that replays this scenario's run.
    public var reproduce: String { "synclab run \(file) --seed \(seed)" }
}

/// The texts `synclab check` prints and writes, as pure functions of its outcomes.
public enum CheckReport {
    /// "transitionGapMs.p99 ≤ 500 ms": the figure's key and its limit in the figure's unit.
    public static func limit(_ b: Budget) -> String {
        "\(b.metric) \(b.comparison == .atMost ? "≤" : "≥") \(Format.figure(b.limit, metric: b.metric))"
    }

    /// The measured value in the figure's unit ("53 min 11 s", "99.9%"), or "not measured";
    /// with the verdict's note when it has one ("the estimator `x` claims no ± bound, …").
    public static func measured(_ v: BudgetVerdict) -> String {
        guard let note = v.note else { return Format.figure(v.value, metric: v.budget.metric) }
        guard let value = v.value, value.isFinite else { return note }
        return Format.figure(value, metric: v.budget.metric) + "; " + note
    }

    /// Why a budget fails, in words: "measured 53 min 11 s; must be at most 500 ms
    /// (transitionGapMs.p99)", "transitionsWithin500msShare was not measured; …", or the
    /// verdict's note (an estimator that claims no bound).
    public static func failureMessage(_ v: BudgetVerdict) -> String {
        let bound = (v.budget.comparison == .atMost ? "at most " : "at least ") + Format.figure(v.budget.limit, metric: v.budget.metric)
        if let note = v.note { return "\(note); it must be \(bound) (\(v.budget.metric))" }
        guard let value = v.value, value.isFinite else {
            return "\(v.budget.metric) was not measured, so the budget fails; it must be \(bound)"
        }
        return "measured \(Format.figure(value, metric: v.budget.metric)); must be \(bound) (\(v.budget.metric))"
    }

    public static func verdict(_ v: BudgetVerdict) -> String { v.pass ? "PASS" : "FAIL" }

    /// One line per budget, tab-separated: scenario, budget name, limit, measured, verdict.
    public static func lines(_ o: CheckOutcome) -> String {
        o.verdicts.map { v in
            [o.scenario, v.budget.name, limit(v.budget), measured(v), verdict(v)]
                .map(oneLine)
                .joined(separator: "\t") + "\n"
        }.joined()
    }

    /// `s` with tabs and line breaks as spaces, so a name cannot break a line or a column.
    static func oneLine(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if scalar == "\t" || scalar == "\n" || scalar == "\r" { out += " " } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// "3 of 5 budgets hold in 2 scenarios" with the failing count.
    public static func tally(_ outcomes: [CheckOutcome]) -> String {
        let total = outcomes.reduce(0) { $0 + $1.verdicts.count }
        let failed = outcomes.reduce(0) { $0 + $1.failures }
        let scenarios = Format.count(outcomes.count, "scenario")
        if failed == 0 { return total == 1 ? "the 1 budget holds in \(scenarios)" : "all \(total) budgets hold in \(scenarios)" }
        return "\(failed) of \(Format.count(total, "budget")) \(failed == 1 ? "fails" : "fail") in \(scenarios)"
    }

    /// A Markdown verdict table, for a CI job summary (GitHub's `GITHUB_STEP_SUMMARY`).
    public static func markdown(_ outcomes: [CheckOutcome]) -> String {
        // Plain cells: HTML-significant characters as entities (code hosts render inline HTML);
        // code spans show entities literally, so there only the column separator is escaped.
        func code(_ s: String) -> String { oneLine(s).replacingAll("|", with: "\\|") }
        func cell(_ s: String) -> String {
            code(s).replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;").replacingAll(">", with: "&gt;")
                .replacingAll("$", with: "\\$")   // GitHub reads $…$ as math
        }
        let failed = outcomes.reduce(0) { $0 + $1.failures }
        var md = "### synclab check: \(failed == 0 ? "✅" : "❌") \(tally(outcomes))\n\n"
        md += "| scenario | budget | limit | measured | verdict |\n|---|---|---|---|---|\n"
        for o in outcomes {
            for v in o.verdicts {
                md += "| \(cell(o.scenario)) | \(cell(v.budget.name)) | `\(code(limit(v.budget)))` | \(cell(measured(v))) | "
                    + "\(v.pass ? "✅ PASS" : "❌ FAIL") |\n"
            }
        }
        let failing = outcomes.filter { $0.failures > 0 }
        if !failing.isEmpty {
            md += "\nReproduce: " + failing.map { "`\(code($0.reproduce))`" }.joined(separator: ", ") + "\n"
        }
        return md + "\n"
    }
}
