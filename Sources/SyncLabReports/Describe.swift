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
        }
    }

    static func clock(_ c: any DeviceClock) -> String {
        switch c {
        case is SuspendingDeviceClock: return "suspending (mach_absolute_time / CACurrentMediaTime: stops in deep sleep)"
        case is ContinuousDeviceClock: return "continuous (mach_continuous_time / CLOCK_BOOTTIME: counts through sleep)"
        case let u as BootTimeUptimeClock:
            return u.resolution == .second ? "uptime = time(now) − KERN_BOOTTIME (1 s resolution, follows the wall clock)"
                : "uptime from gettimeofday − boot time (1 µs resolution, follows the wall clock)"
        case is WallClock: return "wall clock (NSDate)"
        case let u as WallUptimeClock:
            return "uptime = wall − boot time recorded at boot (\(u.resolution == .second ? "1 s" : "1 µs") resolution, follows wall-clock changes)"
        default: return c.name
        }
    }

    static func tick(_ t: any TickPolicy) -> String {
        if let timer = t as? TimerTick { return "timer every \(duration(Double(timer.period))) on the \(timer.clock.name) clock, phase set when the Store comes on screen" }
        if t is AlignedTick { return "one-shot timer at each transition's estimated instant (aligned)" }
        if let link = t as? DisplayLinkTick { return "display link at \(link.rate) Hz on the continuous clock" }
        return t.name
    }

    static func refetch(_ r: any RefetchPolicy) -> String {
        if let u = r as? UniformWindowRefetch {
            return "uniform \(duration(Double(u.minimum)))–\(duration(Double(u.maximum))) after each load"
        }
        if let a = r as? AlignedToPublicationRefetch {
            return "at the first publication (\(duration(Double(a.lag))) after a \(duration(Double(a.period))) boundary) "
                + "at least \(duration(Double(a.after))) after each load, plus uniform 0–\(duration(Double(a.window)))"
        }
        return r.name
    }

    /// The client design's options beyond its plug-in names, or nil for none (the seeds' design).
    static func clientOptions(_ c: ClientDesign) -> String? {
        var parts: [String] = []
        if let ntp = c.estimator as? NTPEstimator { parts.append("NTP clock filter over the last \(ntp.window) exchanges (minimum delay)") }
        if c.probes > 1 { parts.append("best of \(c.probes) back-to-back probes per sync (smallest round trip)") }
        if c.syncReading == .responseHeaders {
            parts.append("sync read when the response headers arrive (the server's stamps travel in them), not after the file")
        }
        if let d = c.driftCorrection {
            parts.append("drift correction from syncs at least \(duration(Double(d.minInterval))) apart, clamped to ±\(Format.compact(Double(d.maxPPB) / 1_000, 1)) ppm")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    static func retry(_ r: any RetryPolicy) -> String {
        if let f = r as? FixedIntervalRetry { return "every \(duration(Double(f.interval))) until data arrives" }
        if let e = r as? ExponentialBackoffRetry {
            return "exponential backoff from \(duration(Double(e.base))) capped at \(duration(Double(e.cap))), \(e.jitter.rawValue) jitter"
        }
        return r.name
    }
}
