import Testing
import SyncLabKernel

@Suite("SimTime, ClockReading and integer rounding")
struct SimTimeTests {

    // MARK: floorDiv / ceilDiv / floorTo, exact cases

    @Test("floorDiv rounds toward negative infinity for every sign combination")
    func floorDivExactCases() {
        let cases: [(a: Int64, b: Int64, q: Int64)] = [
            (7, 2, 3), (-7, 2, -4), (7, -2, -4), (-7, -2, 3),
            (6, 2, 3), (-6, 2, -3), (6, -2, -3), (-6, -2, 3),
            (0, 5, 0), (0, -5, 0),
            (1, 5, 0), (-1, 5, -1), (1, -5, -1), (-1, -5, 0),
            (4, 5, 0), (-4, 5, -1), (5, 5, 1), (-5, 5, -1),
            (-1, 1_000_000_000, -1),
            (-1_000_000_000, 1_000_000_000, -1),
            (-1_000_000_001, 1_000_000_000, -2),
            (1_999_999_999, 1_000_000_000, 1),
            (Int64.max, 1, Int64.max),
            (Int64.min, 1, Int64.min),
            (Int64.min, 2, -(1 << 62)),
            (Int64.max, 2, (1 << 62) - 1),
            (Int64.max, -1, -Int64.max),
            (Int64.min + 1, -1, Int64.max),
            (Int64.max, -2, -(1 << 62)),                 // −(2^62 − ½) floors to −2^62
            (Int64.min, Int64.max, -2),                  // −1.000…0001 floors to −2
            (Int64.max, Int64.min, -1),                  // −0.999…9 floors to −1
            (Int64.min, Int64.min, 1),
        ]
        for c in cases {
            #expect(floorDiv(c.a, c.b) == c.q, "floorDiv(\(c.a), \(c.b))")
        }
    }

    @Test("ceilDiv rounds toward positive infinity for every sign combination")
    func ceilDivExactCases() {
        let cases: [(a: Int64, b: Int64, q: Int64)] = [
            (7, 2, 4), (-7, 2, -3), (7, -2, -3), (-7, -2, 4),
            (6, 2, 3), (-6, 2, -3), (6, -2, -3), (-6, -2, 3),
            (0, 5, 0), (0, -5, 0),
            (1, 5, 1), (-1, 5, 0), (1, -5, 0), (-1, -5, 1),
            (1, 1_000_000_000, 1),
            (1_000_000_000, 1_000_000_000, 1),
            (1_000_000_001, 1_000_000_000, 2),
            (-1_999_999_999, 1_000_000_000, -1),
            (Int64.max, 1, Int64.max),
            (Int64.min + 1, 1, Int64.min + 1),
            (Int64.max, 2, 1 << 62),                     // 2^62 − ½ ceils to 2^62
            (Int64.min + 1, 2, -(1 << 62) + 1),
            (Int64.max, Int64.max, 1),
        ]
        for c in cases {
            #expect(ceilDiv(c.a, c.b) == c.q, "ceilDiv(\(c.a), \(c.b))")
        }
    }

    @Test("floorTo rounds down to a multiple of the step, also below zero")
    func floorToExactCases() {
        let ms = Nanoseconds.millisecond
        let s = Nanoseconds.second
        let cases: [(a: Int64, step: Int64, r: Int64)] = [
            (0, 1000, 0), (1, 1000, 0), (999, 1000, 0), (1000, 1000, 1000), (1999, 1000, 1000),
            (-1, 1000, -1000), (-999, 1000, -1000), (-1000, 1000, -1000), (-1001, 1000, -2000),
            (1_500_000_000, s, s), (-1, s, -s), (-s, s, -s), (-s - 1, s, -2 * s),
            (12_345_678, ms, 12 * ms), (-12_345_678, ms, -13 * ms),
            (7, 1, 7), (-7, 1, -7),
        ]
        for c in cases {
            #expect(floorTo(c.a, c.step) == c.r, "floorTo(\(c.a), \(c.step))")
        }
    }

    @Test("floorDiv/ceilDiv/floorTo agree with real-number floor/ceil on a dense small grid")
    func divisionAgainstRealArithmetic() {
        // Operands below 2^53 so the Double quotient's floor/ceil is the exact integer answer.
        for a in Int64(-60)...60 {
            for b in Int64(-9)...9 where b != 0 {
                let real = Double(a) / Double(b)
                let f = floorDiv(a, b)
                let c = ceilDiv(a, b)
                #expect(f == Int64(real.rounded(.down)), "floorDiv(\(a), \(b))")
                #expect(c == Int64(real.rounded(.up)), "ceilDiv(\(a), \(b))")
                // Euclid-style identity: the remainder has the sign of the divisor and |r| < |b|.
                let r = a - f * b
                #expect(b > 0 ? (0 <= r && r < b) : (b < r && r <= 0), "remainder of \(a) / \(b)")
                #expect(c - f == (a % b == 0 ? 0 : 1))
                if b > 0 {
                    let t = floorTo(a, b)
                    #expect(t <= a && a - t < b && t % b == 0, "floorTo(\(a), \(b))")
                }
            }
        }
    }

    // MARK: Units and time types

    @Test("Nanosecond unit constants")
    func unitConstants() {
        #expect(Nanoseconds.nanosecond == 1)
        #expect(Nanoseconds.microsecond == 1_000)
        #expect(Nanoseconds.millisecond == 1_000_000)
        #expect(Nanoseconds.second == 1_000_000_000)
        #expect(Nanoseconds.minute == 60 * Nanoseconds.second)
        #expect(Nanoseconds.hour == 60 * Nanoseconds.minute)
    }

    @Test("SimTime arithmetic, ordering and description")
    func simTimeArithmetic() {
        let t = SimTime(ns: 5 * Nanoseconds.second)
        #expect(SimTime.zero.ns == 0)
        #expect((t + 250).ns == 5_000_000_250)
        #expect((t - Nanoseconds.second).ns == 4_000_000_000)
        #expect((t - SimTime(ns: 1_500_000_000)) == 3_500_000_000)
        #expect((SimTime.zero - t) == -5_000_000_000)
        #expect(SimTime(ns: -1) < SimTime.zero)
        #expect(SimTime.zero < t)
        #expect(!(t < t))
        #expect(t == SimTime(ns: 5_000_000_000))
        #expect([SimTime(ns: 3), SimTime(ns: -2), SimTime(ns: 1)].sorted().map(\.ns) == [-2, 1, 3])
        #expect(t.description == "t=5000000000ns")
        #expect(SimTime(ns: -7).description == "t=-7ns")
        // Arithmetic wraps instead of trapping (documented by the use of &+ / &-).
        #expect((SimTime(ns: Int64.max) + 1).ns == Int64.min)
        #expect((SimTime(ns: Int64.min) - 1).ns == Int64.max)
        #expect(Set([SimTime(ns: 1), SimTime(ns: 1), SimTime(ns: 2)]).count == 2)
    }

    @Test("ClockReading arithmetic, ordering and description")
    func clockReadingArithmetic() {
        let c = ClockReading(ns: 1_000)
        #expect((c + 24).ns == 1_024)
        #expect((c + -2_000).ns == -1_000)
        #expect((ClockReading(ns: 10) - ClockReading(ns: 25)) == -15)
        #expect(ClockReading(ns: -3) < c)
        #expect(!(c < c))
        #expect(c.description == "clock=1000ns")
        #expect((ClockReading(ns: Int64.max) + 1).ns == Int64.min)
    }
}
