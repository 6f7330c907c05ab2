import SyncLabKernel

/// What a scenario will cost to run, estimated before anything is allocated, so a scenario that
/// would exhaust memory is refused with the estimate instead of crashing the machine.
extension Scenario {
    /// Bytes per player the world keeps: client state 448 (the reference clocks' anchors and the
    /// padding to whole cache lines included; the requests in flight have a pool of their own,
    /// 80 B a slot: a small share of the players in a realistic day, nearly every player where
    /// players run ahead between sample instants, as in R1), viewing slot 4, event-queue entries
    /// 108 (measured: `WorldMemoryTests`), plus slack. Days of v1.1.5 players
    /// (`bench/v115-fleet-*.json`) peaked at 950 MiB for a million, 5,884 MiB for ten million and
    /// 11,134 MiB for twenty: the estimate below is 1.03, 1.05 and 1.07 times those; R1 at 4
    /// million players over 3 h peaked at 0.82 times it.
    public static let bytesPerPlayer = 584
    /// The most memory a run may plan to use.
    public static let memoryLimitBytes = 16 * 1024 * 1024 * 1024

    /// Item changes in the run (all positions), from the mean shelf life.
    public var expectedTransitions: Double {
        let life = max(shelfLife.mean, Double(scheduleResolution))
        return Double(positions) * Double(duration + warmup + server.horizon + 10 * .minute) / life
    }

    /// Estimated peak memory of a run, in bytes: players' state, the item schedule, and the show
    /// summaries of the item changes (`showSummaryBytesEstimate`).
    public var estimatedMemoryBytes: Double {
        let players = Double(population.players) * Double(Scenario.bytesPerPlayer)
        let schedule = expectedTransitions * 48
        let viewingShare = min(1, population.viewing.mean * population.sessionsPerVisit.mean
                               / max(1, population.visitGap.mean))
        let releaseViewers = population.release.map { min(Double(population.players), $0.multiplier) } ?? 1
        let viewers = Double(population.players) * viewingShare * min(releaseViewers, 3)
        let shows = Scenario.showSummaryBytesEstimate(viewersPerChange: viewers, changes: expectedTransitions,
                                                   shards: Simulation.shardCount(self, threads: Simulation.defaultThreads))
        // The client design's side memory (NTP filter window, drift, probes, retry): 0 for the seeds'.
        let design = Double(population.players) * Double(designMemoryBytesPerPlayer)
        return players + schedule + shows + design + 64 * 1024 * 1024
    }

    /// Bytes the show summaries will take (`ShowSummaries`): per change and viewer subset, a
    /// cell's counters, then its exact values (up to 4,096, `ShowStore.exactValueBytesEstimate`
    /// each) or its page table and its pages of 64 one-byte bins. A binned cell's pages cover
    /// what its viewers reach: the 32 pages of ±1 s and 8 per octave beyond, so `typicalPages`
    /// spans offsets up to about 19 hours (a change whose viewers spread further takes more, up
    /// to every page; a day of ten million v1.1.5 players held 129 pages a binned cell). In each
    /// shard, as if one shard saw every viewer. A day of 1M v1.1.5 players held 157 and 158 MiB
    /// in its two shards (`synclab run` says their sum on stderr; merged into one store, as the
    /// shards once were, they took 220 MiB) where this estimates 353 MiB for both; it grows with
    /// the changes and, past a few thousand viewers per change, not with the players.
    public static func showSummaryBytesEstimate(viewersPerChange: Double, changes: Double, shards: Int) -> Double {
        let typicalPages = 160.0
        var perChange = 0.0
        var v = viewersPerChange
        for _ in 0..<ShowSummaries.levels {
            perChange += 33
            if v <= Double(ShowStore.exactLimit) {
                perChange += v * ShowStore.exactValueBytesEstimate
            } else {
                let pages = min(v, typicalPages)
                perChange += Double(ShowStore.pagesPerTable * 4) + pages * Double(ShowStore.binsPerPage)
            }
            v /= 10
        }
        return perChange * changes * Double(max(1, shards))
    }
}
