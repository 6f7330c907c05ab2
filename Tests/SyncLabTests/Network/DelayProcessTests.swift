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

    /// log(d / median) of `count` uplink draws of one player, `spacing` apart from t = 0.
    static func logDelays(_ p: some DelayProcess, _ link: LinkProfile, count: Int, spacing: Nanoseconds,
                          player: UInt64 = 0) -> [Double] {
        var memory = LinkMemory()
        var rng = RandomStream(seed: 27, purpose: StreamPurpose("delay-process-test"), entity: player)
        guard case .lognormal(let median, _) = link.uplink else { return [] }
        return (0..<count).map { k in
            Foundation.log(p.delay(.uplink, on: link, memory: &memory, at: SimTime(ns: Int64(k) * spacing), player: player,
                                   seed: 27, &rng) / median)
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
    static func correlation(_ x: [Double], _ y: [Double]) -> Double {
        let mx = mean(x), my = mean(y)
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (a, b) in zip(x, y) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
            syy += (b - my) * (b - my)
        }
        return sxy / (sxx * syy).squareRoot()
    }

    /// The lag correlation of log-delay at Δt = τ and 2τ is e^−1 = 0.3679 and e^−2 = 0.1353: two
    /// draws Δt apart for each of M = 20,000 players, each from a stationary start. The sample
    /// correlation of M Gaussian pairs has standard error (1 − r²)/√M.
    @Test(arguments: [1.0, 2.0])
    func ar1LagCorrelationDecaysWithTime(lagsOfTau: Double) {
        let tau = 2 * Int64.second, players = 20_000
        let p = AR1Delays(tau: tau)
        var first: [Double] = [], second: [Double] = []
        for i in 0..<players {
            let x = Self.logDelays(p, Self.lte, count: 2, spacing: Int64(lagsOfTau * Double(tau)), player: UInt64(i))
            first.append(x[0])
            second.append(x[1])
        }
        let expected = Foundation.exp(-lagsOfTau)
        let se = (1 - expected * expected) / Double(players).squareRoot()
        let r = Self.correlation(first, second)
        #expect(abs(r - expected) < 5 * se, "lag \(lagsOfTau)τ: \(r) vs \(expected)")
        #expect(abs(p.correlation(afterSeconds: lagsOfTau * 2) - expected) < 1e-12)
    }

    /// One chain of N = 200,000 draws 100 ms apart per τ: a discrete AR(1) with ρ = e^(−0.1 s/τ).
    /// Standard errors for a stationary Gaussian AR(1) with variance σ²: lag-1 estimate
    /// √((1−ρ²)/N); mean √(σ²/N · (1+ρ)/(1−ρ)); variance √(2σ⁴/N · (1+ρ²)/(1−ρ²)).
    @Test(arguments: [100 * Int64.millisecond, Int64.second, 10 * Int64.second])
    func ar1MatchesItsAutocorrelationAndStationaryLaw(tau: Nanoseconds) {
        let n = 200_000, sigma = 0.8
        let x = Self.logDelays(AR1Delays(tau: tau), Self.lte, count: n, spacing: 100 * .millisecond)
        let rho = Foundation.exp(-0.1e9 / Double(tau))
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
    /// lag-1 autocorrelation ρ = e^(−0.2 s/2 s) (5 standard errors √((1−ρ²)/N)), and the delays
    /// keep the mixture's law: the share at or below the mixture's p-quantile is p within 5
    /// standard errors, the binomial one inflated by the chain's correlation — for the indicator
    /// of a Gaussian AR(1) below a level the lag-k correlation is at most ρ^k, so the variance
    /// factor is at most (1+ρ)/(1−ρ).
    @Test func ar1OnAMixtureKeepsTheMixtureAndTheCorrelation() throws {
        let lte = try #require(LinkPresets.named("lte"))
        guard case .lognormalMixture(let mixture) = lte.uplink else { Issue.record("lte uplink is not a mixture"); return }
        let rho = Foundation.exp(-0.1), n = 100_000
        let p = AR1Delays(tau: 2 * .second)
        var memory = LinkMemory()
        var rng = RandomStream(seed: 27, purpose: StreamPurpose("delay-process-test"))
        var xs: [Double] = [], ds: [Double] = []
        for k in 0..<n {
            let d = p.delay(.uplink, on: lte, memory: &memory, at: SimTime(ns: Int64(k) * 200 * .millisecond), player: 0, seed: 27, &rng)
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

    /// Draws at the same instant see the same state (Δt = 0: correlation 1), and each direction
    /// keeps its own.
    @Test func ar1DirectionsHaveTheirOwnState() {
        let p = AR1Delays(tau: 2 * .second)
        var memory = LinkMemory()
        var rng = RandomStream(seed: 1, purpose: StreamPurpose("t"))
        let now = SimTime(ns: 5 * .second)
        let up = p.delay(.uplink, on: Self.lte, memory: &memory, at: now, player: 0, seed: 1, &rng)
        let down = p.delay(.downlink, on: Self.lte, memory: &memory, at: now, player: 0, seed: 1, &rng)
        #expect(up != down)
        for _ in 0..<10 {
            #expect(p.delay(.uplink, on: Self.lte, memory: &memory, at: now, player: 0, seed: 1, &rng) == up)
            #expect(p.delay(.downlink, on: Self.lte, memory: &memory, at: now, player: 0, seed: 1, &rng) == down)
        }
    }

    /// Best of n probes 100 ms apart against n refetches 7 minutes apart on a τ = 2 s link, σ = 0.8:
    /// the gain in log-delay, first draw minus the least, over M = 20,000 players.
    /// - n = 2, lag correlation r: E[x₁ − min(x₁, x₂)] = E[(x₁ − x₂)⁺] = σ·√((1 − r)/π) (x₁ − x₂ is
    ///   normal with sd σ√(2(1 − r))). Probes: r = e^−0.05, gain 0.0997; refetches: r = e^−210 ≈ 0,
    ///   gain σ/√π = 0.4514.
    /// - n = 4 refetches: four independent N(0, σ²), gain 1.029375σ (the expected minimum of four
    ///   standard normals). n = 4 probes: the lag-k correlation is r^k; the expected gain comes from
    ///   an independent Monte Carlo written here (Cholesky factor of the 4×4 covariance, its own
    ///   stream), 200,000 draws.
    /// Tolerance: five standard errors of each mean gain, from the samples' own spread.
    @Test func bestOfNGainsLittleFromProbesAndMuchFromRefetches() {
        let sigma = 0.8, players = 20_000
        let p = AR1Delays(tau: 2 * .second)
        func gain(_ n: Int, _ spacing: Nanoseconds) -> (mean: Double, se: Double) {
            let gains = (0..<players).map { i -> Double in
                let x = Self.logDelays(p, Self.lte, count: n, spacing: spacing, player: UInt64(i))
                return x[0] - x.min()!
            }
            return (Self.mean(gains), (Self.variance(gains) / Double(players)).squareRoot())
        }
        let probe = 100 * Int64.millisecond, refetch = 7 * Int64.minute
        let r = Foundation.exp(-0.05)
        let twoProbes = gain(2, probe), twoRefetches = gain(2, refetch)
        #expect(abs(twoProbes.mean - sigma * ((1 - r) / Double.pi).squareRoot()) < 5 * twoProbes.se, "\(twoProbes)")
        #expect(abs(twoRefetches.mean - sigma / Double.pi.squareRoot()) < 5 * twoRefetches.se, "\(twoRefetches)")
        let fourRefetches = gain(4, refetch)
        #expect(abs(fourRefetches.mean - 1.029375 * sigma) < 5 * fourRefetches.se, "\(fourRefetches)")
        // The Monte Carlo: x = σ·L·z with L the Cholesky factor of (r^|i−j|).
        var cov = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
        for i in 0..<4 { for j in 0..<4 { cov[i][j] = pow(r, Double(abs(i - j))) } }
        var L = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
        for i in 0..<4 {
            for j in 0...i {
                let s = (0..<j).reduce(0.0) { $0 + L[i][$1] * L[j][$1] }
                L[i][j] = i == j ? (cov[i][i] - s).squareRoot() : (cov[i][j] - s) / L[j][j]
            }
        }
        var rng = RandomStream(seed: 99, purpose: StreamPurpose("cholesky-check"))
        let normal = Distribution.normal(mean: 0, sd: 1)
        var total = 0.0
        let draws = 200_000
        for _ in 0..<draws {
            let z = (0..<4).map { _ in normal.sample(&rng) }
            let x = (0..<4).map { i in sigma * (0...i).reduce(0.0) { $0 + L[i][$1] * z[$1] } }
            total += x[0] - x.min()!
        }
        let expectedFour = total / Double(draws)
        let fourProbes = gain(4, probe)
        #expect(abs(fourProbes.mean - expectedFour) < 5 * fourProbes.se * (1 + (Double(players) / Double(draws)).squareRoot()),
                "\(fourProbes) vs \(expectedFour)")
        // Probes 100 ms apart buy a fifth of what refetches minutes apart do.
        #expect(fourProbes.mean < 0.3 * fourRefetches.mean)
    }

    /// Good 10 ms, bad 200 ms (constants, so each delay shows its state). Rates g = 0.05/s,
    /// b = 0.25/s: bad share π = 1/6. N = 300,000 requests 1 s apart: with λ = g + b = 0.3/s, the
    /// state a second on is bad with P(bad | bad) = π + (1−π)e^(−0.3) = 0.7841 and P(bad | good) =
    /// π(1 − e^(−0.3)) = 0.04318, within 5 binomial standard errors of the transitions counted;
    /// the bad share within 5 standard errors √(π(1−π)/N · (1+ℓ)/(1−ℓ)), ℓ = e^(−0.3) the chain's
    /// lag-one autocorrelation. The response, drawn at the same instant, is in the request's state.
    @Test func gilbertElliottHasItsStationaryShareAndTransitions() {
        let g = 0.05, b = 0.25, n = 300_000
        let link = LinkProfile(name: "ge", share: 1, uplink: .constant(10e6), downlink: .constant(10e6),
                               bandwidth: .constant(1e6), failure: 0.01, timeout: 30 * .second)
        let ge = GilbertElliottDelays(goodToBadPerSecond: g, badToGoodPerSecond: b, badUplink: .constant(200e6),
                                      badDownlink: .constant(300e6), badFailure: 0.5)
        #expect(ge.badShare == g / (g + b))
        var memory = LinkMemory()
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("ge-test"))
        var states: [Bool] = []
        for k in 0..<n {
            let now = SimTime(ns: Int64(k) * .second)
            let up = ge.delay(.uplink, on: link, memory: &memory, at: now, player: 0, seed: 5, &rng)
            let bad = up == 200e6
            #expect(ge.failure(on: link, memory: memory) == (bad ? 0.5 : 0.01))
            let down = ge.delay(.downlink, on: link, memory: &memory, at: now, player: 0, seed: 5, &rng)
            #expect(down == (bad ? 300e6 : 10e6))
            states.append(bad)
        }
        let share = Double(states.filter { $0 }.count) / Double(n)
        let pi = g / (g + b), ell = Foundation.exp(-(g + b))
        let seShare = (pi * (1 - pi) / Double(n) * (1 + ell) / (1 - ell)).squareRoot()
        #expect(abs(share - pi) < 5 * seShare, "bad share \(share)")
        for wasBad in [true, false] {
            let expected = wasBad ? pi + (1 - pi) * ell : pi * (1 - ell)
            #expect(abs(ge.badChance(afterSeconds: 1, wasBad: wasBad) - expected) < 1e-12)
            let from = (1..<n).filter { states[$0 - 1] == wasBad }
            let toBad = Double(from.filter { states[$0] }.count) / Double(from.count)
            let se = (expected * (1 - expected) / Double(from.count)).squareRoot()
            #expect(abs(toBad - expected) < 5 * se, "P(bad | \(wasBad ? "bad" : "good")) \(toBad) vs \(expected)")
        }
        // Minutes apart, the chain has forgotten: P(bad | either) is π.
        #expect(abs(ge.badChance(afterSeconds: 420, wasBad: true) - pi) < 1e-12)
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
                #expect(replay.delay(.uplink, on: link, memory: &memory, at: .zero, player: player, seed: 3, &rng) == expected)
                // A trace of the same length stays in step with the uplink.
                #expect(replay.delay(.downlink, on: link, memory: &memory, at: .zero, player: player, seed: 3, &rng) == expected * 10)
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

    /// The time since a direction's last draw, in seconds to the millisecond; nil at the first.
    @Test func memoryKeepsEachDirectionsLastDrawTime() {
        var m = LinkMemory()
        #expect(m.advance(.uplink, to: SimTime(ns: 1_500 * .millisecond)) == nil)
        #expect(m.advance(.downlink, to: SimTime(ns: 1_700 * .millisecond)) == nil)
        #expect(m.advance(.uplink, to: SimTime(ns: 1_600 * .millisecond)) == 0.1)
        #expect(m.advance(.downlink, to: SimTime(ns: 421_700 * .millisecond)) == 420)
        // An earlier instant (never asked for by the world) counts as no time at all.
        #expect(m.advance(.uplink, to: SimTime(ns: 1_000 * .millisecond)) == 0)
        #expect(m.word == 0)
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
            (#", "correlation": {"kind": "ar1", "tau": "2s"}"#, "AR(1) on log-delay, time constant 2s"),
            (#", "correlation": {"kind": "gilbert-elliott", "goodToBadPerSecond": 0.05, "badToGoodPerSecond": 0.25, "#
                + #""bad": {"uplink": "400ms", "downlink": "300ms", "failure": 0.05}}"#,
             "Gilbert-Elliott, mean stays 20s good and 4s bad (bad 16.7% of the time)"),
        ]
        for (profile, summary) in cases {
            let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(Self.network(profile)), file: "ok.json")
            #expect(s.links[0].correlation.summary == summary)
        }
        let plain = try ScenarioLoader().load(text: try ScenarioFixtures.variant(Self.network("")), file: "ok.json")
        // The lte preset's own: an AR(1) in time (docs/links.md, "Calibrated from measured links").
        #expect((plain.links[0].correlation as? AR1Delays)?.tau == 2 * .second)
        // A trace replayed in order, its path relative to the scenario file.
        let trace = #"{"network": {"profiles": [{"preset": "lte", "share": 1, "correlation": "replay", "#
            + #""uplink": {"trace": "traces/lte-sample.csv", "column": "uplink_ms"}}]}}"#
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(trace),
                                          file: ScenarioFixtures.packageRoot + "/Scenarios/t.json")
        #expect(s.links[0].correlation is TraceReplayDelays)
    }

    @Test func badInputNamesTheKeyPath() throws {
        let cases: [(String, String)] = [
            (#", "correlation": {"kind": "ar1", "tau": "10ms"}"#,
             "bad.json: network.profiles[0].correlation.tau: must be from 100ms to 30d; got \"10ms\""),
            (#", "correlation": {"kind": "ar1", "rho": 0.9}"#,
             "bad.json: network.profiles[0].correlation.tau: missing required key"),
            (#", "correlation": {"kind": "ar1", "tau": "2s"}, "uplink": "30ms""#,
             "bad.json: network.profiles[0].correlation: 'ar1' needs a lognormal or lognormal-mixture uplink (its parameters set the process); profile 'lte' has a constant"),
            (#", "correlation": "replay""#,
             "bad.json: network.profiles[0].correlation: 'replay' needs a latency trace ({\"trace\": …}) as the uplink or downlink of profile 'lte'; it has a lognormal mixture and a lognormal mixture"),
            (#", "correlation": {"kind": "gilbert-elliott", "goodToBadPerSecond": 0, "badToGoodPerSecond": 0.5, "bad": {"uplink": "1s", "downlink": "1s"}}"#,
             "bad.json: network.profiles[0].correlation.goodToBadPerSecond: must be more than 0 (a state never left is not a channel); got 0"),
            (#", "correlation": "ar2""#,
             "bad.json: network.profiles[0].correlation: unknown delay process 'ar2'; expected one of 'independent', 'ar1', 'gilbert-elliott', 'replay', 'ar1-nugget' (did you mean 'ar1'?)"),
        ]
        for (profile, expected) in cases {
            let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(Self.network(profile)))
            #expect(error?.description == expected)
        }
    }
}
