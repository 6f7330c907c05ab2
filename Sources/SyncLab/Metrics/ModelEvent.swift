import SyncLabKernel

/// What happened in the model, told once, in the model's words: the one interface between the
/// world and what watches it. The world says that a delay was drawn on a link at an instant, a
/// radio was asked to carry a request, a standby woke; it never says what a watcher makes of it.
/// The model audit (`AuditCounters`) and the link round-trip recorder are observers of these
/// events, so a model file holds no audit rule and an audit rule no model step.
///
/// Instants are true time in ns (never rounded), players local indices of the world's slice.
/// An event is emitted whether or not it falls in the measured window: each observer keeps its
/// own window, as the audit counts some things (a standby's time asleep) across its edge.
enum ModelEvent {
    /// A request's uplink delay `delay` was drawn at `at`.
    case uplinkDrawn(player: Int, link: Int, delay: Nanoseconds, at: Int64)
    /// A response's downlink delay was drawn when it left the server at `at`; its request reached
    /// the server at `requestArrivedAt` (the window the response counts in).
    case downlinkDrawn(player: Int, link: Int, delay: Nanoseconds, at: Int64, requestArrivedAt: Int64)
    /// The player's radio and connection were busy until `until`.
    case networkBusy(player: Int, until: Int64)
    /// A request at `at` on a link with a radio paid a promotion (`promoted`) or not.
    case radioAsked(player: Int, link: Int, at: Int64, promoted: Bool)
    /// A request at `at` on a link with connection set-up: whether the player had a connection
    /// open, and whether the world set up a new one and looked the name up.
    case connectionAsked(player: Int, link: Int, at: Int64, wasOpen: Bool, cold: Bool, lookedUp: Bool)
    /// A message of `segments` TCP segments crossed a lossy link, late by `added` ns (0: none lost).
    case messageCrossed(link: Int, segments: Int, added: Nanoseconds)
    /// The player's deep sleep with wakes began.
    case standbyBegan(player: Int)
    /// The player's standby woke at `at` after sleeping `slept`, for a wake of `length`.
    case standbyWoke(player: Int, at: Int64, slept: Int64, length: Int64)
    /// The player's standby (or deep sleep) ended at `at` after its last `slept`.
    case standbyEnded(player: Int, at: Int64, slept: Int64)
    /// A break between views of `length` began at `at`, with the phone locked or not.
    case breakBegan(at: Int64, length: Int64, locked: Bool)
    /// A break that lasted `length` ended at `at`; the app was terminated during it or not.
    case breakEnded(at: Int64, length: Int64, locked: Bool, terminated: Bool)
    /// The phone's wall clock took its correction number `ordinal` from the network at `at`.
    case wallClockCorrected(player: Int, link: Int, ordinal: UInt32, at: Int64, stepped: Bool)
    /// A request sent at `sentAt` was answered with `roundTrip` on the network (its upload
    /// complete to the server's arrival, plus the response's downlink delay).
    case roundTripAnswered(link: Int, roundTrip: Nanoseconds, sentAt: Int64)
}

/// What watches the model: it takes events and never changes the world.
protocol ModelObserver {
    mutating func observe(_ event: ModelEvent)
}
