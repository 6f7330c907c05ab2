import SyncLabKernel

/// The v1.1.5 server: a generation cron, a compile/publish job, and the API that serves the file
/// with a timestamp.
///
/// From the seeds: a cron "runs every minute and ensures that there is always 10 minutes worth of
/// items coming up"; "a separate CRON job then runs and compiles these items into a single JSON
/// file", encrypted and Base64-encoded; the API returns that file "along with a synchronisation
/// timestamp", PHP's `$_SERVER['REQUEST_TIME']` — whole seconds, taken when the request starts.
public struct ServerConfig: Sendable {
    /// Generation cron period (60 s) and its start delay after each period boundary.
    public var cronPeriod: Nanoseconds
    public var cronJitter: Distribution
    /// How far ahead the generation cron keeps every position filled.
    public var horizon: Nanoseconds
    /// Delay from a generation run to the start of the compile job, and the compile's duration.
    public var publishLag: Nanoseconds
    public var publishDuration: Distribution
    public var file: StoreFileFormat
    /// Resolution of the timestamp (1 s = `REQUEST_TIME`, 1 µs = `REQUEST_TIME_FLOAT`).
    public var timestampResolution: Nanoseconds
    /// Time from the request's start (when the timestamp is taken) until the response leaves.
    public var serviceTime: Distribution
    /// Server clock minus true time (before any leap second).
    public var clockOffset: Nanoseconds
    /// A positive leap second on every server's clock (LeapSecond.swift; nil: none).
    public var leapSecond: (any LeapSecondHandling)? = nil
    // Serving models (ServingModel.swift). The default is one exact server, always up, with
    // PHP-FPM's stock pool: five workers and a listen backlog of 128 (docs/model.md).
    public var timestampAt: TimestampInstant = .requestStart
    public var fleet: Fleet? = nil
    /// Workers per server (nil: unlimited) and requests that may wait for one (nil: no limit).
    public var workers: Int? = ServerConfig.stockWorkers
    public var queueLimit: Int? = ServerConfig.stockBacklog
    public var outages: [Outage] = []
    /// The original plan's database-per-position design instead of the store file (nil: the file).
    public var design: DatabasePlan? = nil

    public init(cronPeriod: Nanoseconds = .minute, cronJitter: Distribution = .uniform(min: 0, max: 2e9),
                horizon: Nanoseconds = 10 * .minute, publishLag: Nanoseconds = 5 * .second,
                publishDuration: Distribution = .uniform(min: 0.5e9, max: 2e9),
                file: StoreFileFormat = StoreFileFormat(), timestampResolution: Nanoseconds = .second,
                serviceTime: Distribution = .lognormal(median: 8e6, sigma: 0.4),
                clockOffset: Nanoseconds = 0) {
        self.cronPeriod = cronPeriod
        self.cronJitter = cronJitter
        self.horizon = horizon
        self.publishLag = publishLag
        self.publishDuration = publishDuration
        self.file = file
        self.timestampResolution = timestampResolution
        self.serviceTime = serviceTime
        self.clockOffset = clockOffset
    }
}

extension ServerConfig {
    /// `pm.max_children` in the pool file PHP-FPM ships: PHP requests one server runs at once.
    public static let stockWorkers = 5
    /// Connections that may wait for a PHP-FPM worker: its Linux listen backlog of the PHP 5.3
    /// era, 128, which is also the kernel's `somaxconn` cap of the time. One more is refused and
    /// the web server in front answers with an error at once.
    public static let stockBacklog = 128
}

/// The server's state during a run: what has been generated and what is published.
public struct StoreServer: Sendable {
    public let config: ServerConfig
    public let schedule: StoreSchedule
    let epochUnix: Int64
    /// Per position, index into the chain of the last boundary generated so far.
    var generatedUpTo: [Int]
    /// Published versions, oldest first; the last is what the API serves.
    public private(set) var files: [PublishedFile] = []
    var rng: RandomStream
    /// The leap second's closed form, resolved once (nil: the clock is a constant offset).
    public let leap: LeapSecondShift?

    public init(config: ServerConfig, schedule: StoreSchedule, epochUnix: Int64, seed: UInt64) {
        self.config = config
        self.leap = config.leapSecond?.shift
        self.schedule = schedule
        self.epochUnix = epochUnix
        self.generatedUpTo = [Int](repeating: 0, count: schedule.positions)
        self.rng = RandomStream(seed: seed, purpose: StreamPurpose("server"))
    }

    /// The clock of a server `offset` ahead of true time, at true time t (ns since the epoch):
    /// every read of a server's clock goes through here, so a leap second applies to all of them.
    /// Without one it is t + offset, one stored optional checked; with one, c + shift(c) for
    /// c = t + offset, so each server takes the leap when its own clock reaches it.
    @inlinable @inline(__always)
    public func clock(at t: SimTime, offset: Nanoseconds) -> Int64 {
        let c = t.ns &+ offset
        guard let leap else { return c }
        return c &+ leap.offset(at: c)
    }

    /// The first true instant at which the clock of a server `offset` ahead reads `s` (ns since
    /// the epoch) or later: the true instant of a server-time instant. Inside a repeated second
    /// (a stepped leap) that is its first occurrence.
    @inlinable
    public func trueInstant(reaching s: Int64, offset: Nanoseconds) -> SimTime {
        guard let leap else { return SimTime(ns: s &- offset) }
        return SimTime(ns: leap.firstInstant(reaching: s) &- offset)
    }

    /// Server clock at true time t, ns since the epoch.
    @inlinable public func serverTime(at t: SimTime) -> Int64 { clock(at: t, offset: config.clockOffset) }

    /// The true instant the cron host's clock first reads `s` (an item's start or end).
    @inlinable public func trueInstant(reaching s: Int64) -> SimTime { trueInstant(reaching: s, offset: config.clockOffset) }

    /// The `REQUEST_TIME` a request started at true time t gets, ns since the epoch. Inlined, so
    /// the caller never copies the server.
    @inline(__always)
    public func timestamp(at t: SimTime) -> Int64 {
        StoreServer.stamp(epochUnix &+ serverTime(at: t), resolution: config.timestampResolution) &- epochUnix
    }

    /// Unix nanoseconds `unix` truncated to the resolution. The seeds' whole second is divided
    /// as a constant (a multiplication) rather than by a value known only at run time (a
    /// hardware division, per request).
    @inline(__always)
    static func stamp(_ unix: Int64, resolution: Nanoseconds) -> Int64 {
        resolution == .second ? floorTo(unix, .second) : floorTo(unix, resolution)
    }

    /// The next generation run strictly after t: each period boundary of server time plus jitter.
    public mutating func nextCronRun(after t: SimTime) -> SimTime {
        let boundary = ceilDiv(epochUnix &+ serverTime(at: t) &+ 1, config.cronPeriod) &* config.cronPeriod
        return trueInstant(reaching: boundary &- epochUnix) + config.cronJitter.sampleDuration(&rng)
    }

    /// A generation run at t: extend each position until it is filled `horizon` ahead.
    public mutating func generate(at t: SimTime) {
        let target = serverTime(at: t) &+ config.horizon
        for p in 0..<schedule.positions {
            let chain = schedule.bounds[p]
            while generatedUpTo[p] < chain.count - 1 && chain[generatedUpTo[p]] < target {
                generatedUpTo[p] += 1
            }
        }
    }

    /// How long the compile job runs after a generation run.
    public mutating func publishDelay() -> Nanoseconds {
        config.publishLag &+ config.publishDuration.sampleDuration(&rng)
    }

    /// The compile job finishes at t: snapshot what has been generated as a new file version.
    public mutating func publish(at t: SimTime) {
        let now = serverTime(at: t)
        var coverage = [Int64](repeating: 0, count: schedule.positions)
        var coverageStart = coverage
        var items = 0
        for p in 0..<schedule.positions {
            let chain = schedule.bounds[p]
            coverage[p] = chain[generatedUpTo[p]]
            // Items still running or upcoming: those ending after now, up to the covered end.
            let current = max(0, schedule.item(at: now, position: p))
            coverageStart[p] = chain[min(current, generatedUpTo[p])]
            items += max(0, generatedUpTo[p] - current)
        }
        files.append(PublishedFile(version: files.count, publishedAt: t, coverageStart: coverageStart, coverage: coverage,
                                   items: items, responseBytes: config.file.responseBytes(items: items)))
    }

    /// The version the API serves now.
    public var currentFile: Int { files.count - 1 }
    /// The cron host's clock minus true time before any leap (`config.clockOffset`, read per
    /// request; its clock is `clock(at:offset:)` with it).
    public var clockOffset: Nanoseconds { config.clockOffset }
}
