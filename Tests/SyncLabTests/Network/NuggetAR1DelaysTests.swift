import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// Known answers for the AR(1) with a nugget (`NuggetAR1Delays`) and the three-part mixture it
/// draws through: its own random process end to end, each statistic within five standard errors
/// from the sample size (seeds fixed, so a run never flakes).
@Suite struct NuggetAR1DelaysTests {
    /// Body 50 ms, a 6% shoulder at 150 ms and a 1.5% outage at 1.5 s.
    static let threeParts = LognormalMixture(bodyMedian: 50e6, bodySigma: 0.3, tailShare: 0.06, tailMedian: 150e6, tailSigma: 0.4,
                                             outageShare: 0.015, outageMedian: 1.5e9, outageSigma: 0.6)

    /// The correlation of log-delay Δt apart is w·e^(−Δt/τ): two draws Δt apart for each of
    /// M = 20,000 players (each from a stationary start) on a lognormal link, at w = 0.4 and
    /// τ = 2 s; the sample correlation of M Gaussian pairs has standard error (1 − r²)/√M.
    @Test(arguments: [0.1, 2.0, 4.0])
    func lagCorrelationIsTheNuggetsClosedForm(seconds: Double) {
        let p = NuggetAR1Delays(tau: 2 * .second, weight: 0.4), players = 20_000
        var first: [Double] = [], second: [Double] = []
        for i in 0..<players {
            let x = DelayProcessTests.logDelays(p, DelayProcessTests.lte, count: 2, spacing: Int64(seconds * 1e9), player: UInt64(i))
            first.append(x[0])
            second.append(x[1])
        }
        let expected = 0.4 * Foundation.exp(-seconds / 2)
        let se = (1 - expected * expected) / Double(players).squareRoot()
        let r = DelayProcessTests.correlation(first, second)
        #expect(abs(r - expected) < 5 * se, "lag \(seconds) s: \(r) vs \(expected)")
        #expect(abs(p.correlation(afterSeconds: seconds) - expected) < 1e-12)
        // Each delay keeps the lognormal's law: log(d/median) is N(0, 0.8²).
        let sd = DelayProcessTests.variance(first).squareRoot()
        #expect(abs(sd - 0.8) < 5 * 0.8 / (2 * Double(players)).squareRoot(), "sd \(sd)")
    }

    /// On a three-part mixture one player's chain of N = 200,000 uplink delays 200 ms apart has
    /// the mixture's law: the share at or below the mixture's p-quantile is p within five
    /// standard errors, the binomial one inflated by the chain's correlation (lag-1 latent
    /// correlation ρ = w·e^(−0.1) at most, so a factor (1 + ρ)/(1 − ρ) at most); the outage's
    /// quantiles (p = 0.99, 0.995) are included. The three-part mixture's own independent draws
    /// (`LognormalMixture.sample`) meet the same quantiles.
    @Test func drawsKeepTheThreePartMixturesQuantiles() {
        let m = Self.threeParts
        var link = DelayProcessTests.lte
        link.uplink = .lognormalMixture(m)
        link.downlink = .lognormalMixture(m)
        let p = NuggetAR1Delays(tau: 2 * .second, weight: 0.6).tabulated(for: link)
        var memory = LinkMemory()
        var rng = RandomStream(seed: 27, purpose: StreamPurpose("delay-process-test"))
        let n = 200_000
        var chain: [Double] = [], independent: [Double] = []
        for k in 0..<n {
            chain.append(p.delay(.uplink, on: link, memory: &memory, at: SimTime(ns: Int64(k) * 200 * .millisecond), player: 0, seed: 27, &rng))
            independent.append(m.sample(&rng))
        }
        let rho = 0.6 * Foundation.exp(-0.1), N = Double(n)
        for q in [0.1, 0.5, 0.9, 0.95, 0.99, 0.995] {
            let level = m.quantile(q)
            #expect(abs(m.cdf(level) - q) < 1e-9)
            let share = Double(chain.lazy.filter { $0 <= level }.count) / N
            let se = (q * (1 - q) / N * (1 + rho) / (1 - rho)).squareRoot()
            #expect(abs(share - q) < 5 * se, "chain: share below the \(q) quantile \(share)")
            let fresh = Double(independent.lazy.filter { $0 <= level }.count) / N
            #expect(abs(fresh - q) < 5 * (q * (1 - q) / N).squareRoot(), "draws: share below the \(q) quantile \(fresh)")
        }
        // The outage is where the mixture says: its share of draws above 1 s.
        #expect(m.survival(1e9) > 0.015 * 0.7 && m.survival(1e9) < 0.02)
    }

    /// Without an outage the mixture is the two-part one bit for bit: CDF, quantiles and draws.
    @Test func noOutageIsTheTwoPartMixture() {
        let two = LognormalMixture(bodyMedian: 50e6, bodySigma: 0.3, tailShare: 0.06, tailMedian: 150e6, tailSigma: 0.4)
        var widened = two
        widened.outageMedian = 9e9
        widened.outageSigma = 2
        for x in [10e6, 50e6, 200e6, 3e9] {
            #expect(two.cdf(x) == widened.cdf(x))
            #expect(two.survival(x) == widened.survival(x))
        }
        #expect(two.quantile(0.999) == widened.quantile(0.999))
        var a = RandomStream(seed: 3, purpose: StreamPurpose("mixture")), b = a
        for _ in 0..<1_000 { #expect(two.sample(&a) == widened.sample(&b)) }
    }
}

/// The scenario file's forms of the nugget and the outage part, and their refusals.
@Suite struct NuggetAR1DelaysLoaderTests {
    static let outage = #""uplink": {"kind": "lognormal-mixture", "body": {"median": "30ms", "sigma": 0.3}, "#
        + #""tail": {"share": 0.05, "median": "90ms", "sigma": 0.5}, "outage": {"share": 0.01, "median": "1.2s", "sigma": 0.6}}"#

    @Test func loadsTheNuggetAndAnOutagePart() throws {
        let profile = #", "correlation": {"kind": "ar1-nugget", "tau": "20s", "weight": 0.3}, "# + Self.outage
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(DelayProcessLoaderTests.network(profile)), file: "ok.json")
        let p = try #require(s.links[0].correlation as? NuggetAR1Delays)
        #expect(p.tau == 20 * .second && p.weight == 0.3)
        #expect(p.summary == "AR(1) on log-delay with a nugget, correlated share 0.3, time constant 20s")
        guard case .lognormalMixture(let m) = s.links[0].uplink else { Issue.record("not a mixture"); return }
        #expect(m.outageShare == 0.01 && m.outageMedian == 1.2e9 && m.outageSigma == 0.6)
    }

    @Test func badInputNamesTheKeyPath() throws {
        let cases: [(String, String)] = [
            (#", "correlation": {"kind": "ar1-nugget", "tau": "2s", "weight": 1.5}"#,
             "bad.json: network.profiles[0].correlation.weight: must be between 0 and 1; got 1.5"),
            (#", "correlation": {"kind": "ar1-nugget", "tau": "50ms", "weight": 0.5}"#,
             "bad.json: network.profiles[0].correlation.tau: must be from 100ms to 30d; got \"50ms\""),
            (#", "correlation": {"kind": "ar1-nugget", "tau": "2s"}"#,
             "bad.json: network.profiles[0].correlation.weight: missing required key"),
            (", " + Self.outage.replacingOccurrences(of: "1.2s", with: "60ms"),
             "bad.json: network.profiles[0].uplink.outage.median: must be at least the tail's median (\"90ms\"): the outage is the slowest part; got \"60ms\""),
            (", " + Self.outage.replacingOccurrences(of: #""share": 0.01"#, with: #""share": 0.46"#),
             "bad.json: network.profiles[0].uplink.outage.share: with the tail's share (0.05) must be at most 0.5 (the body is the larger part); got 0.46"),
        ]
        for (profile, expected) in cases {
            let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(DelayProcessLoaderTests.network(profile)))
            #expect(error?.description == expected)
        }
    }
}
