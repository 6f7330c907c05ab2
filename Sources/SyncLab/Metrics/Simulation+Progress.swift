import SyncLabKernel

// Progress for long runs. The shards stop at fixed simulated instants (a barrier like the
// release's), the handler is called on the calling thread between chunks, never inside the event
// loop. Stopping `World.run(until:)` and resuming handles the same events in the same order, so
// a run with a progress handler gives the same results as one without (tested).

extension Simulation {
    /// Told the share of the run's simulated time (warm-up included) done so far, in [0, 1].
    public typealias ProgressHandler = (_ done: Double) -> Void

    /// Chunks per run when progress is reported.
    static let progressChunks: Int64 = 50

    /// Runs every shard (`runAll`) from `from` up to `limit`, stopping at each chunk boundary
    /// in between to report progress; without a handler, in one go.
    static func advance(from: SimTime, to limit: SimTime, scenario: Scenario, progress: ProgressHandler?,
                        runAll: (_ until: SimTime, _ aheadUntil: SimTime) -> Void) {
        guard let progress else {
            runAll(limit, limit)
            return
        }
        let start = -scenario.warmup
        let total = max(1, scenario.duration &+ scenario.warmup)
        for k in 1...progressChunks {
            let boundary = start &+ total / progressChunks &* k
            guard boundary < limit.ns else { break }
            guard boundary > from.ns else { continue }
            // Nothing happens at a progress stop: players may run past it, not past `limit`.
            runAll(SimTime(ns: boundary), limit)
            progress(Double(boundary - start) / Double(total))
        }
        runAll(limit, limit)
        progress(min(1, Double(limit.ns - start) / Double(total)))
    }
}
