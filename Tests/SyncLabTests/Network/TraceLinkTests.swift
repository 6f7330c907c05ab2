import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// Trace-driven links: crossings worked out by hand on small traces, the loop, the players'
/// own offsets, loading, and a world run on one.
@Suite struct TraceLinkTests {
    static func trace(_ ms: [Int64]) -> DeliveryOpportunities { DeliveryOpportunities(milliseconds: ms, file: "t") }
    static let ms = Int64.millisecond

    /// One packet per millisecond (the trace "1"): a packet entering at 0 leaves at 1 ms, one
    /// entering at 2.3 ms at 3 ms, one entering exactly at 4 ms at 4 ms; k packets from 0 take
    /// the opportunities at 1 … k ms.
    @Test func onePacketPerMillisecond() {
        let t = Self.trace([1])
        #expect(t.exits(entering: 0, packets: 1) == (1 * Self.ms, 1 * Self.ms))
        #expect(t.exits(entering: 2_300_000, packets: 1) == (3 * Self.ms, 3 * Self.ms))
        #expect(t.exits(entering: 4 * Self.ms, packets: 1) == (4 * Self.ms, 4 * Self.ms))
        #expect(t.exits(entering: 0, packets: 67) == (1 * Self.ms, 67 * Self.ms))
    }

    /// One packet per second (the trace "1000"): entering at 0.3 s the first packet waits 0.7 s,
    /// and a 3-packet message's last leaves at 3 s, 2 s after its first.
    @Test func onePacketPerSecond() {
        let t = Self.trace([1000])
        #expect(t.exits(entering: 300 * Self.ms, packets: 1) == (1000 * Self.ms, 1000 * Self.ms))
        #expect(t.exits(entering: 300 * Self.ms, packets: 3) == (1000 * Self.ms, 3000 * Self.ms))
        let link = TraceLink(uplink: t, downlink: t, baseDelay: 20 * Self.ms)
        // Through the link with its base delay, at the player's own offset (worked out here).
        let offset = Int64(TraceLink.offset(player: 4, seed: 9) % UInt64(t.length))
        let entry = 5 * Int64.second + 300 * Self.ms
        let within = (entry + offset) % Int64.second
        let wait = within == 0 ? 0 : Int64.second - within
        let c = link.crossing(.downlink, bytes: 3 * 1500, at: SimTime(ns: entry), player: 4, seed: 9)
        #expect(c.first == wait + 20 * Self.ms)
        #expect(c.rest == 2 * Int64.second)
        // 3,001 bytes are three packets; no bytes at all still one.
        #expect(TraceLink.packets(bytes: 3_001) == 3 && TraceLink.packets(bytes: 0) == 1 && TraceLink.packets(bytes: 1500) == 1)
    }

    /// A trace with a 2 s gap: a packet a millisecond for the first second (1 … 1000 ms), then
    /// none until the opportunity at 3000 ms, where the trace ends and repeats. Entering at
    /// 1000.5 ms waits to 3000 ms; three packets entering at 999.5 ms leave at 1000 ms, 3000 ms
    /// and, in the next pass, 3001 ms.
    @Test func aTwoSecondGapAndTheLoop() {
        let t = Self.trace(Array(1...1000) + [3000])
        #expect(t.length == 3 * Int64.second)
        #expect(t.exits(entering: 1_000_500_000, packets: 1) == (3000 * Self.ms, 3000 * Self.ms))
        #expect(t.exits(entering: 999_500_000, packets: 3) == (1000 * Self.ms, 3001 * Self.ms))
        // Two passes on, the same instants two lengths later.
        #expect(t.exits(entering: 6 * Int64.second + 1_000_500_000, packets: 1) == (9000 * Self.ms, 9000 * Self.ms))
    }

    /// The slowest crossing of k packets over n opportunities a pass is at most ⌊(k − 1)/n⌋ + 2
    /// passes; a message whose bound is over a year is refused in words, and a crossing that
    /// would need longer is cut to a year instead of overflowing.
    @Test func aCrossingLongerThanAYearIsRefusedOrCut() {
        let sparse = Self.trace([0, 300_000_000])            // two opportunities every 3d11h20m
        #expect(TraceLink.crossingProblem("a request", bytes: 400, trace: sparse) == nil)
        // 100 MB: 66,667 packets, 33,335 passes; their product overflows Int64.
        #expect(TraceLink.crossingProblem("the store file", bytes: 100_000_000, trace: sparse)
            == "the store file takes 66667 packets, which need up to 33335 passes of this trace to cross it "
            + "(2 opportunities in each 3d11h20m pass), more than the 365d a crossing may take; "
            + "use a trace with more opportunities or a smaller message")
        // 200 packets: 101 passes, 350 days, within a year; 210 packets, 106 passes, over it.
        #expect(TraceLink.crossingProblem("m", bytes: 200 * 1500, trace: sparse) == nil)
        #expect(TraceLink.crossingProblem("m", bytes: 210 * 1500, trace: sparse)?.contains("106 passes") == true)
        // The worst case is a bound: a crossing never exceeds it.
        for packets in [1, 2, 3, 199, 200] {
            for entry in [Int64(0), 1, 299_999_999 * Self.ms, 300_000_000 * Self.ms, 300_000_000 * Self.ms + 1] {
                let exits = sparse.exits(entering: entry, packets: packets)
                #expect(exits.last - entry <= Int64((packets - 1) / 2 + 2) * sparse.length)
            }
        }
        // Past a year the last packet leaves a year after entering; nothing traps.
        let year = TraceLink.maximumCrossing
        #expect(sparse.exits(entering: 5, packets: 66_667) == (300_000_000 * Self.ms, 5 + year))
        #expect(sparse.exits(entering: 5, packets: Int.max).last == 5 + year)
        #expect(Self.trace([1]).exits(entering: 0, packets: Int.max / 2).last == year)
        #expect(TraceLink.packets(bytes: Int.max) == Int.max / 1500 + 1)
    }

    /// Players enter the trace at their own offsets: on the one-packet-per-second trace a packet
    /// sent at t = 0 waits (1 s − offset mod 1 s), uniform over (0, 1 s] across players, mean
    /// 0.5 s and standard deviation 1/√12 s; over 10,000 players the mean is within five
    /// standard errors, and players do not wait alike.
    @Test func playersEnterAtTheirOwnOffsets() {
        let link = TraceLink(uplink: Self.trace([1000]), downlink: Self.trace([1000]), baseDelay: 0)
        let players = 10_000
        let waits = (0..<players).map { p in
            Double(link.crossing(.uplink, bytes: 100, at: .zero, player: UInt64(p), seed: 3).first) / 1e9
        }
        let mean = waits.reduce(0, +) / Double(players)
        #expect(abs(mean - 0.5) < 5 * (1 / 12.0).squareRoot() / Double(players).squareRoot(), "mean wait \(mean)")
        #expect(waits.allSatisfy { $0 >= 0 && $0 <= 1 })
        #expect(Set(waits).count > players / 2)
    }

    static func writeScenario(_ dir: String, extra: String = "") throws -> String {
        // One packet per ms up; down, one per second for the first 2 s of every 4 s.
        try "1\n".write(toFile: dir + "/fast.up", atomically: true, encoding: .utf8)
        try "1000\n2000\n4000\n".write(toFile: dir + "/slow.down", atomically: true, encoding: .utf8)
        let text = try ScenarioFixtures.variant(#"{"network": {"profiles": [{"name": "traced", "share": 1, "linkTrace": "#
            + #"{"uplink": {"trace": "fast.up"}, "downlink": {"trace": "slow.down"}, "baseDelay": "20ms"}\#(extra)}]}}"#)
        try text.write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        return dir + "/s.json"
    }

    @Test func loadsWithPathsRelativeToTheScenario() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        let s = try ScenarioLoader().load(path: try Self.writeScenario(dir))
        let trace = try #require(s.links[0].trace)
        #expect(trace.uplink.milliseconds == [1] && trace.downlink.milliseconds == [1000, 2000, 4000])
        #expect(trace.baseDelay == 20 * Self.ms && trace.downlink.file == dir + "/slow.down")
        #expect(!s.links[0].hasIndependentDelays)
        // Keys the traces set are refused.
        let clash = try ScenarioFixtures.variant(#"{"network": {"profiles": [{"name": "t", "share": 1, "uplink": "30ms", "#
            + #""linkTrace": {"uplink": {"trace": "a.up"}, "downlink": {"trace": "a.down"}}}]}}"#)
        #expect(ScenarioFixtures.error(loading: clash)?.description
            == "bad.json: network.profiles[0].uplink: 'uplink' cannot be set on a trace-driven link: 'linkTrace' sets the delays and the rate")
    }

    /// A world on the traced link, end to end: every round trip is the uplink's wait (under
    /// 1 ms) plus 20 ms, the server's service, and the downlink's k packets at one a second —
    /// at least (k − 1) s, the store file's packets after the first, plus 20 ms. Runs are the
    /// same for any thread count: 4,000 players on 2 threads are two shards of 2,000.
    @Test func aWorldRunsOnATracedLink() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        var s = try ScenarioLoader().load(path: try Self.writeScenario(dir))
        s.population.players = 4_000
        s.duration = 20 * .minute
        s.warmup = 5 * .minute
        // The world's draws are the link's crossings: a request's first packet, a response's rest.
        var world = World(scenario: s)
        let trace = try #require(s.links[0].trace)
        for at in [SimTime(ns: 0), SimTime(ns: 1_234_567_891), SimTime(ns: 3_600 * .second)] {
            let up = trace.crossing(.uplink, bytes: 1, at: at, player: 0, seed: s.seed)
            #expect(world.linkDelay(.uplink, 0, link: 0, at: at) == up.first)
            #expect(up.first >= 20 * Self.ms && up.first <= 21 * Self.ms && up.rest == 0)
            let down = trace.crossing(.downlink, bytes: 5 * 1500, at: at, player: 0, seed: s.seed)
            #expect(world.linkDelay(.downlink, 0, link: 0, at: at) == down.first)
            #expect(world.linkTransfer(.downlink, 0, link: 0, bytes: 5 * 1500, bytesPerSecond: 1, at: at) == down.rest)
            #expect(down.first >= 20 * Self.ms && down.rest >= 4 * Int64.second)
        }
        let one = Simulation.run(s, threads: 1)
        let two = Simulation.run(s, threads: 2)
        #expect(two.shards == 2, "the test means to split the players")
        #expect(DeterminismTests.fingerprint(one).dropLast() == DeterminismTests.fingerprint(two).dropLast())
        #expect(one.requestsServed > 0)
    }
}
