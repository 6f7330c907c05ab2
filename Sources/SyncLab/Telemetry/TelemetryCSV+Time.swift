/// The `sent` cell: epoch milliseconds, or an ISO 8601 instant with its offset, parsed by hand
/// (a `DateFormatter` is slow and follows the locale).
extension TelemetryCSV {
    enum Time {
        /// 9999-12-31T23:59:59.999Z, the last instant read.
        static let latestMs: Int64 = 253_402_300_799_999
        /// Days before each month in a common year.
        static let daysBefore = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]

        /// Milliseconds since the Unix epoch, rounded down, or nil when the cell is not a time
        /// from 1970 to 9999.
        ///
        /// - `1767225600123` or `1767225600123.9`: epoch ms (no sign, no exponent).
        /// - `2026-11-23T08:15:02Z`, `2026-11-23 08:15:02.123456+01:00`, `…-0530`: a date, `T`
        ///   or a space, a time with 1 to 9 fractional digits, and an offset (one is required: a
        ///   local time without it names no instant). A leap second, `:60`, reads as the next
        ///   minute's first instant.
        static func epochMilliseconds(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
            if b.count >= 5 && b[4] == UInt8(ascii: "-") { return iso8601(b) }
            guard let (negative, mantissa, decimals) = Number.decimal(b, signed: false), !negative else { return nil }
            var whole = mantissa
            for _ in 0..<decimals { whole /= 10 }
            return whole <= UInt64(latestMs) ? Int64(whole) : nil
        }

        static func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

        /// Days from 1970-01-01 to the date (proleptic Gregorian, 1970 ≤ year ≤ 9999).
        static func days(year: Int, month: Int, day: Int) -> Int {
            // Leap years in [1, n]: n/4 − n/100 + n/400.
            func leaps(_ n: Int) -> Int { n / 4 - n / 100 + n / 400 }
            let before = (year - 1970) * 365 + leaps(year - 1) - leaps(1969)
            return before + daysBefore[month - 1] + (month > 2 && isLeap(year) ? 1 : 0) + day - 1
        }

        static func iso8601(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
            var k = 0
            func digits(_ n: Int) -> Int? {
                guard k + n <= b.count else { return nil }
                var v = 0
                for j in k..<(k + n) {
                    let c = b[j]
                    guard c >= 48 && c <= 57 else { return nil }
                    v = v * 10 + Int(c - 48)
                }
                k += n
                return v
            }
            func expect(_ c: UInt8...) -> Bool {
                guard k < b.count, c.contains(b[k]) else { return false }
                k += 1
                return true
            }
            let dash = UInt8(ascii: "-"), colon = UInt8(ascii: ":")
            guard let year = digits(4), expect(dash), let month = digits(2), expect(dash), let day = digits(2),
                  expect(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
                  let hour = digits(2), expect(colon), let minute = digits(2), expect(colon), let second = digits(2)
            else { return nil }
            guard (1970...9999).contains(year), (1...12).contains(month), day >= 1, hour <= 23, minute <= 59, second <= 60 else { return nil }
            let monthDays = month == 2 ? (isLeap(year) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard day <= monthDays else { return nil }
            var milliseconds = 0
            if k < b.count && b[k] == UInt8(ascii: ".") {
                k += 1
                var n = 0
                while k < b.count && b[k] >= 48 && b[k] <= 57 {
                    if n < 3 { milliseconds = milliseconds * 10 + Int(b[k] - 48) }
                    n += 1
                    k += 1
                }
                guard (1...9).contains(n) else { return nil }
                if n < 3 { for _ in n..<3 { milliseconds *= 10 } }
            }
            var offsetMinutes = 0
            guard k < b.count else { return nil }
            if b[k] == UInt8(ascii: "Z") || b[k] == UInt8(ascii: "z") {
                k += 1
            } else if b[k] == UInt8(ascii: "+") || b[k] == dash {
                let sign = b[k] == dash ? -1 : 1
                k += 1
                guard let h = digits(2) else { return nil }
                _ = expect(colon)
                guard let m = digits(2), h <= 23, m <= 59 else { return nil }
                offsetMinutes = sign * (h * 60 + m)
            } else {
                return nil
            }
            guard k == b.count else { return nil }
            let seconds = ((days(year: year, month: month, day: day) * 24 + hour) * 60 + minute - offsetMinutes) * 60 + second
            let ms = Int64(seconds) * 1_000 + Int64(milliseconds)
            return ms >= 0 ? ms : nil
        }
    }
}
