/// The distributions a scenario can draw from, sampled with our own code so every machine
/// draws the same values (see `DeterministicMath`).
///
/// Values are in the base unit of whatever the distribution describes: nanoseconds for delays,
/// bytes per second for bandwidth, parts per million for drift. Each sample consumes a fixed
/// number of draws from the stream (constant: none; normal and lognormal: a rejection loop, one
/// draw per try and two per tail try; a lognormal mixture: one more to pick its component; the
/// others: one), so the same seed always draws the same values.
public enum Distribution: Sendable, Equatable {
    case constant(Double)
    /// Uniform on [min, max).
    case uniform(min: Double, max: Double)
    /// Gaussian (the ziggurat method).
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
    /// A lognormal body with a slower lognormal tail (`LognormalMixture`). Held inline, not
    /// `indirect`: a second reference-counted case made the world's display step retain and
    /// release on every tick (3% more instructions on the reference fleet, which draws none).
    case lognormalMixture(LognormalMixture)

    @inlinable public func sample(_ rng: inout RandomStream) -> Double {
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
        case .lognormalMixture(let mixture):
            return mixture.sample(&rng)
        }
    }

    /// A sample rounded to whole nanoseconds and clamped at zero: the form every delay takes.
    @inlinable public func sampleDuration(_ rng: inout RandomStream) -> Nanoseconds {
        Distribution.duration(sample(&rng))
    }

    /// A sample `v` as a duration: rounded to whole nanoseconds, clamped at zero.
    @inlinable @inline(__always)
    public static func duration(_ v: Double) -> Nanoseconds {
        if !(v > 0) { return 0 }
        if v >= 9.0e18 { return 9_000_000_000_000_000_000 }
        // Below 2^52, adding 2^52 rounds to the nearest integer, ties to even, exactly as
        // `rounded(.toNearestOrEven)` does (on the baseline x86-64 target a call into the C
        // library, two per request); from 2^52 up every double is already whole.
        if v < 0x1p52 { return wholeBelow2to52(v) }
        return Int64(v)
    }

    /// v in [0, 2^52) rounded to the nearest integer, ties to even. The sum v + 2^52 lies in
    /// [2^52, 2^53], where doubles are the integers: its bits less 2^52's are the integer (a
    /// round up to 2^53 carries into the exponent, which the subtraction keeps), with none of
    /// a conversion's range checks.
    @inlinable @inline(__always)
    public static func wholeBelow2to52(_ v: Double) -> Int64 {
        Int64(bitPattern: (v + 0x1p52).bitPattern &- (0x1p52 as Double).bitPattern)
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
        case .lognormalMixture(let mixture): return mixture.mean
        }
    }

    /// A standard normal deviate by the ziggurat method (Marsaglia & Tsang, "The ziggurat method
    /// for generating random variables", JSS 5(8), 2000), in the 128-layer form of Doornik's
    /// ZIGNOR (2005), which draws the layer and the abscissa independently. About 98.8% of
    /// deviates take one draw and one multiplication; the rest reject or fall in the base layer's
    /// tail (Marsaglia's tail method). It replaced the polar method, whose logarithm and square
    /// root per deviate were a tenth of a network-heavy run.
    @inlinable static func standardNormal(_ rng: inout RandomStream) -> Double {
        standardNormal(&rng, layers: NormalZiggurat.shared.layerTable)
    }

    /// The same with the ziggurat's layers at hand (`NormalZiggurat.layerTable`), as a sampler
    /// keeps them: no lazy-global check per deviate.
    @inlinable @inline(__always)
    static func standardNormal(_ rng: inout RandomStream, layers: UnsafePointer<NormalZiggurat.Layer>) -> Double {
        while true {
            let bits = rng.next()
            // The layer from the low 7 bits, u in [−1, 1) from the high 53: independent bits.
            let i = Int(truncatingIfNeeded: bits & 0x7F)
            let u = 2 * (Double(bits >> 11) * 0x1.0p-53) - 1
            let layer = layers[i]
            if u.magnitude < layer.ratio { return u * layer.x }
            if let x = NormalZiggurat.shared.edge(layer: i, u: u, &rng) { return x }
        }
    }
}

/// The ziggurat's layers for the standard normal density, computed once from `DeterministicMath`
/// and IEEE square roots, so every machine builds the same table.
@usableFromInline struct NormalZiggurat: @unchecked Sendable {
    static let layers = 128
    /// The base layer's right edge, and the common area of the layers (Doornik's constants).
    static let r = 3.442_619_855_899
    static let area = 9.912_563_035_262_17e-3

    /// Layer edges x[0] > x[1] = r > … > x[128] = 0 (x[0] is the base layer's equivalent width).
    @usableFromInline let x: [Double]

    @usableFromInline static let shared = NormalZiggurat()

    /// Layer i's sure part: x[i], and x[i+1] / x[i] (below it, a point of layer i is under the
    /// density for certain), side by side.
    @usableFromInline struct Layer {
        @usableFromInline let x: Double
        @usableFromInline let ratio: Double
    }

    /// The layers as one block that lives as long as the process (the shared table is built
    /// once and never freed), so a sampler can keep a plain pointer to it.
    @usableFromInline let layerTable: UnsafePointer<Layer>

    init() {
        let n = NormalZiggurat.layers, r = NormalZiggurat.r, v = NormalZiggurat.area
        var x = [Double](repeating: 0, count: n + 1)
        var f = DeterministicMath.exp(-0.5 * r * r)
        x[0] = v / f
        x[1] = r
        for i in 2..<n {
            x[i] = (-2 * DeterministicMath.log(v / x[i - 1] + f)).squareRoot()
            f = DeterministicMath.exp(-0.5 * x[i] * x[i])
        }
        self.x = x
        let table = UnsafeMutablePointer<Layer>.allocate(capacity: n)
        for i in 0..<n { (table + i).initialize(to: Layer(x: x[i], ratio: x[i + 1] / x[i])) }
        layerTable = UnsafePointer(table)
    }

    /// The slow path for a point (layer i, u) outside the layer's sure part: a deviate from the
    /// tail beyond r (layer 0), the point itself if it lies under the density, or nil to retry.
    @usableFromInline func edge(layer i: Int, u: Double, _ rng: inout RandomStream) -> Double? {
        let r = NormalZiggurat.r
        if i == 0 {
            // Marsaglia (1964): x = −ln(U₁)/r, accepted when −2 ln U₂ ≥ x².
            while true {
                let a = DeterministicMath.log(rng.unitOpenBelow()) / r
                let b = DeterministicMath.log(rng.unitOpenBelow())
                if -2 * b >= a * a { return u < 0 ? a - r : r - a }
            }
        }
        let p = u * x[i]
        // The layer spans heights f(x[i])…f(x[i+1]); in units of f(p), accept a uniform height below 1.
        let bottom = DeterministicMath.exp(-0.5 * (x[i] * x[i] - p * p))
        let top = DeterministicMath.exp(-0.5 * (x[i + 1] * x[i + 1] - p * p))
        return top + rng.unit() * (bottom - top) < 1 ? p : nil
    }
}
