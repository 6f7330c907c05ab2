import Testing
@testable import SyncLab
import SyncLabKernel

private func at(_ ns: Int64) -> SimTime { SimTime(ns: ns) }

/// Uniform integer in [lo, hi].
private func uniformIn(_ lo: Int64, _ hi: Int64, _ rng: inout RandomStream) -> Int64 {
    lo &+ Int64(bitPattern: rng.below(UInt64(bitPattern: hi &- lo) &+ 1))
}

@Suite struct StoreServerTests {
    /// Unix …000.371 s.
    static let epoch: Int64 = 1_700_000_000_371_000_000
    /// Unix …040.371 s: 1 700 000 040 = 28 333 334 × 60, so 0.371 s past a whole unix minute.
    static let minuteEpoch: Int64 = 1_700_000_040_371_000_000

    static func schedule(positions: Int = 1, life: Distribution = .constant(60e9), end: SimTime = at(.hour),
                         epoch: Int64 = epoch, seed: UInt64 = 7) -> StoreSchedule {
        StoreSchedule(positions: positions, shelfLife: life, resolution: .second, start: .zero, end: end,
                      epochUnix: epoch, seed: seed)
    }

    static func server(_ config: ServerConfig = ServerConfig(), schedule: StoreSchedule = schedule(),
                       epoch: Int64 = epoch) -> StoreServer {
        StoreServer(config: config, schedule: schedule, epochUnix: epoch, seed: 1)
    }

    @Test func defaultConfigIsTheSeeds() {
        let c = ServerConfig()
        #expect(c.cronPeriod == .minute)
        #expect(c.horizon == 10 * .minute)
        #expect(c.timestampResolution == .second)
        #expect(c.clockOffset == 0)
        #expect(c.publishLag == 5 * .second)
    }

    // MARK: REQUEST_TIME

    @Test func timestampFloorsUnixTimeToWholeSeconds() {
        let s = Self.server()
        // Unix …000.371 at t = 0 → …000 → −0.371 s relative to the epoch.
        #expect(s.timestamp(at: .zero) == -371 * .millisecond)
        #expect(s.timestamp(at: at(629 * .millisecond - 1)) == -371 * .millisecond)
        // t = 0.629 s is unix …001.000: the next whole second, 0.629 s after the epoch.
        #expect(s.timestamp(at: at(629 * .millisecond)) == 629 * .millisecond)
        #expect(s.timestamp(at: at(1_628 * .millisecond)) == 629 * .millisecond)
        #expect(s.timestamp(at: at(1_629 * .millisecond)) == 1_629 * .millisecond)
        // Before the epoch: −0.371 s is unix …000.000; 1 ns earlier is …999.999999999 → −1.371 s.
        #expect(s.timestamp(at: at(-371 * .millisecond)) == -371 * .millisecond)
        #expect(s.timestamp(at: at(-371 * .millisecond - 1)) == -1_371 * .millisecond)
        #expect(s.serverTime(at: at(12_345)) == 12_345)
    }

    @Test func timestampAtOneMicrosecond() {
        // Epoch …000.371000500: t = 0 → …000.371000 → −500 ns.
        let epoch = Self.epoch + 500
        let s = Self.server(ServerConfig(timestampResolution: .microsecond), schedule: Self.schedule(epoch: epoch),
                            epoch: epoch)
        #expect(s.timestamp(at: .zero) == -500)
        // t = 1 234 567 ns: unix fraction .371000500 + .001234567 = .372235067 → .372235 → 1 234 500 ns.
        #expect(s.timestamp(at: at(1_234_567)) == 1_234_500)
        // At the µs-aligned epoch the timestamp is t truncated to µs.
        let aligned = Self.server(ServerConfig(timestampResolution: .microsecond))
        #expect(aligned.timestamp(at: at(1_234_567)) == 1_234_000)
        #expect(aligned.timestamp(at: at(-1)) == -1_000)
    }

    @Test func timestampUsesTheServerClock() {
        // Server clock 0.25 s fast: at t = 0.379 s it reads 0.629 s, unix …001.000.
        let s = Self.server(ServerConfig(clockOffset: 250 * .millisecond))
        #expect(s.serverTime(at: at(379 * .millisecond)) == 629 * .millisecond)
        #expect(s.timestamp(at: at(379 * .millisecond)) == 629 * .millisecond)
        #expect(s.timestamp(at: at(379 * .millisecond - 1)) == -371 * .millisecond)
    }

    @Test func seededTimestampsAreWholeUnixSecondsAtOrBeforeTheServerTime() {
        var rng = RandomStream(seed: 3, purpose: StreamPurpose("test-store-server-ts"))
        for _ in 0..<1_000 {
            let epoch = 1_700_000_000_000_000_000 + uniformIn(0, 999_999_999, &rng)
            let offset = uniformIn(-5 * .second, 5 * .second, &rng)
            for resolution in [Int64.second, .microsecond] {
                let s = Self.server(ServerConfig(timestampResolution: resolution, clockOffset: offset),
                                    schedule: Self.schedule(end: at(.minute), epoch: epoch), epoch: epoch)
                let t = at(uniformIn(-.hour, 24 * .hour, &rng))
                let ts = s.timestamp(at: t)
                #expect((epoch + ts) % resolution == 0)
                #expect(ts <= t.ns + offset && t.ns + offset < ts + resolution)
            }
        }
    }

    // MARK: Cron

    @Test func nextCronRunIsTheNextWholeUnixMinutePlusJitter() {
        var s = Self.server(ServerConfig(cronJitter: .constant(0)), schedule: Self.schedule(epoch: Self.minuteEpoch),
                            epoch: Self.minuteEpoch)
        // t = 0 is unix …040.371; the next minute is …100 → t = 60 − 0.371 = 59.629 s.
        #expect(s.nextCronRun(after: .zero) == at(59_629 * .millisecond))
        #expect(s.nextCronRun(after: at(59_629 * .millisecond - 1)) == at(59_629 * .millisecond))
        // Strictly after: from a minute boundary itself, the following one.
        #expect(s.nextCronRun(after: at(59_629 * .millisecond)) == at(119_629 * .millisecond))
        #expect(s.nextCronRun(after: at(-371 * .millisecond)) == at(59_629 * .millisecond))
        #expect(s.nextCronRun(after: at(-371 * .millisecond - 1)) == at(-371 * .millisecond))
        // Constant jitter 1.5 s is added.
        var j = Self.server(ServerConfig(cronJitter: .constant(1.5e9)), schedule: Self.schedule(epoch: Self.minuteEpoch),
                            epoch: Self.minuteEpoch)
        #expect(j.nextCronRun(after: .zero) == at(61_129 * .millisecond))
        // Server clock 2 s fast: at t = 0 it reads unix …042.371, next minute …100 → 2 s earlier in
        // true time. 1 s slow: it reads …039.371, so its next minute is …040 itself, reached at true
        // t = −0.371 + 1 = 0.629 s.
        var fast = Self.server(ServerConfig(cronJitter: .constant(0), clockOffset: 2 * .second),
                               schedule: Self.schedule(epoch: Self.minuteEpoch), epoch: Self.minuteEpoch)
        #expect(fast.nextCronRun(after: .zero) == at(57_629 * .millisecond))
        var slow = Self.server(ServerConfig(cronJitter: .constant(0), clockOffset: -.second),
                               schedule: Self.schedule(epoch: Self.minuteEpoch), epoch: Self.minuteEpoch)
        #expect(slow.nextCronRun(after: .zero) == at(629 * .millisecond))
        #expect(slow.nextCronRun(after: at(629 * .millisecond)) == at(60_629 * .millisecond))
    }

    @Test func seededCronRunsLandWithinTheJitterOfAMinute() {
        var s = Self.server(schedule: Self.schedule(epoch: Self.minuteEpoch), epoch: Self.minuteEpoch)
        var t = SimTime.zero
        var previousBoundary: Int64 = .min
        for _ in 0..<500 {
            let next = s.nextCronRun(after: t)
            let unix = Self.minuteEpoch + next.ns
            let boundary = floorTo(unix, .minute)
            // The default jitter is uniform on [0, 2 s).
            #expect(unix - boundary <= 2 * .second)
            #expect(boundary > Self.minuteEpoch + t.ns)
            #expect(boundary > previousBoundary)
            if previousBoundary != .min { #expect(boundary - previousBoundary == .minute) }
            previousBoundary = boundary
            t = next
        }
    }

    @Test func publishDelayIsLagPlusDuration() {
        var s = Self.server(ServerConfig(publishLag: 5 * .second, publishDuration: .constant(1e9)))
        #expect(s.publishDelay() == 6 * .second)
        var u = Self.server()
        for _ in 0..<200 {
            let d = u.publishDelay()
            #expect(5_500 * .millisecond <= d && d <= 7 * .second)
        }
    }

    // MARK: Generation and publication: hand case

    @Test func generateAndPublishHandCase() {
        // One position, 60 s lives: boundaries b_k = c0 + 60k s with c0 = −0.371 s − back,
        // back ∈ [0, 59] s, so c0 ∈ [−59.371, −0.371] s.
        let schedule = Self.schedule()
        let b = schedule.bounds[0]
        var s = Self.server(schedule: schedule)
        // Before any generation: nothing covered.
        s.publish(at: .zero)
        #expect(s.files[0].items == 0)
        #expect(s.files[0].coverage == [b[0]] && s.files[0].coverageStart == [b[0]])

        // generate(at: 0): target 600 s; b_10 = c0 + 600 < 600 ≤ c0 + 660 = b_11 → covered to b_11.
        s.generate(at: .zero)
        #expect(s.generatedUpTo == [11])
        s.generate(at: .zero)                       // idempotent
        #expect(s.generatedUpTo == [11])
        s.publish(at: .zero)
        // Item 0 is showing at 0 (b_0 ≤ 0 < b_1 = c0 + 60 ≥ 0.629 s): items 0…10, 11 of them.
        // 120 + 150 × 11 = 1770 → 1776 → 4 × 592 = 2368 → 2668.
        let f1 = s.files[1]
        #expect(f1.version == 1 && f1.publishedAt == .zero)
        #expect(f1.coverageStart == [b[0]] && f1.coverage == [b[11]])
        #expect(f1.items == 11)
        #expect(f1.responseBytes == 2_668)
        #expect(s.currentFile == 1)

        // generate(at: 60 s): target 660 s > b_11 = c0 + 660 → b_12.
        s.generate(at: at(.minute))
        #expect(s.generatedUpTo == [12])
        // Published at 60.5 s: b_1 ≤ 59.629 < 60.5 < 60.629 ≤ b_2 → item 1 current: items 1…11.
        s.publish(at: at(60_500 * .millisecond))
        let f2 = s.files[2]
        #expect(f2.coverageStart == [b[1]] && f2.coverage == [b[12]])
        #expect(f2.items == 11)
        #expect(s.currentFile == 2)
        #expect(s.files.map(\.version) == [0, 1, 2])
        // Publication 20 min later without generating: everything listed has ended.
        s.publish(at: at(20 * .minute))
        #expect(s.files[3].items == 0)
        #expect(s.files[3].coverageStart == [b[12]] && s.files[3].coverage == [b[12]])
    }

    @Test func generationStopsAtTheEndOfTheChain() {
        // A 5 min schedule; generating at 1 h wants 1 h 10 min but the chains end before that.
        let schedule = Self.schedule(positions: 3, life: .uniform(min: 45e9, max: 240e9), end: at(5 * .minute))
        var s = Self.server(schedule: schedule)
        s.generate(at: at(.hour))
        #expect(s.generatedUpTo == schedule.bounds.map { $0.count - 1 })
    }

    // MARK: Generation and publication: seeded properties

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func generationKeepsEveryPositionFilledHorizonAheadAndNoFurther(seed: UInt64) {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("test-store-server-gen"))
        let offset = uniformIn(-3 * .second, 3 * .second, &rng)
        let horizon = [10 * Int64.minute, 5 * .minute, 90 * .second][Int(seed % 3)]
        let schedule = StoreSchedule(positions: 12, shelfLife: .uniform(min: 45e9, max: 240e9), resolution: .second,
                                     start: .zero, end: at(2 * .hour), epochUnix: Self.epoch, seed: seed)
        var s = Self.server(ServerConfig(horizon: horizon, clockOffset: offset), schedule: schedule)
        var t = SimTime.zero
        s.generate(at: t)
        while t < at(100 * .minute) {
            let target = s.serverTime(at: t) + horizon
            for p in 0..<schedule.positions {
                let chain = schedule.bounds[p]
                let g = s.generatedUpTo[p]
                #expect(chain[g] >= target, "position \(p) at \(t)")   // covered horizon ahead
                #expect(chain[g - 1] < target, "position \(p) at \(t)") // and no further than needed
            }
            // Publication snapshots it.
            let publishedAt = t + uniformIn(0, 10 * .second, &rng)
            s.publish(at: publishedAt)
            let file = s.files.last!
            let now = s.serverTime(at: publishedAt)
            var items = 0
            for p in 0..<schedule.positions {
                let chain = schedule.bounds[p]
                let g = s.generatedUpTo[p]
                #expect(file.coverage[p] == chain[g])
                let current = chain.lastIndex { $0 <= now }!
                #expect(current <= g)
                #expect(file.coverageStart[p] == chain[current])
                items += g - current
                // The file lists the item on screen now and every later one up to the covered end.
                #expect(file.lists(now, position: p))
                #expect(file.lists(chain[g] - 1, position: p))
                #expect(!file.lists(chain[g], position: p))
            }
            #expect(file.items == items)
            #expect(file.responseBytes == StoreFileFormat().responseBytes(items: items))
            #expect(file.latestCoverage == file.coverage.max()!)
            #expect(file.version == s.files.count - 1)
            #expect(file.latestCoverage >= s.serverTime(at: t) + horizon)
            t = s.nextCronRun(after: t)
            s.generate(at: t)
        }
    }
}
