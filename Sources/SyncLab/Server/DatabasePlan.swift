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

/// The store-file design (v1.1.5), named so a scenario can select it explicitly.
public struct StoreFileDesign: Sendable { public init() {} }
