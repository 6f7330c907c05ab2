import Testing
@testable import SyncLab
import SyncLabKernel

/// Server clocks given outright and faults in time: their closed forms, the loader's checks
/// (exit 2 naming the key path), and the stamps they move.
@Suite struct ServerClockFaultTests {
    @Test func stepAndDriftShifts() {
        let step = ServerClockStep(server: 1, at: SimTime(ns: .minute), by: 2 * .second)
        #expect(step.shift(at: SimTime(ns: .minute - 1)) == 0)
        #expect(step.shift(at: SimTime(ns: .minute)) == 2 * .second)
        #expect(step.shift(at: SimTime(ns: .hour)) == 2 * .second)
        // 50 ppm for an hour: 180 ms; −0.5 ppm for 1 s: −500 ns.
        let drift = ServerClockDrift(server: 0, from: SimTime(ns: .minute), ratePPB: 50_000)
        #expect(drift.shift(at: SimTime(ns: .minute)) == 0)
        #expect(drift.shift(at: SimTime(ns: .minute + .hour)) == 180 * .millisecond)
        #expect(ServerClockDrift(server: 0, from: .zero, ratePPB: -500).shift(at: SimTime(ns: .second)) == -500)
    }

    /// Offsets given outright replace the draw for their servers only: the others keep the
    /// draws they had without the list (keyed by server).
    @Test func givenOffsetsLeaveTheDrawsOfTheRest() {
        let drawn = Fleet(servers: 3, clockOffset: .uniform(min: -500e6, max: 500e6))
        var given = drawn
        given.clockOffsets = [2 * .second, nil, nil]
        let a = drawn.offsets(seed: 7), b = given.offsets(seed: 7)
        #expect(b == [2 * .second, a[1], a[2]])
    }

    /// The fleet's offset of server k at t adds its faults, and only its own.
    @Test func servingStateAddsEachServersFaults() throws {
        var s = WorldServingTests.scenario(players: 1, duration: 10 * .minute) {
            $0.fleet = Fleet(servers: 2, clockOffsets: [0, 5 * .millisecond],
                             faults: [ServerClockStep(server: 1, at: SimTime(ns: .minute), by: 2 * .second),
                                      ServerClockDrift(server: 1, from: SimTime(ns: 2 * .minute), ratePPB: 1_000_000)])
        }
        s.seed = 3
        let serving = try #require(ServingState(s))
        #expect(serving.offset(0, at: SimTime(ns: 5 * .minute)) == 0)
        #expect(serving.offset(1, at: SimTime(ns: 30 * .second)) == 5 * .millisecond)
        #expect(serving.offset(1, at: SimTime(ns: .minute)) == 5 * .millisecond + 2 * .second)
        // 1000 ppm for 60 s: 60 ms more.
        #expect(serving.offset(1, at: SimTime(ns: 3 * .minute)) == 5 * .millisecond + 2 * .second + 60 * .millisecond)
    }

    @Test func loadsOffsetsAndFaults() throws {
        let text = try ScenarioFixtures.variant(#"""
            {"server": {"fleet": {"servers": 3, "clockOffsets": ["2s", null, "-5ms"],
             "faults": [{"kind": "step", "server": 1, "at": "30m", "by": "-1.5s"},
                        {"kind": "drift", "server": 2, "from": "1h", "ratePpm": 20}]}}}
            """#)
        let s = try ScenarioLoader().load(text: text, file: "ok.json")
        let fleet = try #require(s.server.fleet)
        #expect(fleet.clockOffsets == [2 * .second, nil, -5 * .millisecond])
        #expect(fleet.faults.map(\.summary) == ["server 1's clock steps by -1.5s at 30m", "server 2's clock drifts 20 ppm from 1h"])
        let none = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"server": {"fleet": {"servers": 2}}}"#), file: "ok.json")
        #expect(none.server.fleet?.clockOffsets == [] && none.server.fleet?.faults.isEmpty == true)
    }

    @Test func badInputNamesTheKeyPath() throws {
        let cases: [(String, String)] = [
            (#"{"servers": 3, "clockOffsets": ["2s", null]}"#,
             "bad.json: server.fleet.clockOffsets: must have one entry per server (3, server.fleet.servers), null for a drawn offset; got 2"),
            (#"{"servers": 2, "clockOffsets": ["2s", "2d"]}"#, "bad.json: server.fleet.clockOffsets[1]: must be at most 1d; got \"2d\""),
            (#"{"servers": 2, "faults": [{"kind": "step", "server": 2, "at": "1m", "by": "1s"}]}"#,
             "bad.json: server.fleet.faults[0].server: must name a server of the fleet (0 to 1); got 2"),
            (#"{"servers": 2, "faults": [{"kind": "step", "server": 0, "at": "1m", "by": "0s"}]}"#,
             "bad.json: server.fleet.faults[0].by: must not be 0: a step of nothing is no fault"),
            (#"{"servers": 2, "faults": [{"kind": "drift", "server": 0, "from": "1m", "ratePpm": 200000}]}"#,
             "bad.json: server.fleet.faults[0].ratePpm: must be between -100000 and 100000 ppm; got 200000"),
            (#"{"servers": 2, "faults": [{"kind": "step", "server": 0, "at": "29d", "by": "1s"}]}"#,
             "bad.json: server.fleet.faults[0].at: must fall inside the run's duration (3h); got \"29d\""),
            (#"{"servers": 2, "faults": [{"kind": "jump", "server": 0}]}"#,
             "bad.json: server.fleet.faults[0].kind: unknown server clock fault 'jump'; expected one of 'step', 'drift'"),
            (#"{"servers": 2, "faults": [{"kind": "step", "server": 0, "at": "1m", "by": "1s", "rate": 1}]}"#,
             "bad.json: server.fleet.faults[0]: unknown key 'rate'; allowed keys are 'kind', 'server', 'at', 'by'"),
        ]
        for (fleet, expected) in cases {
            let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"server": {"fleet": "# + fleet + "}}"))
            #expect(error?.description == expected)
        }
    }
}
