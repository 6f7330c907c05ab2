import SyncLabKernel

/// The store server's jobs over a whole run, worked out before it starts.
///
/// The generation cron and the compile/publish job depend on no player: their instants and the
/// files they write follow from the schedule, the configuration and the server's own random
/// stream. Run here in the order the run's events would run them (each job's instant, ties in
/// the order they were scheduled; none at or after the end), they give the same files at the
/// same instants, so a request can be answered with the file published before it arrived as
/// soon as it is sent.
public struct ServerTimeline: Sendable {
    /// One generation run: when it ran, when the file it starts is published, and the next run.
    public struct CronRun: Sendable, Equatable {
        public let at: SimTime
        public let publishAt: SimTime
        public let next: SimTime
    }

    /// The server with every file of the run published (`files` in publish order).
    public let server: StoreServer
    /// The first generation run after the start, and every run before the end, in order.
    public let firstCron: SimTime
    public let cronRuns: [CronRun]
    /// Per file version, when it was published and the instant of the generation run that
    /// started it (`Int64.min` ns for the file published at the start), in ns.
    let publishedAt: [Int64]
    let startedAt: [Int64]
    /// A lookup over `publishedAt`: bucket b spans [origin + b·2^shift, origin + (b+1)·2^shift)
    /// and `firstInBucket[b]` is the first file published at or after its start (four buckets or
    /// more per file, so a lookup mostly compares with one file or none, not the whole day's
    /// list; a power of two, so finding the bucket takes a shift, not a division).
    let origin: Int64
    let bucketShift: Int64
    let firstInBucket: [Int32]

    /// The jobs of a run from `start` (where the server has been running: it generates and
    /// publishes once) to `end`.
    public init(server initial: StoreServer, start: SimTime, end: SimTime) {
        var server = initial
        server.generate(at: start)
        server.publish(at: start)
        var startedAt: [SimTime] = [SimTime(ns: .min)]
        var runs: [CronRun] = []
        let firstCron = server.nextCronRun(after: start)
        // Pending jobs as the run's queue holds them: (instant, scheduling order); a cron run's
        // publish is scheduled before the next run.
        var order: UInt64 = 0
        var cron: (at: SimTime, order: UInt64)? = firstCron < end ? (firstCron, order) : nil
        order += 1
        var publishes: [(at: SimTime, order: UInt64, startedAt: SimTime)] = []
        while true {
            let p = publishes.indices.min { (publishes[$0].at, publishes[$0].order) < (publishes[$1].at, publishes[$1].order) }
            if let c = cron, p.map({ (c.at, c.order) < (publishes[$0].at, publishes[$0].order) }) ?? true {
                server.generate(at: c.at)
                let publishAt = c.at + server.publishDelay()
                if publishAt < end {
                    publishes.append((publishAt, order, c.at))
                    order += 1
                }
                let next = server.nextCronRun(after: c.at)
                runs.append(CronRun(at: c.at, publishAt: publishAt, next: next))
                cron = next < end ? (next, order) : nil
                order += 1
            } else if let p {
                server.publish(at: publishes[p].at)
                startedAt.append(publishes[p].startedAt)
                publishes.remove(at: p)
            } else {
                break
            }
        }
        self.server = server
        self.firstCron = firstCron
        cronRuns = runs
        self.startedAt = startedAt.map(\.ns)
        let published = server.files.map(\.publishedAt.ns)
        publishedAt = published
        origin = start.ns
        let span = max(end.ns &- start.ns, 1)
        let perBucket = UInt64(span / Int64(4 * published.count))
        bucketShift = Int64(UInt64.bitWidth - perBucket.leadingZeroBitCount)   // 2^shift > perBucket
        let buckets = Int(span >> bucketShift) + 1
        var first = [Int32](repeating: 0, count: buckets + 1)
        var f = 0
        for b in 0...buckets {
            let bucketStart = origin &+ Int64(b) << bucketShift
            while f < published.count && published[f] < bucketStart { f += 1 }
            first[b] = Int32(f)
        }
        firstInBucket = first
    }

    /// The file version a request arriving at `t`, sent at `sent`, is answered with: the last
    /// one published before `t`, or at `t` if its generation run came before the request was
    /// sent (the run's queue then holds the publish first). Inlined, so the caller never copies
    /// the timeline.
    @inline(__always) public func file(arrivingAt t: SimTime, sentAt sent: SimTime) -> Int {
        // The first file published at t or later lies between the first of t's bucket and the
        // first of the next (before the first bucket: from 0; past the last: up to the end).
        let count = publishedAt.count
        var lo = 0, hi = count
        if t.ns >= origin {
            let b = (t.ns &- origin) &>> bucketShift   // below 64: no check of the shift's range
            if b < Int64(firstInBucket.count - 1) {
                lo = Int(firstInBucket[Int(b)])
                hi = Int(firstInBucket[Int(b) + 1])
            } else {
                lo = Int(firstInBucket[firstInBucket.count - 1])
            }
        } else {
            hi = Int(firstInBucket[0])
        }
        while lo < hi {
            let mid = (lo + hi) / 2
            if publishedAt[mid] < t.ns { lo = mid + 1 } else { hi = mid }
        }
        var file = lo - 1
        while file + 1 < count && publishedAt[file + 1] == t.ns && startedAt[file + 1] < sent.ns { file += 1 }
        return max(file, 0)
    }
}
