import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The `outage-nugget` family of the telemetry fit: a synthetic three-part sample fitted back by
/// the three-part EM, a two-part one left with two parts by the information criterion, and
/// (w, τ) recovered from telemetry drawn through `NuggetAR1Delays` end to end.
@Suite struct OutageNuggetFitTests {
    /// N = 400,000 round trips drawn from a three-part mixture (body 50 ms σ 0.3; a 6% shoulder
    /// at 150 ms σ 0.4; a 1.5% outage at 1.5 s σ 0.6), counted in the fit's bins. Maximum
    /// likelihood gives each figure back within a few of its standard errors; the tolerances are
    /// about five of them at this N (a share q: √(q(1 − q)/N) ≈ 2·10⁻⁴ for the outage, a log median
    /// σ/√(Nq) ≈ 0.008 for it; the shoulder overlaps the body and is looser by the overlap).
    @Test func threePartSampleFittedBack() throws {
        let truth = NuggetAR1DelaysTests.threeParts
        var rng = RandomStream(seed: 11, purpose: StreamPurpose("three-part-em"))
        var bins = [Double](repeating: 0, count: LogBins.count)
        for _ in 0..<400_000 { bins[LogBins.bin(truth.sample(&rng))] += 1 }
        let m = try #require(RoundTripMixture.fitWithOutage(bins))
        #expect(abs(m.outageShare - 0.015) < 0.0015, "outage share \(m.outageShare)")
        #expect(abs(Foundation.log(m.outageMedian / 1.5e9)) < 0.04, "outage median \(m.outageMedian / 1e6) ms")
        #expect(abs(m.outageSigma - 0.6) < 0.03, "outage σ \(m.outageSigma)")
        #expect(abs(m.tailShare - 0.06) < 0.012, "tail share \(m.tailShare)")
        #expect(abs(Foundation.log(m.tailMedian / 150e6)) < 0.05, "tail median \(m.tailMedian / 1e6) ms")
        #expect(abs(m.tailSigma - 0.4) < 0.04, "tail σ \(m.tailSigma)")
        #expect(abs(Foundation.log(m.bodyMedian / 50e6)) < 0.01, "body median \(m.bodyMedian / 1e6) ms")
        #expect(abs(m.bodySigma - 0.3) < 0.02, "body σ \(m.bodySigma)")
        // The two-part fit gives the outage's share to the tail and misses the far quantile.
        let two = try #require(RoundTripMixture.fit(bins))
        #expect(abs(m.law.quantile(0.995) / truth.quantile(0.995) - 1) < 0.05)
        #expect(abs(two.law.quantile(0.995) / truth.quantile(0.995) - 1) > 0.1)
    }

    /// Two-part data (the LTE preset's round-trip law by its own mixture, 400,000 draws) are not
    /// given an outage: the criterion's 3·ln N = 39 is far above what a third part gains on them.
    @Test func twoPartSampleKeepsTwoParts() throws {
        let two = LognormalMixture(bodyMedian: 50e6, bodySigma: 0.3, tailShare: 0.03, tailMedian: 250e6, tailSigma: 0.8)
        var rng = RandomStream(seed: 12, purpose: StreamPurpose("three-part-em"))
        var bins = [Double](repeating: 0, count: LogBins.count)
        for _ in 0..<400_000 { bins[LogBins.bin(two.sample(&rng))] += 1 }
        let m = try #require(RoundTripMixture.fitWithOutage(bins))
        #expect(m.outageShare == 0)
        #expect(m == RoundTripMixture.fit(bins))
    }

    /// Telemetry of 1,500 devices (six sessions of five exchanges at gaps from 0.1 s to 60 s)
    /// drawn through an AR(1) with a nugget (w = 0.4, τ = 20 s) on a link whose directions are a
    /// three-part mixture: the fit gives w within 0.08 and τ within a factor 1.6, both 95%
    /// intervals cover the truth, the link's outage is found, and fitted.json's profile carries
    /// the kind with what was fitted.
    @Test func nuggetRecoveredFromSyntheticTelemetry() throws {
        var link = try #require(LinkPresets.named("lte"))
        let part = NuggetAR1DelaysTests.threeParts
        func scaled(_ s: Double) -> LognormalMixture {
            LognormalMixture(bodyMedian: s * part.bodyMedian, bodySigma: part.bodySigma, tailShare: part.tailShare,
                             tailMedian: s * part.tailMedian, tailSigma: part.tailSigma, outageShare: part.outageShare / 2,
                             outageMedian: s * part.outageMedian, outageSigma: part.outageSigma)
        }
        link.uplink = .lognormalMixture(scaled(0.55))
        link.downlink = .lognormalMixture(scaled(0.45))
        link.correlation = NuggetAR1Delays(tau: 20 * .second, weight: 0.4)
        link.failure = 0
        let table = SyntheticTelemetry.table([(link, 1_500)], sessions: 6, sampling: .spaced, seed: 3)
        var options = TelemetryFit.Options()
        options.family = .outageNugget
        options.resamples = 100
        let fit = TelemetryFit.fit(table, options: options)
        let result = try #require(fit.links.first)
        let w = try #require(result.correlatedShare), tau = try #require(result.timeConstant)
        #expect(abs(w - 0.4) < 0.08, "w \(w)")
        #expect(Double(tau) / 20e9 > 1 / 1.6 && Double(tau) / 20e9 < 1.6, "τ \(Double(tau) / 1e9) s")
        for (name, value) in [("correlated share w", 0.4), ("time constant τ", 20.0)] {
            let p = try #require(result.parameters.first { $0.name == name })
            #expect(p.low <= value && value <= p.high, "\(name): \(p.low) – \(p.high)")
        }
        #expect(result.roundTrip.outageShare > 0)
        let process = try #require(result.profile.correlation as? NuggetAR1Delays)
        #expect(process.weight == w && process.tau == tau)
    }
}
