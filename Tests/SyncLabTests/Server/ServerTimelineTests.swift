import Testing
@testable import SyncLab
import SyncLabKernel

/// The server's jobs worked out before the run (`ServerTimeline`) against the jobs run as events
/// of a queue, the way the world ran them before the timeline.
@Suite struct ServerTimelineTests {
    /// The reference: cron runs and publishes as queued events (ties in scheduling order; none
    /// scheduled at or after the end).
    static func asEvents(_ initial: StoreServer, start: SimTime, end: SimTime)
        -> (files: [PublishedFile], runs: [ServerTimeline.CronRun]) {
        var s = initial
        s.generate(at: start)
        s.publish(at: start)
        var queue = BinaryHeapQueue<Bool>()             // true: a cron run; false: a publish
        let first = s.nextCronRun(after: start)
        if first < end { queue.schedule(true, at: first) }
        var runs: [ServerTimeline.CronRun] = []
        while let (t, isCron) = queue.pop() {
            guard isCron else { s.publish(at: t); continue }
            s.generate(at: t)
            let publishAt = t + s.publishDelay()
            if publishAt < end { queue.schedule(false, at: publishAt) }
            let next = s.nextCronRun(after: t)
            runs.append(ServerTimeline.CronRun(at: t, publishAt: publishAt, next: next))
            if next < end { queue.schedule(true, at: next) }
        }
        return (s.files, runs)
    }

    static func server(_ config: ServerConfig, positions: Int = 4) -> StoreServer {
        let schedule = StoreSchedule(positions: positions, shelfLife: .uniform(min: 30e9, max: 300e9),
                                     resolution: .second, start: SimTime(ns: -10 * .minute),
                                     end: SimTime(ns: 3 * .hour), epochUnix: StoreServerTests.epoch, seed: 3)
        return StoreServer(config: config, schedule: schedule, epochUnix: StoreServerTests.epoch, seed: 11)
    }

    /// The seeds' server; a compile job longer than the cron period (publishes overlap the next
    /// runs and can land out of their runs' order); cron runs on the exact minute with a fixed
    /// compile time (ties between a publish and the next run).
    static let configs = [
        ServerConfig(),
        ServerConfig(publishLag: 50 * .second, publishDuration: .uniform(min: 1e9, max: 80e9)),
        ServerConfig(cronJitter: .constant(0), publishLag: 60 * .second, publishDuration: .constant(0)),
    ]

    /// The timeline's jobs are those of the queue, for each of `configs`.
    @Test(arguments: ServerTimelineTests.configs)
    func sameJobsAsQueuedEvents(config: ServerConfig) {
        let start = SimTime(ns: -5 * .minute), end = SimTime(ns: 2 * .hour)
        let timeline = ServerTimeline(server: Self.server(config), start: start, end: end)
        let reference = Self.asEvents(Self.server(config), start: start, end: end)
        #expect(timeline.cronRuns == reference.runs)
        #expect(timeline.server.files == reference.files)
        #expect(timeline.firstCron == reference.runs.first?.at)
        #expect(timeline.cronRuns.count >= 120)
        #expect(timeline.server.files.count == 1 + timeline.cronRuns.filter { $0.publishAt < end }.count)
    }

    /// The bucketed lookup against a scan of every file, at each publish instant and its
    /// neighbours, with sends before, at and after the run that started the file, and at instants
    /// spread over the run and beyond both ends (publishes that overlap and tie included), for
    /// each of `configs`.
    @Test(arguments: ServerTimelineTests.configs)
    func lookupMatchesScan(config: ServerConfig) {
        let start = SimTime(ns: -5 * .minute), end = SimTime(ns: 2 * .hour)
        let timeline = ServerTimeline(server: Self.server(config), start: start, end: end)
        let published = timeline.server.files.map(\.publishedAt.ns)
        func scan(_ t: Int64, _ sent: Int64) -> Int {
            var file = 0
            for k in published.indices.dropFirst()
            where published[k] < t || (published[k] == t && timeline.startedAt[k] < sent) { file = k }
            return file
        }
        var instants: [Int64] = []
        for p in published { instants += [p - 1, p, p + 1] }
        for k in 0...1_000 { instants.append(start.ns - .minute + Int64(k) * (end.ns - start.ns + 2 * .minute) / 1_000) }
        for t in instants {
            for sent in [t - 2 * .minute, t - 30 * .second, t - 1] {
                #expect(timeline.file(arrivingAt: SimTime(ns: t), sentAt: SimTime(ns: sent)) == scan(t, sent))
            }
        }
    }

    /// A request gets the last file published before it arrives; one published at the very
    /// instant it arrives only if that file's cron run came before the request was sent.
    @Test func fileFoundOnArrival() {
        let timeline = ServerTimeline(server: Self.server(ServerConfig()), start: .zero, end: SimTime(ns: .hour))
        let files = timeline.server.files
        #expect(timeline.file(arrivingAt: SimTime(ns: 1), sentAt: .zero) == 0)
        for k in 1..<files.count {
            let p = files[k].publishedAt, cron = timeline.cronRuns[k - 1].at
            #expect(timeline.cronRuns[k - 1].publishAt == p)
            #expect(timeline.file(arrivingAt: p - 1, sentAt: p - 2) == k - 1)
            #expect(timeline.file(arrivingAt: p + 1, sentAt: p - 2) == k)
            #expect(timeline.file(arrivingAt: p, sentAt: cron + 1) == k)
            #expect(timeline.file(arrivingAt: p, sentAt: cron) == k - 1)
        }
        #expect(timeline.file(arrivingAt: SimTime(ns: 10 * .hour), sentAt: .zero) == files.count - 1)
    }
}
