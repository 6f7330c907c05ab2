import Testing
@testable import SyncLab
import SyncLabKernel

/// End to end with a fleet of three servers, one of them 2 s ahead (`fleet.clockOffsets`), on
/// constant links (uplink 40 ms, downlink 60 ms, service 300 ms, µs stamps at arrival, perfect
/// clocks: `WorldServingTests`), worked out by hand.
///
/// Per probe: the seeds' estimator errs by the uplink plus the server's offset, 40 ms + o; NTP's
/// θ by half the asymmetry plus o, (40 − 60)/2 ms + o = −10 ms + o (less the µs truncation of its
/// two stamps). A sync is wrong (|error| > 250 ms) exactly when its estimate follows the bad
/// server.
@Suite struct WorldServerClocksTests {
    static let bad: Int64 = 2 * .second

    static func scenario(players: Int, duration: Nanoseconds, balancing: Fleet.Balancing,
                         estimator: any SyncEstimator, probes: Int) -> Scenario {
        var s = WorldServingTests.scenario(players: players, duration: duration) {
            $0.fleet = Fleet(servers: 3, balancing: balancing, clockOffsets: [bad, nil, nil])
            $0.workers = nil
            $0.queueLimit = nil
        }
        s.client.estimator = estimator
        s.client.probes = probes
        s.client.tick = ImmediateTick()
        s.positions = 1
        s.sampleEvery = 10 * .minute
        return s
    }

    /// One player and round-robin: every round of three probes asks servers 0, 1, 2 in turn, so
    /// the median and Marzullo's intersection always outvote server 0 and err by −10 ms (to
    /// within the stamps' µs and the bound's drift terms); NTP alone (one probe per sync, the
    /// shipped single-server way) follows server 0 at every third sync, the first included.
    @Test func roundRobinCombinersOutvoteTheBadServer() throws {
        for estimator in [MedianEstimator(window: 3) as any SyncEstimator, MarzulloEstimator(window: 3)] {
            let s = Self.scenario(players: 1, duration: 2 * .hour, balancing: .roundRobin, estimator: estimator, probes: 3)
            var world = World(scenario: s)
            let result = world.run()
            let e = result.fetchSyncError
            #expect(e.count >= 10, "\(estimator.name)")
            #expect(result.fetchSyncErrorOver250ms == 0, "\(estimator.name)")
            let mean = try #require(e.meanSigned)
            #expect(abs(mean + 10e6) < 100e3, "\(estimator.name): mean error \(mean) ns")
            let largest: Int64 = try #require(e.quantile(1))
            let limit: Int64 = 10 * .millisecond + 100 * .microsecond
            #expect(largest < limit, "\(estimator.name)")
        }
        let s = Self.scenario(players: 1, duration: 2 * .hour, balancing: .roundRobin, estimator: NTPEstimator(window: 1), probes: 1)
        var world = World(scenario: s)
        let result = world.run()
        let n = result.fetchSyncError.count
        #expect(n >= 10)
        #expect(result.fetchSyncErrorOver250ms == (n + 2) / 3)
    }

    /// Random balancing: each request picks a server uniformly, on its own draw. The seeds'
    /// estimator on one probe per sync takes its server's word, so the share of wrong syncs is
    /// the share of probes that hit server 0, 1/3. The median and Marzullo over a round of three
    /// probes go wrong when two or three of them hit it: 3·(1/3)²·(2/3) + (1/3)³ = 7/27 (with
    /// two bad intervals agreeing, Marzullo's majority is theirs). Tolerance: 5 standard errors
    /// of a binomial share over the run's syncs (each player's draws are independent).
    @Test(arguments: [("upload-complete", 1, 1.0 / 3), ("median", 3, 7.0 / 27), ("marzullo", 3, 7.0 / 27)])
    func wrongSyncShareIsTheShareOfBadProbes(kind: String, probes: Int, expected: Double) throws {
        let estimator: any SyncEstimator = switch kind {
        case "median": MedianEstimator(window: 3)
        case "marzullo": MarzulloEstimator(window: 3)
        default: UploadCompleteEstimator()
        }
        let s = Self.scenario(players: 2_000, duration: .hour, balancing: .random, estimator: estimator, probes: probes)
        var world = World(scenario: s)
        let result = world.run()
        let n = Double(result.fetchSyncError.count)
        #expect(n > 10_000)
        let share = try #require(result.fetchSyncErrorOver250msShare)
        let se = (expected * (1 - expected) / n).squareRoot()
        #expect(abs(share - expected) <= 5 * se, "\(kind): share \(share), expected \(expected) ± \(se) over \(n) syncs")
        // A wrong sync errs by the bad server's 2 s, a right one by the estimator's own bias.
        let right: Double = kind == "upload-complete" ? 40e6 : -10e6
        let mean: Double = try #require(result.fetchSyncError.meanSigned)
        let predicted: Double = share * (Double(Self.bad) + right) + (1 - share) * right
        let gap: Double = Swift.abs(mean - predicted)
        #expect(gap < 0.1e6, "\(kind): mean error \(mean) ns, predicted \(predicted)")
    }

    /// A step on server 1 at 30 min: stamps taken before it carry no offset, after it 2 s.
    @Test func aStepMovesTheStampsAfterIt() {
        let s = WorldServingTests.scenario(players: 1, duration: .hour) {
            $0.fleet = Fleet(servers: 1, faults: [ServerClockStep(server: 0, at: SimTime(ns: 30 * .minute), by: Self.bad)])
            $0.workers = nil
        }
        var world = World(scenario: s)
        world.run(until: SimTime(ns: 29 * .minute))
        let before = world.player(0)
        #expect(before.request.timestamp == WorldServingTests.stamp(s, WorldServingTests.arrival(before)))
        _ = world.run()
        let after = world.player(0)
        #expect(WorldServingTests.arrival(after).ns > 30 * .minute)
        #expect(after.request.timestamp == WorldServingTests.stamp(s, WorldServingTests.arrival(after), offset: Self.bad))
        #expect(after.request.serverOffset == Self.bad)
    }

    /// With a fault the run records what server 0's stamps carried: no offset before the step,
    /// 2 s after it (less the µs truncation), wrong from the first stamp after 30 min; the model
    /// audit's row for the server holds (every gap under one resolution) and the report says so.
    @Test func theAuditSeesWhichServerWasWrongWhen() throws {
        let s = WorldServingTests.scenario(players: 1, duration: .hour) {
            $0.fleet = Fleet(servers: 1, faults: [ServerClockStep(server: 0, at: SimTime(ns: 30 * .minute), by: Self.bad)])
            $0.workers = nil
        }
        var world = World(scenario: s)
        let result = world.run()
        let clock = try #require(result.serving?.serverClocks.first)
        #expect(clock.stamps > 4)
        #expect(clock.carriedMin > -Int64.microsecond && clock.carriedMin <= 0)
        #expect(clock.carriedMax > Self.bad - .microsecond && clock.carriedMax <= Self.bad)
        #expect(clock.wrongFrom >= 30 * .minute && clock.wrongFrom < 40 * .minute)
        #expect(clock.wrongUntil < .hour && clock.wrongUntil > 50 * .minute)
        #expect(clock.gapMax >= 0 && clock.gapMax < .microsecond)
        let row = try #require(result.modelAudit.first { $0.model == "server clock 0" })
        #expect(row.figure == "stampOffsetGapMs.max" && row.holds && row.samples == Int(clock.stamps))
        // Without offsets given or faults nothing is recorded (the shipped reports do not move).
        let plain = WorldServingTests.scenario(players: 1, duration: .hour) { $0.fleet = Fleet(servers: 2) }
        var plainWorld = World(scenario: plain)
        #expect(plainWorld.run().serving?.serverClocks.isEmpty == true)
    }

    /// A stamp ahead of the scenario's clock, or short by a whole resolution, fails the row.
    @Test func aStampOffTheScenariosClockFailsTheRow() {
        var r = ServerClockRecord()
        r.record(at: 0, carried: 2 * .second - 300, given: 2 * .second, resolution: .microsecond)
        #expect(r.gapMax == 300 && r.wrongFrom == 0 && r.wrongUntil == 0)
        var ahead = r
        ahead.record(at: 5, carried: 2 * .second + 1, given: 2 * .second, resolution: .microsecond)
        #expect(ahead.gapMax == .microsecond + 1)
        var short = r
        short.record(at: 5, carried: 2 * .second - .microsecond, given: 2 * .second, resolution: .microsecond)
        #expect(short.gapMax == .microsecond)
        // Both gaps exceed the row's tolerance, one resolution (1 µs here) less 1 ns.
        let s = WorldServingTests.scenario(players: 1, duration: .hour) { $0.fleet = Fleet(servers: 3, clockOffsets: [2 * .second, 0, 0]) }
        let rows = ModelAudit.serverClockRows(s, ServingRecord(clocks: [r, ahead, short]))
        #expect(rows.map(\.model) == ["server clock 0", "server clock 1", "server clock 2"])
        #expect(rows.map(\.holds) == [true, false, false])
        var merged = ServerClockRecord()
        merged.merge(short)
        merged.merge(ahead)
        #expect(merged.stamps == 4 && merged.gapMax == .microsecond + 1 && merged.wrongUntil == 5)
    }
}
