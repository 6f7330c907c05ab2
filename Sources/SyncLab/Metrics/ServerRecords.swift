import SyncLabKernel

/// What the opt-in serving models (workers and queue, fleet, outages) did in the window.
struct ServingRecord {
    var admitted: UInt64 = 0
    /// Queueing delay of each admitted request: arrival to the start of its service.
    var waits = Histogram()
    var maxQueue = 0
    var queueFull: UInt64 = 0
    var outageRefused: UInt64 = 0
    var outageTimedOut: UInt64 = 0
    /// Requests each fleet server served, and each server's clock offset (the same in every shard).
    var perServer: [UInt64] = []
    var offsets: [Nanoseconds] = []
    /// What each server's stamps carried (`Fleet.auditsClocks`; empty otherwise).
    var clocks: [ServerClockRecord] = []
    /// Per time slice of the window (`batches` of them), for the audit's batch means: the waits'
    /// sum (ns), the requests served and those refused with a full queue.
    static let batches = 20
    var batchWaitSums = [Int64](repeating: 0, count: batches)
    var batchServed = [UInt64](repeating: 0, count: batches)
    var batchRefused = [UInt64](repeating: 0, count: batches)

    /// A request arriving at t (inside the window) waited `wait`, or was refused (nil).
    mutating func batch(at t: SimTime, wait: Nanoseconds?, duration: Nanoseconds) {
        let b = min(Self.batches - 1, Int(t.ns / max(1, (duration + Int64(Self.batches) - 1) / Int64(Self.batches))))
        if let wait {
            batchWaitSums[b] += wait
            batchServed[b] += 1
        } else {
            batchRefused[b] += 1
        }
    }

    mutating func merge(_ o: ServingRecord) {
        admitted += o.admitted
        waits.merge(o.waits)
        maxQueue = max(maxQueue, o.maxQueue)
        queueFull += o.queueFull
        outageRefused += o.outageRefused
        outageTimedOut += o.outageTimedOut
        for i in perServer.indices where i < o.perServer.count { perServer[i] += o.perServer[i] }
        for i in clocks.indices where i < o.clocks.count { clocks[i].merge(o.clocks[i]) }
        for b in 0..<Self.batches {
            batchWaitSums[b] += o.batchWaitSums[b]
            batchServed[b] += o.batchServed[b]
            batchRefused[b] += o.batchRefused[b]
        }
    }

    func figures(_ s: Scenario) -> ServingFigures {
        ServingFigures(requests: admitted, waitMean: waits.mean, waitP99: waits.quantile(0.99), waitMax: waits.quantile(1),
                       maxQueueLength: maxQueue, queueFull: queueFull, outageRefused: outageRefused,
                       outageTimedOut: outageTimedOut, perServer: perServer, serverOffsets: offsets,
                       singleShard: s.server.design != nil, serverClocks: clocks)
    }
}

/// What one fleet server's stamps carried in the window, for the model audit's row and the
/// report's "which servers were wrong when" (`Fleet.auditsClocks`). Counts and extremes only,
/// merged by addition, minimum and maximum: the same for any number of shards.
public struct ServerClockRecord: Sendable, Equatable {
    /// Stamps the server took in the window.
    public var stamps: UInt64 = 0
    /// The server's clock minus true time as its stamps carried it (timestamp − the true instant
    /// it was taken, ns), least and most (`.max`, `.min`: no stamp).
    public var carriedMin: Int64 = .max
    public var carriedMax: Int64 = .min
    /// The largest gap between the offset the scenario gives the server at a stamp's instant and
    /// the offset the stamp carried, ns: in [0, resolution) for a stamp truncated from the right
    /// clock; a stamp ahead of the scenario's clock counts as resolution + how far ahead.
    public var gapMax: Int64 = 0
    /// True instants of the first and last stamps off true time by a timestamp resolution or
    /// more (`.max`, `.min`: none): when the server was wrong.
    public var wrongFrom: Int64 = .max
    public var wrongUntil: Int64 = .min

    public init() {}

    /// A stamp taken at true time `at` carrying `carried` (timestamp − at) where the scenario
    /// gives the server `given`, at timestamp resolution `resolution`.
    mutating func record(at t: Int64, carried: Int64, given: Int64, resolution: Int64) {
        stamps &+= 1
        carriedMin = min(carriedMin, carried)
        carriedMax = max(carriedMax, carried)
        let gap = given &- carried
        gapMax = max(gapMax, gap >= 0 ? gap : resolution &- gap)
        if carried.magnitude >= UInt64(resolution) {
            wrongFrom = min(wrongFrom, t)
            wrongUntil = max(wrongUntil, t)
        }
    }

    mutating func merge(_ o: ServerClockRecord) {
        stamps &+= o.stamps
        carriedMin = min(carriedMin, o.carriedMin)
        carriedMax = max(carriedMax, o.carriedMax)
        gapMax = max(gapMax, o.gapMax)
        wrongFrom = min(wrongFrom, o.wrongFrom)
        wrongUntil = max(wrongUntil, o.wrongUntil)
    }
}

/// The serving models' figures for reports (present only when a serving model is on).
public struct ServingFigures: Sendable, Equatable {
    /// Requests a worker served (arrivals in the window).
    public var requests: UInt64
    /// Queueing delay, ns: mean, p99, max (nil: no request).
    public var waitMean: Double?
    public var waitP99: Int64?
    public var waitMax: Int64?
    public var maxQueueLength: Int
    /// Requests turned away because `queueLimit` requests were waiting.
    public var queueFull: UInt64
    public var outageRefused: UInt64
    public var outageTimedOut: UInt64
    public var perServer: [UInt64]
    /// Each fleet server's clock offset (empty without a fleet).
    public var serverOffsets: [Nanoseconds]
    /// Whether the run was one world because players share the server's state.
    public var singleShard: Bool
    /// What each fleet server's stamps carried, when the scenario sets server clocks apart
    /// (`Fleet.auditsClocks`; else empty).
    public var serverClocks: [ServerClockRecord] = []
}

/// What the original plan's database and API did, and what players saw.
struct DatabaseRecord {
    var storeLoads: UInt64 = 0
    var positionRequests: UInt64 = 0
    var queries = Histogram()          // queueing delay of each query that ran
    var maxQueue = 0
    var queueFull: UInt64 = 0
    var gaveUp: UInt64 = 0
    var outageRefused: UInt64 = 0
    var outageTimedOut: UInt64 = 0
    /// Shows of an item before its start (ns early) and, per transition, the most any player saw.
    var earlyShows = Histogram()
    var shows: UInt64 = 0
    var earlyMax: [Int64]
    /// Per minute of the window: position-samples bare, and all position-samples.
    var bareByMinute: [UInt64]
    var positionsByMinute: [UInt64]
    var earlySamples: UInt64 = 0
    /// Each item's overlap (row start before item start), the same in every shard.
    var overlaps: [Int64] = []

    init(transitions: Int, minutes: Int) {
        earlyMax = [Int64](repeating: 0, count: transitions)
        bareByMinute = [UInt64](repeating: 0, count: minutes)
        positionsByMinute = bareByMinute
    }

    mutating func merge(_ o: DatabaseRecord) {
        storeLoads += o.storeLoads
        positionRequests += o.positionRequests
        queries.merge(o.queries)
        maxQueue = max(maxQueue, o.maxQueue)
        queueFull += o.queueFull
        gaveUp += o.gaveUp
        outageRefused += o.outageRefused
        outageTimedOut += o.outageTimedOut
        earlyShows.merge(o.earlyShows)
        shows += o.shows
        for i in earlyMax.indices where i < o.earlyMax.count { earlyMax[i] = max(earlyMax[i], o.earlyMax[i]) }
        for i in bareByMinute.indices where i < o.bareByMinute.count {
            bareByMinute[i] += o.bareByMinute[i]
            positionsByMinute[i] += o.positionsByMinute[i]
        }
        earlySamples += o.earlySamples
    }

    func figures(_ s: Scenario, schedule: StoreSchedule) -> DatabaseFigures {
        var seenEarly = 0, inWindow = 0
        var earlySum: Int64 = 0, earlyMaxAll: Int64 = 0
        for (i, tr) in schedule.transitions.enumerated() where tr.time >= 0 && tr.time < s.duration {
            inWindow += 1
            let e = i < earlyMax.count ? earlyMax[i] : 0
            if e > 0 { seenEarly += 1; earlySum += e; earlyMaxAll = max(earlyMaxAll, e) }
        }
        let overlapMean = overlaps.isEmpty ? nil : Double(overlaps.reduce(0, +)) / Double(overlaps.count)
        return DatabaseFigures(
            storeLoads: storeLoads, positionRequests: positionRequests, queries: queries.count,
            waitMean: queries.mean, waitP99: queries.quantile(0.99), waitMax: queries.quantile(1), maxQueueLength: maxQueue,
            queueFull: queueFull, timedOut: gaveUp, outageRefused: outageRefused, outageTimedOut: outageTimedOut,
            shows: shows, earlyShows: earlyShows.count, earlyShowMean: earlyShows.mean, earlyShowMax: earlyShows.quantile(1),
            transitions: inWindow, transitionsSeenEarly: seenEarly,
            earlyPerTransitionMean: seenEarly == 0 ? nil : Double(earlySum) / Double(seenEarly), earlyPerTransitionMax: earlyMaxAll,
            apiLeadMean: overlapMean, apiLeadMax: overlaps.max(),
            bareByMinute: zip(bareByMinute, positionsByMinute).map { $1 == 0 ? nil : Double($0) / Double($1) },
            earlySampleShare: nil, positionSamples: positionsByMinute.reduce(0, +), earlyPositionSamples: earlySamples)
    }
}

/// The original plan's figures for reports: the database's load, and the early-visibility leak.
public struct DatabaseFigures: Sendable, Equatable {
    /// Whole-store loads (one per Store visit) and single-position reloads that reached the API.
    public var storeLoads: UInt64
    public var positionRequests: UInt64
    /// Queries that ran, their wait for a connection (ns), and the longest queue.
    public var queries: UInt64
    public var waitMean: Double?
    public var waitP99: Int64?
    public var waitMax: Int64?
    public var maxQueueLength: Int
    /// Errors: queue full, waited past the time-out, API down.
    public var queueFull: UInt64
    public var timedOut: UInt64
    public var outageRefused: UInt64
    public var outageTimedOut: UInt64
    /// Items put on screen, and how many of them before their start (how early, ns).
    public var shows: UInt64
    public var earlyShows: UInt64
    public var earlyShowMean: Double?
    public var earlyShowMax: Int64?
    /// Item changes in the window; those some player saw early; per such change the most any
    /// player saw it early (mean and max, ns).
    public var transitions: Int
    public var transitionsSeenEarly: Int
    public var earlyPerTransitionMean: Double?
    public var earlyPerTransitionMax: Int64
    /// How long before its start the API already returns an item (the overlap), over all items.
    public var apiLeadMean: Double?
    public var apiLeadMax: Int64?
    /// Per minute of the window, the share of viewing position-time that was bare (nil: nobody viewing).
    public var bareByMinute: [Double?]
    public var earlySampleShare: Double?
    /// Viewing position-samples, and those showing an item before its start.
    public var positionSamples: UInt64
    public var earlyPositionSamples: UInt64
}

/// Budget figures of the server models; nil (so a budget on them fails as not measured) when the
/// scenario does not use the model.
extension RunResult {
    var serverFigures: [String: Double?] {
        var f: [String: Double?] = [:]
        func ms(_ ns: Int64?) -> Double? { ns.map { Double($0) / 1e6 } }
        f[Figure.queueWaitMsMean.key] = serving?.waitMean.map { $0 / 1e6 }
        f[Figure.queueWaitMsP99.key] = ms(serving?.waitP99)
        f[Figure.queueWaitMsMax.key] = ms(serving?.waitMax)
        f[Figure.queueLengthMax.key] = (serving?.maxQueueLength ?? database?.maxQueueLength).map(Double.init)
        let outages = serving.map { $0.outageRefused + $0.outageTimedOut } ?? database.map { $0.outageRefused + $0.outageTimedOut }
        f[Figure.outageFailures.key] = outages.map { Double($0) }   // `map(Double.init)` on a UInt64 can pick init(bitPattern:)
        f[Figure.originalPlanEarlyShowShare.key] = database.flatMap { $0.shows == 0 ? nil : Double($0.earlyShows) / Double($0.shows) }
        f[Figure.originalPlanEarlyVisibilityMsMax.key] = database.map { Double($0.earlyPerTransitionMax) / 1e6 }
        f[Figure.originalPlanQueryWaitMsP99.key] = ms(database?.waitP99)
        return f
    }
}
