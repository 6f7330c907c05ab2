import SyncLabKernel

/// How the world's events are carried out: the model says what an event does; the executor
/// decides when and in what way, and each of its ways gives the same run as the plain one.
///
/// The plain way is one queue: every event is scheduled, popped in time order (equal times in
/// the order they were scheduled) and handled. Every other way below reaches the same results
/// with less work, on by default where it applies and settable here, so that an equivalence test
/// runs with it off and compares the results byte for byte.
///
/// Three of them do work before its turn, and they are three different things:
/// - **Early events** (`World+EarlyEvents`): one player's own next events — the response to the
///   request it just sent, its next display tick — handled in the event that caused them instead
///   of queued, while nothing can come in between for that player. Which of its pending events
///   could come in between, each event kind declares (`WorldEvent.Kind.pending`, `.early`).
/// - **Lookahead** (`FleetCoordinator`): a shard of the population handling its players' events
///   past another shard's clock, within the links' least delay, while it waits for the fleet's
///   answer. Only shards work ahead; a world run alone never does.
/// - **Prefetch** (`World+Prefetch`): loading the state of the players the queue will reach
///   next into the cache. It changes no value, only when memory is read.
///
/// The others defer work to when it is cheapest: a player records the sample instants that passed
/// since its last event when its next event begins (`World+Sampling`), a standby's wakes are
/// applied at the player's next event rather than queued (`StandbyWakes`), a sync's bound and
/// error split are worked out when a sample first reads them (`World.settleSync`), a tick the
/// clock reaches only after the run's end is never worked out (`World+Display`), and cancelled
/// events far ahead are swept from the queue's heap (`World+CancelledEvents`).
///
/// Invariants every way keeps (and the tests named check, with the way off):
/// - a player's events take effect in the order the plain queue gives them, each with the
///   player's state as the plain run would have it (`WorldEarlyEventsTests`,
///   `WorldEventExecutionTests`, `ShardingTests`);
/// - a sample records each viewing player's state as of its instant (`WorldSamplingTests`);
/// - every event takes its scheduling sequence number, handled early or not, so the count of
///   events scheduled and the order of equal times are unchanged (`WorldEarlyEventsTests`);
/// - nothing past the next stop that changes the world (the release, the end) is handled early
///   (`WorldLoop.earlyHandlingLimit`); a stop only to report progress changes nothing and may be passed.
///
/// Model files call `World.schedule` and nothing here: this type and the files named above are
/// the only places that know these ways exist.
struct Executor {
    /// Handle a response in the event that sent its request when nothing can come in between
    /// (`World+EarlyEvents`). Never on a link that models connections (lost segments, idle
    /// radios: their answers wait in the queue).
    var handlesResponsesEarly: Bool
    /// Handle a player's next display tick at once when nothing can come in between, and so let
    /// a player with nothing on screen to update run through its fetches (`World+EarlyEvents`).
    var handlesTicksEarly = true
    /// The scenario's links model connections: responses are never handled early.
    let linksModelConnections: Bool
    /// The response and the display tick left to handle at the end of the current event.
    var pendingResponse: PendingResponse? = nil
    var pendingDisplay: PendingDisplay? = nil
    /// Responses and display ticks handled early (each still takes a sequence number, so it
    /// counts as a scheduled event).
    var responsesEarly: UInt64 = 0
    var ticksEarly: UInt64 = 0
    /// Ticks taken early but queued after all: they would refetch, where players share the fleet.
    var refetchTicksQueued: UInt64 = 0
    /// Sample instants a shard handled while working ahead (`FleetCoordinator`), and player events
    /// that then left fired instants for the player's later events (`World+Sampling`).
    var samplesWorkedPast: UInt64 = 0
    var samplesLeftForLater: UInt64 = 0
    /// Instants kept pending at most (32 B each) before every viewing player catches up
    /// (`World+Sampling`; 1 is a sweep over the players at each instant).
    var pendingSampleLimit = 4_096
    /// Settle every sync at once (its bound, error split and reference clocks) instead of when
    /// a sample first reads it.
    var settlesSyncsAtOnce = false
    /// Cancelled events are swept from the queue's heap once it holds more than this many
    /// (`World+CancelledEvents`).
    var farSweepAt: Int
    /// Skip working out a tick while a fetch is in flight when the design's clock, which never
    /// reads less later, does not reach it before the run ends (`World+Display`).
    var skipsTicksAfterTheEnd = true
    /// Which of a player's pending events keep its response from being handled early, and its
    /// display tick: all of its events but the response's and the tick's own, as the kinds
    /// declare them (`WorldEvent.Kind.pending`). Settable so a test can show each one is needed.
    var earlyResponseMarks = PendingMarks.ofOtherPlayerEvents(than: .responseDone)
    var earlyTickMarks = PendingMarks.ofOtherPlayerEvents(than: .display)

    init(_ scenario: Scenario, players: Int) {
        // A probe round sends again from its responses, and so does a time endpoint's last
        // probe (the store fetch follows it). A kind of event early handling does not
        // follow (a reboot, a user setting the wall clock, its frequency wander, ...) switches
        // it off wherever it may occur.
        let followed = WorldEvent.Kind.allCases.allSatisfy { $0.pending != .notFollowed || !$0.mayOccur(in: scenario) }
        handlesResponsesEarly = scenario.client.probes <= 1 && scenario.client.probeTarget == .store && followed
        linksModelConnections = scenario.links.contains { $0.modelsConnection }
        // A few pending far events per player are the norm (a visit, a sleep, a session's end).
        farSweepAt = 4 * players + 65_536
    }
}
