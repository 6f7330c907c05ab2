import Testing
@testable import SyncLab
import SyncLabKernel

/// The shared fleet as its own part of the run (`FleetCoordinator`): the order it answers in,
/// derived by hand; that it answers nothing a later request could arrive before; and that shards
/// run beside it give the one-thread results, over fleets that queue, turn away, go down and
/// time out.
@Suite struct FleetCoordinatorTests {
    /// Ten players behind two round-robin servers of one worker each, 8 ms of service.
    static func twoServers() -> Scenario {
        var s = WorldServingTests.scenario(players: 10, duration: 1 * .minute) {
            $0.workers = 1
            $0.fleet = Fleet(servers: 2, balancing: .roundRobin)
        }
        s.server.serviceTime = .constant(Double(8 * Int64.millisecond))
        return s
    }

    static func request(at ms: Int64, player: Int, epoch: UInt32 = 1, answered: Bool = true) -> FleetRequest {
        FleetRequest(at: SimTime(ns: ms * .millisecond), sentAt: SimTime(ns: ms * .millisecond - 40 * .millisecond),
                     player: player, epoch: epoch, service: 8 * .millisecond,
                     answerAt: answered ? SimTime(ns: ms * .millisecond + 60 * .millisecond) : .never, sequence: 0)
    }

    /// Posted out of order from two shards, requests are answered by arrival, then player: at
    /// 5 ms player 9 takes server 0 (5–13 ms); at 10 ms player 2 takes server 1 (10–18 ms), then
    /// player 7 server 0, where it waits for player 9's request to end (13–21 ms). Each answer goes
    /// to its player's shard.
    @Test func answersInArrivalOrderThenByPlayer() {
        let s = Self.twoServers()
        let fleet = FleetCoordinator(scenario: s, schedule: World.schedule(for: s), shardPlayers: [0..<5, 5..<10])
        var posted = [Self.request(at: 10, player: 7), Self.request(at: 10, player: 2), Self.request(at: 5, player: 9)]
        fleet.post(&posted)
        #expect(posted.isEmpty)
        fleet.publish(1, next: .max)
        let first = fleet.exchange(0, next: .max)
        let second = fleet.exchange(1, next: .max)
        #expect(fleet.requestsAnswered == 3)
        func served(_ a: FleetAnswer) -> [Int64]? {
            guard case let .served(k, start, left, _) = a.outcome else { return nil }
            return [Int64(k), start.ns / .millisecond, left.ns / .millisecond]
        }
        #expect(first.map(\.request.player) == [2])
        #expect(first.compactMap(served) == [[1, 10, 18]])
        #expect(second.map(\.request.player) == [9, 7])
        #expect(second.compactMap(served) == [[0, 5, 13], [0, 13, 21]])
        let records = fleet.fleetRecords.serving
        #expect(records?.perServer == [2, 1] && records?.maxQueue == 1)
        #expect(records?.waits.quantile(1) == 3 * .millisecond)
    }

    /// With shard 1 next at 0, a request arriving at the uplink's lookahead could still be
    /// overtaken (shard 1 may send at 0 and arrive then): only the one before it is answered. An
    /// answer nobody waits for still takes its worker and goes to no shard.
    @Test func answersNothingALaterRequestCouldArriveBefore() {
        let s = Self.twoServers()
        let fleet = FleetCoordinator(scenario: s, schedule: World.schedule(for: s), shardPlayers: [0..<5, 5..<10])
        let lead = fleet.uplinkLead
        #expect(lead > 0 && fleet.downlinkLead > 0)
        var early = Self.request(at: 0, player: 3)
        early.at = SimTime(ns: lead - 1)
        var late = Self.request(at: 0, player: 8, answered: false)
        late.at = SimTime(ns: lead)
        var posted = [late, early]
        fleet.post(&posted)
        fleet.publish(1, next: 0)
        let answers = fleet.exchange(0, next: .max)
        #expect(fleet.requestsAnswered == 1 && answers.map(\.request.player) == [3])
        fleet.publish(1, next: .max)
        let more = fleet.exchange(1, next: .max)
        #expect(fleet.requestsAnswered == 2 && more.isEmpty)
        #expect(fleet.fleetRecords.serving?.perServer == [1, 1])
    }

    /// A shipped scenario cut down, its fleet squeezed so requests queue and are turned away:
    /// two servers of one worker, one place to wait, 100 ms a request.
    static func squeezed(_ file: String, players: Int = 2_000) throws -> Scenario {
        var s = try ShardingTests.small(file, players: players)
        s.server.fleet = Fleet(servers: 2, balancing: .roundRobin)
        s.server.workers = 1
        s.server.queueLimit = 1
        s.server.serviceTime = .constant(100e6)
        return s
    }

    /// Runs `s` on 1, 2 and 3 threads (as many shards) and expects the same results; and on 1
    /// and 2 with shards that handle every event they may ahead of every trade (out of order:
    /// other players' events before an answer due earlier), which must change nothing either.
    @discardableResult
    static func expectShardsMatchOneThread(_ s: Scenario) -> RunResult {
        let one = Simulation.run(s, threads: 1, smallestShard: 500)
        #expect(one.shards == 1 && one.eventsWhileWaiting == 0 && one.samplesLeftForLater == 0)
        for (threads, ahead) in [(2, false), (3, false), (1, true), (2, true)] {
            let many = Simulation.run(s, threads: threads, smallestShard: 500, worksAheadAlways: ahead)
            #expect(many.shards == threads)
            if ahead {
                #expect(many.eventsWhileWaiting > many.fleetExchanges / 10, "\(threads) threads working ahead")
                // Past sample instants too, some before an answer due earlier: players recorded them later.
                #expect(many.samplesWorkedPast > 0 && many.samplesLeftForLater > 0, "\(threads) threads working ahead")
            }
            #expect(DeterminismTests.fingerprint(many).dropLast() == DeterminismTests.fingerprint(one).dropLast(),
                    "\(threads) threads\(ahead ? ", working ahead" : "")")
            #expect(many.serving == one.serving)
            #expect(many.requestsFailed == one.requestsFailed && many.responses == one.responses)
            #expect(many.figures == one.figures)
        }
        return one
    }

    /// A queueing fleet through the 50x release: requests wait and some are turned away.
    @Test func queueingFleetThroughTheRelease() throws {
        let one = Self.expectShardsMatchOneThread(try Self.squeezed("v115-pausing.json"))
        #expect(one.releaseJoined > 0)
        #expect((one.serving?.waitMax ?? 0) > 0 && (one.serving?.queueFull ?? 0) > 0)
    }

    /// An outage in each mode, with the seeds' fixed retry and with exponential back-off.
    @Test(arguments: [Outage.Mode.refused, .timeout], ["outage-fixed-retry.json", "outage-backoff.json"])
    func outagesAndRetries(mode: Outage.Mode, file: String) throws {
        var s = try Self.squeezed(file)
        s.server.outages = [Outage(at: SimTime(ns: 14 * .minute), duration: 2 * .minute, mode: mode)]
        let one = Self.expectShardsMatchOneThread(s)
        let outage = mode == .refused ? one.serving?.outageRefused : one.serving?.outageTimedOut
        #expect((outage ?? 0) > 0 && one.requestsFailed > 0)
    }

    /// Time-outs short enough that slow answers lose the race to them, some known lost before
    /// the fleet answers (the answer would come after the time-out).
    @Test func timeOuts() throws {
        var s = try Self.squeezed("v115-pausing.json")
        for i in s.links.indices { s.links[i].timeout = 150 * .millisecond }
        let one = Self.expectShardsMatchOneThread(s)
        #expect(one.requestsFailed > one.requestsLost)
    }

    /// A world run alone runs the fleet itself and gives what the simulation does on one thread.
    @Test func aWorldAloneRunsItsFleet() throws {
        let s = try Self.squeezed("v115-pausing.json", players: 600)
        var world = World(scenario: s)
        let alone = world.run()
        let run = Simulation.run(s, threads: 1)
        #expect(DeterminismTests.fingerprint(alone) == DeterminismTests.fingerprint(run))
        #expect(alone.serving == run.serving)
        #expect((alone.serving?.requests ?? 0) > 0)
    }
}
