import SyncLabKernel

/// The original plan, before the store file: an API that asks a database for one position's
/// item whenever a player's item runs out.
///
/// From the seeds: "a CRON job … would populate a database table with the upcoming items";
/// "every item had a start and end time that was fixed but had a random amount of seconds
/// (between 10 and 45)"; "there was an API call to reload just a single position which would be
/// called when an item ran out"; at a release "there could be thousands of requests in the same
/// second all asking the database", "the Store would gradually become emptier and emptier"; and
/// "there was a slight overlap between expiration and start times of items", so the next item
/// could be seen "up to 15 seconds before the item appeared".
///
/// The model: each item lives `store.shelfLife` + `endJitter`; its database row already answers
/// queries `overlap` before its start (the API returns the newest row whose start has passed, so
/// during the overlap it returns the next item). The database runs `connections` queries at once,
/// each `queryTime` long, the rest wait in FIFO order; a query that would wait longer than
/// `timeout`, or finds `queueLimit` queries waiting, gets an error. The API answers with the item
/// and the whole seconds left until its end (PHP `time()`), which the client counts down.
public struct DatabasePlan: Sendable, Equatable {
    /// Queries the database runs at once (connections).
    public var connections: Int
    public var queryTime: Distribution
    /// Queries that may wait for a connection (nil: no limit); more get "too many connections".
    public var queueLimit: Int?
    /// How long the API waits for a connection before answering with an error.
    public var timeout: Nanoseconds
    /// Random time added to each item's end (the seeds' 10–45 s).
    public var endJitter: Distribution
    /// How long before its start an item's row already answers queries (the seeds' up to 15 s).
    public var overlap: Distribution

    public init(connections: Int = 20, queryTime: Distribution = .lognormal(median: 20e6, sigma: 0.5),
                queueLimit: Int? = nil, timeout: Nanoseconds = 10 * .second,
                endJitter: Distribution = .uniform(min: 10e9, max: 45e9),
                overlap: Distribution = .uniform(min: 0, max: 15e9)) {
        self.connections = connections
        self.queryTime = queryTime
        self.queueLimit = queueLimit
        self.timeout = timeout
        self.endJitter = endJitter
        self.overlap = overlap
    }

    /// The plan's item schedule: like the store file's (one stream per position, the first item
    /// begun part of a life ago, whole-second boundaries), each life plus the end jitter, drawn
    /// from a purpose stream of its own.
    public func schedule(positions: Int, shelfLife: Distribution, resolution: Nanoseconds, start: SimTime,
                         end: SimTime, epochUnix: Int64, seed: UInt64) -> StoreSchedule {
        var bounds: [[Int64]] = []
        for p in 0..<positions {
            var rng = RandomStream(seed: seed, purpose: StreamPurpose("shelf-life"), entity: UInt64(p))
            var jitter = RandomStream(seed: seed, purpose: StreamPurpose("end-jitter"), entity: UInt64(p))
            func life() -> Int64 {
                let base = shelfLife.sampleDuration(&rng)
                return max(resolution, floorTo(base &+ endJitter.sampleDuration(&jitter), resolution))
            }
            let first = life()
            let back = Int64(rng.below(UInt64(first / resolution))) &* resolution
            var t = floorTo(epochUnix &+ start.ns, resolution) &- epochUnix &- back
            var chain: [Int64] = [t]
            t &+= first
            while true {
                chain.append(t)
                if t > end.ns { break }
                t &+= life()
            }
            bounds.append(chain)
        }
        return StoreSchedule(positions: positions, bounds: bounds)
    }

    /// Per position, the server time each item's row starts answering queries: its start minus
    /// its overlap (whole resolution steps, never before the previous item's start). The first
    /// item's row has always answered.
    public func rowStarts(_ schedule: StoreSchedule, resolution: Nanoseconds, seed: UInt64) -> [[Int64]] {
        (0..<schedule.positions).map { p in
            var rng = RandomStream(seed: seed, purpose: StreamPurpose("overlap"), entity: UInt64(p))
            let chain = schedule.bounds[p]
            var rows = [Int64.min]
            for k in chain.indices.dropFirst() {
                let lead = floorTo(overlap.sampleDuration(&rng), resolution)
                rows.append(max(chain[k - 1] &+ resolution, chain[k] &- lead))
            }
            return rows
        }
    }

    /// The item the API returns for position p at server time s: the newest row started by s.
    public static func answer(_ rows: [Int64], at s: Int64) -> Int {
        var lo = 0, hi = rows.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if rows[mid] <= s { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    /// The queries the database can finish per second at most (connections / mean query time).
    public var capacityPerSecond: Double { Double(connections) / max(queryTime.mean, 1) * 1e9 }
}

extension DatabasePlan: Plugin {
    public static let family = PluginFamily.serverDesign
    public static let kind = "database-per-position"
    public static let schema = SchemaFragment(
        "The original plan: the API asks a database for one position's item whenever a player's item runs out.",
        properties: [
            "connections": ["type": "integer", "minimum": 1, "maximum": 1000000, "examples": [20],
                            "description": "Queries the database runs at once (default 20)."],
            "queryTime": SchemaFragment.ref("durationDistribution", "A duration distribution (see durationDistribution): one query's time (default lognormal median 20ms, sigma 0.5).", examples: ["20ms"]),
            "queueLimit": ["type": "integer", "minimum": 0, "maximum": 100000000, "examples": [500],
                           "description": "Queries that may wait for a connection (absent: no limit)."],
            "timeout": SchemaFragment.ref("positiveDuration", "How long the API waits for a connection before answering with an error: 1ms to 1d (default 10s).", examples: ["10s"]),
            "endJitter": SchemaFragment.ref("durationDistribution", "A duration distribution: random time added to each item's end (default uniform 10s-45s).", examples: ["20s"]),
            "overlap": SchemaFragment.ref("durationDistribution", "A duration distribution: how long before its start an item's row already answers queries (default uniform 0s-15s).", examples: ["5s"]),
        ])

    public init(_ n: InputNode, in context: PluginContext) throws {
        let limits = ScenarioLoader.Limits.self
        self.init(
            connections: try n.value("connections", default: 20) { try $0.int(min: 1, max: 1_000_000) },
            queryTime: try n.value("queryTime", default: Distribution.lognormal(median: 20e6, sigma: 0.5)) {
                try $0.distribution(.duration, .durations(0, limits.delay, finiteMean: true))
            },
            queueLimit: try n.optional("queueLimit") { try $0.int(min: 0, max: 100_000_000) },
            timeout: try n.value("timeout", default: 10 * Int64.second) { try $0.duration(in: Int64.millisecond...limits.delay) },
            endJitter: try n.value("endJitter", default: Distribution.uniform(min: 10e9, max: 45e9)) {
                try $0.distribution(.duration, .durations(0, limits.delay))
            },
            overlap: try n.value("overlap", default: Distribution.uniform(min: 0, max: 15e9)) {
                try $0.distribution(.duration, .durations(0, limits.delay))
            })
    }

    public var summary: String {
        "database per position: \(connections) connections, query time \(queryTime.describe(.duration))"
            + (queueLimit.map { ", at most \($0) waiting" } ?? "") + ", time-out \(Units.formatDuration(timeout))"
    }
}
