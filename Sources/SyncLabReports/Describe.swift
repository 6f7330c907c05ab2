import SyncLab
import SyncLabKernel

/// Scenario parts in words, for the "what was simulated" section.
enum Describe {
    static func duration(_ ns: Double) -> String { Units.formatDuration(Int64(ns.rounded())) }

    static func value(_ v: Double, _ q: Quantity) -> String {
        switch q {
        case .duration: return duration(v)
        case .rate: return v >= 1e6 ? Format.fixed(v / 1e6, 2) + " MB/s" : Format.fixed(v / 1e3, 1) + " kB/s"
        case .number: return Format.fixed(v, 2)
        }
    }

    static func distribution(_ d: Distribution, _ q: Quantity) -> String {
        switch d {
        case .constant(let v): return value(v, q)
        case .uniform(let lo, let hi): return "uniform \(value(lo, q))–\(value(hi, q))"
        case .normal(let m, let sd): return "normal(mean \(value(m, q)), sd \(value(sd, q)))"
        case .lognormal(let median, let sigma): return "lognormal(median \(value(median, q)), σ \(Format.fixed(sigma, 2)))"
        case .exponential(let mean): return "exponential(mean \(value(mean, q)))"
        case .pareto(let scale, let shape): return "Pareto(scale \(value(scale, q)), shape \(Format.fixed(shape, 2)))"
        case .empirical(let s): return "trace of \(s.count) samples"
        case .geometric(let mean): return "geometric(mean \(Format.fixed(mean, 1)))"
        case .lognormalMixture(let m):
            return "lognormal(median \(value(m.bodyMedian, q)), σ \(Format.fixed(m.bodySigma, 2))) with a "
                + "\(Format.fixed(m.tailShare * 100, 1))% tail lognormal(median \(value(m.tailMedian, q)), σ \(Format.fixed(m.tailSigma, 2)))"
                + (m.outageShare > 0 ? " and a \(Format.fixed(m.outageShare * 100, 1))% outage lognormal(median \(value(m.outageMedian, q)), σ \(Format.fixed(m.outageSigma, 2)))" : "")
        }
    }

    /// A client plug-in in words: its own `summary`, or its name when it is not a registered
    /// `Plugin` (a value an app built in Swift).
    static func summary(_ plugin: Any, _ name: String) -> String { (plugin as? any Plugin)?.summary ?? name }

    /// The client design's options beyond its plug-in names, or nil for none (the seeds' design):
    /// each plug-in's own `settings`, then the design's options.
    static func clientOptions(_ c: ClientDesign) -> String? {
        let plugins: [Any] = [c.clock, c.estimator, c.tick, c.refetch, c.retry]
        var parts = plugins.compactMap { ($0 as? any Plugin)?.settings }
        if c.probes > 1 {
            parts.append(c.estimator.readsEveryProbe ? "\(c.probes) back-to-back probes per sync, all read by the estimator"
                                                     : "best of \(c.probes) back-to-back probes per sync (smallest round trip)")
        }
        if let target = c.probeTarget.summary { parts.append(target) }
        if let limit = c.maxSyncBound {
            parts.append("a round whose estimate claims a ± bound over \(duration(Double(limit))) is not used and is retried")
        }
        if let within = c.showFirstAnswerWithin, c.probes > 1 {
            parts.append("a player with nothing current to show shows the first answer of its round whose ± bound is within "
                         + "\(duration(Double(within))) at once, then the round's estimate")
        }
        if c.persistSync { parts.append("last sync kept across app launches (restored unless the device rebooted or its wall clock was set)") }
        if c.syncReading == .responseHeaders {
            parts.append("sync read when the response headers arrive (the server's stamps travel in them), not after the file")
        }
        if let d = c.driftCorrection {
            parts.append("drift correction from syncs at least \(duration(Double(d.minInterval))) apart, clamped to ±\(Format.compact(Double(d.maxPPB) / 1_000, 1)) ppm")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// `text` with every "$" escaped: GitHub reads text between two dollar signs as maths.
    static func escapingDollars(_ text: String) -> String {
        String(text.flatMap { $0 == "$" ? ["\\", "$"] : [$0] })
    }
}
