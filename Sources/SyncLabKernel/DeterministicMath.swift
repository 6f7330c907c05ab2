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
        var e = Int(x.exponent)
        var m = Double(sign: .plus, exponent: 0, significand: x.significand)   // in [1, 2)
        if m > 1.414_213_562_373_095_048_8 { m *= 0.5; e += 1 }
        // log m = 2·atanh(f), f = (m−1)/(m+1), |f| ≤ 0.1716; the odd series converges fast.
        let f = (m - 1) / (m + 1)
        let f2 = f * f
        var term = f
        var sum = 0.0
        var k = 1.0
        for _ in 0..<14 {
            sum += term / k
            term *= f2
            k += 2
        }
        let ed = Double(e)
        return ed * ln2Hi + (2 * sum + ed * ln2Lo)
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
    public static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.782_712_893_384 { return .infinity }
        if x < -745.133_219_101_941_1 { return 0 }
        // x = k·ln2 + r with |r| ≤ ln2/2; e^x = 2^k · e^r.
        let kd = (x / ln2).rounded(.toNearestOrEven)
        let r = (x - kd * ln2Hi) - kd * ln2Lo
        // Taylor series of e^r to degree 18: error below 1e-17 for |r| ≤ 0.347.
        var term = 1.0
        var sum = 1.0
        for n in 1...18 {
            term = term * r / Double(n)
            sum += term
        }
        return scale(sum, Int(kd))
    }

    /// y · 2^k, exact unless the result is subnormal or overflows.
    static func scale(_ y: Double, _ k: Int) -> Double {
        var y = y
        var k = k
        while k > 1000 { y *= 0x1.0p1000; k -= 1000 }
        while k < -1000 { y *= 0x1.0p-1000; k += 1000 }
        return y * Double(sign: .plus, exponent: k, significand: 1)
    }
}
