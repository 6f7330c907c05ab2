import SyncLabKernel

/// round(ln(ns) · 2²⁴) for a delay in whole nanoseconds, exactly as `DeterministicMath.log`
/// gives it, in a fraction of its time.
///
/// The audit takes the log of every audited uplink delay (the lag-1 correlation of log-delays,
/// issue 39): on R1 that is 19 million logs, 14% of a one-thread run, because the full log is a
/// chain of a division and ten dependent multiply-adds. Only the rounded, scaled value is kept,
/// so a short log is enough wherever it cannot round the other way: a 128-entry table of
/// ln(1 + j/128) and six terms of ln(1 + r) for |r| < 1/128 (the seventh term is below 2⁻⁵¹).
/// Its distance from the full log is under 10⁻¹³ (both are within a few ulp of the true value
/// at most 44, whose ulp is 7·10⁻¹⁵), so scaled by 2²⁴ under 1.7·10⁻⁶. When the scaled value
/// lies within `margin` = 2⁻¹² (over a hundred times that) of a half, the full log decides:
/// about one delay in 2,000. `ScaledLogTests` compares the two on every delay up to 2²⁰ ns and
/// on millions drawn up to 2⁶³.
enum ScaledLog {
    static let scale = 0x1p24
    /// In scaled units: the fast value is used only this far from a rounding boundary.
    static let margin = 0x1p-12
    static let ln2 = 0.693_147_180_559_945_309_417_232_121_458

    /// round(ln(ns) · 2²⁴) (halves away from zero); `.min` for ns ≤ 0, which has no log.
    @inline(__always)
    static func of(_ ns: Int64) -> Int64 {
        guard ns > 0 else { return .min }
        let y = fast(Double(ns)) * scale   // ≥ 0, below 2³⁰: its whole part is exact in an Int64
        // The conversion truncates (one instruction; `rounded(.towardZero)` calls libm's trunc).
        let whole = Int64(y)
        let fraction = y - Double(whole)   // exact
        if abs(fraction - 0.5) < margin { return exact(ns) }
        return whole + (fraction > 0.5 ? 1 : 0)
    }

    /// The definition: the full deterministic log, scaled and rounded.
    static func exact(_ ns: Int64) -> Int64 {
        ns > 0 ? Int64((DeterministicMath.log(Double(ns)) * scale).rounded()) : .min
    }

    /// ln x for a finite x ≥ 1: x = 2ᵉ · c · (1 + r), with c = 1 + j/128 from the top seven bits
    /// of x's significand, so m − c is exact and |r| < 1/128.
    @inline(__always)
    static func fast(_ x: Double) -> Double {
        let bits = x.bitPattern
        let e = Double(Int(bits >> 52) - 1023)
        let j = Int((bits >> 45) & 127)
        let m = Double(bitPattern: (bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000)   // in [1, 2)
        let c = 1 + Double(j) * 0x1p-7
        let r = (m - c) * table.reciprocals[j]
        // ln(1 + r) = r − r²/2 + r³/3 − r⁴/4 + r⁵/5 − r⁶/6, evaluated in pairs.
        let r2 = r * r
        let p = r - r2 * ((0.5 - r * (1.0 / 3)) + r2 * ((0.25 - r * 0.2) + r2 * (1.0 / 6)))
        return e * ln2 + (table.logs[j] + p)
    }

    /// ln(1 + j/128) by the full log, and 1/(1 + j/128), j = 0…127.
    private static let table: (logs: [Double], reciprocals: [Double]) = (
        (0..<128).map { DeterministicMath.log(1 + Double($0) * 0x1p-7) },
        (0..<128).map { 1 / (1 + Double($0) * 0x1p-7) }
    )
}
