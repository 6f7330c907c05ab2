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
    /// Which of a player's pending events keep its response from being handled in the sending
    /// event, and its display tick from being handled ahead (`World+InlineResponse`): all of its
    /// events but the response's and the tick's own, as the kinds declare them
    /// (`WorldEvent.Kind.pending`). Settable so a test can show each one is needed.
    var inlineMarks = PendingMarks.ofOtherPlayerEvents(than: .responseDone)
    var aheadMarks = PendingMarks.ofOtherPlayerEvents(than: .display)
    init(_ scenario: Scenario, players: Int) {
        // A probe round sends again from its responses. A kind of event the shortcuts do not
        // follow (a reboot, a user setting the wall clock, its frequency wander, ...) switches
        // them off wherever it may occur.
        let followed = WorldEvent.Kind.allCases.allSatisfy { $0.pending != .notFollowed || !$0.mayOccur(in: scenario) }
        completesResponsesInline = scenario.client.probes <= 1 && followed
        // A few pending far events per player are the norm (a visit, a sleep, a session's end).
        farSweepAt = 4 * players + 65_536
    }
}
