import SyncLabKernel

/// Ways the world reaches the same results with less work. Each is on by default where it
/// applies and settable so an equivalence test can show the results do not depend on it.
struct Shortcuts {
    /// Handle a response in the event that sent its request when nothing can come in between
    /// (`World+InlineResponse`).
    var completesResponsesInline: Bool
    /// Handle a player's next display tick at once when nothing can come in between, and so run
    /// the player ahead of the others (`World+InlineResponse`).
    var runsPlayersAhead = true
    /// The response and the display tick left to handle at the end of the current event.
    var pendingResponse: PendingResponse? = nil
    var pendingDisplay: PendingDisplay? = nil
    /// Responses and display ticks handled that way (each still takes a sequence number, so it
    /// counts as a scheduled event).
    var responsesInline: UInt64 = 0
    var displaysAhead: UInt64 = 0
    /// Instants kept pending at most (16 B each) before every viewing player catches up
    /// (`World+Sampling`; 1 is a sweep over the players at each instant).
    var pendingSampleLimit = 4_096
    /// Settle every sync at once (its bound, error split and reference clocks) instead of when
    /// something needs it.
    var settlesSyncsAtOnce = false
    /// Cancelled events are swept from the queue's heap once it holds more than this many
    /// (`World+CancelledEvents`).
    var farSweepAt: Int
    /// Skip working out a tick while a fetch is in flight when the design's clock, which never
    /// reads less later, does not reach it before the run ends (`World+Display`).
    var skipsTicksAfterTheEnd = true
    init(_ scenario: Scenario, players: Int) {
        // A probe round sends again from its responses. Of the device events only the wall
        // clock's corrections are followed (`ClientState.wallClockSyncDue`); the others, and a
        // frequency wander, switch the shortcuts off.
        let events = scenario.devices.events
        let followed = events.reboots == nil && events.appKills == nil && events.wallClockChanges == nil
            && events.tampering == nil && events.wallClockSync?.wander == nil
        completesResponsesInline = scenario.client.probes <= 1 && followed
        // A few pending far events per player are the norm (a visit, a sleep, a session's end).
        farSweepAt = 4 * players + 65_536
    }
}
