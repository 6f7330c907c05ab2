import SyncLabKernel

/// What the world keeps per player: device, behaviour, data and sync (the request in flight is
/// in a pool of its own, `RequestsInFlight`).
///
/// A compact value in one array (no object per client, no closures): a million of them must fit
/// in memory. Epoch counters cancel pending events cheaply: an event carries the epoch it was
/// scheduled under and is ignored if the client's counter has moved on.
struct ClientState {
    enum Phase: UInt8 { case offline, viewing, away }

    // Read by every sample of the viewing players (`World.recordSamples`): kept together at the front so
    // the sample loop loads the first four cache lines of the state (the shadows included), not all of it.
    var device: DeviceState
    var link: UInt8
    var hasSync = false
    var previousValid = false
    /// The player has moved the wall clock forward (`devices.tampering`).
    var tampered = false
    /// The last sync is kept as its exchange (`shadows.exchange`, `split.serverSide`): what only
    /// a sample reads of it is not worked out yet (`World.settleSync`).
    var syncPending = false
    /// Wakes in the current standby (`devices.standbyWakes`, StandbyWakes.swift; 0 once the
    /// power state changes); in the gap after the flags, so the state keeps its size.
    var standbyWakeIndex: UInt16 = 0
    var file: Int32 = -1
    var previousFile: Int32 = -1
    /// Measuring sample instants fired before this player's last event (see `World+Sampling`):
    /// those after it are the ones it has yet to record.
    var sampledThrough: UInt32 = 0
    /// This viewing session's tick timer (fixes the tick phase).
    var tick = TickSession(start: .zero, base: ClockReading(ns: 0))
    var anchor = SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0))
    var previousAnchor = SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0))
    var anchorSetAt = SimTime.zero
    /// When the app last came back on screen after the device had deep-slept (`.min`: not since
    /// launch). A return inside a standby wake counts: the device slept before that wake.
    var lastDeepWake: Int64 = .min
    /// The ± bound of `anchor` at its reading (for a stateless estimator, worked out when the
    /// sync settles), and how fast it grows with age (ppb).
    var syncBound = SyncBound.unbounded
    var syncBoundGrowthPPB: Int64 = 0
    /// The anchor's error at the sync instant (the sum of `split.parts`), the samples taken with
    /// it so far (its parts are added once per sync, times this), the measuring clock's drift
    /// offset (reading minus a drift-free reading) and the deep sleep accumulated at the sync
    /// instant: what attributing a later sample's error needs (see `ErrorSource`). All but the
    /// error are worked out when the sync settles.
    var anchorError: Int64 = 0
    var anchorSamples: UInt32 = 0
    /// Standby wake gaps drawn for this player so far: keys their draws (in the gap before the next word).
    var standbyWakeOrdinal: UInt32 = 0
    var anchorDriftOffset: Int64 = 0
    var anchorSlept: Int64 = 0
    /// The last sync measured with each reference clock (`ReferenceClocks` order), or while
    /// `syncPending` the exchange it is to be measured from.
    var shadows = ShadowAnchors()

    var phase: Phase = .offline
    var screenOn = false
    var fetchInFlight = false
    /// A fetch is owed (failed or due) and waits for the Store to be on screen.
    var needsFetch = false
    var sessionsLeft: Int32 = 0
    var consecutiveFailures: Int32 = 0
    /// Index of the first transition after `shownUpTo` (read by display ticks, not by samples).
    var cursor: Int32 = 0

    var behaviourEpoch: UInt32 = 0
    var powerEpoch: UInt32 = 0
    var displayEpoch: UInt32 = 0
    var fetchEpoch: UInt32 = 0

    var refetchDue = ClockReading(ns: .max)
    /// Highest server time shown at a tick in this viewing session (`.min`: nothing yet).
    var shownUpTo: Int64 = .min
    /// When the live display tick and the end of this viewing session are due (`.max`: no tick
    /// pending): a response or a tick due before them may be handled at once
    /// (`World+EarlyEvents`).
    var displayDueAt: Int64 = .max
    var viewEndAt: Int64 = .max
    /// In a standby with wakes (`devices.standbyWakes`): when the next wake begins, or while
    /// awake in one, when it ends (`.max`: no standby with wakes). Applied lazily, before the
    /// player's next event (StandbyWakes.swift).
    var standbyDue: Int64 = .max
    /// When the wall clock's next correction is due (`devices.wallClockSync`; `.max`: none): a
    /// player may run ahead only to before it (`World+EarlyEvents`).
    var wallClockSyncDue: Int64 = .max
    /// The design clock's reading just before the run ends (`.min`: not worked out since the
    /// device last changed): a transition it does not reach is never shown (`World.scheduleDisplay`).
    var readingAtEnd: Int64 = .min

    /// The slot of the request in flight in the world's pool (`RequestsInFlight`; −1: none yet,
    /// −2 − slot: given back). Only players with a request out need its 80 bytes.
    var requestSlot: Int32 = -1
    /// Probes of this sync round answered so far (`client.probes` > 1).
    var probesDone: UInt8 = 0
    /// The player holds an open connection, last used at `lastNetworkAt` (`ConnectionSetup`;
    /// in the padding after `probesDone`). A failed request or the app's end closes it.
    var connectionOpen = false
    /// The last sync is in the app's storage (`client.persistSync`): the anchor fields hold it
    /// while the app is dead, and a cold start may restore it (`World.restoreStoredSync`).
    var syncStored = false
    /// The anchor's error at the sync split by source (`anchorError` is their sum), or while
    /// `syncPending` the server's side of the exchange it is split from.
    var split = AnchorSplit()

    var behaviourRNG: RandomStream
    var networkRNG: RandomStream
    var designRNG: RandomStream
    /// What the link's delay process remembers of this player's past delays and when it drew
    /// them (`DelayProcess`; unused by independent draws). It fills what was padding up to a
    /// whole number of cache lines (448 bytes with the padding below, checked by
    /// `WorldMemoryTests`): with the table's base on a line, every player's state starts on one,
    /// and a sample or an event loads no line it does not use.
    var linkMemory = LinkMemory()
    /// True ns of the player's last network activity (a response in, a request given up;
    /// `.min`: none yet): what the keep-alive, the DNS cache and the radio's tail read. Kept
    /// whole, in true time, because the warm-up's instants are negative: activity then must
    /// keep its own time, not read back as the measured window's start.
    var lastNetworkAt: Int64 = .min
    /// `KERN_BOOTTIME` as the OS kept it when the stored sync was taken (unix ns): what Kronos
    /// compares at launch (`World.restoreStoredSync`).
    var storedBootWall: Int64 = 0
    /// The fleet's index of the server whose answer the kept sync came from
    /// (`SyncSample.server`; a fleet has at most 1000 servers).
    var syncServer: UInt16 = 0
    /// The sync's probes went to a time endpoint and are all answered: the store fetch that
    /// follows them is owed, in flight or to be retried (`client.probeTarget`; never set when
    /// the probes fetch the store).
    var storeOwed = false
    /// Unused: pads the state to whole cache lines (448 bytes). State added later takes these
    /// bytes first.
    var padding: UInt16 = 0

    /// The power state changes (the screen comes on or goes off, the device restarts): a
    /// pending deep sleep and the current standby's wakes no longer apply.
    mutating func newPowerState() {
        powerEpoch &+= 1
        standbyDue = .max
        standbyWakeIndex = 0
    }

    /// Bytes from the start of the state that a sample reads (the fields above `phase`).
    static let sampledBytes = MemoryLayout<ClientState>.offset(of: \ClientState.phase)!
    /// Bytes from the start that a display tick reads (the fields above `requestSlot`).
    static let displayBytes = MemoryLayout<ClientState>.offset(of: \ClientState.requestSlot)!

    init(device: DeviceState, link: UInt8, seed: UInt64, index: UInt64) {
        self.device = device
        self.link = link
        behaviourRNG = RandomStream(seed: seed, purpose: ClientState.behaviourPurpose, entity: index)
        networkRNG = RandomStream(seed: seed, purpose: ClientState.networkPurpose, entity: index)
        designRNG = RandomStream(seed: seed, purpose: ClientState.designPurpose, entity: index)
    }

    // Each purpose's tag hashed once, not once per player (it was half of building a world).
    static let behaviourPurpose = StreamPurpose("behaviour")
    static let networkPurpose = StreamPurpose("network")
    static let designPurpose = StreamPurpose("design")
}

/// What happens in the world. Data, not closures: handled by one `switch` in `World`.
///
/// Eight bytes: the client (a player, a plan slot, or −1 for the world's own events) and the
/// kind share one 32-bit word, so a queue entry with its time and sequence is 24 bytes, not 32.
/// Ten then fill a 256-byte chunk of the queue's calendar where seven did, and the far heap
/// shrinks by a quarter: a day of ten million players peaked 359 MiB lower.
struct WorldEvent {
    enum Kind: UInt8 {
        case visitStart, viewStart, viewEnd, deepSleep
        case sendRequest, responseDone, requestFailed
        /// The shared fleet's answer to the player's request (`FleetCoordinator`).
        case serverReply
        case display
        case cron, publish, sample
        /// Device events (`devices.*`): the epoch carries the event's ordinal for the player.
        case reboot, appKill, wallClockChange, tamper
        /// A network correction of the wall clock and a step of its frequency wander
        /// (`devices.wallClockSync`); the epoch carries the event's ordinal for the player.
        case wallClockSync, wallClockWander
        // The original plan (World+Database.swift); `client` is a slot: player × (positions + 1) + position.
        case databaseArrival, databaseReply, databaseFailed, databaseCountdown, databaseRetry
        // Whose event each is, and what it means to the executor: WorldEvent+Execution.swift.
    }
    /// Bits the kind takes in `clientAndKind` (`WorldMemoryTests` checks that every kind fits).
    static let kindBits: Int32 = 5
    /// The client field's range: a signed number of 32 − `kindBits` bits.
    static let clientLimit = 1 << (31 - Int(kindBits))

    /// The client shifted up past the kind, the kind in the low bits.
    private var clientAndKind: Int32
    var epoch: UInt32

    init(client: Int32, kind: Kind, epoch: UInt32) {
        clientAndKind = (client &<< WorldEvent.kindBits) | Int32(kind.rawValue)
        self.epoch = epoch
    }

    /// The arithmetic shift gives −1 back for the world's own events.
    var client: Int32 { clientAndKind >> WorldEvent.kindBits }
    var kind: Kind { Kind(rawValue: UInt8(truncatingIfNeeded: clientAndKind & (1 << WorldEvent.kindBits - 1)))! }
}

/// A reference clock's sync for the error-by-clock breakdown: the one-exchange anchor, whose
/// rate is not used (the built-in estimators' one-exchange forms have none), kept as its offset
/// (server time minus reading): 8 bytes, five per player. serverTime + (r − reading) =
/// (serverTime − reading) + r exactly, in wrapping arithmetic, so nothing is lost; half the size
/// means one cache line per sampled player.
struct ShadowAnchor {
    var offset: Int64
    init(_ a: SyncAnchor) { offset = a.serverTime &- a.reading.ns }
    @inline(__always) func serverTime(at r: ClockReading) -> Int64 { offset &+ r.ns }
}

/// What the reference clocks' syncs are computed from: the exchange's true instants and the
/// server's stamps (40 bytes, the size of the five anchors whose place it takes while pending).
struct ShadowExchange {
    var sentAt, uploadCompleteAt, doneAt: SimTime
    var timestamp, transmit: Int64

    init(sentAt: SimTime, uploadCompleteAt: SimTime, doneAt: SimTime, timestamp: Int64, transmit: Int64) {
        self.sentAt = sentAt
        self.uploadCompleteAt = uploadCompleteAt
        self.doneAt = doneAt
        self.timestamp = timestamp
        self.transmit = transmit
    }

    init(_ e: ProbeExchange) {
        self.init(sentAt: e.sentAt, uploadCompleteAt: e.uploadCompleteAt, doneAt: e.doneAt, timestamp: e.timestamp,
                  transmit: e.transmit)
    }
}

/// A player's five reference-clock anchors, inline in its state (an array per player would be
/// an object; a separate table, a sixth or seventh cache line per sample). Until a sample needs
/// them they hold the exchange they are computed from (`exchange`, `ClientState.syncPending`).
struct ShadowAnchors {
    private var a0 = ShadowAnchor(SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0)))
    private var a1 = ShadowAnchor(SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0)))
    private var a2 = ShadowAnchor(SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0)))
    private var a3 = ShadowAnchor(SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0)))
    private var a4 = ShadowAnchor(SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0)))

    /// The pending exchange, in the anchors' words.
    var exchange: ShadowExchange {
        get {
            ShadowExchange(sentAt: SimTime(ns: a0.offset), uploadCompleteAt: SimTime(ns: a1.offset),
                           doneAt: SimTime(ns: a2.offset), timestamp: a3.offset, transmit: a4.offset)
        }
        set {
            a0.offset = newValue.sentAt.ns
            a1.offset = newValue.uploadCompleteAt.ns
            a2.offset = newValue.doneAt.ns
            a3.offset = newValue.timestamp
            a4.offset = newValue.transmit
        }
    }

    subscript(k: Int) -> ShadowAnchor {
        @inline(__always) get {
            switch k {
            case 0: a0
            case 1: a1
            case 2: a2
            case 3: a3
            default: a4
            }
        }
        @inline(__always) set {
            switch k {
            case 0: a0 = newValue
            case 1: a1 = newValue
            case 2: a2 = newValue
            case 3: a3 = newValue
            default: a4 = newValue
            }
        }
    }
}

/// The server's side of an exchange: what splitting its anchor's error (`AnchorAttribution`)
/// needs beyond the client's side (`ShadowExchange`).
struct ExchangeServerSide {
    var arrivedAt, leftAt: SimTime
    var exactStamp, serverOffset: Int64
}

/// A player's anchor error split by source, or until a sample needs the split, the server's side
/// of the exchange it is computed from (`ClientState.syncPending`): the same 32 bytes. Most
/// anchors of a player who refetches every few minutes are never sampled (the reference fleet
/// samples once a day), so most splits are never worked out.
struct AnchorSplit {
    private var w0: Int64 = 0, w1: Int64 = 0, w2: Int64 = 0, w3: Int64 = 0

    var parts: AnchorAttribution {
        get {
            var a = AnchorAttribution()
            (a.timestampResolution, a.timestampPlacement, a.serverOffset, a.pathAndEstimator) = (w0, w1, w2, w3)
            return a
        }
        set { (w0, w1, w2, w3) = (newValue.timestampResolution, newValue.timestampPlacement,
                                  newValue.serverOffset, newValue.pathAndEstimator) }
    }

    var serverSide: ExchangeServerSide {
        get { ExchangeServerSide(arrivedAt: SimTime(ns: w0), leftAt: SimTime(ns: w1), exactStamp: w2, serverOffset: w3) }
        set { (w0, w1, w2, w3) = (newValue.arrivedAt.ns, newValue.leftAt.ns, newValue.exactStamp, newValue.serverOffset) }
    }
}
