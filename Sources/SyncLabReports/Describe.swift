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
        case is SuspendingClock: return "suspending (mach_absolute_time / CACurrentMediaTime: stops in deep sleep)"
        case is ContinuousClock: return "continuous (mach_continuous_time / CLOCK_BOOTTIME: counts through sleep)"
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
        return t.name
    }

    static func refetch(_ r: any RefetchPolicy) -> String {
        if let u = r as? UniformWindowRefetch {
            return "uniform \(duration(Double(u.minimum)))–\(duration(Double(u.maximum))) after each load"
        }
        return r.name
    }

    static func retry(_ r: any RetryPolicy) -> String {
        if let f = r as? FixedIntervalRetry { return "every \(duration(Double(f.interval))) until data arrives" }
        return r.name
    }
}
