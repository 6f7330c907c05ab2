import SyncLab
import SyncLabKernel

/// The report sections of the opt-in server models: the serving models' queue and outages, and
/// the original plan's database, bursts, bare Store and early-visibility leak. Empty when the
/// scenario uses none, so the v1.1.5 reports are unchanged.
public enum ServerSections {
    public static func markdown(_ r: RunResult) -> String {
        var md = ""
        if let s = r.serving { md += serving(r, s) }
        if let d = r.database { md += database(r, d) }
        return md
    }

    static func serving(_ r: RunResult, _ f: ServingFigures) -> String {
        let c = r.scenario.server
        var md = "\n## Server queue and faults\n\n"
        md += "- Timestamp taken \(c.timestampAt.detail)"
            + ", resolution \(Units.formatDuration(c.timestampResolution)).\n"
        if let fleet = c.fleet {
            md += "- Fleet of \(fleet.servers) servers, \(fleet.balancing.rawValue) balancing; clock offsets "
                + f.serverOffsets.map { Format.human($0) }.joined(separator: ", ")
                + "; requests served per server " + f.perServer.map(String.init).joined(separator: ", ") + ".\n"
            md += serverClocks(fleet, f, resolution: c.timestampResolution)
        }
        md += "- Workers per server: \(c.workers.map(String.init) ?? "unlimited")"
            + (c.queueLimit.map { ", at most \($0) waiting" } ?? "") + ". "
            + "\(f.requests) requests served; queueing delay mean \(Format.human(f.waitMean.map { Int64($0.rounded()) })), "
            + "p99 \(Format.human(f.waitP99)), max \(Format.human(f.waitMax)); longest queue \(f.maxQueueLength).\n"
        md += "- Turned away: \(f.queueFull) with the queue full; outages: \(f.outageRefused) refused, \(f.outageTimedOut) timed out.\n"
        for o in c.outages {
            md += "- Outage at \(Units.formatDuration(o.at.ns)) for \(Units.formatDuration(o.duration)) (\(o.mode.rawValue)).\n"
        }
        if r.scenario.server.couplesPlayers {
            md += "- Players share the fleet's queues and balancer: the fleet runs as its own part, with the players' shards kept in step with it, so the results are the same for any number of threads.\n"
        }
        return md
    }

    /// With server clocks set apart (`fleet.clockOffsets`, `fleet.faults`): the faults, and per
    /// server what its stamps carried and when it was off true time by a resolution or more.
    static func serverClocks(_ fleet: Fleet, _ f: ServingFigures, resolution: Nanoseconds) -> String {
        guard !f.serverClocks.isEmpty else { return "" }
        var md = ""
        for fault in fleet.faults { md += "- Server clock fault: \(fault.summary).\n" }
        for (k, r) in f.serverClocks.enumerated() {
            md += "- Server \(k)'s clock: "
            guard r.stamps > 0 else {
                md += "no stamp in the window.\n"
                continue
            }
            // A stamp truncates: what it carried is its offset less under one resolution, so the
            // offsets show rounded up to the resolution, and the instants to the second.
            func offset(_ ns: Int64) -> String { Units.formatDuration(ceilDiv(ns, resolution) &* resolution) }
            let carried = offset(r.carriedMin) == offset(r.carriedMax) ? offset(r.carriedMin)
                : "\(offset(r.carriedMin)) to \(offset(r.carriedMax))"
            md += "its \(r.stamps) stamps carried an offset of \(carried) (timestamp minus the true instant, to the \(Units.formatDuration(resolution)) resolution); "
            md += r.wrongFrom > r.wrongUntil ? "right throughout.\n"
                : "wrong from \(Units.formatDuration(floorTo(r.wrongFrom, .second))) to \(Units.formatDuration(ceilDiv(r.wrongUntil, .second) &* .second)) (to the second).\n"
        }
        return md
    }

    static func database(_ r: RunResult, _ d: DatabaseFigures) -> String {
        let plan = r.scenario.server.design ?? DatabasePlan()
        var md = "\n## The original plan: database per position\n\n"
        md += "Players ask the API for the whole Store when it comes on screen and for one position each time its item runs out; "
            + "the API queries a database with \(plan.connections) connections, query time \(Describe.distribution(plan.queryTime, .duration)) "
            + "(at most about \(Format.fixed(plan.capacityPerSecond, 0)) queries per second), "
            + (plan.queueLimit.map { "at most \($0) waiting, " } ?? "")
            + "time-out \(Units.formatDuration(plan.timeout)). Item ends get \(Describe.distribution(plan.endJitter, .duration)) added; "
            + "each item's row answers \(Describe.distribution(plan.overlap, .duration)) before its start. "
            + "Run as a single shard: every player shares the database. "
            + "The transition gap counts the players who watched a change happen (the position's item ran out and its reload "
            + "brought the next one); an item a Store load shows before its start is in the early figures below, not in the gap.\n\n"
        md += "| figure | value |\n|---|---|\n"
        let f = r.figures
        md += "| requests per second peak / p99.9 / p99 / mean (same-second bursts) | \(Format.optional(f[Figure.peakRequestsPerSecond.key] ?? nil, 0)) / "
            + "\(Format.optional(f[Figure.p999RequestsPerSecond.key] ?? nil, 0)) / \(Format.optional(f[Figure.p99RequestsPerSecond.key] ?? nil, 0)) / "
            + "\(Format.optional(f[Figure.meanRequestsPerSecond.key] ?? nil, 2)); peak/mean \(Format.optional(f[Figure.peakToMeanRatio.key] ?? nil, 0)) |\n"
        md += "| Store loads / single-position reloads | \(d.storeLoads) / \(d.positionRequests) |\n"
        md += "| queries run; wait for a connection mean / p99 / max | \(d.queries); \(Format.human(d.waitMean.map { Int64($0.rounded()) })) / "
            + "\(Format.human(d.waitP99)) / \(Format.human(d.waitMax)) |\n"
        md += "| longest queue | \(d.maxQueueLength) |\n"
        md += "| errors: queue full / past the time-out / API down | \(d.queueFull) / \(d.timedOut) / \(d.outageRefused + d.outageTimedOut) |\n"
        md += "| viewing position-time bare (the Store emptying) | \(Format.percent(r.figures[Figure.bareShare.key] ?? nil, 3)) |\n"
        let earlyShare = d.positionSamples == 0 ? nil : Double(d.earlyPositionSamples) / Double(d.positionSamples)
        md += "| viewing position-time showing an item before its start | \(Format.percent(earlyShare, 3)) |\n"
        md += "| items shown before their start | \(d.earlyShows) of \(d.shows) shows; early by mean \(Format.human(d.earlyShowMean.map { Int64($0.rounded()) })), "
            + "max \(Format.human(d.earlyShowMax)) |\n"
        md += "| item changes some player saw early | \(d.transitionsSeenEarly) of \(d.transitions); earliest sighting per change mean "
            + "\(Format.human(d.earlyPerTransitionMean.map { Int64($0.rounded()) })), max \(Format.human(d.earlyPerTransitionMax)) |\n"
        md += "| how early the API answers with the next item (any poller) | mean \(Format.human(d.apiLeadMean.map { Int64($0.rounded()) })), "
            + "max \(Format.human(d.apiLeadMax)) |\n"
        md += "\nBare share of viewing position-time by minute (the Store emptying"
            + (r.scenario.population.release.map { " after the release at \(Units.formatDuration($0.at.ns))" } ?? "") + "):\n\n"
        let worst = d.bareByMinute.indices.filter { d.bareByMinute[$0] != nil }
            .max { (d.bareByMinute[$0] ?? 0) < (d.bareByMinute[$1] ?? 0) }
        if let worst {
            md += "Worst minute: \(worst)–\(worst + 1), \(Format.percent(d.bareByMinute[worst] ?? nil, 2)) bare.\n\n"
        }
        md += "| minutes | bare |\n|---|---|\n"
        let step = max(1, d.bareByMinute.count / 24)
        var m = 0
        while m < d.bareByMinute.count {
            let chunk = d.bareByMinute[m..<min(m + step, d.bareByMinute.count)].compactMap { $0 }
            let share = chunk.isEmpty ? nil : chunk.reduce(0, +) / Double(chunk.count)
            md += "| \(m)–\(min(m + step, d.bareByMinute.count)) | \(Format.percent(share, 2)) |\n"
            m += step
        }
        return md
    }

    /// Extra `summary.json` lines (each `  "key": value`), none when no model is on.
    public static func summaryLines(_ r: RunResult) -> [String] {
        var lines: [String] = []
        func n(_ x: Double?) -> String { x.map { $0.isFinite ? Format.fixed($0, 3) : "null" } ?? "null" }
        func ms(_ ns: Int64?) -> String { n(ns.map { Double($0) / 1e6 }) }
        if let s = r.serving {
            lines.append("  \"serverQueue\": { \"requests\": \(s.requests), \"waitMsMean\": \(n(s.waitMean.map { $0 / 1e6 })), "
                + "\"waitMsP99\": \(ms(s.waitP99)), \"waitMsMax\": \(ms(s.waitMax)), \"maxQueueLength\": \(s.maxQueueLength), "
                + "\"queueFull\": \(s.queueFull), \"outageRefused\": \(s.outageRefused), \"outageTimedOut\": \(s.outageTimedOut), "
                + "\"singleShard\": \(s.singleShard) }")
        }
        if let d = r.database {
            lines.append("  \"originalPlan\": { \"storeLoads\": \(d.storeLoads), \"positionRequests\": \(d.positionRequests), "
                + "\"queries\": \(d.queries), \"waitMsMean\": \(n(d.waitMean.map { $0 / 1e6 })), \"waitMsP99\": \(ms(d.waitP99)), "
                + "\"maxQueueLength\": \(d.maxQueueLength), \"queueFull\": \(d.queueFull), \"timedOut\": \(d.timedOut), "
                + "\"earlyShows\": \(d.earlyShows), \"shows\": \(d.shows), \"earlyShowMsMax\": \(ms(d.earlyShowMax)), "
                + "\"transitionsSeenEarly\": \(d.transitionsSeenEarly), \"transitions\": \(d.transitions), "
                + "\"earlyPerTransitionMsMean\": \(n(d.earlyPerTransitionMean.map { $0 / 1e6 })), "
                + "\"apiLeadMsMean\": \(n(d.apiLeadMean.map { $0 / 1e6 })) }")
        }
        return lines
    }
}
