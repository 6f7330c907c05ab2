import Foundation
import SyncLab
import SyncLabKernel

/// `synclab trace-stats`: what a pair of measured delivery traces says about a link's delays,
/// for calibrating the link presets (docs/links.md, "Calibrated from measured links").
struct TraceStatsCommand {
    let cli: CLI

    static let help = """
    synclab trace-stats — crossing times, lag correlations and outages of a Mahimahi trace pair

    USAGE
      synclab trace-stats UPLINK DOWNLINK [--message-bytes N] [--base-delay D] [--against PRESET|SCENARIO.json [--link NAME]]
                          [--tau D] [--telemetry-out FILE [--link-label NAME]]

    UPLINK and DOWNLINK are packet-delivery traces in Mahimahi's format (one line per 1500-byte
    delivery opportunity, ms since the start; the trace repeats). The traces are entered every
    5 ms of one pass; at each instant a request of one packet crosses the uplink and, once it
    is across, a response crosses the downlink: of one packet, and of the store file's packets
    (--message-bytes, default the default scenario's store file). Printed, in Markdown:
      - the crossing times' quantiles (ms), with --base-delay added each way (default 0s);
      - the rank correlation of one sender's round trips 0.1 s, 1 s, 10 s, 1 min and 7 min apart,
        as the correlation of the Gaussian behind it (2·sin(π·ρs/6)) and the AR(1) time constant
        that correlation implies; a lag of half a pass or more is not informed (the trace repeats);
      - the outages: gaps between delivery opportunities, by length.
    With --against, the same figures for a link preset, drawn through its delay process
    (its own correlation, or an AR(1) with time constant --tau), 20,000 players. --against a
    scenario file (such as the fitted.json `synclab fit` writes) takes its link profile --link
    (needed when it has several).

    With --telemetry-out, the 1 + 1-packet round trips (base delay included) are also written to
    FILE as a telemetry CSV (docs/telemetry.md: device,sent,rtt_ms,link): each 5 ms entry is a
    device e0, e1, … with an exchange at its entry and one at each informed lag after it; `sent`
    counts from a fixed epoch, 2026-01-01T00:00:00Z (1767225600000 ms), and the link is labelled
    --link-label (default "trace"). The file is replaced atomically; it may not be a trace.

    LIMITS
      a trace file of at most \(MahimahiTrace.maximumFileBytes) bytes and \(MahimahiTrace.maximumOpportunities) lines; a pass of at most \(Units.formatDuration(maximumPass));
      --message-bytes 1 to \(maximumMessageBytes), crossing the downlink within \(Units.formatDuration(TraceLink.maximumCrossing));
      --base-delay 0s to \(Units.formatDuration(maximumBaseDelay)); --tau \(Units.formatDuration(AR1Delays.minimumTimeConstant)) to \(Units.formatDuration(maximumTau)).

    EXAMPLE
      synclab trace-stats traces/lte.up traces/lte.down --base-delay 25ms --against lte
      synclab trace-stats traces/lte.up traces/lte.down --base-delay 25ms --telemetry-out lte.csv --link-label lte

    """

    static let lags: [Nanoseconds] = [100 * .millisecond, .second, 10 * .second, .minute, 7 * .minute]
    static let probabilities = [0.5, 0.9, 0.99, 0.999]
    static let options = OptionTable(command: "trace-stats", options: [
        OptionSpec("--message-bytes", .whole(1...UInt64(maximumMessageBytes)), "N",
                   refusal: ": expected a whole number from 1 to \(maximumMessageBytes)"), OptionSpec("--base-delay", .duration, "D"),
        OptionSpec("--against", .text, "PRESET"), OptionSpec("--tau", .duration, "D"), OptionSpec("--telemetry-out", .path, "FILE"),
        OptionSpec("--link-label", .text, "NAME"), OptionSpec("--link", .text, "NAME"),
    ], help: help, escapesControls: true)
    /// `sent` of a `--telemetry-out` row at instant 0 of the pass: 2026-01-01T00:00:00Z in ms.
    static let telemetryEpochMs: Int64 = 1_767_225_600_000
    /// What a telemetry CSV `trace-stats` wrote starts with: its header and first row's start
    /// (only such a file, or an empty one, is replaced).
    static let telemetryKind = OutputFile.Kind(described: "a telemetry CSV written by 'synclab trace-stats'",
                                               signature: "device,sent,rtt_ms,link\ne0,1767225600000,", within: 64)

    /// The longest pass read: entered every 5 ms, 6 h is 4.32 million entries, each with a round
    /// trip at every lag and a best of 1, 2 and 4 (some 100 bytes and 30 crossings an entry; a
    /// 6 h pair took 21 s and 400 MB on the 2-core build machine).
    static let maximumPass: Nanoseconds = 6 * 3_600 * .second
    /// The largest `--message-bytes`: 666,667 packets.
    static let maximumMessageBytes = 1_000_000_000
    /// The longest `--base-delay`, added each way.
    static let maximumBaseDelay: Nanoseconds = 3_600 * .second
    /// The longest `--tau`.
    static let maximumTau: Nanoseconds = 30 * 86_400 * .second

    func main(_ arguments: [String]) -> Int32 {
        // An option given twice is refused by the parser (OptionTable.shapeProblem).
        let parsed: ParsedArguments
        switch cli.parse(arguments, Self.options) {
        case .done(let status): return status
        case .parsed(let p): parsed = p
        }
        guard parsed.positional.count == 2 else { return usage("expected UPLINK and DOWNLINK trace files") }
        guard case .success(let messageBytes) = cli.whole("--message-bytes", parsed, Self.options, as: Int.self) else { return 2 }
        let bytes: Int
        if let n = messageBytes {
            bytes = n
        } else if let s = try? ShippedScenarios.load("v115-pausing") {
            bytes = s.server.file.responseBytes(items: s.positions)
        } else {
            bytes = 3_000
        }
        var base: Nanoseconds = 0
        if let text = parsed.options["--base-delay"] {
            guard case .success(let d) = Units.parseDuration(text), d >= 0, d <= Self.maximumBaseDelay else {
                return usage("--base-delay: expected a duration from 0s to \(Units.formatDuration(Self.maximumBaseDelay)), like \"20ms\"; "
                    + "got \(SafePaths.quoted(text))")
            }
            base = d
        }
        var preset: LinkProfile? = nil
        if let name = parsed.options["--against"] {
            var p: LinkProfile
            if name.hasSuffix(".json") {
                // A scenario's own profile, as the scenario loads it (its process already prepared).
                let links: [LinkProfile]
                do { links = try cli.loader.load(path: name).links } catch { return refuse("\(error)") }
                let wanted = parsed.options["--link"]
                let chosen = wanted.map { w in links.filter { $0.name == w } } ?? links
                guard chosen.count == 1, chosen[0].trace == nil else {
                    let names = links.map { SafePaths.quoted($0.name) }.joined(separator: ", ")
                    if let wanted, chosen.isEmpty {
                        return usage("--link: the scenario has no link profile \(SafePaths.quoted(wanted)); it has \(names)")
                    }
                    if chosen.count == 1 { return usage("--against: link \(SafePaths.quoted(chosen[0].name)) is trace-driven; compare its traces instead") }
                    return usage("--against: the scenario has \(links.count) link profiles (\(names)); name one with --link")
                }
                p = chosen[0]
            } else {
                guard parsed.options["--link"] == nil else { return usage("--link needs --against SCENARIO.json") }
                guard let named = LinkPresets.named(name) else {
                    return usage("--against: unknown link preset \(SafePaths.quoted(name)); expected one of \(LinkPresets.names.joined(separator: ", ")), or a scenario file (.json)")
                }
                p = named
            }
            if let text = parsed.options["--tau"] {
                guard case .success(let tau) = Units.parseDuration(text), tau >= AR1Delays.minimumTimeConstant, tau <= Self.maximumTau else {
                    return usage("--tau: expected a duration from \(Units.formatDuration(AR1Delays.minimumTimeConstant)) to "
                        + "\(Units.formatDuration(Self.maximumTau)); got \(SafePaths.quoted(text))")
                }
                p.correlation = AR1Delays(tau: tau)
            }
            // Presets come untabulated; the draws go through the tables a scenario would build.
            p.correlation = p.correlation.prepared(for: p)
            preset = p
        } else if parsed.options["--tau"] != nil {
            return usage("--tau needs --against PRESET")
        } else if parsed.options["--link"] != nil {
            return usage("--link needs --against SCENARIO.json")
        }
        var label = "trace"
        if let text = parsed.options["--link-label"] {
            guard parsed.options["--telemetry-out"] != nil else { return usage("--link-label needs --telemetry-out FILE") }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.count <= TelemetryCSV.longestLinkLabel,
                  !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
                return usage("--link-label: expected a label of 1 to \(TelemetryCSV.longestLinkLabel) printable characters; got \(SafePaths.quoted(text))")
            }
            label = trimmed
        }
        // Checked before the traces are measured: a typo should not cost the measuring.
        var telemetry: OutputFile.Destination? = nil
        if let path = parsed.options["--telemetry-out"] {
            switch OutputFile.prepare(path, kind: Self.telemetryKind, inputs: parsed.positional) {
            case .success(let destination): telemetry = destination
            case .failure(let problem): return refuse("--telemetry-out: \(problem.message)")
            }
        }
        // Read as a scenario reads a linkTrace (MahimahiTrace.load): the same limits and words.
        var traces: [DeliveryOpportunities] = []
        for path in parsed.positional {
            switch MahimahiTrace.load(path, through: FileSystemScenarioResolver()) {
            case .success(let trace): traces.append(trace)
            case .failure(let problem): return refuse(problem.message)
            }
        }
        for trace in traces where trace.length > Self.maximumPass {
            return refuse("trace file '\(trace.file)' lasts \(Units.formatDuration(trace.length)) a pass; trace-stats enters a pass "
                + "every 5 ms and reads passes of at most \(Units.formatDuration(Self.maximumPass))")
        }
        for (trace, message, size) in [(traces[0], "a request", 1), (traces[1], "--message-bytes \(bytes)", bytes)] {
            if let problem = TraceLink.crossingProblem(message, bytes: size, trace: trace) {
                return refuse("trace file '\(trace.file)': \(problem)")
            }
        }
        let link = TraceLink(uplink: traces[0], downlink: traces[1], baseDelay: base)
        cli.out(Self.report(link, messageBytes: bytes, against: preset))
        if let telemetry {
            do {
                try OutputFile.write(Self.telemetry(link, label: label), to: telemetry)
            } catch {
                return refuse("could not write --telemetry-out '\(telemetry.path)': \(ReportWriter.reason(error))")
            }
        }
        return 0
    }

    /// The 1 + 1-packet round trips (base delay both ways included, the report's "round trip,
    /// 1 + 1 packets") as a telemetry CSV: entry i is device `e<i>`, with one exchange at its
    /// entry and one at each lag of `lags` the pass informs, sent at `telemetryEpochMs` plus the
    /// instant in whole ms; round trips in ms to the microsecond. Rows in device order.
    static func telemetry(_ link: TraceLink, label: String) -> Data {
        let length = max(link.uplink.length, link.downlink.length)
        let entries = LinkStatistics.entries(length: length)
        let offsets = [0] + lags.filter { LinkStatistics.informs(lag: $0, length: length) }
        let cell = Self.csvCell(label)
        var out = Data()
        out.reserveCapacity(24 + entries.count * offsets.count * (28 + cell.count))
        out.append(contentsOf: Array("device,sent,rtt_ms,link\n".utf8))
        var row: [UInt8] = []
        row.reserveCapacity(64 + cell.count)
        func digits(_ n: Int64, _ row: inout [UInt8], width: Int = 1) {
            var d: [UInt8] = []
            var v = n
            repeat { d.append(UInt8(48 + v % 10)); v /= 10 } while v > 0
            while d.count < width { d.append(48) }
            row.append(contentsOf: d.reversed())
        }
        for (i, e) in entries.enumerated() {
            for offset in offsets {
                let at = e + offset
                let ns = LinkStatistics.roundTrip(link, at: at, requestPackets: 1, responsePackets: 1).first + 2 * link.baseDelay
                let us = (ns + 500) / 1_000
                row.removeAll(keepingCapacity: true)
                row.append(UInt8(ascii: "e"))
                digits(Int64(i), &row)
                row.append(UInt8(ascii: ","))
                digits(telemetryEpochMs + at / .millisecond, &row)
                row.append(UInt8(ascii: ","))
                digits(us / 1_000, &row)
                row.append(UInt8(ascii: "."))
                digits(us % 1_000, &row, width: 3)
                row.append(UInt8(ascii: ","))
                row.append(contentsOf: cell)
                row.append(UInt8(ascii: "\n"))
                out.append(contentsOf: row)
            }
        }
        return out
    }

    /// `text` as a CSV cell: quoted (quotes doubled) when it holds a comma or a quote.
    static func csvCell(_ text: String) -> [UInt8] {
        guard text.contains(",") || text.contains("\"") || text.hasPrefix(" ") || text.hasSuffix(" ") else { return Array(text.utf8) }
        return Array(("\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"").utf8)
    }

    /// A usage error, its text escaped (an option's value is the user's).
    func usage(_ message: String) -> Int32 { cli.usageError("trace-stats", InputError.escapingControls(message)) }

    /// Bad input: the message, escaped (a path may hold any character), and status 2.
    func refuse(_ message: String) -> Int32 {
        cli.err(InputError.escapingControls("synclab trace-stats: \(message)") + "\n")
        return 2
    }

    static func ms(_ ns: Double) -> String { String(format: ns < 10e6 ? "%.1f" : "%.0f", ns / 1e6) }
    static func seconds(_ ns: Int64) -> String { Units.formatDuration(ns) }
    /// A pass's length in seconds: whole from 10 s, else to the millisecond ("0.3", "4", "140").
    static func pass(_ ns: Int64) -> String {
        ns >= 10 * .second ? String(format: "%.0f", Double(ns) / 1e9) : String(format: "%g", Double(ns / .millisecond) / 1e3)
    }
    /// A length in seconds to the tenth, or to the millisecond below 0.1 s ("140.0", "0.003").
    static func tenths(_ ns: Int64) -> String {
        ns >= 100 * .millisecond ? String(format: "%.1f", Double(ns) / 1e9) : pass(ns)
    }
    /// A share or correlation to three decimals, or "not informed" where it is undefined: no
    /// round trip above the level, or none that varies.
    static func fixed3(_ x: Double) -> String { x.isNaN ? "not informed" : String(format: "%.3f", x) }
    /// The largest Gaussian correlation told apart from 1 at three decimals.
    static let largestShownCorrelation = 0.9995
    /// The AR(1) time constant a Gaussian correlation `g` at `lag` implies, as printed: "—" when
    /// no AR(1) gives it (g ≤ 0), a lower bound when g prints as 1.000 (it could be any longer
    /// time: the entries cannot tell), else to the hundredth of a second.
    static func timeConstant(lag: Nanoseconds, correlation g: Double) -> String {
        guard g < largestShownCorrelation else {
            let least = LinkStatistics.timeConstant(lag: lag, correlation: largestShownCorrelation) ?? 0
            return "over \(String(format: "%.0f", least.rounded(.down))) s"
        }
        return LinkStatistics.timeConstant(lag: lag, correlation: g).map { String(format: "%.2f s", $0) } ?? "—"
    }

    /// The whole report: pure, for tests.
    static func report(_ link: TraceLink, messageBytes: Int, against preset: LinkProfile?) -> String {
        let k = TraceLink.packets(bytes: messageBytes)
        let length = max(link.uplink.length, link.downlink.length)
        // The paths as given, their control characters escaped (a path may hold any byte).
        var out = "# \(InputError.escapingControls(link.uplink.file)) and \(InputError.escapingControls(link.downlink.file))\n\n"
        for (name, t) in [("uplink", link.uplink), ("downlink", link.downlink)] {
            let mbps = Double(t.milliseconds.count) * 1500 * 8 / (Double(t.length) / 1e9) / 1e6
            let n = t.milliseconds.count
            out += "- \(name): \(n) opportunit\(n == 1 ? "y" : "ies") over \(tenths(t.length)) s, "
                + "\(String(format: "%.2f", mbps)) Mbit/s on average\n"
        }
        let entries = LinkStatistics.entries(length: length)
        out += "- entered \(entries.count == 1 ? "once, at the start" : "every 5 ms") of one \(tenths(length)) s pass; "
            + "base delay \(seconds(link.baseDelay)) each way; store file \(messageBytes) bytes = \(k) packets\n\n"

        // Crossing times.
        var request: [Double] = [], first: [Double] = [], rt1: [Double] = [], rtk: [Double] = [], responseK: [Double] = []
        for e in entries {
            let one = LinkStatistics.roundTrip(link, at: e, requestPackets: 1, responsePackets: 1)
            let many = LinkStatistics.roundTrip(link, at: e, requestPackets: 1, responsePackets: k)
            let b = Double(link.baseDelay)
            request.append(Double(one.request) + b)
            first.append(Double(one.first - one.request) + b)
            responseK.append(Double(many.last - many.request) + b)
            rt1.append(Double(one.first) + 2 * b)
            rtk.append(Double(many.last) + 2 * b)
        }
        out += "## Crossing times (ms)\n\n| message | p50 | p90 | p99 | p99.9 | max | mean |\n|---|---|---|---|---|---|---|\n"
        func row(_ name: String, _ values: [Double]) -> String {
            let sorted = values.sorted()
            let cells = probabilities.map { ms(LinkStatistics.quantile(sorted, $0)) } + [ms(sorted.last!), ms(values.reduce(0, +) / Double(values.count))]
            return "| \(name) | " + cells.joined(separator: " | ") + " |\n"
        }
        out += row("request, 1 packet up", request)
        out += row("response, 1 packet down", first)
        out += row("response, \(k) packets down", responseK)
        out += row("round trip, 1 + 1 packets", rt1)
        out += row("round trip, 1 + \(k) packets", rtk)
        var presetTrips: PresetTrips? = nil
        if let preset {
            presetTrips = PresetTrips(preset, bytes: messageBytes)
            out += row("preset '\(preset.name)': round trip, 1 + 1 packets", presetTrips!.first)
            out += row("preset '\(preset.name)': round trip, 1 + \(k) packets", presetTrips!.firstWithFile)
        }

        // Lag correlations of the 1 + 1 round trip.
        out += "\n## One sender's round trips (1 + 1 packets) at a lag\n\n"
        out += "Rank correlation ρs, the Gaussian correlation behind it (2·sin(π·ρs/6)), the AR(1) time constant that gives it, "
            + "and the tail's persistence: of the round trips above their own p99, the share whose round trip a lag later is above it too "
            + "(0.01 if independent; not informed when no round trip is above it).\n\n"
        out += "| lag | ρs | Gaussian ρ | implied τ | p99 persists |" + (preset == nil ? "" : " preset Gaussian ρ | preset p99 persists |") + "\n"
        out += "|---|---|---|---|---|" + (preset == nil ? "" : "---|---|") + "\n"
        for lag in lags {
            var cells: [String]
            if LinkStatistics.informs(lag: lag, length: length) {
                let later = entries.map { e -> Double in
                    Double(LinkStatistics.roundTrip(link, at: e + lag, requestPackets: 1, responsePackets: 1).first + 2 * link.baseDelay)
                }
                let rs = LinkStatistics.rankCorrelation(rt1, later)
                if rs.isNaN {
                    cells = ["not informed: the round trips do not vary", "", "", ""]
                } else {
                    let g = LinkStatistics.gaussianCorrelation(rank: rs)
                    cells = [String(format: "%.3f", rs), String(format: "%.3f", g), timeConstant(lag: lag, correlation: g),
                             fixed3(LinkStatistics.tailShare(rt1, later, above: 0.99))]
                }
            } else {
                cells = ["not informed: the trace repeats every \(pass(length)) s", "", "", ""]
            }
            if let presetTrips {
                let (a, b) = presetTrips.pairs(lag: lag)
                cells.append(fixed3(LinkStatistics.gaussianCorrelation(rank: LinkStatistics.rankCorrelation(a, b))))
                cells.append(fixed3(LinkStatistics.tailShare(a, b, above: 0.99)))
            }
            out += "| \(seconds(lag)) | " + cells.joined(separator: " | ") + " |\n"
        }

        // Best of n probes sent back to back.
        out += "\n## Best of n round trips (1 + 1 packets), each probe sent as the last one's answer arrives (ms)\n\n"
        out += "| source | n | p50 | p90 | p99 | p99.9 |\n|---|---|---|---|---|---|\n"
        for n in [1, 2, 4] {
            let best = entries.map { e -> Double in
                var t = e, least = Double.infinity
                for _ in 0..<n {
                    let rt = LinkStatistics.roundTrip(link, at: t, requestPackets: 1, responsePackets: 1).first + 2 * link.baseDelay
                    least = min(least, Double(rt))
                    t += rt
                }
                return least
            }.sorted()
            out += "| trace | \(n) | " + probabilities.prefix(1).map { ms(LinkStatistics.quantile(best, $0)) }.joined()
                + " | " + [0.9, 0.99, 0.999].map { ms(LinkStatistics.quantile(best, $0)) }.joined(separator: " | ") + " |\n"
            if let presetTrips {
                let b = presetTrips.bestOf(n).sorted()
                out += "| preset '\(presetTrips.link.name)' | \(n) | " + [0.5, 0.9, 0.99, 0.999].map { ms(LinkStatistics.quantile(b, $0)) }
                    .joined(separator: " | ") + " |\n"
            }
        }

        // Outages.
        out += "\n## Outages: gaps between delivery opportunities\n\n| direction | gap at least | count | per hour | share of time |\n|---|---|---|---|---|\n"
        for (name, t) in [("uplink", link.uplink), ("downlink", link.downlink)] {
            let gaps = LinkStatistics.gaps(t)
            let hours = Double(t.length) / 3.6e12
            for least in [Int64(100), 200, 500, 1_000, 2_000, 5_000] {
                let long = gaps.filter { $0 >= least }
                let share = Double(long.reduce(0, +)) / (Double(t.length) / 1e6)
                out += "| \(name) | \(least) ms | \(long.count) | \(String(format: "%.0f", Double(long.count) / hours)) | "
                    + String(format: "%.4f", share) + " |\n"
            }
            out += "| \(name) | longest | \(gaps.max() ?? 0) ms | | |\n"
        }
        return out
    }

    /// A preset's round trips drawn through its delay process: for each of 20,000 players, one
    /// at t = 0 and one at each lag, up then down at the same instant.
    struct PresetTrips {
        let link: LinkProfile
        let first: [Double]
        let firstWithFile: [Double]
        static let players = 20_000

        init(_ link: LinkProfile, bytes: Int) {
            self.link = link
            var f: [Double] = [], withFile: [Double] = []
            for p in 0..<Self.players {
                var memory = LinkMemory()
                var rng = Self.stream(p)
                let rt = Self.roundTrip(link, &memory, .zero, p, &rng)
                f.append(rt)
                withFile.append(rt + Double(LinkProfile.transferTime(bytes: bytes, bytesPerSecond: link.bandwidth.sample(&rng))))
            }
            first = f
            firstWithFile = withFile
        }

        static func stream(_ p: Int) -> RandomStream { RandomStream(seed: 1, purpose: StreamPurpose("trace-stats"), entity: UInt64(p)) }

        /// Each way's delay held at its floor, as the world holds it (`LinkProfile.floored`).
        static func roundTrip(_ link: LinkProfile, _ memory: inout LinkMemory, _ at: SimTime, _ p: Int, _ rng: inout RandomStream) -> Double {
            let up = link.correlation.delay(.uplink, on: link, memory: &memory, at: at, player: UInt64(p), seed: 1, &rng)
            let down = link.correlation.delay(.downlink, on: link, memory: &memory, at: at, player: UInt64(p), seed: 1, &rng)
            return Double(link.floored(Distribution.duration(up), .uplink) + link.floored(Distribution.duration(down), .downlink))
        }

        /// Each player's round trip at 0 and a lag later.
        func pairs(lag: Nanoseconds) -> ([Double], [Double]) {
            var a: [Double] = [], b: [Double] = []
            for p in 0..<Self.players {
                var memory = LinkMemory()
                var rng = Self.stream(p)
                a.append(Self.roundTrip(link, &memory, .zero, p, &rng))
                b.append(Self.roundTrip(link, &memory, SimTime(ns: lag), p, &rng))
            }
            return (a, b)
        }

        /// Each player's best of `n` round trips, each drawn as the last one ends.
        func bestOf(_ n: Int) -> [Double] {
            (0..<Self.players).map { p in
                var memory = LinkMemory()
                var rng = Self.stream(p)
                var t = 0.0, least = Double.infinity
                for _ in 0..<n {
                    let rt = Self.roundTrip(link, &memory, SimTime(ns: Int64(t)), p, &rng)
                    least = min(least, rt)
                    t += rt
                }
                return least
            }
        }
    }
}
