import Foundation
import SyncLab
import SyncLabKernel
import SyncLabReports

/// `--telemetry FILE [--telemetry-columns MAP] [--burst-gap D]`, shared by `run` and `check`:
/// the telemetry a run is held against, read before any run starts. The options themselves are
/// `OptionTable.telemetry`.
struct TelemetryOptions {
    /// The longest `--burst-gap`: a day (the guard's gap is seconds to minutes).
    static let maxBurstGap: Nanoseconds = 24 * .hour

    /// The options' lines of a command's --help (the same for `run` and `check`).
    static let help = """
      --telemetry FILE   hold the run against an app's telemetry of its time requests (a CSV
                         file, docs/telemetry.md): per link profile, the run's round trips
                         against the telemetry's rows of the link of the same name (KS distance
                         and p50/p90/p99; docs/cli.md#telemetry). Adds a Telemetry section to
                         report.md, a "telemetry" object to summary.json and the figure
                         telemetry.agrees (1 when every link compared agrees)
      --telemetry-columns MAP  the file's column names when they differ, as KEY=NAME pairs
                         (each KEY a default column name: "device=uid,sent=ts,rtt_ms=latency,link=network")
      --burst-gap D      a device's row starts a new burst after this gap (default 30s); only
                         each burst's first row is compared ("0s": every row)
    """

    var table: TelemetryTable
    var burstGap: Nanoseconds

    /// The options' telemetry, nil without `--telemetry`; on a problem, its message and whether
    /// it is a usage error (else bad input), both exit status 2.
    static func read(_ options: [String: String]) -> Result<TelemetryOptions?, Problem> {
        guard let file = options["--telemetry"] else {
            for name in ["--telemetry-columns", "--burst-gap"] where options[name] != nil {
                return .failure(Problem(usage: true, message: "\(name) needs --telemetry FILE"))
            }
            return .success(nil)
        }
        if file.isEmpty { return .failure(Problem(usage: true, message: "--telemetry needs a file; got an empty value")) }
        var columns = TelemetryCSV.Columns()
        if let map = options["--telemetry-columns"] {
            do { columns = try TelemetryCSV.columns(mapping: map) } catch {
                return .failure(Problem(usage: true, message: "--telemetry-columns: \(error.message)"))
            }
        }
        var gap = TelemetrySampling.defaultBurstGap
        if let text = options["--burst-gap"] {
            switch Units.parseDuration(text) {
            case .success(let d) where d >= 0 && d <= maxBurstGap: gap = d
            case .success: return .failure(Problem(usage: true, message: "--burst-gap must be from 0s to \(Units.formatDuration(maxBurstGap)); got \(SafePaths.quoted(text))"))
            case .failure(let e): return .failure(Problem(usage: true, message: "--burst-gap: \(e.message)"))
            }
        }
        do {
            return .success(TelemetryOptions(table: try TelemetryCSV.read(file, columns: columns), burstGap: gap))
        } catch {
            return .failure(Problem(usage: false, message: "\(error)"))
        }
    }

    struct Problem: Error {
        var usage: Bool
        var message: String
    }

    /// What `check --telemetry` gates on when the scenario sets no budget on it itself.
    static let budget = Budget(name: "the run agrees with the telemetry", metric: Figure.telemetryAgrees.key, comparison: .atLeast, limit: 1)

    /// One line per link compared that disagrees, and per link not compared, for stdout.
    static func lines(_ t: TelemetryComparison) -> String {
        var out = ""
        for row in t.rows where !row.agreement.agrees {
            let a = row.agreement
            let failed = (a.distance <= a.tolerance ? [] : ["KS distance \(Format.fixed(a.distance, 4)) > \(Format.fixed(a.tolerance, 4))"])
                + zip(["p50", "p90", "p99"], a.quantilesAgree).filter { !$0.1 }.map(\.0)
            out += "telemetry: link '\(t.pooled ? row.label : a.link)' disagrees: \(failed.joined(separator: ", "))\n"
        }
        for note in t.unmatched { out += "telemetry: \(note)\n" }
        let agreeing = t.rows.filter(\.agreement.agrees).count
        out += "telemetry: \(agreeing) of \(Format.count(t.rows.count, "link")) compared \(agreeing == 1 ? "agrees" : "agree")"
            + (t.pooled ? " (its rows name no link: the run's links pooled)" : "") + "\n"
        return out
    }
}
