import SyncLabKernel

/// The serving models of the store-file server: when the timestamp is taken, a fleet behind a
/// load balancer, workers with a FIFO queue, and outages.
///
/// From the seeds and the design: PHP's `REQUEST_TIME` is taken when a worker starts the request
/// (after any wait in the backlog: docs/model.md, "When the server stamps"); a real
/// API runs on several servers whose clocks each have their own offset; a release "is basically a
/// denial of service attack" when requests queue for a bounded number of workers; and a server
/// can be down. The defaults are one exact server, always up, with PHP-FPM's stock pool
/// (`ServerConfig.stockWorkers`); `workers == nil` is the idealised, infinitely parallel server.

/// The instant the server reads its clock for the timestamp.
public enum TimestampInstant: String, Sendable, CaseIterable {
    /// When the request reaches the server, before any wait for a worker (a front end that
    /// stamps what it receives): queueing and service come after.
    case arrival
    /// When a worker takes the request from the backlog and starts it: PHP-FPM's `REQUEST_TIME`,
    /// which PHP reads when the running request first asks for it. The queue's wait comes before
    /// the stamp, the service after.
    case requestStart = "request-start"
    /// When the response leaves the server, after any queueing and the service time.
    case responseSend = "response-send"

    /// The instant in a report's words: "taken when …".
    public var phrase: String {
        switch self {
        case .arrival: "when the request arrives"
        case .requestStart: "when the request starts"
        case .responseSend: "when the response leaves"
        }
    }

    /// What comes before and after the stamp, for the server section of a report.
    public var detail: String {
        switch self {
        case .arrival: "when the request arrives: queueing and service come after it"
        case .requestStart: "when a worker starts the request (REQUEST_TIME): the queue's wait comes before it, service after"
        case .responseSend: "when the response leaves, after queueing and service"
        }
    }
}

/// Several API servers behind a load balancer, each with its own clock offset from true time.
public struct Fleet: Sendable, Equatable {
    public enum Balancing: String, Sendable, CaseIterable {
        /// In arrival order, server 0, 1, …, N−1, 0, …: one counter shared by every player.
        case roundRobin = "round-robin"
        /// Each request picks a server uniformly at random (its own draw per request).
        case random
    }
    public var servers: Int
    /// Distribution of each server's clock minus true time, drawn once per run per server.
    public var clockOffset: Distribution
    public var balancing: Balancing
    /// Offsets given outright, by server (`clockOffsets`): as many as `servers`, or empty; nil
    /// for a server whose offset is drawn from `clockOffset` as without the list.
    public var clockOffsets: [Nanoseconds?]
    /// Faults in servers' clocks in time (`faults`, ServerClockFault.swift), in scenario order.
    public var faults: [any ServerClockFault]

    public init(servers: Int, clockOffset: Distribution = .constant(0), balancing: Balancing = .roundRobin,
                clockOffsets: [Nanoseconds?] = [], faults: [any ServerClockFault] = []) {
        precondition(clockOffsets.isEmpty || clockOffsets.count == servers, "one offset per server, or none")
        self.servers = servers
        self.clockOffset = clockOffset
        self.balancing = balancing
        self.clockOffsets = clockOffsets
        self.faults = faults
    }

    /// Each server's clock offset for a run before any fault: given outright, or drawn from the
    /// run's own purpose stream, keyed by the server (no player's draws move, and giving one
    /// server's offset leaves the others' draws as they were).
    public func offsets(seed: UInt64) -> [Nanoseconds] {
        (0..<servers).map { k in
            if k < clockOffsets.count, let given = clockOffsets[k] { return given }
            var rng = RandomStream(seed: seed, purpose: StreamPurpose("fleet-clock"), entity: UInt64(k))
            return Int64(clockOffset.sample(&rng).rounded())
        }
    }

    /// Whether the scenario sets server clocks apart (offsets given outright, or faults): then the
    /// run records what each server's stamps carried and the model audit holds it against them.
    public var auditsClocks: Bool { !clockOffsets.isEmpty || !faults.isEmpty }

    /// Server k's clock minus true time at true time t as the scenario gives it: its offset
    /// before faults (`offsets`, from `offsets(seed:)`) plus its faults' shifts then.
    public func offset(_ k: Int, at t: SimTime, offsets: [Nanoseconds]) -> Nanoseconds {
        faults.reduce(offsets[k]) { $1.server == k ? $0 &+ $1.shift(at: t) : $0 }
    }

    public static func == (a: Fleet, b: Fleet) -> Bool {
        a.servers == b.servers && a.clockOffset == b.clockOffset && a.balancing == b.balancing
            && a.clockOffsets == b.clockOffsets && a.faults.count == b.faults.count
            && zip(a.faults, b.faults).allSatisfy { type(of: $0) == type(of: $1) && $0.summary == $1.summary }
    }
}

/// A window in which no server answers.
public struct Outage: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// The connection is refused: the client hears of it one round trip after sending.
        case refused
        /// Nothing answers: the client notices at its link's time-out.
        case timeout
    }
    /// Start, true time since the epoch (like `population.release.at`).
    public var at: SimTime
    public var duration: Nanoseconds
    public var mode: Mode

    public init(at: SimTime, duration: Nanoseconds, mode: Mode) {
        self.at = at
        self.duration = duration
        self.mode = mode
    }

    public func covers(_ t: SimTime) -> Bool { t >= at && t.ns < at.ns &+ duration }
}

extension ServerConfig {
    /// Whether any serving model is switched on (else the world keeps the v1.1.5 fast path).
    public var hasServingModel: Bool {
        timestampAt == .responseSend || fleet != nil || workers != nil || queueLimit != nil || !outages.isEmpty
    }

    /// Whether the server's answer to a request depends only on when it arrives and on the
    /// player's own draws — no queue, no round-robin counter, no database — so the world may
    /// work it out when the request is sent (outages are a function of time).
    public var answersEachRequestAlone: Bool {
        workers == nil && queueLimit == nil && design == nil
            && !(fleet.map { $0.balancing == .roundRobin && $0.servers > 1 } ?? false)
    }

    /// Whether players share state through the server (a queue, a round-robin counter, the
    /// original plan's database), so a run must be one world: shards would each have their own
    /// copy and give thread-dependent results.
    public var couplesPlayers: Bool {
        workers != nil || queueLimit != nil || !outages.isEmpty || fleet?.balancing == .roundRobin || design != nil
    }

    /// The outage covering true time t, if any.
    public func outage(at t: SimTime) -> Outage? {
        outages.first { $0.covers(t) }
    }
}

extension StoreServer {
    /// The timestamp a server whose clock is `offset` ahead of true time gives at true time t.
    @inline(__always)
    public func timestamp(at t: SimTime, clockOffset offset: Nanoseconds) -> Int64 {
        StoreServer.stamp(epochUnix &+ clock(at: t, offset: offset), resolution: config.timestampResolution) &- epochUnix
    }
}
