import Testing
import SyncLabKernel

/// A sampler is a faster way to the same draws: value for value, and the stream left where the
/// distribution leaves it.
@Suite struct SamplerTests {
    @Test(arguments: [
        Distribution.constant(3.5e6),
        .constant(0),
        .uniform(min: 360e9, max: 540e9),
        .uniform(min: 50e3, max: 2e6),
        .normal(mean: 5e6, sd: 2e6),
        .lognormal(median: 40e6, sigma: 0.5),
        .lognormal(median: 60e6, sigma: 1.5),
    ])
    func drawsWhatTheDistributionDraws(distribution: Distribution) {
        let sampler = Sampler(distribution)
        #expect(sampler.drawsInline)
        var a = RandomStream(seed: 7, purpose: StreamPurpose("sampler-test"))
        var b = a
        // 20,000 normals include about 240 slow-path draws of the ziggurat (1.2%), tails included.
        for _ in 0..<20_000 {
            var again = a
            let x = distribution.sample(&a), y = sampler.sample(&b)
            #expect(x.bitPattern == y.bitPattern)
            #expect(Distribution.duration(y) == distribution.sampleDuration(&again))
            #expect(a == b)
        }
    }

    @Test func rarerShapesAreLeftToTheDistribution() {
        for d in [Distribution.exponential(mean: 1), .pareto(scale: 1, shape: 2), .empirical([1, 2]), .geometric(mean: 3)] {
            #expect(!Sampler(d).drawsInline)
        }
    }

    /// A duration is the sample rounded half to even, zero for anything not positive, and
    /// capped at 9e18 ns.
    @Test func durations() {
        #expect(Distribution.duration(2.5) == 2)
        #expect(Distribution.duration(3.5) == 4)
        #expect(Distribution.duration(-1) == 0)
        #expect(Distribution.duration(.nan) == 0)
        #expect(Distribution.duration(1e19) == 9_000_000_000_000_000_000)
    }
}
