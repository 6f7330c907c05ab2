import SyncLab
import SyncLabKernel

/// The files `synclab fit` writes (docs/telemetry.md): `fitted.json`, a scenario extending the
/// base with the fitted profiles; `fit.md` and `fit.csv`, every figure with its interval and the
/// fit held against the data; a Q–Q chart per link. Reads the fit's results only.
public enum FitReport {
    /// What the report says about where the rows came from.
    public struct Source: Sendable {
        public var table: TelemetryTable
        /// How the base is named in fitted.json's `extends`, and for people.
        public var extends: String
        public var baseName: String
        public init(table: TelemetryTable, extends: String, baseName: String) {
            self.table = table
            self.extends = extends
            self.baseName = baseName
        }
    }

    public static func files(_ fit: TelemetryFit.Result, source: Source) -> [(name: String, contents: String)] {
        var files = [(name: "fitted.json", contents: fittedScenario(fit, source: source)),
                     (name: "fit.md", contents: markdown(fit, source: source)),
                     (name: "fit.csv", contents: csv(fit))]
        for (i, link) in fit.links.enumerated() { files.append((name: chartName(i), contents: qqChart(link))) }
        return files
    }

    static func chartName(_ i: Int) -> String { "qq_\(i + 1).svg" }

    public static func ms(_ ns: Double) -> String { ns.isFinite ? Format.compact(ns / 1e6, ns < 10e6 ? 3 : ns < 1e9 ? 1 : 0) : "n/a" }
    static func duration(_ ns: Double) -> String { Units.formatDuration(Int64(max(0, ns / 1_000).rounded()) * 1_000) }

    // MARK: fitted.json

    static func obj(_ members: [(String, JSONValue)]) -> JSONValue { .object(members.map { JSONMember(key: $0.0, value: $0.1) }) }
    /// A number as the scenario files write them: shortest decimal to six places.
    static func num(_ x: Double) -> JSONValue { .number(x, literal: Format.compact(x, 6)) }

    public static func fittedScenario(_ fit: TelemetryFit.Result, source: Source) -> String {
        let total = fit.links.reduce(0) { $0 + $1.share }
        var profiles: [JSONValue] = []
        var assigned = 0.0
        for (i, link) in fit.links.enumerated() {
            let p = link.profile
            // Shares of the fitted links, summing to 1 to the sixth decimal (the last takes the rest).
            let share = i == fit.links.count - 1 ? max(0, 1 - assigned) : ((link.share / total) * 1e6).rounded() / 1e6
            assigned += share
            var object: [(String, JSONValue)] = [
                ("name", .string(link.name)),
                ("share", num(((share) * 1e6).rounded() / 1e6)),
                ("uplink", mixture(p.uplink)),
                ("downlink", mixture(p.downlink)),
                ("floor", obj([("uplink", .string(Units.formatDuration(p.uplinkFloor))),
                                   ("downlink", .string(Units.formatDuration(p.downlinkFloor)))])),
                ("bandwidth", bandwidth(p.bandwidth)),
                ("failure", num(p.failure)),
                ("timeout", .string(Units.formatDuration(p.timeout))),
            ]
            if let nugget = p.correlation as? NuggetAR1Delays {
                object.append(("correlation", obj([("kind", .string(NuggetAR1Delays.kind)), ("tau", .string(Units.formatDuration(nugget.tau))),
                                                   ("weight", num(nugget.weight))])))
            } else if let ar1 = p.correlation as? AR1Delays {
                object.append(("correlation", obj([("kind", .string(AR1Delays.kind)), ("tau", .string(Units.formatDuration(ar1.tau)))])))
            } else {
                object.append(("correlation", obj([("kind", .string(IndependentDelays.kind))])))
            }
            profiles.append(obj(object))
        }
        let file = InputError.escapingControls(source.table.file)
        let description = "Link profiles fitted by synclab fit to the telemetry in \(file) (\(fit.links.count) link"
            + (fit.links.count == 1 ? "" : "s") + "), on top of \(source.baseName)."
        let scenario: JSONValue = obj([
            ("extends", .string(source.extends)),
            ("name", .string("fitted")),
            ("description", .string(printable(description))),
            ("network", obj([("profiles", .array(profiles))])),
        ])
        return scenario.serialized() + "\n"
    }

    /// Text a scenario's description accepts: printable, one line.
    static func printable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { InputNode.isPrintable($0) ? $0 : "?" }))
    }

    static func mixture(_ d: Distribution) -> JSONValue {
        guard case .lognormalMixture(let m) = d else { return .string(Units.formatDuration(Int64(d.mean))) }
        var object: [(String, JSONValue)] = [
            ("kind", .string("lognormal-mixture")),
            ("body", obj([("median", .string(duration(m.bodyMedian))), ("sigma", num(m.bodySigma))])),
        ]
        if m.tailShare > 0 {
            object.append(("tail", obj([("share", num(m.tailShare)), ("median", .string(duration(m.tailMedian))),
                                             ("sigma", num(m.tailSigma))])))
        } else {
            object.append(("tail", obj([("share", num(0)), ("median", .string(duration(m.bodyMedian))),
                                             ("sigma", num(m.bodySigma))])))
        }
        if m.outageShare > 0 {
            object.append(("outage", obj([("share", num(m.outageShare)), ("median", .string(duration(m.outageMedian))),
                                               ("sigma", num(m.outageSigma))])))
        }
        return obj(object)
    }

    static func bandwidth(_ d: Distribution) -> JSONValue {
        switch d {
        case .lognormal(let median, let sigma):
            return obj([("kind", .string("lognormal")), ("median", .string(Format.compact(median, 3) + "B/s")), ("sigma", num(sigma))])
        default:
            return .string(Format.compact(d.mean, 3) + "B/s")
        }
    }

    // MARK: fit.md

    public static func markdown(_ fit: TelemetryFit.Result, source: Source) -> String {
        let table = source.table
        let o = fit.options
        var out = "# Link profiles fitted to \(InputError.escapingControls(table.file))\n\n"
        out += "- rows read: \(Format.grouped(Double(table.count + table.droppedCount))); usable: \(Format.grouped(Double(table.count)))"
            + "; not usable: \(Format.grouped(Double(table.droppedCount))) (by reason below)\n"
        out += "- devices: \(Format.grouped(Double(fit.devicesFitted))) fitted"
        if o.holdout > 0 {
            out += ", \(Format.grouped(Double(fit.devicesHeldOut))) held out to judge the fit (a share of \(Format.compact(o.holdout, 3)), "
                + "chosen by a keyed hash of the device id)"
        }
        out += "\n- the law of each link is fitted to the first row of each burst (a row sent less than "
            + "\(Units.formatDuration(o.burstGap)) after the device's previous one is in its burst; docs/telemetry.md)\n"
        out += "- up and down: each direction's medians are \(Format.compact(o.uplinkShare, 3)) and \(Format.compact(1 - o.uplinkShare, 3)) "
            + "of the round trip's (--uplink-share); the directions are drawn independently and add up to the fitted round trip\n"
        out += "- intervals: 95%, bias-corrected percentiles of \(o.resamples) resamples of devices (seed \(o.seed))\n"
        out += "- `fitted.json` extends \(InputError.escapingControls(source.baseName)) and replaces its `network.profiles` with the "
            + "fitted ones: the base's radio, connection and loss models are not kept (telemetry round trips already hold what they add). "
            + "Bandwidth and time-out come from the preset of the same name, else the LTE preset's\n"
        if !fit.unfitted.isEmpty {
            out += "- not fitted (rows but no answered round trip): " + fit.unfitted.map { "'\(InputError.escapingControls($0))'" }.joined(separator: ", ") + "\n"
        }
        if fit.unorderedPairs > 0 {
            out += "- \(Format.grouped(Double(fit.unorderedPairs))) consecutive rows of a device were sent in the same millisecond: "
                + "used for the law, not paired in time (their order is unknown)\n"
        }
        out += "\n## Rows not used\n\n"
        if table.dropped.isEmpty {
            out += "Every row was usable.\n"
        } else {
            out += "| reason | rows | first line |\n|---|---|---|\n"
            for reason in table.dropped.keys.sorted() {
                out += "| \(reason.rawValue) | \(Format.grouped(Double(table.dropped[reason]!))) | \(table.firstDroppedLine[reason].map(String.init) ?? "") |\n"
            }
        }
        for (i, link) in fit.links.enumerated() {
            out += linkSection(link, index: i, options: o)
        }
        return out
    }

    static func linkSection(_ link: TelemetryFit.LinkResult, index: Int, options o: TelemetryFit.Options) -> String {
        let name = InputError.escapingControls(link.name)
        var out = "\n## Link '\(name)'\n\n"
        out += "- \(Format.grouped(Double(link.devices))) devices, \(Format.grouped(Double(link.rows))) rows: "
            + "\(Format.grouped(Double(link.answered))) answered, \(Format.grouped(Double(link.failures))) failed or timed out\n"
        out += "- \(Format.grouped(Double(link.lawRows))) rows start a burst and make the law; the median of those is \(ms(LinkStatistics.quantile(link.sample, 0.5))) ms, "
            + "of every answered row \(ms(link.everyRowMedian)) ms"
        let ratio = link.everyRowMedian / LinkStatistics.quantile(link.sample, 0.5)
        if ratio.isFinite && abs(ratio - 1) > 0.02 {
            out += " (a fit to every row would be \(Format.compact(abs(ratio - 1) * 100, 1))% \(ratio < 1 ? "faster" : "slower"): the bursts' sampling)"
        }
        out += "\n- round-trip law by EM: \(link.roundTrip.iterations) steps\n"
        out += "\n### Fitted figures\n\n| figure | fitted | 95% interval |\n|---|---|---|\n"
        for p in link.parameters {
            out += "| \(p.name) | \(value(p.value, p.unit)) | \(interval(p)) |\n"
        }
        if let j = link.judged {
            out += "\n### Round trips: telemetry and the fitted profile (ms)\n\n"
            out += "Judged on \(link.judgedOnHoldout ? "the held-out devices' rows" : "the rows it was fitted to (no --holdout)"), "
                + "\(Format.grouped(Double(j.telemetryCount))) round trips.\n\n"
            out += "| | p50 | p90 | p99 | p99.9 |\n|---|---|---|---|---|\n"
            out += "| telemetry | " + j.telemetryQuantiles.map(ms).joined(separator: " | ") + " |\n"
            out += "| fitted profile | " + j.modelQuantiles.map(ms).joined(separator: " | ") + " |\n"
            out += "\nKolmogorov–Smirnov distance \(Format.fixed(j.distance, 4)); its critical value at 1% for \(Format.grouped(Double(j.telemetryCount))) "
                + "rows is \(Format.fixed(j.criticalValue, 4)); held to \(Format.fixed(j.tolerance, 4)). "
                + "p50, p90, p99 within their factors (1.10, 1.10, 1.25): " + j.quantilesAgree.map { $0 ? "yes" : "no" }.joined(separator: ", ")
                + ". **\(j.agrees ? "Agrees" : "Does not agree")** (docs/telemetry.md, \"When a run agrees\").\n"
        }
        out += "\n### Correlation in time\n\n"
        if let tau = link.timeConstant, let w = link.correlatedShare {
            out += "AR(1) on log-delay with a nugget, correlated share \(Format.compact(w, 4)) and time constant \(Units.formatDuration(tau)) "
                + "(latent normals Δt apart correlate at w·e^(−Δt/τ)): "
        } else if let tau = link.timeConstant {
            out += "AR(1) on log-delay, time constant \(Units.formatDuration(tau)): "
        } else {
            out += "Independent: no gap range shows a correlation three standard errors above zero. "
        }
        out += "the Gaussian correlation of one device's consecutive round trips (normal scores), by gap.\n\n"
        out += "| gap | pairs | mean gap (s) | data | fitted |\n|---|---|---|---|---|\n"
        for row in link.lags {
            out += "| \(Format.compact(row.from, 2))–\(Format.compact(row.to, 2)) s | \(Format.grouped(Double(row.pairs))) | "
                + (row.meanGap.isFinite ? Format.compact(row.meanGap, 2) : "") + " | "
                + (row.data.isFinite ? Format.fixed(row.data, 3) : "too few pairs") + " | "
                + (row.fitted.isFinite ? Format.fixed(row.fitted, 3) : "") + " |\n"
        }
        out += "\n![Q–Q: link '\(name)'](\(chartName(index)))\n"
        return out
    }

    static func value(_ v: Double, _ unit: String) -> String {
        guard v.isFinite else { return unit == "s" ? "independent" : "n/a" }
        switch unit {
        case "ms": return Format.compact(v, v < 10 ? 3 : 1) + " ms"
        case "s": return Format.compact(v, 2) + " s"
        case "share": return Format.compact(v, 4)
        default: return Format.fixed(v, 3)
        }
    }

    static func interval(_ p: TelemetryFit.Parameter) -> String {
        guard p.low.isFinite && p.high.isFinite else { return "—" }
        var text = value(p.low, p.unit) + " – " + value(p.high, p.unit)
        if p.undefined > 0 { text += " (\(p.undefined) resamples: \(p.unit == "s" ? "independent" : "not fitted"))" }
        return text
    }

    // MARK: fit.csv

    public static func csv(_ fit: TelemetryFit.Result) -> String {
        var out = "link,kind,name,value,low,high\n"
        func n(_ x: Double) -> String { x.isFinite ? Format.compact(x, 6) : "" }
        for link in fit.links {
            let l = Format.csv(link.name)
            for p in link.parameters {
                out += "\(l),parameter,\(Format.csv(p.name + (p.unit.isEmpty || p.unit == "share" ? "" : " (\(p.unit))"))),\(n(p.value)),\(n(p.low)),\(n(p.high))\n"
            }
            if let j = link.judged {
                for (i, q) in TelemetryAgreement.probabilities.enumerated() {
                    let name = "p" + Format.compact(q * 100, 1)
                    out += "\(l),telemetry_ms,\(name),\(n(j.telemetryQuantiles[i] / 1e6)),,\n"
                    out += "\(l),fitted_ms,\(name),\(n(j.modelQuantiles[i] / 1e6)),,\n"
                }
                out += "\(l),agreement,ks_distance,\(n(j.distance)),,\n\(l),agreement,critical_value,\(n(j.criticalValue)),,\n"
                out += "\(l),agreement,agrees,\(j.agrees ? 1 : 0),,\n"
            }
            for row in link.lags {
                out += "\(l),lag_correlation,\(Format.compact(row.from, 2))-\(Format.compact(row.to, 2))s,\(n(row.data)),\(n(row.fitted)),\(row.pairs)\n"
            }
        }
        return out
    }

    // MARK: Q–Q chart

    /// The data's quantiles (the rows the fit used) against the fitted profile's, both in ms on log axes,
    /// at 1% steps and 99.5%, 99.9%: on the diagonal where they agree.
    static func qqChart(_ link: TelemetryFit.LinkResult) -> String {
        var probabilities = (1...99).map { Double($0) / 100 }
        probabilities += [0.995, 0.999]
        var points: [ChartPoint] = []
        let sample = link.sample
        for p in probabilities where !sample.isEmpty {
            points.append(ChartPoint(link.law.quantile(p) / 1e6, LinkStatistics.quantile(sample, p) / 1e6))
        }
        let values = points.flatMap { [$0.x, $0.y] }
        let x = ChartAxis.logTimeMs(label: "fitted profile's round trip (log scale)", values: values)
        let y = ChartAxis.logTimeMs(label: "telemetry's round trip, rows fitted (log scale)", values: values)
        let lo = max(x.lower, y.lower), hi = min(x.upper, y.upper)
        let chart = LineChart(
            title: "Q–Q: link '\(InputError.escapingControls(link.name))', telemetry against the fitted profile",
            x: x, y: y,
            series: [LineSeries(name: "quantiles 1%–99.9%", color: ChartPalette.color(0), width: 0, runs: [points], markers: true),
                     LineSeries(name: "equal", color: "#999999", dashed: true, width: 1, runs: [[ChartPoint(lo, lo), ChartPoint(hi, hi)]])],
            noDataMessage: "no round trips")
        return chart.svg()
    }
}
