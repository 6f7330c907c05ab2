import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// Known answers for the delay processes (`DelayProcess`): each statistic is compared with its
/// value from the parameters, within five standard errors worked out from the sample size (a
/// false failure about once in 3.5 million runs; the seeds are fixed, so a run never flakes).
@Suite struct DelayProcessTests {
    static let lte = LinkProfile(name: "lte", share: 1, uplink: .lognormal(median: 30e6, sigma: 0.8),
                                 downlink: .lognormal(median: 25e6, sigma: 0.8), bandwidth: .constant(1e6),
                                 failure: 0.005, timeout: 30 * .second)

    /// log(d / median) of `count` consecutive uplink draws of one player.
    static func logDelays(_ p: some DelayProcess, _ link: LinkProfile, count: Int, player: UInt64 = 0) -> [Double] {
        var memory = LinkMemory()
        var rng = RandomStream(seed: 27, purpose: StreamPurpose("delay-process-test"), entity: player)
        guard case .lognormal(let median, _) = link.uplink else { return [] }
        return (0..<count).map { _ in
            Foundation.log(p.delay(.uplink, on: link, memory: &memory, player: player, seed: 27, &rng) / median)
        }
    }

    static func mean(_ x: [Double]) -> Double { x.reduce(0, +) / Double(x.count) }
    static func variance(_ x: [Double]) -> Double {
        let m = mean(x)
        return x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count - 1)
    }
    static func lag1(_ x: [Double]) -> Double {
        let m = mean(x)
        var num = 0.0, den = 0.0
        for i in x.indices {
            den += (x[i] - m) * (x[i] - m)
            if i > 0 { num += (x[i] - m) * (x[i - 1] - m) }
        }
        return num / den
    }

    /// One chain of N = 200,000 draws per ρ. Standard errors for a stationary Gaussian AR(1)
    /// with variance σ²: lag-1 estimate √((1−ρ²)/N); mean √(σ²/N · (1+ρ)/(1−ρ)); variance
    /// √(2σ⁴/N · (1+ρ²)/(1−ρ²)).
    @Test(arguments: [0.0, 0.5, 0.8, 0.95])
    func ar1MatchesItsAutocorrelationAndStationaryLaw(rho: Double) {
        let n = 200_000, sigma = 0.8
        let x = Self.logDelays(AR1Delays(rho: rho), Self.lte, count: n)
        let N = Double(n)
        let seLag = ((1 - rho * rho) / N).squareRoot()
        let seMean = (sigma * sigma / N * (1 + rho) / (1 - rho)).squareRoot()
        let seVar = (2 * pow(sigma, 4) / N * (1 + rho * rho) / (1 - rho * rho)).squareRoot()
        #expect(abs(Self.lag1(x) - rho) < 5 * seLag, "lag-1 \(Self.lag1(x)) for rho \(rho)")
        #expect(abs(Self.mean(x)) < 5 * seMean, "mean \(Self.mean(x))")
        #expect(abs(Self.variance(x) - sigma * sigma) < 5 * seVar, "variance \(Self.variance(x))")
    }

    /// Each direction is its own process: the downlink's draws do not move the uplink's state.
    /// On a lognormal-mixture link (the presets') x runs as a standard AR(1) and each delay is the
    /// mixture's quantile at Φ(x): every delay equals that quantile of the stored x, x keeps its
    /// lag-1 autocorrelation ρ (5 standard errors √((1−ρ²)/N)), and the delays keep the mixture's
    /// law: the share at or below the mixture's p-quantile is p within 5 standard errors, the
    /// binomial one inflated by the chain's correlation — for the indicator of a Gaussian AR(1)
    /// below a level the lag-k correlation is at most ρ^k, so the variance factor is at most
    /// (1+ρ)/(1−ρ).
    @Test func ar1OnAMixtureKeepsTheMixtureAndTheCorrelation() throws {
        let lte = try #require(LinkPresets.named("lte"))
        guard case .lognormalMixture(let mixture) = lte.uplink else { Issue.record("lte uplink is not a mixture"); return }
        let rho = 0.9, n = 100_000
        let p = AR1Delays(rho: rho)
        var memory = LinkMemory()
        var rng = RandomStream(seed: 27, purpose: StreamPurpose("delay-process-test"))
        var xs: [Double] = [], ds: [Double] = []
        for _ in 0..<n {
            let d = p.delay(.uplink, on: lte, memory: &memory, player: 0, seed: 27, &rng)
            let x = Double(Float(bitPattern: memory[.uplink]))
            ds.append(d)
            xs.append(x)
        }
        for (x, d) in zip(xs.prefix(200), ds) {
            let expected = x <= 0 ? mixture.quantile(NormalLaw.cdf(x)) : mixture.upperQuantile(NormalLaw.cdf(-x))
            #expect(d == expected)
        }
        let N = Double(n)
        #expect(abs(Self.lag1(xs) - rho) < 5 * ((1 - rho * rho) / N).squareRoot(), "lag-1 \(Self.lag1(xs))")
        for q in [0.1, 0.5, 0.9, 0.99] {
            let level = mixture.quantile(q)
            let share = Double(ds.lazy.filter { $0 <= level }.count) / N
            let se = (q * (1 - q) / N * (1 + rho) / (1 - rho)).squareRoot()
            #expect(abs(share - q) < 5 * se, "share below the \(q) quantile: \(share)")
        }
    }

    @Test func ar1DirectionsHaveTheirOwnState() {
        let p = AR1Delays(rho: 1)
        var memory = LinkMemory()
        var rng = RandomStream(seed: 1, purpose: StreamPurpose("t"))
        let up = p.delay(.uplink, on: Self.lte, memory: &memory, player: 0, seed: 1, &rng)
        let down = p.delay(.downlink, on: Self.lte, memory: &memory, player: 0, seed: 1, &rng)
        // ρ = 1 freezes each direction at its first draw.
        for _ in 0..<10 {
            #expect(p.delay(.uplink, on: Self.lte, memory: &memory, player: 0, seed: 1, &rng) == up)
            #expect(p.delay(.downlink, on: Self.lte, memory: &memory, player: 0, seed: 1, &rng) == down)
        }
    }

    /// Best of n = 4 consecutive draws: the gain in log-delay, first draw minus the least of the
    /// four, over M = 20,000 players from a stationary start.
    /// - ρ = 0: four independent N(0, σ²); E[x₁] = 0 and E[min] = −1.029375σ (the expected
    ///   minimum of four standard normals), so the gain is 1.029375σ: the best probe's delay is
    ///   e^(−1.03σ) of the median, 0.44 of it at σ = 0.8.
    /// - ρ near 1: x_{1+k} − x₁ is close to a Gaussian random walk with step sd s = σ√(1−ρ²) (the
    ///   pull back to 0, (1−ρ)·k·x₁, averages out over x₁), whose expected maximum over steps
    ///   0…3 is s/√(2π) · (1 + 1/√2 + 1/√3) = 0.91139·s (Kac's formula, Σ E[S_k⁺]/k); at
    ///   ρ = 0.999, 0.04075σ: the gain has all but gone.
    /// - ρ = 1: every probe sees the first draw; the gain is exactly 0.
    /// Tolerance: five standard errors of the mean gain, from the sample's own spread.
    @Test func bestOfFourGainShrinksToNoneAsCorrelationGoesToOne() {
        let sigma = 0.8, players = 20_000
        func gain(_ rho: Double) -> (mean: Double, se: Double) {
            let gains = (0..<players).map { i -> Double in
                let x = Self.logDelays(AR1Delays(rho: rho), Self.lte, count: 4, player: UInt64(i))
                return x[0] - x.min()!
            }
            return (Self.mean(gains), (Self.variance(gains) / Double(players)).squareRoot())
        }
        let independent = gain(0)
        #expect(abs(independent.mean - 1.029375 * sigma) < 5 * independent.se, "\(independent)")
        let nearOne = gain(0.999)
        let walk = 0.91139 * sigma * (1 - 0.999 * 0.999).squareRoot()
        #expect(abs(nearOne.mean - walk) < 5 * nearOne.se + 0.02 * walk, "\(nearOne) vs \(walk)")
        #expect(gain(1).mean == 0)
        // In between, the gain falls as ρ grows.
        let gains = [0, 0.5, 0.9, 0.99, 0.999, 1].map { gain($0).mean }
        #expect(zip(gains, gains.dropFirst()).allSatisfy { $0 > $1 }, "\(gains)")
    }

    /// Good 10 ms, bad 200 ms (constants, so each delay shows its state). N = 300,000 requests,
    /// p_gb = 0.05, p_bg = 0.25: bad share π = 1/6, with standard error
    /// √(π(1−π)/N · (1+λ)/(1−λ)), λ = 1 − p_gb − p_bg (a two-state chain's autocorrelation);
    /// stays geometric with mean 1/p and sd √(1−p)/p, over about N·π·p_bg ≈ 12,500 stays of each.
    @Test func gilbertElliottHasItsStationaryShareAndSojourns() {
        let pgb = 0.05, pbg = 0.25, n = 300_000
        let link = LinkProfile(name: "ge", share: 1, uplink: .constant(10e6), downlink: .constant(10e6),
                               bandwidth: .constant(1e6), failure: 0.01, timeout: 30 * .second)
        let ge = GilbertElliottDelays(goodToBad: pgb, badToGood: pbg, badUplink: .constant(200e6),
                                      badDownlink: .constant(300e6), badFailure: 0.5)
        #expect(ge.badShare == pgb / (pgb + pbg))
        var memory = LinkMemory()
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("ge-test"))
        var states: [Bool] = []
        for _ in 0..<n {
            let up = ge.delay(.uplink, on: link, memory: &memory, player: 0, seed: 5, &rng)
            let bad = up == 200e6
            // The response is drawn in the request's state, and so is its loss.
            #expect(ge.failure(on: link, memory: memory) == (bad ? 0.5 : 0.01))
            let down = ge.delay(.downlink, on: link, memory: &memory, player: 0, seed: 5, &rng)
            #expect(down == (bad ? 300e6 : 10e6))
            states.append(bad)
        }
        let share = Double(states.filter { $0 }.count) / Double(n)
        let pi = pgb / (pgb + pbg), lambda = 1 - pgb - pbg
        let seShare = (pi * (1 - pi) / Double(n) * (1 + lambda) / (1 - lambda)).squareRoot()
        #expect(abs(share - pi) < 5 * seShare, "bad share \(share)")
        // Stays, leaving out the first (its start is not a change) and the last (cut short).
        var stays: [Bool: [Int]] = [true: [], false: []]
        var start = 0
        for i in 1..<n where states[i] != states[i - 1] {
            if start > 0 { stays[states[i - 1]]!.append(i - start) }
            start = i
        }
        for (bad, p) in [(true, pbg), (false, pgb)] {
            let lengths = stays[bad]!.map(Double.init)
            let se = (1 - p).squareRoot() / p / Double(lengths.count).squareRoot()
            #expect(abs(Self.mean(lengths) - 1 / p) < 5 * se, "\(bad ? "bad" : "good") stays \(Self.mean(lengths)) of \(lengths.count)")
        }
    }

    @Test func replayWalksTheTraceInOrderFromAKeyedStart() {
        let trace: [Double] = [1, 2, 3, 4, 5, 6, 7]
        let link = LinkProfile(name: "t", share: 1, uplink: .empirical(trace), downlink: .empirical(trace.map { $0 * 10 }),
                               bandwidth: .constant(1e6), failure: 0, timeout: 30 * .second)
        let replay = TraceReplayDelays()
        var starts: Set<Int> = []
        for player in UInt64(0)..<20 {
            var memory = LinkMemory()
            var rng = RandomStream(seed: 3, purpose: StreamPurpose("t"), entity: player)
            let before = rng
            let start = TraceReplayDelays.start(count: trace.count, player: player, seed: 3)
            starts.insert(start)
            for k in 0..<20 {
                let expected = trace[(start + k) % trace.count]
                #expect(replay.delay(.uplink, on: link, memory: &memory, player: player, seed: 3, &rng) == expected)
                // A trace of the same length stays in step with the uplink.
                #expect(replay.delay(.downlink, on: link, memory: &memory, player: player, seed: 3, &rng) == expected * 10)
            }
            // Replaying draws nothing from the player's network stream.
            #expect(rng == before)
        }
        #expect(starts.count > 3, "players start at different samples: \(starts.sorted())")
    }

    @Test func memoryHalvesAreIndependent() {
        var m = LinkMemory()
        m[.uplink] = 0xDEAD_BEEF
        m[.downlink] = 7
        #expect(m[.uplink] == 0xDEAD_BEEF && m[.downlink] == 7)
        m[.uplink] = 1
        #expect(m.word == (7 << 32) | 1)
    }
}

/// Loading `correlation`: each kind from the registry, and bad input named by its key path.
@Suite struct DelayProcessLoaderTests {
    static func network(_ profile: String) -> String {
        #"{"network": {"profiles": [{"preset": "lte", "share": 1"# + profile + "}]}}"
    }

    @Test func loadsEachKind() throws {
        let cases: [(String, String)] = [
            (#", "correlation": "independent""#, "independent"),
            (#", "correlation": {"kind": "ar1", "rho": 0.9}"#, "AR(1) on log-delay, rho 0.9 per request"),
            (#", "correlation": {"kind": "gilbert-elliott", "goodToBad": 0.05, "badToGood": 0.25, "#
                + #""bad": {"uplink": "400ms", "downlink": "300ms", "failure": 0.05}}"#,
             "Gilbert-Elliott, good to bad 0.05, bad to good 0.25 per request (bad 16.7% of requests)"),
        ]
        for (profile, summary) in cases {
            let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(Self.network(profile)), file: "ok.json")
            #expect(s.links[0].correlation.summary == summary)
        }
        let plain = try ScenarioLoader().load(text: try ScenarioFixtures.variant(Self.network("")), file: "ok.json")
        #expect(plain.links[0].hasIndependentDelays)
        // A trace replayed in order, its path relative to the scenario file.
        let trace = #"{"network": {"profiles": [{"preset": "lte", "share": 1, "correlation": "replay", "#
            + #""uplink": {"trace": "traces/lte-sample.csv", "column": "uplink_ms"}}]}}"#
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(trace),
                                          file: ScenarioFixtures.packageRoot + "/Scenarios/t.json")
        #expect(s.links[0].correlation is TraceReplayDelays)
    }

    @Test func badInputNamesTheKeyPath() throws {
        let cases: [(String, String)] = [
            (#", "correlation": {"kind": "ar1", "rho": 1.5}"#,
             "bad.json: network.profiles[0].correlation.rho: must be from 0 to 1; got 1.5"),
            (#", "correlation": {"kind": "ar1", "rho": 0.5}, "uplink": "30ms""#,
             "bad.json: network.profiles[0].correlation: 'ar1' needs a lognormal or lognormal-mixture uplink (its parameters set the process); profile 'lte' has a constant"),
            (#", "correlation": "replay""#,
             "bad.json: network.profiles[0].correlation: 'replay' needs a latency trace ({\"trace\": …}) as the uplink or downlink of profile 'lte'; it has a lognormal mixture and a lognormal mixture"),
            (#", "correlation": {"kind": "gilbert-elliott", "goodToBad": 0, "badToGood": 0.5, "bad": {"uplink": "1s", "downlink": "1s"}}"#,
             "bad.json: network.profiles[0].correlation.goodToBad: must be more than 0 (a state never left is not a channel); got 0"),
            (#", "correlation": "ar2""#,
             "bad.json: network.profiles[0].correlation: unknown delay process 'ar2'; expected one of 'independent', 'ar1', 'gilbert-elliott', 'replay'"),
        ]
        for (profile, expected) in cases {
            let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(Self.network(profile)))
            #expect(error?.description == expected)
        }
    }
}
