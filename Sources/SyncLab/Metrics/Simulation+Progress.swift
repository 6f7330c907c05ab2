import SyncLabKernel

// Progress for long runs. The shards stop at fixed simulated instants (a barrier like the
// release's), the handler is called on the calling thread between chunks, never inside the event
// loop. Stopping `World.run(until:)` and resuming handles the same events in the same order, so
// a run with a progress handler gives the same results as one without (tested, at the fixed
// instants and at arbitrary ones).

extension Simulation {
    /// Told the share of the run's simulated time (warm-up included) done so far, in [0, 1].
    public typealias ProgressHandler = (_ done: Double) -> Void

    /// Chunks per run when progress is reported.
    static let progressChunks: Int64 = 50

    /// Where a run with a progress handler stops: `progressChunks` equal chunks of the run's
    /// simulated time, warm-up included.
    static func progressStops(_ scenario: Scenario) -> [SimTime] {
        let start = -scenario.warmup
        let total = max(1, scenario.duration &+ scenario.warmup)
        return (1...progressChunks).map { SimTime(ns: start &+ total / progressChunks &* $0) }
    }

    /// Runs every shard (`runAll`) from `from` up to `limit`, stopping at each of `stops` in
    /// between to report progress; without a handler, in one go.
    static func advance(from: SimTime, to limit: SimTime, scenario: Scenario, stops: [SimTime], progress: ProgressHandler?,
                        runAll: (_ until: SimTime, _ earlyUntil: SimTime) -> Void) {
        guard let progress else {
            runAll(limit, limit)
            return
        }
        let start = -scenario.warmup
        let total = max(1, scenario.duration &+ scenario.warmup)
        for stop in stops where stop > from && stop < limit {
            // Nothing happens at a progress stop: players may run past it, not past `limit`.
            runAll(stop, limit)
            progress(Double(stop.ns - start) / Double(total))
        }
        runAll(limit, limit)
        progress(min(1, Double(limit.ns - start) / Double(total)))
    }
}
