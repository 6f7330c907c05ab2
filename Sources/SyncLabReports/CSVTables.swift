import SyncLab
import SyncLabKernel

/// The CSV files beside a report: one per table or series, header first, deterministic.
public enum CSVTables {
    /// Requests reaching the server in each server second of the measured window.
    public static func load(_ r: RunResult) -> String {
        // A day is 86,400 rows: written as bytes, since an interpolated string per row was a
        // quarter of a report's work.
        var out = Array("second,requests\n".utf8)
        out.reserveCapacity(out.count + 14 * r.requestsPerSecond.count)
        for (i, n) in r.requestsPerSecond.enumerated() {
            appendDecimal(UInt64(i), to: &out)
            out.append(UInt8(ascii: ","))
            appendDecimal(UInt64(n), to: &out)
            out.append(UInt8(ascii: "\n"))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The decimal digits of n, as `"\(n)"` writes them.
    static func appendDecimal(_ n: UInt64, to out: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for 20 digits, least significant first
        var count = 0
        var rest = n
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            for k in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[k]) }
        }
    }

    /// One row per transition at least one player showed (gap_ms is the worst pair, latest −
    /// earliest; the shares are of its viewers, or of their pairs).
    public static func transitions(_ r: RunResult) -> String {
        var out = "time_s,position,viewers,earliest_ms,latest_ms,gap_ms,spread_p1_p99_ms,in_best_500ms_share,"
            + "spread_p01_p999_ms,in_centred_500ms_share,pairs_within_500ms_share\n"
        for t in r.transitions {
            out += "\(Format.fixed(Double(t.time) / 1e9, 3)),\(t.position),\(t.viewers),\(Format.ms(t.earliest)),"
                + "\(Format.ms(t.latest)),\(Format.ms(t.gap)),\(Format.ms(t.spread)),"
                + "\(Format.fixed(t.bestWindowShare, 6)),\(Format.ms(t.spread999)),\(Format.fixed(t.centredWindowShare, 6)),"
                + "\(t.pairShare.map { Format.fixed($0, 6) } ?? "")\n"
        }
        return out
    }

    static let errorHeader = "samples,abs_p50_ms,abs_p90_ms,abs_p99_ms,abs_max_ms,mean_signed_ms,ahead_share,within_500ms_share"

    static func errorColumns(_ e: ErrorStats) -> String {
        "\(e.count),\(Format.ms(e.quantile(0.5))),\(Format.ms(e.quantile(0.9))),\(Format.ms(e.quantile(0.99))),"
            + "\(Format.ms(e.quantile(1))),\(Format.optional(e.meanSigned.map { $0 / 1e6 }, 3)),"
            + "\(Format.optional(e.aheadShare, 6)),\(Format.optional(e.shareWithin(500 * .millisecond), 6))"
    }

    /// Estimate error of the same syncs measured with each reference clock.
    public static func errorByClock(_ r: RunResult) -> String {
        var out = "clock,\(errorHeader)\n"
        for (name, e) in r.errorByClock { out += "\(Format.csv(name)),\(errorColumns(e))\n" }
        return out
    }

    /// Displayed and estimated error per link profile.
    public static func errorByLink(_ r: RunResult) -> String {
        var out = "link,measure,\(errorHeader)\n"
        for (i, link) in r.scenario.links.enumerated() {
            out += "\(Format.csv(link.name)),displayed,\(errorColumns(r.displayByLink[i]))\n"
            out += "\(Format.csv(link.name)),estimate,\(errorColumns(r.estimateByLink[i]))\n"
        }
        return out
    }

    /// Displayed and estimated error by minutes since the device woke from deep sleep.
    public static func errorByWake(_ r: RunResult) -> String {
        var out = "since_wake,measure,\(errorHeader)\n"
        for i in r.displayByWake.indices {
            let label = wakeLabel(i, count: r.displayByWake.count)
            out += "\(label),displayed,\(errorColumns(r.displayByWake[i]))\n"
            out += "\(label),estimate,\(errorColumns(r.estimateByWake[i]))\n"
        }
        return out
    }

    /// The displayed error's sources: mean, standard deviation and |part| quantiles (ms).
    public static func errorAttribution(_ r: RunResult) -> String {
        let a = r.errorAttribution
        var out = "source,samples,mean_ms,sd_ms,rms_ms,min_ms,max_ms,dominant\n"
        let dominant = a.dominant
        for s in ErrorSource.allCases {
            out += "\(s.key),\(a.count),\(Format.optional(a.mean(s).map { $0 / 1e6 }, 3)),"
                + "\(Format.optional(a.standardDeviation(s).map { $0 / 1e6 }, 3)),\(Format.optional(a.rms(s).map { $0 / 1e6 }, 3)),"
                + "\(a.count == 0 ? "" : Format.ms(a.minimum[s.rawValue])),\(a.count == 0 ? "" : Format.ms(a.maximum[s.rawValue])),"
                + "\(s == dominant)\n"
        }
        return out
    }

    static func wakeLabel(_ i: Int, count: Int) -> String {
        if i == 0 { return "no deep sleep since launch" }
        if i == count - 1 { return "\(i - 1)+ min" }
        return "\(i - 1)-\(i) min"
    }
}
