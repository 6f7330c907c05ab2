/// The bins a change's show instants are counted in, once a change has more viewers than are
/// worth keeping one by one (`ShowSummaries`).
///
/// A show offset x (ns after the change's true instant; negative = early) falls in a bin 1 ms
/// wide while |x| < 1 s, and beyond that in one of 512 equal parts of its binary octave
/// (a bin at most 1/512 of its value wide). Reported at a bin's midpoint, a value is then
/// within 0.5 ms below 1 s and within 0.098% above: inside the "1 ms or 0.1%, whichever is
/// larger" that the gap figures promise. (Finer parts would cost memory: a design whose
/// players drift minutes apart spreads each change over a dozen octaves.) Bins are half-open and their edges lie on whole
/// milliseconds inside ±1 s, so the window centred on the true instant, [−250 ms, +250 ms),
/// is a whole number of bins and counted exactly.
///
/// Bin indices run in value order over `0..<count`: the negative side mirrored below
/// `perSide`, the positive side from it. Every Int64 has a bin, so no offset can trap.
public enum ShowBins {
    /// A change's offsets are kept one by one, and its figures are exact, up to this many viewers.
    public static let exactViewers = 4_096
    /// 1 ms bins on each side of zero, covering |x| < 1 s.
    static let coreBins = 1_000
    static let coreWidth: UInt64 = 1_000_000
    static let coreEnd: UInt64 = 1_000_000_000
    /// Parts per octave beyond the core, and the octave 1 s falls in (2^29 ns ≈ 0.54 s).
    static let subBits = 9
    static let firstOctave = 29
    /// Bins on each side: the core, then octaves 29...62 of 512 each (a magnitude is at most
    /// Int64.max, in octave 62).
    public static let perSide = coreBins + (63 - firstOctave) << subBits
    public static let count = 2 * perSide

    /// The bin of offset `x`.
    @inline(__always) public static func index(_ x: Int64) -> Int {
        // ~x = −x − 1 maps the negative side onto 0... without overflow at Int64.min.
        x >= 0 ? perSide + magnitudeIndex(UInt64(x)) : perSide - 1 - magnitudeIndex(UInt64(~x))
    }

    @inline(__always) static func magnitudeIndex(_ m: UInt64) -> Int {
        if m < coreEnd { return Int(m / coreWidth) }
        let octave = 63 - m.leadingZeroBitCount
        let part = Int((m >> UInt64(octave - subBits)) & UInt64((1 << subBits) - 1))
        return coreBins + (octave - firstOctave) << subBits + part
    }

    /// [lower, upper) of magnitudes in magnitude bin `k` (as Double: the top bin's upper edge,
    /// 2^63, is not an Int64).
    static func magnitudeBounds(_ k: Int) -> (lower: Double, upper: Double) {
        if k < coreBins { return (Double(k) * 1e6, Double(k + 1) * 1e6) }
        let octave = (k - coreBins) >> subBits + firstOctave
        let part = (k - coreBins) & ((1 << subBits) - 1)
        let width = Double(UInt64(1) << UInt64(octave - subBits))
        let lower = Double((1 << subBits) + part) * width
        return (max(lower, Double(coreEnd)), lower + width)
    }

    /// [lower, upper) of the offsets in bin `i`, in ns.
    public static func bounds(_ i: Int) -> (lower: Double, upper: Double) {
        if i >= perSide { return magnitudeBounds(i - perSide) }
        // Magnitudes m in [a, b) are the offsets x = −m − 1, that is [−b, −a).
        let (a, b) = magnitudeBounds(perSide - 1 - i)
        return (-b, -a)
    }
}
