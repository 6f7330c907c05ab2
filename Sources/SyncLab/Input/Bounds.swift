// Range checks for scenario values, with messages that say what was wrong and what is expected.
//
// Every number a scenario gives the simulator is bounded to a realistic range: a network delay
// of a week or a drift of 50% is a typo, not a design, and unbounded values reach integer
// nanosecond arithmetic that overflows after 292 years. The ranges themselves are in
// `ScenarioLoader` next to the keys they apply to; this file has the readers and messages.

import Foundation
import SyncLabKernel

extension InputNode {
    /// A duration within `range` (nanoseconds), e.g. a time-out between 1ms and 1d.
    ///
    /// The message names the bound and the value as written: `must be at most 1d; got "2d"`,
    /// or `must be greater than zero; got "0s"` when the lower bound is 1 ns.
    public func duration(in range: ClosedRange<Int64>) throws(InputError) -> Int64 {
        let nanoseconds = try duration()
        if nanoseconds < range.lowerBound {
            if range.lowerBound == 0 { throw error("must not be negative; got \(InputNode.describeScalar(value))") }
            if range.lowerBound == 1 { throw error("must be greater than zero; got \(InputNode.describeScalar(value))") }
            throw error("must be at least \(Units.formatDuration(range.lowerBound)); got \(InputNode.describeScalar(value))")
        }
        if nanoseconds > range.upperBound {
            throw error("must be at most \(Units.formatDuration(range.upperBound)); got \(InputNode.describeScalar(value))")
        }
        return nanoseconds
    }

    /// Checks one value of `quantity` (base units) read from this node against `bounds`.
    func check(_ amount: Double, _ quantity: Quantity, _ bounds: Bounds) throws(InputError) -> Double {
        if let least = bounds.least, amount < least {
            throw error("must be at least \(bounds.describe(least, quantity)); got \(InputNode.describeScalar(value))")
        }
        if let most = bounds.most, amount > most {
            throw error("must be at most \(bounds.describe(most, quantity)); got \(InputNode.describeScalar(value))")
        }
        return amount
    }
}

/// The allowed range of a distribution's location parameters (constant value, uniform min and
/// max, normal mean, lognormal median, exponential mean, Pareto scale, empirical samples), in
/// base units, and how far its most extreme draw may reach.
public struct Bounds: Sendable {
    public var least: Double?
    public var most: Double?
    /// Spread parameters (normal sd) may not exceed this; nil: `most`.
    public var spreadMost: Double?
    /// Every value the sampler can draw must lie in ±`extreme` (durations: 0…`extreme`).
    public var extreme: Double?
    /// Whether the mean must be finite (a Pareto shape above 1), for values used as averages.
    public var finiteMean = false
    /// The unit plain numbers are in, for messages ("ppm").
    public var numberUnit = ""

    public init(least: Double? = nil, most: Double? = nil, spreadMost: Double? = nil,
                extreme: Double? = nil, finiteMean: Bool = false, numberUnit: String = "") {
        self.least = least
        self.most = most
        self.spreadMost = spreadMost
        self.extreme = extreme
        self.finiteMean = finiteMean
        self.numberUnit = numberUnit
    }

    /// Durations between `least` and `most`, whose every draw stays under `extremeDuration`.
    public static func durations(_ least: Int64, _ most: Int64, finiteMean: Bool = false) -> Bounds {
        Bounds(least: Double(least), most: Double(most), extreme: extremeDuration, finiteMean: finiteMean)
    }

    /// The longest single draw of any duration distribution: 10000 days. The world adds a few
    /// draws to instants kept as Int64 nanoseconds (which overflow after 292 years), so a draw
    /// beyond this could wrap around; no realistic delay, session or gap comes near it.
    public static let extremeDuration = 10_000 * 86_400e9

    /// A value for messages, with `numberUnit` after plain numbers: "240200 ppm".
    func describe(_ amount: Double, _ quantity: Quantity) -> String {
        Bounds.describe(amount, quantity) + (quantity == .number && !numberUnit.isEmpty ? " " + numberUnit : "")
    }

    /// A value for messages: "1d", "250ms", "1 B/s", "0.5".
    static func describe(_ amount: Double, _ quantity: Quantity) -> String {
        switch quantity {
        case .duration:
            if amount.magnitude < 9e18, amount == amount.rounded() { return Units.formatDuration(Int64(amount)) }
            return approximateDuration(amount)
        case .rate: return approximateRate(amount)
        case .number: return number(amount)
        }
    }

    /// A duration in the largest fitting unit with 3 significant digits: "160s", "2.67h",
    /// "3.2e12 years".
    static func approximateDuration(_ ns: Double) -> String {
        let units: [(Double, String)] = [(1, "ns"), (1e3, "us"), (1e6, "ms"), (1e9, "s"), (60e9, "m"),
                                          (3600e9, "h"), (86_400e9, "d")]
        let magnitude = ns.magnitude
        if !magnitude.isFinite { return ns < 0 ? "minus infinity" : "infinity" }
        if magnitude >= 100_000 * 86_400e9 { return number(ns / (365.25 * 86_400e9)) + " years" }
        let (size, symbol) = units.last(where: { magnitude >= $0.0 }) ?? units[0]
        return number(ns / size) + symbol
    }

    static func approximateRate(_ bytesPerSecond: Double) -> String {
        let units: [(Double, String)] = [(1, "B/s"), (1e3, "kB/s"), (1e6, "MB/s"), (1e9, "GB/s"), (1e12, "TB/s")]
        let (size, symbol) = units.last(where: { bytesPerSecond.magnitude >= $0.0 }) ?? units[0]
        return number(bytesPerSecond / size) + " " + symbol
    }

    /// 3 significant digits, whole numbers from 1000 up, as people write them: "2.06",
    /// "240000", "0", "1.3e12", "1e-308". `rounding` lets a hint round toward the safe side
    /// ("at most" down, "at least" up).
    static func number(_ x: Double, rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> String {
        guard x.isFinite else { return x < 0 ? "minus infinity" : "infinity" }
        if x.magnitude >= 1e15 || (x != 0 && x.magnitude < 1e-4) { return scientific(x) }
        if x.magnitude >= 1000 || x == x.rounded() { return String(Int64(x.rounded(rounding))) }
        let scale = pow(10, 2 - floor(log10(x.magnitude)))
        let rounded = (x * scale).rounded(rounding) / scale
        return String(format: "%.3g", rounded)
    }

    /// `x` in 3 significant digits with a power of ten, without the C library's "+" and
    /// leading zeros: "1e308", "2.5e-7".
    static func scientific(_ x: Double) -> String {
        let text = String(format: "%.3g", x)
        guard let e = text.firstIndex(of: "e") else { return text }
        var exponent = text[text.index(after: e)...]
        var sign = ""
        if exponent.first == "-" { sign = "-" }
        if exponent.first == "+" || exponent.first == "-" { exponent = exponent.dropFirst() }
        let digits = exponent.drop { $0 == "0" }
        return text[..<e] + "e" + sign + (digits.isEmpty ? "0" : digits)
    }
}

extension Distribution {
    /// The largest |Z| the kernel's ziggurat can return: a tail deviate r − ln(U)/r with r ≈ 3.4426
    /// and −ln U ≤ 53 ln 2 (U has 53 random bits), so |Z| ≤ 3.4426 + 36.737/3.4426 ≈ 14.114.
    static let extremeNormalDeviate = 14.12
    /// The largest −ln U for the kernel's U in (0, 1] (53 random bits): 53 ln 2 ≈ 36.74.
    static let extremeNegativeLogUnit = 36.74

    /// The lower bound of the distribution's support, exact per kind: no draw is smaller (−∞
    /// for a normal; 0 for the lognormal shapes and the exponential, which come arbitrarily near
    /// it). Unlike `drawRange`, not tied to the generator's extremes.
    public var supportLowerBound: Double {
        switch self {
        case .constant(let v): return v
        case .uniform(let lo, _): return lo
        case .normal: return -.infinity
        case .lognormal, .exponential, .lognormalMixture: return 0
        case .pareto(let scale, _): return scale
        case .empirical(let samples): return samples.min() ?? 0
        case .geometric: return 1
        }
    }

    /// The smallest and largest values `sample` can return with the kernel's generator.
    ///
    /// Not quantiles: these are the draws at the generator's extremes, which a long run with
    /// millions of draws can actually reach. Infinite where the arithmetic overflows.
    public var drawRange: (lower: Double, upper: Double) {
        let z = Distribution.extremeNormalDeviate
        let e = Distribution.extremeNegativeLogUnit
        switch self {
        case .constant(let v): return (v, v)
        case .uniform(let lo, let hi): return (lo, hi)
        case .normal(let mean, let sd): return (mean - z * sd, mean + z * sd)
        case .lognormal(let median, let sigma):
            return (median * DeterministicMath.exp(-z * sigma), median * DeterministicMath.exp(z * sigma))
        case .exponential(let mean): return (0, mean * e)
        case .pareto(let scale, let shape): return (scale, scale * DeterministicMath.exp(e / shape))
        case .empirical(let samples): return (samples.min() ?? 0, samples.max() ?? 0)
        case .geometric(let mean):
            guard mean > 1 else { return (1, 1) }
            return (1, 1 + (e / -DeterministicMath.log1p(-1 / mean)).rounded(.down))
        case .lognormalMixture(let m):
            let body = Distribution.lognormal(median: m.bodyMedian, sigma: m.bodySigma).drawRange
            let tail = Distribution.lognormal(median: m.tailMedian, sigma: m.tailSigma).drawRange
            guard m.outageShare > 0 else { return (min(body.lower, tail.lower), max(body.upper, tail.upper)) }
            let outage = Distribution.lognormal(median: m.outageMedian, sigma: m.outageSigma).drawRange
            return (min(body.lower, tail.lower, outage.lower), max(body.upper, tail.upper, outage.upper))
        }
    }

    /// The distribution in words for messages: "lognormal(median 15ms, sigma 3)".
    func describe(_ quantity: Quantity, unit: String = "") -> String {
        func v(_ x: Double) -> String { Bounds.describe(x, quantity) + (quantity == .number && !unit.isEmpty ? " " + unit : "") }
        switch self {
        case .constant(let x): return "constant \(v(x))"
        case .uniform(let lo, let hi): return "uniform(\(v(lo)) to \(v(hi)))"
        case .normal(let mean, let sd): return "normal(mean \(v(mean)), sd \(v(sd)))"
        case .lognormal(let median, let sigma): return "lognormal(median \(v(median)), sigma \(Bounds.number(sigma)))"
        case .exponential(let mean): return "exponential(mean \(v(mean)))"
        case .pareto(let scale, let shape): return "pareto(scale \(v(scale)), shape \(Bounds.number(shape)))"
        case .empirical(let samples): return "empirical(\(samples.count) samples)"
        case .geometric(let mean): return "geometric(mean \(Bounds.number(mean)))"
        case .lognormalMixture(let m):
            return "lognormal-mixture(body median \(v(m.bodyMedian)), sigma \(Bounds.number(m.bodySigma)); "
                + "tail share \(Bounds.number(m.tailShare)), median \(v(m.tailMedian)), sigma \(Bounds.number(m.tailSigma))"
                + (m.outageShare > 0 ? "; outage share \(Bounds.number(m.outageShare)), median \(v(m.outageMedian)), sigma \(Bounds.number(m.outageSigma))" : "")
                + ")"
        }
    }

    /// The parameter change that brings the extreme draw within `limit`, for messages.
    func extremeHint(limit: Double, _ quantity: Quantity, unit: String = "") -> String {
        let z = Distribution.extremeNormalDeviate
        let e = Distribution.extremeNegativeLogUnit
        switch self {
        case .lognormal(let median, _) where limit > median:
            return "; use sigma at most \(Bounds.number(DeterministicMath.log(limit / median) / z, rounding: .down)) for this median"
        case .exponential:
            return "; use a mean of at most \(Bounds(numberUnit: unit).describe(limit / e, quantity))"
        case .pareto(let scale, _) where limit > scale:
            return "; use a shape of at least \(Bounds.number(e / DeterministicMath.log(limit / scale), rounding: .up)) for this scale"
        case .normal(let mean, _) where limit > mean.magnitude:
            return "; use an sd of at most \(Bounds(numberUnit: unit).describe((limit - mean.magnitude) / z, quantity))"
        default:
            return ""
        }
    }
}
