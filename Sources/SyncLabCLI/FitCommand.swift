import Foundation
import SyncLab
import SyncLabReports
import SyncLabKernel

/// `synclab fit`: link profiles fitted to an app's telemetry (docs/telemetry.md).
struct FitCommand {
    let cli: CLI

    static let help = """
    synclab fit — fit link profiles to an app's telemetry of its time requests

    USAGE
      synclab fit TELEMETRY.csv --out DIR [--base SCENARIO] [--holdout SHARE] [--uplink-share S]
                  [--burst-gap D] [--columns MAP] [--resamples N] [--seed N] [--family F]

    TELEMETRY.csv has a header and a row per request: device, sent (epoch ms or ISO 8601) and
    rtt_ms (or t1, t2, t3, t4 in ms); optionally link, outcome and bytes (docs/telemetry.md).
    One profile is fitted per link label: the round trip's floor, body and tail (a lognormal
    mixture by maximum likelihood), split into uplink and downlink, the AR(1) time constant of
    its correlation in time, the failure share and the link's share of devices, each with a 95%
    interval from resampling devices. Rows the fit cannot use are counted by reason.

    OPTIONS
      --out DIR          the folder written: fitted.json (a scenario: --base with the fitted
                         network.profiles), fit.md, fit.csv and a Q–Q chart per link
      --base SCENARIO    the scenario fitted.json extends (default: the shipped v115-pausing)
      --holdout SHARE    fit on 1 − SHARE of the devices and judge on the rest (0 to 0.9;
                         default 0: judged on the rows fitted); devices chosen by a keyed hash
      --uplink-share S   each direction's share of the round trip's medians (0.05 to 0.95;
                         default 0.55, the presets' split): a round trip cannot tell it
      --burst-gap D      a row sent less than D after the device's previous one is in its
                         burst; only a burst's first row is a draw of the link's law (default
                         30s; 0s fits every row)
      --columns MAP      the export's names for the columns, e.g. device=uid,sent=ts,rtt_ms=lat
      --resamples N      resamples of devices for the intervals (20 to 2000; default 200)
      --seed N           the resamples' seed (default 1)
      --family F         ar1 (default): body and tail, an AR(1) in time; outage-nugget: a
                         third, outage part where the data support one, and an AR(1) with a
                         nugget (kind ar1-nugget: correlated share w and time constant τ)

    Exit status 0 when written, 2 on bad input or usage.

    EXAMPLE
      synclab fit telemetry.csv --out fitted --holdout 0.3
      synclab check fitted/fitted.json --telemetry telemetry.csv

    """

    static let options = OptionTable(command: "fit", options: [
        OptionSpec("--out", .path, "DIR"), OptionSpec("--base", .text, "SCENARIO"), OptionSpec("--holdout", .share, "SHARE"),
        OptionSpec("--uplink-share", .share, "SHARE"), OptionSpec("--burst-gap", .duration, "D"), OptionSpec("--columns", .text, "MAP"),
        OptionSpec("--resamples", .whole(20...UInt64(maximumResamples)), "N", refusal: ": expected a whole number from 20 to \(maximumResamples)"),
        OptionSpec("--seed", .whole(0...UInt64(Int64.max)), "N", refusal: ": expected a whole number from 0 to 2^63−1"),
        OptionSpec("--family", .text, "F"),
    ], help: help, escapesControls: true)
    static let defaultBase = "v115-pausing"
    /// The most resamples: each is a pass over the rows.
    static let maximumResamples = 2_000
    /// The longest burst gap.
    static let maximumBurstGap: Nanoseconds = 86_400 * .second
    /// fitted.json holds at most as many profiles as a scenario may.
    static let maximumLinks = 64

    func main(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard parsed.positional.count == 1 else { return usage("expected one TELEMETRY.csv file") }
        guard let out = parsed.options["--out"] else { return usage("--out DIR is required") }
        let path = parsed.positional[0]
        var options = TelemetryFit.Options()
        if let text = parsed.options["--holdout"] {
            guard let v = Double(text), v >= 0, v <= 0.9 else { return usage("--holdout: expected a share from 0 to 0.9; got \(SafePaths.quoted(text))") }
            options.holdout = v
        }
        if let text = parsed.options["--uplink-share"] {
            guard let v = Double(text), v >= 0.05, v <= 0.95 else {
                return usage("--uplink-share: expected a share from 0.05 to 0.95; got \(SafePaths.quoted(text))")
            }
            options.uplinkShare = v
        }
        if let text = parsed.options["--burst-gap"] {
            guard case .success(let d) = Units.parseDuration(text), d >= 0, d <= Self.maximumBurstGap else {
                return usage("--burst-gap: expected a duration from 0s to \(Units.formatDuration(Self.maximumBurstGap)); got \(SafePaths.quoted(text))")
            }
            options.burstGap = d
        }
        guard case .success(let resamples) = cli.whole("--resamples", parsed, Self.options, as: Int.self),
              case .success(let seed) = cli.whole("--seed", parsed, Self.options, as: UInt64.self) else { return 2 }
        if let resamples { options.resamples = resamples }
        if let seed { options.seed = seed }
        if let text = parsed.options["--family"] {
            guard let family = TelemetryFit.Family(rawValue: text) else {
                return usage("--family: expected one of \(TelemetryFit.Family.allCases.map(\.rawValue).joined(separator: ", ")); got \(SafePaths.quoted(text))")
            }
            options.family = family
        }
        var columns = TelemetryCSV.Columns()
        if let text = parsed.options["--columns"] {
            do { columns = try TelemetryCSV.columns(mapping: text) } catch { return usage("--columns: \(error.message)") }
        }
        // The base: a scenario file, or a shipped scenario's name.
        let baseArgument = parsed.options["--base"] ?? Self.defaultBase
        let extends: String, baseName: String
        // What the check before writing extends: the base's absolute path (the folder the
        // relative one starts from may not exist yet), or the shipped name.
        let extendsNow: String
        var inputs = [path]
        if parsed.options["--base"] != nil && (baseArgument.hasSuffix(".json") || baseArgument.contains("/")) {
            do { _ = try cli.loader.load(path: baseArgument) } catch { return refuse("\(error)") }
            guard let absolute = SafePaths.absolute(SafePaths.resolved(baseArgument)), let folder = SafePaths.absolute(SafePaths.resolved(out)) else {
                return refuse("cannot resolve the path of --base \(SafePaths.quoted(baseArgument))")
            }
            // Relative to the folder fitted.json is written in, as `extends` reads it, so the two
            // can move together (a folder of scenarios and its fits).
            extends = Self.relativePath(absolute, from: folder)
            extendsNow = absolute
            baseName = baseArgument
            inputs.append(baseArgument)
        } else {
            guard (try? ShippedScenarios.load(baseArgument)) != nil else {
                return usage("--base: no scenario file or shipped scenario named \(SafePaths.quoted(baseArgument))")
            }
            extends = baseArgument + ".json"
            extendsNow = extends
            baseName = "the shipped scenario '\(baseArgument)'"
        }
        if let problem = ReportWriter.preflight(for: out, inputs: inputs) { return refuse(problem) }
        let table: TelemetryTable
        do { table = try TelemetryCSV.read(path, columns: columns) } catch { return refuse("\(error)") }
        let fit = TelemetryFit.fit(table, options: options)
        guard !fit.links.isEmpty else {
            return refuse("\(InputError.escapingControls(path)): no link has an answered round trip to fit")
        }
        guard fit.links.count <= Self.maximumLinks else {
            return refuse("\(InputError.escapingControls(path)): \(fit.links.count) links have round trips; a scenario holds at most \(Self.maximumLinks) profiles")
        }
        let files = FitReport.files(fit, source: FitReport.Source(table: table, extends: extends, baseName: baseName))
        // The fitted scenario must load as it is before anything is written: the base may name
        // links by name (a budget on one link's figures) that the telemetry does not have.
        let scenarioText = FitReport.fittedScenario(fit, source: FitReport.Source(table: table, extends: extendsNow, baseName: baseName))
        do {
            _ = try cli.loader.load(text: scenarioText, file: (out as NSString).appendingPathComponent("fitted.json"), resolver: cli.loader.files)
        } catch {
            var message = "the fitted scenario would not load on top of \(baseName): \(error)"
            if error.keyPath.hasPrefix("budgets") {
                let labels = fit.links.map { SafePaths.quoted($0.name) }.joined(separator: ", ")
                message += ". Its link profiles are the telemetry's labels (\(labels)), which replace the base's: name the labels "
                    + "as the base's links, or give a --base whose budgets name no link"
            }
            return refuse(message)
        }
        do {
            let warnings = try ReportWriter.write(files, to: out, inputs: inputs)
            for w in warnings { cli.err("synclab fit: warning: \(w)\n") }
        } catch {
            return refuse(ReportWriter.reason(error))
        }
        var summary = "wrote \(out): \(fit.links.count) link profile\(fit.links.count == 1 ? "" : "s") fitted to \(table.count) usable rows"
        if table.droppedCount > 0 { summary += " (\(table.droppedCount) not usable, by reason in fit.md)" }
        cli.out(InputError.escapingControls(summary) + "\n")
        for link in fit.links {
            var line = "  \(link.name): round trip p50 \(FitReport.ms(link.law.quantile(0.5))) ms, p99 \(FitReport.ms(link.law.quantile(0.99))) ms, "
                + (link.timeConstant.map { "τ \(Units.formatDuration($0))" } ?? "independent")
            if let j = link.judged { line += ", KS \(Format.fixed(j.distance, 3)) \(j.agrees ? "agrees" : "does not agree")" }
            cli.out(InputError.escapingControls(line) + "\n")
        }
        return 0
    }

    /// `path` relative to the folder `folder` (both absolute and without `.` or `..`).
    static func relativePath(_ path: String, from folder: String) -> String {
        let target = path.split(separator: "/"), base = folder.split(separator: "/")
        var common = 0
        while common < min(target.count, base.count) && target[common] == base[common] { common += 1 }
        let up = [String](repeating: "..", count: base.count - common)
        return (up + target[common...].map(String.init)).joined(separator: "/")
    }

    func usage(_ message: String) -> Int32 { cli.usageError("fit", InputError.escapingControls(message)) }

    func refuse(_ message: String) -> Int32 {
        cli.err(InputError.escapingControls("synclab fit: \(message)") + "\n")
        return 2
    }
}
