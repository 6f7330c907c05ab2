/// A distribution's common shapes as plain data, drawn inline where the hot loop draws.
///
/// A `Distribution` may hold a latency trace, so reading one out of a table retains and releases
/// it, and its draw is a call and a switch over every case (in the reference fleet's callgrind
/// profile, about a third of a lognormal delay's instructions). A sampler holds only its shape,
/// two numbers and a pointer to the normal ziggurat's layers (so a normal deviate skips the lazy
/// global's check). It draws exactly what the distribution draws, from the same stream, by the
/// same arithmetic; the rarer shapes (`drawsInline` false) are left to the distribution itself.
/// (Sendable: the layers are read-only and never freed.)
public struct Sampler: @unchecked Sendable, Equatable {
    @usableFromInline enum Shape: UInt8, Sendable {
        case constant, uniform, normal, lognormal, other
    }

    @usableFromInline let shape: Shape
    /// constant: the value; uniform: min; normal: mean; lognormal: median.
    @usableFromInline let a: Double
    /// uniform: max − min; normal: sd; lognormal: sigma.
    @usableFromInline let b: Double
    /// The normal deviates' ziggurat (read-only, alive for the whole process).
    @usableFromInline let layers: UnsafePointer<NormalZiggurat.Layer>

    public init(_ distribution: Distribution) {
        layers = NormalZiggurat.shared.layerTable
        switch distribution {
        case .constant(let v): (shape, a, b) = (.constant, v, 0)
        case .uniform(let lo, let hi): (shape, a, b) = (.uniform, lo, hi - lo)
        case .normal(let mean, let sd): (shape, a, b) = (.normal, mean, sd)
        case .lognormal(let median, let sigma): (shape, a, b) = (.lognormal, median, sigma)
        case .exponential, .pareto, .empirical, .geometric, .lognormalMixture: (shape, a, b) = (.other, 0, 0)
        }
    }

    /// A sampler that never draws inline: its owner draws some other way (a link whose delays
    /// follow a process), at no cost to the inline path's test.
    public static func outOfLine() -> Sampler { Sampler(.empirical([])) }

    /// Whether `sample` may be called; otherwise draw from the distribution.
    @inlinable public var drawsInline: Bool { shape != .other }

    /// The distribution's sample (only when `drawsInline`).
    @inlinable @inline(__always)
    public func sample(_ rng: inout RandomStream) -> Double {
        switch shape {
        case .constant: return a
        case .uniform: return a + b * rng.unit()
        case .normal: return a + b * Distribution.standardNormal(&rng, layers: layers)
        case .lognormal: return a * DeterministicMath.exp(b * Distribution.standardNormal(&rng, layers: layers))
        case .other: preconditionFailure("drawn by the distribution")
        }
    }
}
