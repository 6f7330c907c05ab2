/// A distribution's common shapes as plain data, drawn inline where the hot loop draws.
///
/// A `Distribution` may hold a latency trace, so reading one out of a table retains and releases
/// it, and its draw is a call and a switch over every case: together about a fifth of a draw. A
/// sampler holds only its shape and two numbers. It draws exactly what the distribution draws,
/// from the same stream, by the same arithmetic; the rarer shapes (`drawsInline` false) are left
/// to the distribution itself.
public struct Sampler: Sendable, Equatable {
    @usableFromInline enum Shape: UInt8, Sendable {
        case constant, uniform, normal, lognormal, other
    }

    @usableFromInline let shape: Shape
    /// constant: the value; uniform: min; normal: mean; lognormal: median.
    @usableFromInline let a: Double
    /// uniform: max − min; normal: sd; lognormal: sigma.
    @usableFromInline let b: Double

    public init(_ distribution: Distribution) {
        switch distribution {
        case .constant(let v): (shape, a, b) = (.constant, v, 0)
        case .uniform(let lo, let hi): (shape, a, b) = (.uniform, lo, hi - lo)
        case .normal(let mean, let sd): (shape, a, b) = (.normal, mean, sd)
        case .lognormal(let median, let sigma): (shape, a, b) = (.lognormal, median, sigma)
        case .exponential, .pareto, .empirical, .geometric: (shape, a, b) = (.other, 0, 0)
        }
    }

    /// Whether `sample` may be called; otherwise draw from the distribution.
    @inlinable public var drawsInline: Bool { shape != .other }

    /// The distribution's sample (only when `drawsInline`).
    @inlinable @inline(__always)
    public func sample(_ rng: inout RandomStream) -> Double {
        switch shape {
        case .constant: return a
        case .uniform: return a + b * rng.unit()
        case .normal: return a + b * Distribution.standardNormal(&rng)
        case .lognormal: return a * DeterministicMath.exp(b * Distribution.standardNormal(&rng))
        case .other: preconditionFailure("drawn by the distribution")
        }
    }
}
