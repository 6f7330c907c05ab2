import Testing
@testable import SyncLab
import SyncLabKernel

/// The model audit's sample of players: above `AuditCounters.auditedPlayers` it follows one
/// player in k from a start keyed by the seed, the same players for any number of shards, and
/// its rows rest on their counts alone.
@Suite struct AuditSampleTests {
    static func r1(players: Int) throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("r1.json"))
        s.population.players = players
        return s
    }

    /// The least k with ⌈players / k⌉ ≤ 25,000, by hand.
    @Test(arguments: [(1, 1), (25_000, 1), (25_001, 2), (50_000, 2), (50_001, 3), (100_000, 4), (170_000, 7), (1_000_000, 40), (10_000_000, 400)])
    func oneInKKeepsAtMostTheAuditedPlayers(players: Int, k: Int) {
        #expect(AuditCounters.stride(players: players, audited: AuditCounters.auditedPlayers) == k)
    }

    /// Over 3 h the audit follows fewer players, 75,000 player-hours' worth, by hand: 25,000
    /// over 3 h or less, 12,500 over 6 h, 3,125 over a day, one at least (a span of 75,000 h).
    static let exposures: [(seconds: Int64, audited: Int)] = [
        (1, 25_000), (1_800, 25_000), (10_800, 25_000), (10_801, 24_997), (21_600, 12_500),
        (86_400, 3_125), (270_000_000, 1), (288_000_000, 1),
    ]

    @Test(arguments: exposures)
    func aLongerRunFollowsFewerPlayers(seconds: Int64, audited: Int) throws {
        var s = try Self.r1(players: 1_000_000)
        s.duration = seconds * .second
        #expect(AuditCounters.audited(for: s) == audited)
        #expect(AuditCounters(scenario: s, players: 0..<0).stride == AuditCounters.stride(players: 1_000_000, audited: audited))
    }

    /// The count of audited players is the brute-force count whatever start the seed gives, and
    /// never above 25,000; the start lies within the stride and moves with the seed.
    @Test func theAuditedCountIsTheBruteForceCount() throws {
        for players in [1, 7, 50_001, 170_000] {
            var s = try Self.r1(players: players)
            var starts = Set<Int>()
            for seed in 1...12 {
                s.seed = UInt64(seed)
                let counts = AuditCounters(scenario: s, players: 0..<0)
                starts.insert(counts.offset)
                let brute = (0..<players).filter { ($0 + counts.offset) % counts.stride == 0 }.count
                #expect(counts.audited(of: players) == brute && brute <= AuditCounters.auditedPlayers, "\(players), seed \(seed)")
                #expect((0..<counts.stride).contains(counts.offset))
            }
            #expect(players <= AuditCounters.auditedPlayers ? starts == [0] : starts.count > 1)
        }
    }

    /// Each shard's audited players take the slots 0..<its count, in order, whatever the cut, and
    /// a player is audited in a shard exactly when it is in the whole population.
    @Test func slotsAreDenseInEveryShard() throws {
        let players = 1_000, audited = 143   // one in 7
        let s = try Self.r1(players: players)
        let whole = AuditCounters(scenario: s, players: 0..<players, audited: audited)
        #expect(whole.stride == 7)
        let chosen = (0..<players).filter { whole.slot($0) != nil }
        #expect(chosen.count == whole.audited(of: players) && chosen.allSatisfy { ($0 + whole.offset) % 7 == 0 })
        for cut in [1, 300, 701, 999] {
            for range in [0..<cut, cut..<players] {
                let shard = AuditCounters(scenario: s, players: range, audited: audited)
                let slots = (0..<range.count).compactMap { shard.slot($0) }
                #expect(slots == Array(0..<slots.count), "\(range)")
                #expect((0..<range.count).filter { shard.slot($0) != nil }.map { $0 + range.lowerBound } == chosen.filter(range.contains))
            }
        }
    }

    /// Draws of players outside the sample are not counted; two shards' counts merge to the
    /// whole population's, histogram, sums and pairs alike.
    @Test func onlyTheSampleIsCountedAndShardsMergeExactly() throws {
        let players = 4_000, audited = 1_000   // one in 4
        let s = try Self.r1(players: players)
        var whole = AuditCounters(scenario: s, players: 0..<players, audited: audited)
        var low = AuditCounters(scenario: s, players: 0..<1_500, audited: audited)
        var high = AuditCounters(scenario: s, players: 1_500..<players, audited: audited)
        var expected = 0
        for p in 0..<players {
            for k in 0..<3 {
                let t = Int64(k) * 600 * .second + Int64(p) * .millisecond
                let up = Int64(30 + (p * 7 + k) % 50) * .millisecond, down = Int64(50 + (p * 3 + k) % 40) * .millisecond
                whole.uplink(p, up, at: t, link: 0, measured: true)
                whole.downlink(p, down, at: t + up, link: 0, measured: true)
                if p < 1_500 {
                    low.uplink(p, up, at: t, link: 0, measured: true)
                    low.downlink(p, down, at: t + up, link: 0, measured: true)
                } else {
                    high.uplink(p - 1_500, up, at: t, link: 0, measured: true)
                    high.downlink(p - 1_500, down, at: t + up, link: 0, measured: true)
                }
                if (p + whole.offset) % 4 == 0 { expected += 1 }
            }
        }
        low.merge(high)
        let a = whole.links[0], b = low.links[0]
        #expect(a.uplink.count == expected && a.downlink.count == expected)
        #expect(a.lag.count == 2 * whole.audited(of: players))   // 3 uplinks a player: 2 successive pairs
        #expect(a.uplink.sum == b.uplink.sum && a.uplink.squares == b.uplink.squares && a.uplink.histogram == b.uplink.histogram)
        #expect(a.downlink.sum == b.downlink.sum && a.lag.xy == b.lag.xy && a.lag.count == b.lag.count)
    }

    /// R1 at 50,000 players for half an hour: the audit follows 25,000 of them (one in 2), on 1
    /// and on 3 threads alike; its link rows rest on about half the run's uplinks, every row
    /// holds, and the same counts still fail a link whose median is 5% off.
    @Test func aSampledRunIsTheSameOnAnyShardsAndStillCatchesAWrongLink() throws {
        var s = try Self.r1(players: 50_000)
        s.duration = 30 * .minute
        let one = try Self.sampledRun(s, threads: 3, audited: 25_000, stride: 2)

        var wrong = s.links[0]
        wrong.uplink = .lognormal(median: 42e6, sigma: 0.5)
        let counts = try #require(one.auditCounts).links[0]
        let rows = ModelAudit.linkRows(wrong, counts, seed: s.seed, index: 0)
        #expect(rows.first { $0.figure == "uplinkMs.p50" }?.holds == false, "\(rows)")
    }

    /// R1 at 30,000 players over 6 h, run end to end: the hours bound lets it follow 12,500, so
    /// one in 3 (10,000 players), on 1 and on 2 threads alike; its link rows rest on about a
    /// third of the run's uplinks, and every row holds.
    @Test func aLongRunFollowsItsHoursWorth() throws {
        var s = try Self.r1(players: 30_000)
        s.duration = 6 * .hour
        _ = try Self.sampledRun(s, threads: 2, audited: 10_000, stride: 3)
    }

    /// Runs `s` on one thread and on `threads` (asserted split into that many shards) and checks
    /// the audit's sample: `audited` players followed, one in `stride`, the same rows on either,
    /// every row holding, and the uplink p50 row resting on 1/stride of the run's uplinks within
    /// 5 SDs (a binomial sample of players, each with the run's mean uplinks). Returns the
    /// one-thread run.
    static func sampledRun(_ s: Scenario, threads: Int, audited: Int, stride: Int) throws -> RunResult {
        let one = Simulation.run(s, threads: 1)
        let many = Simulation.run(s, threads: threads)
        #expect(many.shards == threads, "the test means to split the players")
        #expect(one.auditedPlayers == audited && one.auditStride == stride)
        #expect(one.modelAudit == many.modelAudit && many.auditedPlayers == audited)
        #expect(!one.modelAudit.isEmpty && one.modelAudit.allSatisfy(\.holds), "\(one.modelAudit)")
        let p50 = try #require(one.modelAudit.first { $0.figure == "uplinkMs.p50" })
        let uplinks = Double(one.requestsSent), players = Double(s.population.players)
        let share = 1 / Double(stride)
        let sd = (players * share * (1 - share)).squareRoot() * uplinks / players
        #expect(abs(Double(p50.samples) - uplinks * share) < 5 * sd, "\(p50.samples) of \(uplinks)")
        return one
    }
}
