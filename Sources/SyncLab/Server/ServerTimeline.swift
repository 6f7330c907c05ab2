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
    /// Per file version, the instant of the generation run that started it (`Int64.min` ns for
    /// the file published at the start).
    let startedAt: [SimTime]

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
        self.startedAt = startedAt
    }

    /// The file version a request arriving at `t`, sent at `sent`, is answered with: the last
    /// one published before `t`, or at `t` if its generation run came before the request was
    /// sent (the run's queue then holds the publish first).
    public func file(arrivingAt t: SimTime, sentAt sent: SimTime) -> Int {
        let files = server.files
        var lo = 0, hi = files.count            // first file published at t or later
        while lo < hi {
            let mid = (lo + hi) / 2
            if files[mid].publishedAt < t { lo = mid + 1 } else { hi = mid }
        }
        var file = lo - 1
        while file + 1 < files.count && files[file + 1].publishedAt == t && startedAt[file + 1] < sent { file += 1 }
        return max(file, 0)
    }
}
