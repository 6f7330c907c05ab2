import SyncLabKernel

/// What a scenario will cost to run, estimated before anything is allocated, so a scenario that
/// would exhaust memory is refused with the estimate instead of crashing the machine.
extension Scenario {
    /// Bytes per player the world keeps: client state 448 (the reference clocks' anchors and the
    /// padding to whole cache lines included), viewing slot 4, event-queue entries 140 (measured:
    /// `WorldMemoryTests`), plus slack. A day of a million v1.1.5 players peaked at 1,374 MiB (`make
    /// bench`, session 5), most of the rest show records (`shows` below).
    public static let bytesPerPlayer = 640
    /// The most memory a run may plan to use.
    public static let memoryLimitBytes = 16 * 1024 * 1024 * 1024

    /// Item changes in the run (all positions), from the mean shelf life.
    public var expectedTransitions: Double {
        let life = max(shelfLife.mean, Double(scheduleResolution))
        return Double(positions) * Double(duration + warmup + server.horizon + 10 * .minute) / life
    }

    /// Estimated peak memory of a run, in bytes: players' state, the item schedule, and the show
    /// records of transitions (each viewing player records each change it shows).
    public var estimatedMemoryBytes: Double {
        let players = Double(population.players) * Double(Scenario.bytesPerPlayer)
        let schedule = expectedTransitions * 48
        let viewingShare = min(1, population.viewing.mean * population.sessionsPerVisit.mean
                               / max(1, population.visitGap.mean))
        let releaseViewers = population.release.map { min(Double(population.players), $0.multiplier) } ?? 1
        let viewers = Double(population.players) * viewingShare * min(releaseViewers, 3)
        let shows = viewers * expectedTransitions * 8
        // The client design's side memory (NTP filter window, drift, probes, retry): 0 for the seeds'.
        let design = Double(population.players) * Double(designMemoryBytesPerPlayer)
        return players + schedule + shows + design + 64 * 1024 * 1024
    }
}
