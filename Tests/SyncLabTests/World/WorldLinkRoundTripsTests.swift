import Testing
@testable import SyncLab
import SyncLabKernel

/// `World.recordLinkRoundTrip`: what a run records per link when held against telemetry, that it
/// is the same for any number of shards, and that recording changes nothing else.
@Suite struct WorldLinkRoundTripsTests {
    /// v115-idealised with `network` (JSON) for its links, short, without the release, players
    /// visiting every few minutes so the window holds thousands of requests.
    static func scenario(players: Int, network: String, service: String = #"{"kind": "lognormal", "median": "8ms", "sigma": 0.4}"#) throws -> Scenario {
        let text = try ScenarioFixtures.idealisedVariant("""
            { "network": \(network), "server": { "serviceTime": \(service) },
              "population": { "visitGap": { "kind": "exponential", "mean": "5m" } } }
            """)
        var s = try ScenarioLoader().load(text: text, file: "link-round-trips.json")
        s.population.players = players
        s.duration = 10 * .minute
        s.warmup = 5 * .minute
        s.population.release = nil
        return s
    }

    static let twoLinks = """
        { "requestBytes": 400, "profiles": [
          { "name": "wifi", "share": 0.7, "uplink": { "kind": "lognormal", "median": "15ms", "sigma": 0.5 },
            "downlink": { "kind": "lognormal", "median": "15ms", "sigma": 0.5 },
            "bandwidth": { "kind": "uniform", "min": "1MB/s", "max": "6MB/s" }, "failure": 0.002, "timeout": "30s" },
          { "name": "3g", "share": 0.3, "uplink": { "kind": "lognormal", "median": "120ms", "sigma": 0.6 },
            "downlink": { "kind": "lognormal", "median": "100ms", "sigma": 0.6 },
            "bandwidth": { "kind": "uniform", "min": "50kB/s", "max": "300kB/s" }, "failure": 0.02, "timeout": "30s" } ] }
        """

    /// Constant delays 20 ms up and 30 ms down: every answered request's recorded round trip is
    /// 20 + 30 = 50 ms exactly, though the whole exchange also waits 7 ms of service and the
    /// transfer of 400 request bytes (4 ms) and the response's at 100 kB/s.
    @Test func constantDelaysGiveExactlyTheirSum() throws {
        let s = try Self.scenario(players: 1_000, network: """
            { "requestBytes": 400, "profiles": [ { "name": "fixed", "share": 1, "uplink": "20ms", "downlink": "30ms",
              "bandwidth": "100kB/s", "failure": 0, "timeout": "30s" } ] }
            """, service: #""7ms""#)
        let r = Simulation.run(s, threads: 1, recordsLinkRoundTrips: true)
        let h = try #require(r.linkRoundTrips?.first)
        #expect(r.linkRoundTrips?.count == 1)
        #expect(h.count > 100)
        #expect(h.min == 50 * .millisecond && h.max == 50 * .millisecond)
        // The exchange itself: 20 + 30 ms, 7 ms of service, 4 ms up and the response's bytes down.
        let whole = r.roundTrip.min
        #expect(whole > (50 + 7 + 4) * .millisecond)
    }

    /// Recording is an observer: the same run without it has the same figures, and no histograms.
    @Test func recordingChangesNothingElse() throws {
        let s = try Self.scenario(players: 1_000, network: Self.twoLinks)
        let plain = Simulation.run(s, threads: 1)
        let recorded = Simulation.run(s, threads: 1, recordsLinkRoundTrips: true)
        #expect(plain.linkRoundTrips == nil)
        #expect(DeterminismTests.fingerprint(recorded) == DeterminismTests.fingerprint(plain))
        #expect(recorded.roundTrip == plain.roundTrip)
        #expect(recorded.figures.count == plain.figures.count)
        let links = try #require(recorded.linkRoundTrips)
        #expect(links.count == 2 && links.allSatisfy { $0.count > 0 })
        // No more round trips than responses (only answered requests, by their send instant).
        #expect(links.reduce(0) { $0 + $1.count } <= recorded.responses + 50)
        // 3g's medians are 120 + 100 ms, wifi's 15 + 15 ms.
        #expect(links[0].quantile(0.5)! < 60 * .millisecond && links[1].quantile(0.5)! > 150 * .millisecond)
    }

    /// 6,000 players on 1 and 3 threads (three shards of 2,000): the per-link histograms merge to
    /// the same counts, bucket for bucket.
    @Test func theHistogramsAreTheSameForAnyThreadCount() throws {
        let s = try Self.scenario(players: 6_000, network: Self.twoLinks)
        let one = Simulation.run(s, threads: 1, recordsLinkRoundTrips: true)
        let three = Simulation.run(s, threads: 3, recordsLinkRoundTrips: true)
        #expect(one.shards == 1)
        #expect(three.shards > 1, "the test means to split the players")
        #expect(three.shards == 3)
        let a = try #require(one.linkRoundTrips), b = try #require(three.linkRoundTrips)
        #expect(a.count == 2 && a.allSatisfy { $0.count > 100 })
        #expect(a == b)
    }

    /// The original plan's database path never responds through `respond`: it records none.
    @Test func theDatabasePathRecordsNone() throws {
        var s = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("original-plan.json"))
        s.population.players = 300
        s.duration = 10 * .minute
        s.warmup = 5 * .minute
        s.population.release = nil
        let r = Simulation.run(s, threads: 1, recordsLinkRoundTrips: true)
        let links = try #require(r.linkRoundTrips)
        #expect(links.count == s.links.count && links.allSatisfy { $0.count == 0 })
    }
}
