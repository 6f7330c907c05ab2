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
        lines.append("\(r.displayError.magnitude.counts.hashValue) \(r.displayError.signedSumMicros) \(r.estimateError.signedSumMicros)")
        lines.append("\(r.bareSamples) \(r.staleSamples) \(r.requestsServed) \(r.bytesServed) \(r.eventsScheduled)")
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
        let a = World(scenario: pausing), b = World(scenario: uptime)
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
