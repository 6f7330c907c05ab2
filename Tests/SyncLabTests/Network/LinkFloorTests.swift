import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// Links' physical floors (docs/links.md, "Physical floors"): the least one-way delay a
/// synchronisation may rely on (`LinkProfile.lookahead`), read from scenarios, held by every
/// delay the world draws, and clamping the share of each preset's draws its closed form gives.
@Suite struct LinkFloorTests {
    static func link(up: Distribution = .constant(10e6), down: Distribution = .constant(10e6),
                     upFloor: Nanoseconds = 0, downFloor: Nanoseconds = 0) -> LinkProfile {
        var link = LinkProfile(name: "l", share: 1, uplink: up, downlink: down, bandwidth: .constant(1e6), failure: 0,
                               timeout: 30 * .second)
        link.uplinkFloor = upFloor
        link.downlinkFloor = downFloor
        return link
    }

    /// The support's lower bound per kind, by hand, and no draw below it.
    @Test func supportLowerBoundIsExactPerKind() {
        let cases: [(Distribution, Double)] = [
            (.constant(7), 7), (.uniform(min: 3, max: 9), 3), (.normal(mean: 5, sd: 1), -.infinity),
            (.lognormal(median: 4, sigma: 0.5), 0), (.exponential(mean: 2), 0), (.pareto(scale: 1.5, shape: 2), 1.5),
            (.empirical([8, 2, 5]), 2), (.geometric(mean: 3), 1),
            (.lognormalMixture(LognormalMixture(bodyMedian: 10, bodySigma: 0.45, tailShare: 0.02, tailMedian: 100, tailSigma: 0.7)), 0),
        ]
        var rng = RandomStream(seed: 3, purpose: StreamPurpose("floor-support"))
        for (d, bound) in cases {
            #expect(d.supportLowerBound == bound, "\(d)")
            var least = Double.infinity
            for _ in 0..<20_000 { least = min(least, d.sample(&rng)) }
            #expect(least >= bound, "\(d): drew \(least)")
        }
    }

    /// Lookahead: the largest of the floor, the distribution's least value (rounded as the world
    /// rounds a delay) and a trace's base delay; a Gilbert–Elliott channel's bad state counts.
    @Test func lookaheadTakesTheLargestLowerBound() {
        #expect(Self.link().lookahead(.uplink) == 10 * .millisecond)
        #expect(Self.link(upFloor: 12 * .millisecond).lookahead(.uplink) == 12 * .millisecond)
        #expect(Self.link(upFloor: 12 * .millisecond).lookahead(.downlink) == 10 * .millisecond)
        let lognormal = Self.link(up: .lognormal(median: 20e6, sigma: 0.5), down: .uniform(min: 2.4, max: 9e6))
        // Below a microsecond, every link's least one-way time holds.
        #expect(lognormal.lookahead(.uplink) == LinkProfile.leastOneWay && lognormal.lookahead(.downlink) == LinkProfile.leastOneWay)
        #expect(Self.link(up: .normal(mean: 5e6, sd: 1e6), upFloor: 1_000).lookahead(.uplink) == 1_000)
        var ge = Self.link(upFloor: 3 * .millisecond)
        ge.correlation = GilbertElliottDelays(goodToBadPerSecond: 1, badToGoodPerSecond: 1, badUplink: .constant(5e6),
                                              badDownlink: .constant(50e6), badFailure: nil)
        #expect(ge.lookahead(.uplink) == 5 * .millisecond && ge.lookahead(.downlink) == 10 * .millisecond)
        var traced = Self.link(up: .constant(0), down: .constant(0), downFloor: 4 * .millisecond)
        let opportunities = DeliveryOpportunities(milliseconds: [0, 1, 2], file: "t")
        traced.trace = TraceLink(uplink: opportunities, downlink: opportunities, baseDelay: 6 * .millisecond)
        #expect(traced.lookahead(.uplink) == 6 * .millisecond && traced.lookahead(.downlink) == 6 * .millisecond)
        // The presets: their floors, as their lognormal mixtures reach 0.
        let floors = LinkPresets.all.map { [$0.lookahead(.uplink), $0.lookahead(.downlink)].map { $0 / .millisecond } }
        #expect(floors == [[3, 2], [7, 7], [20, 12], [60, 40]])
    }

    @Test func floorsAreReadFromScenarios() throws {
        func load(_ profile: String) throws -> LinkProfile {
            try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"network": {"profiles": [\#(profile)]}}"#)).links[0]
        }
        let both = try load(#"{"preset": "lte", "share": 1, "floor": "3ms"}"#)
        #expect(both.uplinkFloor == 3 * .millisecond && both.downlinkFloor == 3 * .millisecond)
        let split = try load(#"{"preset": "3g", "share": 1, "floor": {"uplink": "4ms", "downlink": "2ms"}}"#)
        #expect(split.uplinkFloor == 4 * .millisecond && split.downlinkFloor == 2 * .millisecond)
        let partial = try load(#"{"preset": "edge", "share": 1, "floor": {"downlink": "0s"}}"#)
        #expect(partial.uplinkFloor == 60 * .millisecond && partial.downlinkFloor == 0)
        let preset = try load(#"{"preset": "wifi", "share": 1}"#)
        #expect(preset.uplinkFloor == 3 * .millisecond && preset.downlinkFloor == 2 * .millisecond)
        let custom = try load(#"{"name": "c", "share": 1, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s"}"#)
        #expect(custom.uplinkFloor == 0 && custom.downlinkFloor == 0)
    }

    @Test func badFloorsNameTheKey() throws {
        func error(_ floor: String, timeout: String = "") throws -> InputError? {
            ScenarioFixtures.error(loading: try ScenarioFixtures.variant(
                #"{"network": {"profiles": [{"preset": "lte", "share": 1, "floor": \#(floor)\#(timeout)}]}}"#))
        }
        let negative = try error(#""-3ms""#)
        #expect(negative?.keyPath == "network.profiles[0].floor")
        let long = try error(#"{"uplink": "2s"}"#, timeout: #", "timeout": "1s""#)
        #expect(long?.keyPath == "network.profiles[0].floor.uplink")
        #expect(long?.message.contains("longer than the link's time-out of 1s") == true, "\(String(describing: long))")
        let number = try error("3")
        #expect(number?.keyPath == "network.profiles[0].floor")
        #expect(number?.message.contains("expected a duration with a unit") == true, "\(String(describing: number))")
        let nested = try error(#"{"downlink": 2}"#)
        #expect(nested?.keyPath == "network.profiles[0].floor.downlink")
        let unknown = try error(#"{"up": "2ms"}"#)
        #expect(unknown?.message.contains("unknown key 'up'") == true, "\(String(describing: unknown))")
        let array = try error(#"["2ms"]"#)
        #expect(array?.keyPath == "network.profiles[0].floor")
    }

    /// A lognormal mixture's CDF, written with the C library's erfc (not the kernel's):
    /// F(x) = (1 − w)·Φ(ln(x/m_b)/σ_b) + w·Φ(ln(x/m_t)/σ_t).
    static func mixtureCDF(_ m: LognormalMixture, _ x: Double) -> Double {
        func phi(_ z: Double) -> Double { Foundation.erfc(-z / 2.0.squareRoot()) / 2 }
        return (1 - m.tailShare) * phi(Foundation.log(x / m.bodyMedian) / m.bodySigma)
            + m.tailShare * phi(Foundation.log(x / m.tailMedian) / m.tailSigma)
    }

    /// What the floor adds to the mean: E[max(f, X)] − E[X] = E[(f − X)⁺] = f·F(f) − E[X; X < f],
    /// and for a lognormal E[X; X < f] = m·e^(σ²/2)·Φ(ln(f/m)/σ − σ).
    static func meanAdded(_ m: LognormalMixture, floor f: Double) -> Double {
        func phi(_ z: Double) -> Double { Foundation.erfc(-z / 2.0.squareRoot()) / 2 }
        func partial(_ median: Double, _ sigma: Double) -> Double {
            median * Foundation.exp(sigma * sigma / 2) * phi(Foundation.log(f / median) / sigma - sigma)
        }
        return f * mixtureCDF(m, f) - (1 - m.tailShare) * partial(m.bodyMedian, m.bodySigma) - m.tailShare * partial(m.tailMedian, m.tailSigma)
    }

    /// Each preset's clamped share from the closed form, under 0.5% per direction, against the
    /// share of the world's own draws (`World.linkDelay`, the presets' AR(1) included) that sit
    /// exactly at the floor: n = 200,000 per direction, within 5 binomial standard errors
    /// √(p(1 − p)/n). (A draw lands on the floor's nanosecond unclamped with probability of
    /// order density × 1 ns, below 1e-6.) Also the floor's added mean against an independent
    /// Monte Carlo of clamped draws, within 5 standard errors.
    @Test(arguments: LinkPresets.names)
    func worldClampsTheClosedFormShare(preset: String) throws {
        let profile = try #require(LinkPresets.named(preset))
        var s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(
            #"{"seed": 41, "network": {"profiles": [{"preset": "\#(preset)", "share": 1}]}}"#))
        s.population.players = 2
        var world = World(scenario: s)
        let n = 200_000
        var atFloor = (up: 0, down: 0)
        for k in 0..<n {
            // Two players, each drawing 40 s apart, as in LinkCalibrationTests: the AR(1)'s state
            // has forgotten the last draw (e^−8 on a 5 s time constant), and 100,000 draws 40 s
            // apart stay within the 49 days the delay memory's millisecond clock holds.
            let player = k % 2
            let at = SimTime(ns: Int64(k / 2) * 40 * .second)
            let up = world.linkDelay(.uplink, player, link: 0, at: at), down = world.linkDelay(.downlink, player, link: 0, at: at)
            #expect(up >= profile.uplinkFloor && down >= profile.downlinkFloor)
            if up == profile.uplinkFloor { atFloor.up += 1 }
            if down == profile.downlinkFloor { atFloor.down += 1 }
        }
        for (direction, count) in [(LinkDirection.uplink, atFloor.up), (.downlink, atFloor.down)] {
            guard case .lognormalMixture(let m) = profile.distribution(direction) else { Issue.record("not a mixture"); continue }
            let floor = Double(profile.floor(direction))
            let p = Self.mixtureCDF(m, floor)
            #expect(p > 0 && p < 0.005, "\(preset) \(direction): clamps \(p)")
            let se = (p * (1 - p) / Double(n)).squareRoot()
            let drawn = Double(count) / Double(n)
            #expect(abs(drawn - p) < 5 * se, "\(preset) \(direction): \(drawn) at the floor, closed form \(p) ± \(se)")
            print(String(format: "floor %@ %@: %.0f ms, clamped %.4f%% (closed form), %.4f%% of %d world draws; mean +%.2f µs",
                         preset, direction == .uplink ? "up" : "down", floor / 1e6, p * 100, drawn * 100, n,
                         Self.meanAdded(m, floor: floor) / 1e3))

            // The added mean, against clamped draws of the distribution on its own stream.
            var rng = RandomStream(seed: 9, purpose: StreamPurpose("floor-mean"))
            var sum = 0.0, squares = 0.0
            let draws = 400_000
            for _ in 0..<draws {
                let added = max(0, floor - Distribution.lognormalMixture(m).sample(&rng))
                sum += added
                squares += added * added
            }
            let mean = sum / Double(draws)
            let seMean = ((squares / Double(draws) - mean * mean) / Double(draws)).squareRoot()
            let exact = Self.meanAdded(m, floor: floor)
            #expect(abs(mean - exact) < 5 * seMean + 1, "\(preset) \(direction): mean added \(mean) ns vs \(exact) ± \(seMean)")
        }
    }

    /// End to end: every preset with its connection, loss and radio models, on the fleet's
    /// serving path and on the plain path, plus a Gilbert–Elliott link and a constant link held
    /// at its floor. In the request trace every request reaches the server at least the uplink's
    /// lookahead after it was sent, and every answer completes at least the downlink's lookahead
    /// after it left the server. The constant link's 1 ms delays, held at 4 ms up and 2 ms
    /// down, show the floor itself: its requests take exactly the floor plus the transfer.
    @Test(arguments: ["v115-pausing.json", "v115-idealised.json"])
    func everyRequestRespectsTheLookahead(base: String) throws {
        let models = #""loss": {"kind": "tcp-retransmit", "rate": 0.02}, "connection": {"kind": "keep-alive", "tls": "1.3"}, "radio": {"kind": "rrc", "promotion": "260ms", "tail": "11.6s"}"#
        let profiles = LinkPresets.names.map { #"{"preset": "\#($0)", "share": 0.175, \#(models)}"# } + [
            #"{"name": "ge", "preset": "lte", "share": 0.15, "floor": "9ms", "correlation": {"kind": "gilbert-elliott", "goodToBadPerSecond": 0.1, "badToGoodPerSecond": 0.5, "bad": {"uplink": {"kind": "lognormal", "median": "300ms", "sigma": 1}, "downlink": "2ms"}}}"#,
            #"{"name": "held", "share": 0.15, "uplink": "1ms", "downlink": "1ms", "bandwidth": "1Gbit/s", "floor": {"uplink": "4ms", "downlink": "2ms"}}"#,
        ]
        var json = try ScenarioFixtures.shipped(base)
        json = JSONValue.merging(base: json, override: try JSONParser.parse(
            #"{"network": {"profiles": [\#(profiles.joined(separator: ", "))]}}"#))
        var s = try ScenarioLoader().load(text: json.serialized())
        s.population.players = 5_000
        s.duration = 40 * .minute
        let result = Simulation.run(s, threads: 1, traceRequests: 5_000)
        let rows = try #require(result.requestTrace)
        var arrived = [Int](repeating: 0, count: s.links.count), answered = arrived
        var heldUp: [Int64] = [], heldDown: [Int64] = []
        for row in rows {
            let link = s.links[row.link]
            if let reached = row.reachedServer {
                arrived[row.link] += 1
                #expect(reached - row.sent >= link.lookahead(.uplink), "\(link.name): \(row)")
                if link.name == "held" && row.setup == 0 && row.requestRetransmit == 0 { heldUp.append(reached - row.sent) }
            }
            if row.outcome == .answered, let left = row.responseStart, let end = row.end {
                answered[row.link] += 1
                #expect(end - left >= link.lookahead(.downlink), "\(link.name): \(row)")
                if link.name == "held" && row.responseRetransmit == 0 { heldDown.append(end - left) }
            }
        }
        for (k, link) in s.links.enumerated() {
            #expect(arrived[k] > 20 && answered[k] > 20, "\(base) \(link.name): \(arrived[k]) arrived, \(answered[k]) answered")
        }
        // 400 bytes up at 125,000,000 B/s: 3,200 ns; the response's few kilobytes (under 125 kB,
        // so under 1 ms) likewise on top of 2 ms.
        let upload = LinkProfile.transferTime(bytes: s.requestBytes, bytesPerSecond: 125_000_000)
        #expect(!heldUp.isEmpty && heldUp.allSatisfy { $0 == 4 * .millisecond + upload }, "\(Set(heldUp))")
        #expect(!heldDown.isEmpty && heldDown.allSatisfy { $0 > 2 * .millisecond && $0 < 3 * .millisecond },
                "\(Set(heldDown))")
    }
}
