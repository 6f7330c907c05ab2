import SyncLabKernel

/// What each kind of event means to the executor, which handles a player's next events early
/// (`World+EarlyEvents`): whose event it is, how the world knows that a player has one of it
/// pending and when, and which scenarios may produce it. A new kind does not compile until it
/// says all three; `Executor` derives from them which scenarios handle events early and which of
/// a player's state their checks read.
extension WorldEvent.Kind: CaseIterable {
    /// Every kind, in declaration order: the raw values count up from 0, so a kind added to the
    /// enum is listed without being named here.
    static let allCases: [WorldEvent.Kind] = (0...UInt8.max).compactMap(WorldEvent.Kind.init(rawValue:))

    /// Whose event it is: `client` is a player's index, the original plan's slot (player ×
    /// (positions + 1) + position), or unused.
    enum Owner { case player, databaseSlot, world }

    var owner: Owner {
        switch self {
        case .visitStart, .viewStart, .viewEnd, .deepSleep: .player
        case .sendRequest, .serverReply, .responseDone, .requestFailed: .player
        case .display: .player
        case .cron, .publish, .sample: .world
        case .reboot, .appKill, .wallClockChange, .tamper: .player
        case .wallClockSync, .wallClockWander: .player
        case .databaseArrival, .databaseReply, .databaseFailed, .databaseCountdown, .databaseRetry: .databaseSlot
        }
    }

    /// The event is about one player (`client` is its index) and may change its state.
    @inline(__always) var isPlayerEvent: Bool { owner == .player }
    /// The event is the original plan's (`client` is a slot of player `client / (positions + 1)`).
    @inline(__always) var isDatabaseEvent: Bool { owner == .databaseSlot }

    /// How the executor knows whether a player has an event of a kind pending before an instant.
    enum Pending: Equatable {
        /// The player's state keeps its instant, or a flag set while it is pending (`PendingMark`).
        case kept(PendingMark)
        /// Never pending for a player whose events are handled early: one viewing the Store, on a design
        /// whose requests are answered by the server's timeline. The world's own events are no
        /// player's (a sample instant is checked apart, `World.mayHandleResponseEarly`).
        case never
        /// Not followed: a scenario that may produce it handles no event early (`Executor.init`).
        case notFollowed
    }

    var pending: Pending {
        switch self {
        // Scheduled only for a player away from the Store (offline, on a break, the screen off):
        // the Store coming on screen cancels a pending deep sleep.
        case .visitStart, .viewStart, .deepSleep: .never
        case .viewEnd: .kept(.viewEnd)
        // The retry of a failed request, pending while the fetch is owed.
        case .sendRequest: .kept(.fetchOwed)
        // The request in flight has one of them pending at a time.
        case .serverReply, .responseDone, .requestFailed: .kept(.requestInFlight)
        case .display: .kept(.displayDue)
        case .cron, .publish, .sample: .never
        // What they change (the boot, the app, the wall clock) is not kept as an instant.
        case .reboot, .appKill, .wallClockChange, .tamper: .notFollowed
        case .wallClockSync: .kept(.wallClockSyncDue)
        case .wallClockWander: .notFollowed
        // The original plan's requests go through its database, whose answers wait in its queue:
        // its players handle no event early (`World.mayHandleTickEarly` excludes it).
        case .databaseArrival, .databaseReply, .databaseFailed, .databaseCountdown, .databaseRetry: .never
        }
    }

    /// Which of the executor's early handlings may take an event of this kind instead of the
    /// queue when the model schedules it (`World.schedule`): a player's response
    /// (`World.mayHandleResponseEarly`), its display tick (`World.mayHandleTickEarly`), or none.
    enum Early { case response, tick, never }

    var early: Early {
        switch self {
        case .responseDone: .response
        case .display: .tick
        case .visitStart, .viewStart, .viewEnd, .deepSleep, .sendRequest, .serverReply, .requestFailed: .never
        case .cron, .publish, .sample: .never
        case .reboot, .appKill, .wallClockChange, .tamper, .wallClockSync, .wallClockWander: .never
        case .databaseArrival, .databaseReply, .databaseFailed, .databaseCountdown, .databaseRetry: .never
        }
    }

    /// Whether a run of `scenario` may schedule an event of this kind (false only where it never
    /// does; the players' own visits, sessions, fetches and ticks may come in any scenario).
    func mayOccur(in scenario: Scenario) -> Bool {
        let events = scenario.devices.events
        switch self {
        case .visitStart, .viewStart, .viewEnd, .deepSleep: return true
        case .sendRequest, .responseDone, .requestFailed: return true
        case .serverReply: return FleetCoordinator.isNeeded(for: scenario)
        case .display: return true
        case .cron, .publish, .sample: return true
        case .reboot: return events.reboots != nil
        case .appKill: return events.appKills != nil
        case .wallClockChange: return events.wallClockChanges != nil
        case .tamper: return events.tampering != nil
        case .wallClockSync: return events.wallClockSync != nil
        case .wallClockWander: return events.wallClockSync?.wander != nil
        case .databaseArrival, .databaseReply, .databaseFailed, .databaseCountdown, .databaseRetry:
            return scenario.server.design != nil
        }
    }
}

/// What a player's state keeps of one of its pending events, for the executor to tell whether
/// it comes before an instant (`ClientState.isPending`).
enum PendingMark: UInt8, CaseIterable {
    /// Its instant: the live display tick (`displayDueAt`), the end of the viewing session
    /// (`viewEndAt`), the wall clock's next correction (`wallClockSyncDue`).
    case displayDue, viewEnd, wallClockSyncDue
    /// A flag: a request in flight (`fetchInFlight`) has its arrival, response or failure
    /// pending; a fetch owed (`needsFetch`) by a player on screen has its retry pending.
    case requestInFlight, fetchOwed
}

/// A set of `PendingMark`s: which of a player's pending events an early handling's check reads.
struct PendingMarks: OptionSet, Sendable {
    let rawValue: UInt8
    init(rawValue: UInt8) { self.rawValue = rawValue }
    init(_ mark: PendingMark) { rawValue = 1 << mark.rawValue }

    /// The marks of every player event but those that share `handled`'s own mark: the events
    /// that could come in between when an event of `handled` is dealt with ahead of its turn (a
    /// response: not the request's own events; a display tick: not the tick's own).
    static func ofOtherPlayerEvents(than handled: WorldEvent.Kind) -> PendingMarks {
        var marks = PendingMarks()
        for kind in WorldEvent.Kind.allCases where kind.isPlayerEvent {
            if case .kept(let mark) = kind.pending, kind.pending != handled.pending { marks.insert(PendingMarks(mark)) }
        }
        return marks
    }
}

extension ClientState {
    /// Whether the player has an event that `mark` stands for pending at or before `t` (ns).
    @inline(__always)
    func isPending(_ mark: PendingMark, atOrBefore t: Int64) -> Bool {
        switch mark {
        case .displayDue: displayDueAt <= t
        case .viewEnd: viewEndAt <= t
        case .wallClockSyncDue: wallClockSyncDue <= t
        case .requestInFlight: fetchInFlight
        case .fetchOwed: needsFetch
        }
    }

    /// Whether none of the player's events that `marks` stand for is pending at or before `t`.
    /// Each mark is written out (it runs per response and per tick): `WorldEventExecutionTests` checks
    /// that every mark is.
    @inline(__always)
    func nonePending(_ marks: PendingMarks, atOrBefore t: Int64) -> Bool {
        func clear(_ mark: PendingMark) -> Bool { !marks.contains(PendingMarks(mark)) || !isPending(mark, atOrBefore: t) }
        return clear(.displayDue) && clear(.viewEnd) && clear(.wallClockSyncDue) && clear(.requestInFlight) && clear(.fetchOwed)
    }
}
