/// `log` and `exp` from IEEE-754 basic operations only.
///
/// Platform math libraries (glibc, Apple's libm) may differ in the last bit, and a one-ulp
/// difference in a drawn delay can flip a whole-second truncation and change a report. These
/// use only +, −, ×, ÷ and exact scaling by powers of two, which IEEE-754 defines exactly, so
/// every machine gets the same bits. Accuracy is within a few ulp of the true value (tested
/// against Foundation), which is far below anything the lab measures.
public enum DeterministicMath {
    static let ln2Hi = 6.931_471_803_691_238_164_90e-01   // high bits of ln 2, exact product with small ints
    static let ln2Lo = 1.908_214_929_270_587_700_02e-10
    static let ln2 = 0.693_147_180_559_945_309_417_232_121_458

    /// Natural logarithm for x > 0. Returns -infinity for 0 and NaN for negative input.
    public static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x.isInfinite { return x }
        // x = m · 2^e with m in [√½, √2): log x = e·ln2 + log m.
        var (e, m) = binade(x)   // m in [1, 2)
        if m > 1.414_213_562_373_095_048_8 { m *= 0.5; e += 1 }
        // log m = 2·atanh(f) = 2f·(1 + f²/3 + f⁴/5 + …), f = (m−1)/(m+1), |f| ≤ 0.1716: the
        // terms after f²⁰/21 are below 2⁻⁶⁰ of the sum. Horner form, reciprocals as constants.
        // The coefficients are written out: read from a global array they cost a lazy-global
        // check and ten bounds checks per call, and the audit takes the log of every delay.
        let f = (m - 1) / (m + 1)
        let f2 = f * f
        var s = 1.0 / 21
        s = s * f2 + 1.0 / 19
        s = s * f2 + 1.0 / 17
        s = s * f2 + 1.0 / 15
        s = s * f2 + 1.0 / 13
        s = s * f2 + 1.0 / 11
        s = s * f2 + 1.0 / 9
        s = s * f2 + 1.0 / 7
        s = s * f2 + 1.0 / 5
        s = s * f2 + 1.0 / 3
        let twoF = 2 * f
        let ed = Double(e)
        return ed * ln2Hi + (twoF * (f2 * s) + ed * ln2Lo + twoF)
    }

    /// x's exponent and significand (x = m · 2^e, m in [1, 2)) for a finite x > 0: the same as
    /// `x.exponent` and `x.significand`, which are calls into the library (a third of a log's
    /// instructions); a normal x's are read from its bits, a subnormal x takes the getters.
    @inline(__always)
    static func binade(_ x: Double) -> (exponent: Int, significand: Double) {
        let bits = x.bitPattern
        let biased = Int(truncatingIfNeeded: bits >> 52)   // x > 0: no sign bit
        guard biased != 0 else { return (Int(x.exponent), Double(sign: .plus, exponent: 0, significand: x.significand)) }
        return (biased &- 1023, Double(bitPattern: bits & 0x000F_FFFF_FFFF_FFFF | 0x3FF0_0000_0000_0000))
    }

    /// ln(1 + x) for x > −1, accurate also when |x| is tiny (where 1 + x would round away x).
    public static func log1p(_ x: Double) -> Double {
        if abs(x) < 1e-4 {
            // Alternating series; the x⁵ term is below 1e-20 relative here.
            let x2 = x * x
            return x - x2 / 2 + x2 * x / 3 - x2 * x2 / 4
        }
        return log(1 + x)
    }

    /// e^x. Overflows to +infinity above ~709.78 and underflows to 0 below ~-745.
    /// (A call straight to `deterministicExp`: as a static function the optimizer gave it a
    /// forwarding entry, one more jump per draw.)
    @inlinable @inline(__always)
    public static func exp(_ x: Double) -> Double { deterministicExp(x) }

    static let sixtyFourOverLn2 = 0x1.71547652b82fep+6
    static let roundingShifter = 0x1.8p52
    static let ln2Hi64 = ln2Hi / 64   // exact: a power-of-two scaling
    static let ln2Lo64 = ln2Lo / 64

    /// 2^(j/64) for j = 0…63, correctly rounded (from 60-digit decimal arithmetic).
    static let twoToTheJOver64: [Double] = [
        0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
        0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
        0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
        0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
        0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
        0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
        0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
        0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
        0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
        0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
        0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
        0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
        0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
        0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
        0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
        0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0,
    ]

    /// y · 2^k, exact unless the result is subnormal or overflows.
    @inline(__always)
    static func scale(_ y: Double, _ k: Int) -> Double {
        // 2^k for a normal exponent straight from its bits (every exp of a delay takes this way).
        if k >= -1022 && k <= 1023 { return y * Double(bitPattern: UInt64(k &+ 1023) &<< 52) }
        var y = y
        var k = k
        while k > 1000 { y *= 0x1.0p1000; k -= 1000 }
        while k < -1000 { y *= 0x1.0p-1000; k += 1000 }
        return y * Double(sign: .plus, exponent: k, significand: 1)
    }
}

/// The body of `DeterministicMath.exp`, a free function so that its callers reach it directly.
@usableFromInline func deterministicExp(_ x: Double) -> Double {
    if x.isNaN { return x }
    if x > 709.782_712_893_384 { return .infinity }
    if x < -745.133_219_101_941_1 { return 0 }
    // x = (64m + j)·ln2/64 + r with |r| ≤ ln2/128: e^x = 2^m · 2^(j/64) · e^r. The table holds
    // 2^(j/64) correctly rounded; ln2/64 is split so that k·hi is exact for every k here.
    // Rounded to the nearest integer, ties to even, by adding and removing 1.5·2^52 (exact for
    // |x·64/ln2| < 2^51, here below 70,000): the same as `rounded(.toNearestOrEven)`, which
    // is a call into the C library on the baseline x86-64 target. The integer is in the low
    // bits of the shifted sum.
    let shifted = x * DeterministicMath.sixtyFourOverLn2 + DeterministicMath.roundingShifter
    let kd = shifted - DeterministicMath.roundingShifter
    let r = (x - kd * DeterministicMath.ln2Hi64) - kd * DeterministicMath.ln2Lo64
    // e^r − 1 to degree 6: the next term is below 3e-20 for |r| ≤ 0.0055. Evaluated in
    // pairs (Estrin) rather than nested (Horner): half the chain of dependent operations,
    // which is what a draw waits on.
    let r2 = r * r
    let p = r + r2 * ((0.5 + r * (1.0 / 6)) + r2 * ((1.0 / 24 + r * (1.0 / 120)) + r2 * (1.0 / 720)))
    let k = Int(Int32(truncatingIfNeeded: shifted.bitPattern))
    let t = DeterministicMath.twoToTheJOver64[k & 63]
    return DeterministicMath.scale(t + t * p, k >> 6)
}
