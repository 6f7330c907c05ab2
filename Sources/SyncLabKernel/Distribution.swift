/// The distributions a scenario can draw from, sampled with our own code so every machine
/// draws the same values (see `DeterministicMath`).
///
/// Values are in the base unit of whatever the distribution describes: nanoseconds for delays,
/// bytes per second for bandwidth, parts per million for drift. Each sample consumes a fixed
/// number of draws from the stream (constant: none; normal and lognormal: a rejection loop of two
/// per try; the others: one), so the same seed always draws the same values.
public enum Distribution: Sendable, Equatable {
    case constant(Double)
    /// Uniform on [min, max).
    case uniform(min: Double, max: Double)
    /// Gaussian (Marsaglia's polar method).
    case normal(mean: Double, sd: Double)
    /// exp(N(ln median, sigma²)): the usual model of network delay, with a right tail.
    case lognormal(median: Double, sigma: Double)
    case exponential(mean: Double)
    /// Pareto type I: heavy-tailed, P(X > x) = (scale/x)^shape for x ≥ scale.
    case pareto(scale: Double, shape: Double)
    /// Drawn uniformly from recorded samples (a latency trace).
    case empirical([Double])
    /// Trials up to and including the first success, on {1, 2, …}, with the given mean (≥ 1).
    case geometric(mean: Double)

    public func sample(_ rng: inout RandomStream) -> Double {
        switch self {
        case .constant(let v):
            return v
        case .uniform(let lo, let hi):
            return lo + (hi - lo) * rng.unit()
        case .normal(let mean, let sd):
            return mean + sd * Distribution.standardNormal(&rng)
        case .lognormal(let median, let sigma):
            return median * DeterministicMath.exp(sigma * Distribution.standardNormal(&rng))
        case .exponential(let mean):
            return -mean * DeterministicMath.log(rng.unitOpenBelow())
        case .pareto(let scale, let shape):
            return scale * DeterministicMath.exp(-DeterministicMath.log(rng.unitOpenBelow()) / shape)
        case .empirical(let samples):
            return samples[Int(rng.below(UInt64(samples.count)))]
        case .geometric(let mean):
            // Inversion: 1 + ⌊ln U / ln(1 − p)⌋ with p = 1/mean.
            guard mean > 1 else { return 1 }
            let q = DeterministicMath.log1p(-1 / mean)
            return 1 + (DeterministicMath.log(rng.unitOpenBelow()) / q).rounded(.down)
        }
    }

    /// A sample rounded to whole nanoseconds and clamped at zero: the form every delay takes.
    @inlinable public func sampleDuration(_ rng: inout RandomStream) -> Nanoseconds {
        let v = sample(&rng)
        if !(v > 0) { return 0 }
        if v >= 9.0e18 { return 9_000_000_000_000_000_000 }
        return Int64(v.rounded(.toNearestOrEven))
    }

    /// The distribution's mean (infinite for Pareto with shape ≤ 1).
    public var mean: Double {
        switch self {
        case .constant(let v): return v
        case .uniform(let lo, let hi): return (lo + hi) / 2
        case .normal(let mean, _): return mean
        case .lognormal(let median, let sigma): return median * DeterministicMath.exp(sigma * sigma / 2)
        case .exponential(let mean): return mean
        case .pareto(let scale, let shape): return shape > 1 ? scale * shape / (shape - 1) : .infinity
        case .empirical(let s): return s.reduce(0, +) / Double(s.count)
        case .geometric(let mean): return max(mean, 1)
        }
    }

    /// A standard normal deviate by Marsaglia's polar method (one of the pair is used).
    static func standardNormal(_ rng: inout RandomStream) -> Double {
        while true {
            let u = 2 * rng.unit() - 1
            let v = 2 * rng.unit() - 1
            let s = u * u + v * v
            if s > 0 && s < 1 {
                return u * (-2 * DeterministicMath.log(s) / s).squareRoot()
            }
        }
    }
}
