import Foundation
import SyncLabKernel

/// What calibrating a link from measured traces looks at (`synclab trace-stats`, docs/links.md
/// "Calibrated from measured links"): crossing times, how alike one sender's crossings are at a
/// lag, and the trace's outages. Pure: traces in, figures out.
///
/// A trace is entered at instants spread evenly over one pass, one every `step` with a
/// sub-millisecond jitter that follows the golden ratio (so entries do not all fall on whole
/// milliseconds, where every wait would be a whole number of them): the time average a sender
/// arriving at a uniform random instant sees, without drawing anything.
public enum LinkStatistics {
    /// The entry instants over one pass of `length` ns, `step` apart: at least one (at 0), so a
    /// pass shorter than `step` is entered too. The caller bounds `length / step`, the count.
    public static func entries(length: Nanoseconds, step: Nanoseconds = 5 * .millisecond) -> [Int64] {
        let count = max(1, Int(length / step))
        return (0..<count).map { i in
            let jitter = (Double(i) * 0.6180339887498949).truncatingRemainder(dividingBy: 1)
            return Int64(i) * step + Int64(jitter * 1e6)
        }
    }

    /// The round trip of a request of `requestPackets` and a response of `responsePackets` that
    /// enters the downlink when the request's last packet is across (no service time, no base
    /// delay), ns: (the request's crossing, the response's first packet, its last).
    public static func roundTrip(_ link: TraceLink, at entry: Int64, requestPackets: Int, responsePackets: Int)
        -> (request: Int64, first: Int64, last: Int64) {
        let up = link.uplink.exits(entering: entry, packets: requestPackets)
        let request = up.last - entry
        let down = link.downlink.exits(entering: up.last, packets: responsePackets)
        return (request, request + down.first - up.last, request + down.last - up.last)
    }

    /// The value at probability `p` of sorted values (nearest rank).
    public static func quantile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Of the pairs whose first value is above its `p`-quantile, the share whose second is above
    /// the same level: p's complement if the two are independent, 1 if a bad spell outlasts the lag.
    public static func tailShare(_ x: [Double], _ y: [Double], above p: Double) -> Double {
        let level = quantile(x.sorted(), p)
        let high = x.indices.filter { x[$0] > level }
        guard !high.isEmpty else { return .nan }
        return Double(high.filter { y[$0] > level }.count) / Double(high.count)
    }

    /// Spearman's rank correlation of paired values (ties share their mean rank).
    public static func rankCorrelation(_ x: [Double], _ y: [Double]) -> Double {
        pearson(ranks(x), ranks(y))
    }

    /// The correlation of the Gaussian behind a rank correlation ρs, if the pair is a monotone
    /// transform of a bivariate normal (a Gaussian copula, as `AR1Delays` draws): 2·sin(π·ρs/6)
    /// (Pearson 1907; Kruskal 1958). This is what `AR1Delays` calls the correlation of log-delay.
    public static func gaussianCorrelation(rank rs: Double) -> Double {
        2 * Foundation.sin(Double.pi * rs / 6)
    }

    static func ranks(_ x: [Double]) -> [Double] {
        let order = x.indices.sorted { x[$0] < x[$1] || (x[$0] == x[$1] && $0 < $1) }
        var r = [Double](repeating: 0, count: x.count)
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count && x[order[j + 1]] == x[order[i]] { j += 1 }
            let mean = Double(i + j) / 2 + 1
            for k in i...j { r[order[k]] = mean }
            i = j + 1
        }
        return r
    }

    static func pearson(_ x: [Double], _ y: [Double]) -> Double {
        let n = Double(x.count)
        let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (a, b) in zip(x, y) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
            syy += (b - my) * (b - my)
        }
        return sxx > 0 && syy > 0 ? sxy / (sxx * syy).squareRoot() : .nan
    }

    /// The time between consecutive distinct opportunities over one pass, the loop's own gap
    /// (from the last to the first of the next pass) included, ms.
    public static func gaps(_ trace: DeliveryOpportunities) -> [Int64] {
        let t = trace.milliseconds
        var gaps: [Int64] = []
        for i in 1..<t.count where t[i] != t[i - 1] { gaps.append(t[i] - t[i - 1]) }
        if t[0] > 0 { gaps.append(t[0]) }   // from the end (= length) to the next pass's first
        return gaps
    }

    /// Whether a trace of `length` can tell a lag apart: the trace repeats, so a lag and its
    /// distance to the nearest whole number of passes are the same; below half a pass it is
    /// itself.
    public static func informs(lag: Nanoseconds, length: Nanoseconds) -> Bool { lag * 2 < length }

    /// The time constant an AR(1) needs to correlate at `correlation` after `lag`: −lag / ln ρ.
    public static func timeConstant(lag: Nanoseconds, correlation: Double) -> Double? {
        guard correlation > 0 && correlation < 1 else { return nil }
        return -Double(lag) / 1e9 / DeterministicMath.log(correlation)
    }
}
