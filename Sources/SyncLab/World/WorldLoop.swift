import SyncLabKernel

/// The event loop's state: the queue and the window of true time the run covers.
struct WorldLoop {
    var queue: EventQueue<WorldEvent>
    /// The run's first instant (the warm-up's start) and its end.
    let start: SimTime
    let end: SimTime
    /// The instant the current `run(until:)` stops at.
    var runLimit = SimTime.zero
    var started = false
}
