import Testing
@testable import SyncLab
import SyncLabKernel

/// Same scenario and seed, same results; a different seed, different results; and a player's
/// draws do not depend on how many other players there are.
@Suite struct DeterminismTests {
    static func shipped(_ name: String) throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path(name))
        s.population.players = 400
        s.duration = 40 * .minute
        s.warmup = 10 * .minute
        s.population.release?.at = SimTime(ns: 20 * .minute)
        return s
    }

    static func fingerprint(_ r: RunResult) -> [String] {
        var lines = r.transitions.map { "\($0.time) \($0.position) \($0.viewers) \($0.earliest) \($0.latest) \($0.inBestWindow)" }
        lines.append(r.requestsPerSecond.map(String.init).joined(separator: ","))
        lines.append("\(r.clientError.magnitude.counts.enumerated().reduce(UInt64(0)) { $0 &* 31 &+ $1.element &* UInt64($1.offset + 1) }) \(r.clientError.signedSumMicros) \(r.estimateError.signedSumMicros)")
        lines.append("\(r.bareSamples) \(r.staleSamples) \(r.requestsServed) \(r.bytesServed)")
        lines.append("\(r.eventsScheduled)")   // last: shards each run the server's cron, so this one varies
        return lines
    }

    @Test func sameSeedSameResults() throws {
        let s = try Self.shipped("v115-pausing.json")
        let a = Self.fingerprint(Simulation.run(s))
        let b = Self.fingerprint(Simulation.run(s))
        #expect(a == b)
    }

    @Test func differentSeedDifferentResults() throws {
        var s = try Self.shipped("v115-pausing.json")
        let a = Self.fingerprint(Simulation.run(s))
        s.seed = 2
        let b = Self.fingerprint(Simulation.run(s))
        #expect(a != b)
    }

    /// Common random numbers: changing only the clock leaves every player's behaviour, network
    /// and device draws alone, so the load differs only through the refetch timing the clock moves.
    @Test func clockVariantKeepsPlayersAndDevices() throws {
        let pausing = try Self.shipped("v115-pausing.json")
        var uptime = pausing
        uptime.client.clock = BootTimeUptimeClock()
        var a = World(scenario: pausing), b = World(scenario: uptime)
        #expect(a.clients.map(\.device) == b.clients.map(\.device))
        #expect(a.clients.map(\.link) == b.clients.map(\.link))
        let ra = a.run(), rb = b.run()
        #expect(ra.visits == rb.visits)
    }

    /// Adding players does not change the draws of the existing ones.
    @Test func streamsAreKeyedPerPlayer() throws {
        var small = try Self.shipped("v115-pausing.json")
        small.population.players = 50
        var large = small
        large.population.players = 80
        let a = World(scenario: small), b = World(scenario: large)
        #expect(Array(b.clients.prefix(50).map(\.device)) == a.clients.map(\.device))
        #expect(Array(b.clients.prefix(50).map(\.behaviourRNG)) == a.clients.map(\.behaviourRNG))
    }
}

/// Paths of the shipped scenario files, found from this source file's location.
enum ScenarioFiles {
    static func path(_ name: String) -> String {
        let here = #filePath
        let root = here.components(separatedBy: "/Tests/").first ?? "."
        return root + "/Scenarios/" + name
    }
}

/// The population split into any number of shards, run on any number of threads, gives the same
/// results: every player's draws depend only on its global index and every merge is a sum or a
/// sorted union. The release (a population-wide barrier) is inside the run.
@Suite struct ShardingTests {
    /// A shipped scenario cut to `players` over 30 minutes with the release inside the run: what a
    /// model's thread-count test runs.
    static func small(_ file: String, players: Int = 2_000) throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path(file))
        s.population.players = players
        s.duration = 30 * .minute
        s.warmup = 10 * .minute
        s.population.release?.at = SimTime(ns: 15 * .minute)
        return s
    }

    /// A model switched on by `switchOn` changes `base`'s results, and gives the same results on
    /// 2 and 3 threads (as many shards, of 500 players or more) as on one; returns the one-thread run.
    @discardableResult
    static func expectModelIsThreadIndependent(_ base: Scenario, switchOn: (inout Scenario) -> Void) -> (one: RunResult, many: [RunResult]) {
        let off = Simulation.run(base, threads: 1)
        var s = base
        switchOn(&s)
        let one = Simulation.run(s, threads: 1)
        #expect(DeterminismTests.fingerprint(one).dropLast() != DeterminismTests.fingerprint(off).dropLast())
        let many = [2, 3].map { Simulation.run(s, threads: $0, smallestShard: 500) }
        for (threads, run) in zip([2, 3], many) {
            #expect(run.shards == threads, "the helper means to split the players")
            #expect(DeterminismTests.fingerprint(run).dropLast() == DeterminismTests.fingerprint(one).dropLast(), "\(threads) threads")
            #expect(run.errorByClock.map(\.1) == one.errorByClock.map(\.1))
            #expect(run.deviceEvents == one.deviceEvents)
        }
        return (one, many)
    }

    @Test func resultsAreIdenticalForAnyThreadCount() throws {
        let s = try Self.small("v115-pausing.json", players: 8_000)
        let one = Simulation.run(s, threads: 1)
        #expect(one.releaseJoined > 0)
        for threads in [2, 3, 5] {
            let many = Simulation.run(s, threads: threads)
            #expect(many.shards == min(threads, 4), "8,000 players: shards of 2,000 at least")
            #expect(DeterminismTests.fingerprint(many).dropLast() == DeterminismTests.fingerprint(one).dropLast(),
                     "\(threads) threads")
            #expect(many.viewingPeak == one.viewingPeak)
            #expect(many.releaseOnline == one.releaseOnline && many.releaseJoined == one.releaseJoined)
            #expect(many.requestsServed == one.requestsServed && many.bytesServed == one.bytesServed)
            #expect(many.errorByClock.map(\.1) == one.errorByClock.map(\.1))
            #expect(many.timeline == one.timeline)
        }
    }
}
