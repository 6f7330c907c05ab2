import SyncLabKernel

/// Cancelled events far ahead, swept from the queue before they pile up.
///
/// An event is cancelled by moving its player's epoch on: it stays queued and is ignored when
/// its time comes. Events in the queue's ring come due within minutes, but one days ahead waits
/// in its heap until then. A display tick for a transition days away (a long shelf life) is
/// scheduled each time a fetch goes out and cancelled when the response comes back: over 30
/// days, R1's 1,000 players left millions of them in the heap (480 MiB, and the heap's work was
/// half the run). So when the heap holds more than `farSweepAt` events, the cancelled ones are
/// removed, and the next sweep waits until it has doubled again.
///
/// Nothing a run measures changes. A cancelled event does nothing when popped but let its
/// player catch up on past sample instants, which the player's next event or the end of the
/// run does as well, with the same state (nothing changed it in between). The count of events
/// scheduled is kept.
extension World {
    mutating func sweepCancelledFarEvents() {
        let clients = self.clients
        loop.queue.removeFar { World.isCancelled($0, clients) }
        executor.farSweepAt = max(executor.farSweepAt, 2 * loop.queue.farCount)
    }

    /// Whether event e can no longer do anything: its player's epoch for it has moved on
    /// (epochs only grow). The server's arrivals, device events, the world's own events and
    /// the database's are never cancelled this way.
    static func isCancelled(_ e: WorldEvent, _ clients: StateTable<ClientState>) -> Bool {
        let c = Int(e.client)
        switch e.kind {
        case .visitStart, .viewStart, .viewEnd: return e.epoch != clients[c].behaviourEpoch
        case .deepSleep: return e.epoch != clients[c].powerEpoch
        case .sendRequest, .responseDone, .requestFailed: return e.epoch != clients[c].fetchEpoch
        case .display: return e.epoch != clients[c].displayEpoch
        default: return false
        }
    }
}
