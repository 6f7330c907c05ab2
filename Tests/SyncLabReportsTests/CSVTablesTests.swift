import Testing
@testable import SyncLabReports

@Suite("CSV tables")
struct CSVTablesTests {
    @Test("decimal digits as string interpolation writes them, zero and the largest included")
    func decimalDigits() {
        var values: [UInt64] = [0, 1, 9, 10, 99, 100, 86_399, 4_294_967_295, .max, .max - 1]
        for e in 1...19 { values.append(pow10(e) - 1); values.append(pow10(e)) }
        for n in values {
            var bytes: [UInt8] = []
            CSVTables.appendDecimal(n, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "\(n)")
        }
    }

    func pow10(_ e: Int) -> UInt64 { (0..<e).reduce(1) { p, _ in p * 10 } }
}
