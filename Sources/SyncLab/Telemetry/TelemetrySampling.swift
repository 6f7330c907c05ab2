import SyncLabKernel

/// How the telemetry's rows are turned into draws of a link's law, guarding against how they
/// were sampled (docs/telemetry.md, "How the telemetry was sampled").
///
/// An app that probes again as soon as an answer arrives (a best-of-n sync, a retry, a session
/// that keeps syncing) sends more requests in a link's good spells than in its bad ones: the
/// spells are longer than the gaps, and a fast answer frees the next probe sooner. Its rows then
/// over-represent fast round trips, and a fit that takes every row as an independent draw of the
/// link's law learns a link faster than the one its players are on. The guard: a device's rows
/// are cut into bursts (a row sent less than `burstGap` after the device's previous row belongs
/// to its burst), and only each burst's first row is a draw of the law. A burst's first request
/// is sent by the app's own schedule (a launch, a refetch timer), which does not know the link's
/// state, so it lands on the link at a time that is independent of it. The rows inside bursts are
/// not lost: the lag correlations are read from them.
public enum TelemetrySampling {
    /// The default gap that starts a new burst: 30 s, ten times the longest time constant of the
    /// presets' correlation in time (3G's, 5 s; docs/links.md), after which two round trips
    /// correlate at e^−6 at most, and shorter than the lab's shortest refetch interval.
    public static let defaultBurstGap: Nanoseconds = 30 * .second

    /// The rows in the order a device sent them: sorted by device, then sent time, then file order.
    public static func deviceOrder(_ table: TelemetryTable) -> [Int] {
        (0..<table.count).sorted { a, b in
            let da = table.device[a], db = table.device[b]
            if da != db { return da < db }
            let sa = table.sentMs[a], sb = table.sentMs[b]
            return sa != sb ? sa < sb : a < b
        }
    }

    /// Per link label (index into `table.links`), the round trips (ns, sorted) of the answered
    /// rows that start a burst; with `burstGap` 0, of every answered row (no guard).
    public static func lawSample(_ table: TelemetryTable, order: [Int]? = nil, burstGap: Nanoseconds = defaultBurstGap) -> [[Double]] {
        var out = [[Double]](repeating: [], count: table.links.count)
        let rows = order ?? deviceOrder(table)
        let gapMs = burstGap / .millisecond
        var previous = -1
        for r in rows {
            let starts = burstGap <= 0 || previous < 0 || table.device[previous] != table.device[r]
                || table.sentMs[r] - table.sentMs[previous] >= gapMs
            if starts && table.answered[r] { out[Int(table.link[r])].append(table.roundTripNs[r]) }
            previous = r
        }
        return out.map { $0.sorted() }
    }
}
