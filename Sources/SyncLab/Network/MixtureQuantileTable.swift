import Foundation
import SyncLabKernel

/// A lognormal mixture's quantile as a function of a standard-normal z, Q(Φ(z)), tabulated once
/// per link direction and read by linear interpolation in log-delay.
///
/// `AR1Delays` turns its standard-normal state x into a delay through the mixture's quantile at
/// Φ(x) (a Gaussian copula). The exact inverse is a root search over the mixture's CDF, each step
/// a pair of erfc evaluations: it tripled the cost of runs on cellular links. The table holds
/// g(z) = ln Q(Φ(z)) at 8,193 evenly spaced z from −8.5 to 8.5 (step h = 17/8192), computed with
/// that same exact inverse, and a draw reads it with one multiplication, one interpolation and
/// one `exp`. g is smooth and increasing, straight with slope σ wherever one component dominates
/// (for a single lognormal it is ln m + σz and the interpolation is exact), curved only where
/// the body hands over to the tail; linear interpolation misses g by at most h²/8·max|g″|
/// (about 5.4e-7·max|g″|). The bend is sharpest at Φ(z) = 1 − tail share (z ≈ 2.06 on the
/// presets), where the worst error is 1.4e-4 in ln-delay, a relative 0.014%;
/// `MixtureQuantileTableTests` checks every grid point and midpoint of the presets' tables
/// against the exact inverse. Outside the grid (|z| > 8.5, about one draw in 10¹⁷) the
/// exact inverse answers.
///
/// The table is a function of the mixture alone: built from the same arithmetic everywhere, it
/// is identical on every machine and thread, and a copy is shared by every player of a link.
public struct MixtureQuantileTable: Sendable {
    public let mixture: LognormalMixture
    /// g at z = lowest + k·step, k = 0…intervals.
    let logQuantiles: [Double]

    public static let lowest = -8.5
    public static let highest = 8.5
    public static let intervals = 8192
    /// 17/8192 = 17·2⁻¹³, exact in binary, so every grid z is exact too.
    public static let step = (highest - lowest) / Double(intervals)
    static let inverseStep = Double(intervals) / (highest - lowest)

    public init(_ mixture: LognormalMixture) {
        self.mixture = mixture
        // Each grid point is its own root search, so the points are shared out over the cores
        // in blocks: the same bits in the same places, in half the time on two cores. (A run
        // builds the tables it does not find shipped before it starts, about 0.15 s of CPU
        // each, whatever its number of threads.)
        logQuantiles = concurrentMap(Self.intervals + 1, blocks: 16) { k in
            DeterministicMath.log(Self.exactQuantile(mixture, at: Self.gridPoint(k)))
        }
    }

    /// A table of values already worked out for `mixture` (`ShippedQuantileTables`).
    init(_ mixture: LognormalMixture, logQuantiles: [Double]) {
        precondition(logQuantiles.count == Self.intervals + 1, "a quantile table has one value per grid point")
        self.mixture = mixture
        self.logQuantiles = logQuantiles
    }

    /// The table for a direction's law `d` (nil unless a lognormal mixture): `current` when it is
    /// already that mixture's, else the shared one. What a delay process prepared for a link keeps.
    static func table(for d: Distribution, keeping current: MixtureQuantileTable?) -> MixtureQuantileTable? {
        guard case .lognormalMixture(let mixture) = d else { return nil }
        return current?.mixture == mixture ? current : shared(mixture)
    }

    /// `mixture`'s table: the shipped one for a correlated preset's law (`ShippedQuantileTables`),
    /// else built at most once per process while it stays in the cache. A table costs about
    /// 0.15 s of CPU to build, and every load of a scenario asks for its links' tables (the test
    /// suite loads the same presets hundreds of times). The table is a function of the mixture,
    /// so a shipped or cached copy holds the same bits as a new one.
    public static func shared(_ mixture: LognormalMixture) -> MixtureQuantileTable {
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let table = cache.tables[mixture] { return table }
        if let shipped = ShippedQuantileTables.logQuantiles(for: mixture) {
            let table = MixtureQuantileTable(mixture, logQuantiles: shipped)
            cache.tables[mixture] = table
            return table
        }
        // Bounded: a sweep over link parameters meets a new mixture per variant (64 KiB each).
        if cache.tables.count >= Cache.capacity { cache.tables.removeAll() }
        let table = MixtureQuantileTable(mixture)
        cache.tables[mixture] = table
        return table
    }

    private final class Cache: @unchecked Sendable {
        static let capacity = 64
        let lock = NSLock()
        var tables: [LognormalMixture: MixtureQuantileTable] = [:]   // guarded by lock
    }
    private static let cache = Cache()

    /// The k-th grid z.
    public static func gridPoint(_ k: Int) -> Double { lowest + Double(k) * step }

    /// Q(Φ(z)) by root finding. Above 0 the upper form, so a far-tail z does not round Φ(z) to 1.
    public static func exactQuantile(_ mixture: LognormalMixture, at z: Double) -> Double {
        z <= 0 ? mixture.quantile(NormalLaw.cdf(z)) : mixture.upperQuantile(NormalLaw.cdf(-z))
    }

    /// Q(Φ(z)) from the table: linear in ln Q between the two grid points around z.
    @inline(__always)
    public func quantile(at z: Double) -> Double {
        let u = (z - Self.lowest) * Self.inverseStep
        // Also false for a NaN z, which the exact inverse then answers as it always did.
        guard u >= 0 && u < Double(Self.intervals) else { return Self.exactQuantile(mixture, at: z) }
        let k = Int(u)
        let below = logQuantiles[k], above = logQuantiles[k + 1]
        return DeterministicMath.exp(below + (u - Double(k)) * (above - below))
    }
}

/// Two tables are equal when their mixtures are: the table is a function of the mixture.
extension MixtureQuantileTable: Equatable {
    public static func == (a: Self, b: Self) -> Bool { a.mixture == b.mixture }
}
