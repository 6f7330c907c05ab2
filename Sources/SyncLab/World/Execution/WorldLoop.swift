import SyncLabKernel

/// The event loop's state: the queue and the window of true time the run covers.
struct WorldLoop {
    var queue: EventQueue<WorldEvent>
    /// The run's first instant (the warm-up's start) and its end.
    let start: SimTime
    let end: SimTime
    /// The instant the current `run(until:)` stops at.
    var runLimit = SimTime.zero
    /// The instant no event is handled early past (`Executor`): the next stop that changes the
    /// world (the release, the end). A stop only to report progress changes nothing, and a player
    /// may run past it (`World+EarlyEvents`): cutting every player's run ahead at each of 50
    /// progress stops cost R1 two thirds more time.
    var earlyHandlingLimit = SimTime.zero
    var started = false
}
