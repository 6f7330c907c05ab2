/// Division by a divisor fixed for a whole run, by one multiplication: the audit asks of every
/// request whether its player is audited (`AuditCounters.slot`), and a hardware division there
/// cost R1 more than the rest of the test.
///
/// For a divisor d ≥ 1 and a dividend n < 2³², with m = ⌈2⁶⁴ / d⌉ (0 when d = 1, in wrapping
/// arithmetic): n is a multiple of d exactly when n·m mod 2⁶⁴ ≤ m − 1, and ⌊n / d⌋ is the high
/// word of the 128-bit product n·m (Lemire, Kaser and Kurz, "Faster remainder by direct
/// computation", 2019). A larger dividend takes the hardware's division.
struct ExactDivisor {
    let divisor: Int
    private let magic: UInt64

    init(_ divisor: Int) {
        precondition(divisor >= 1 && divisor < 1 << 32, "divisor \(divisor) out of range")
        self.divisor = divisor
        magic = UInt64.max / UInt64(divisor) &+ 1
    }

    /// Whether `n` (≥ 0) is a multiple of the divisor.
    @inline(__always)
    func divides(_ n: Int) -> Bool {
        guard UInt(bitPattern: n) < 1 << 32 else { return n % divisor == 0 }
        return UInt64(n) &* magic <= magic &- 1
    }

    /// ⌊n / divisor⌋ for n ≥ 0.
    @inline(__always)
    func quotient(_ n: Int) -> Int {
        guard UInt(bitPattern: n) < 1 << 32, divisor > 1 else { return n / divisor }
        return Int(magic.multipliedFullWidth(by: UInt64(n)).high)
    }
}
