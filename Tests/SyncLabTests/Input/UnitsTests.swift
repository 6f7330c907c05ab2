import Testing
@testable import SyncLab

private func failure<T>(_ result: Result<T, UnitError>) -> String? {
    if case .failure(let error) = result { return error.message }
    return nil
}

@Suite struct InputUnitsTests {
    // MARK: Durations

    @Test func parsesEveryDurationUnit() {
        #expect(Units.parseDuration("10ns") == .success(10))
        #expect(Units.parseDuration("500us") == .success(500_000))
        #expect(Units.parseDuration("500\u{B5}s") == .success(500_000))  // micro sign
        #expect(Units.parseDuration("500\u{3BC}s") == .success(500_000)) // Greek mu
        #expect(Units.parseDuration("250ms") == .success(250_000_000))
        #expect(Units.parseDuration("3s") == .success(3_000_000_000))
        #expect(Units.parseDuration("6m") == .success(360_000_000_000))
        #expect(Units.parseDuration("24h") == .success(86_400_000_000_000))
        #expect(Units.parseDuration("2d") == .success(172_800_000_000_000))
        #expect(Units.parseDuration("0s") == .success(0))
        #expect(Units.parseDuration("007ms") == .success(7_000_000))
    }

    @Test func parsesDecimalDurationsExactly() {
        #expect(Units.parseDuration("1.5s") == .success(1_500_000_000))
        #expect(Units.parseDuration("0.1s") == .success(100_000_000))
        #expect(Units.parseDuration("0.3s") == .success(300_000_000))
        #expect(Units.parseDuration("2.5ms") == .success(2_500_000))
        #expect(Units.parseDuration("0.5us") == .success(500))
        #expect(Units.parseDuration("0.001ms") == .success(1_000))
        #expect(Units.parseDuration("1.25m") == .success(75_000_000_000))
        #expect(Units.parseDuration("1.1h") == .success(3_960_000_000_000))
        #expect(Units.parseDuration("0.000000001s") == .success(1))
        #expect(Units.parseDuration("1.000000000000000000000s") == .success(1_000_000_000))
        #expect(Units.parseDuration("0.00000000000125d") == .success(108))  // 86_400e9 ns × 1.25e-12
    }

    @Test func parsesNegativeDurations() {
        #expect(Units.parseDuration("-250ms") == .success(-250_000_000))
        #expect(Units.parseDuration("-1.5s") == .success(-1_500_000_000))
        #expect(Units.parseDuration("-0s") == .success(0))
    }

    @Test func parsesDurationsUpToTheInt64Limit() {
        #expect(Units.parseDuration("9223372036854775807ns") == .success(Int64.max))
        #expect(Units.parseDuration("106751d") == .success(9_223_286_400_000_000_000))
        #expect(failure(Units.parseDuration("106752d")) == "duration \"106752d\" is too large; the limit is about 292 years")
        #expect(failure(Units.parseDuration("9223372036854775808ns"))
            == "duration \"9223372036854775808ns\" is too large; the limit is about 292 years")
        #expect(failure(Units.parseDuration("106751.9999d")) == "duration \"106751.9999d\" is too large; the limit is about 292 years")
        #expect(failure(Units.parseDuration("99999999999999999999999s"))
            == "duration \"99999999999999999999999s\" is too large; the limit is about 292 years")
    }

    @Test func rejectsDurationsFinerThanANanosecond() {
        #expect(failure(Units.parseDuration("1.5ns")) == "duration \"1.5ns\" is not a whole number of nanoseconds")
        #expect(failure(Units.parseDuration("0.0000000001s")) == "duration \"0.0000000001s\" is not a whole number of nanoseconds")
        #expect(failure(Units.parseDuration("0.0000000000001d")) == "duration \"0.0000000000001d\" is not a whole number of nanoseconds")
        #expect(failure(Units.parseDuration("0.1234567890123456789s"))
            == "duration \"0.1234567890123456789s\" is not a whole number of nanoseconds")
    }

    @Test func explainsDurationMistakes() {
        let units = "ns, us, ms, s, m, h, d"
        #expect(failure(Units.parseDuration("5")) == "missing unit in \"5\"; expected one of \(units), like \"5ms\" or \"5s\"")
        #expect(failure(Units.parseDuration("5 sec")) == "unknown unit 'sec' in \"5 sec\"; expected one of \(units) (did you mean 's'?)")
        #expect(failure(Units.parseDuration("5secs")) == "unknown unit 'secs' in \"5secs\"; expected one of \(units) (did you mean 's'?)")
        #expect(failure(Units.parseDuration("2 hours")) == "unknown unit 'hours' in \"2 hours\"; expected one of \(units) (did you mean 'h'?)")
        #expect(failure(Units.parseDuration("10min")) == "unknown unit 'min' in \"10min\"; expected one of \(units) (did you mean 'm'?)")
        #expect(failure(Units.parseDuration("3days")) == "unknown unit 'days' in \"3days\"; expected one of \(units) (did you mean 'd'?)")
        #expect(failure(Units.parseDuration("5M")) == "unknown unit 'M' in \"5M\"; expected one of \(units) (did you mean 'm' (minutes)?)")
        #expect(failure(Units.parseDuration("5S")) == "unknown unit 'S' in \"5S\"; expected one of \(units) (did you mean 's'?)")
        #expect(failure(Units.parseDuration("5MS")) == "unknown unit 'MS' in \"5MS\"; expected one of \(units) (did you mean 'ms'?)")
        #expect(failure(Units.parseDuration("1e3ms")) == "unknown unit 'e3ms' in \"1e3ms\"; expected one of \(units)")
        #expect(failure(Units.parseDuration("5 s"))
            == "unexpected space in \"5 s\"; write the number and unit together, like \"5s\"")
        #expect(failure(Units.parseDuration(" 1.5ms "))
            == "unexpected space in \" 1.5ms \"; write the number and unit together, like \"1.5ms\"")
        #expect(failure(Units.parseDuration("")) == "empty duration; expected a number with a unit, like \"250ms\"")
        #expect(failure(Units.parseDuration("  ")) == "empty duration; expected a number with a unit, like \"250ms\"")
        #expect(failure(Units.parseDuration("ms"))
            == "missing number in \"ms\"; expected a number before the unit, like \"250ms\"")
        let malformed = "expected digits with an optional decimal point, like \"250ms\""
        #expect(failure(Units.parseDuration("1.2.3s")) == "malformed number '1.2.3' in \"1.2.3s\"; \(malformed)")
        #expect(failure(Units.parseDuration(".5s")) == "malformed number '.5' in \".5s\"; \(malformed)")
        #expect(failure(Units.parseDuration("5.s")) == "malformed number '5.' in \"5.s\"; \(malformed)")
        #expect(failure(Units.parseDuration("+5s")) == "malformed number '+5' in \"+5s\"; \(malformed)")
        #expect(failure(Units.parseDuration("--5s")) == "malformed number '-5' in \"--5s\"; \(malformed)")
    }

    // MARK: Sizes

    @Test func parsesEverySizeUnit() {
        #expect(Units.parseBytes("512B") == .success(512))
        #expect(Units.parseBytes("20kB") == .success(20_000))
        #expect(Units.parseBytes("2MB") == .success(2_000_000))
        #expect(Units.parseBytes("1GB") == .success(1_000_000_000))
        #expect(Units.parseBytes("1KiB") == .success(1_024))
        #expect(Units.parseBytes("1MiB") == .success(1_048_576))
        #expect(Units.parseBytes("1GiB") == .success(1_073_741_824))
        #expect(Units.parseBytes("1.5MB") == .success(1_500_000))
        #expect(Units.parseBytes("0.5KiB") == .success(512))
        #expect(Units.parseBytes("-1kB") == .success(-1_000))
        #expect(Units.parseBytes("0B") == .success(0))
    }

    @Test func explainsSizeMistakes() {
        let units = "B, kB, MB, GB, KiB, MiB, GiB"
        #expect(failure(Units.parseBytes("20000")) == "missing unit in \"20000\"; expected one of \(units), like \"20000B\" or \"20000kB\"")
        #expect(failure(Units.parseBytes("20KB"))
            == "unknown unit 'KB' in \"20KB\"; expected one of \(units) (did you mean 'kB' (1000 bytes) or 'KiB' (1024 bytes)?)")
        #expect(failure(Units.parseBytes("2mb")) == "unknown unit 'mb' in \"2mb\"; expected one of \(units) (did you mean 'MB'?)")
        #expect(failure(Units.parseBytes("20 kB"))
            == "unexpected space in \"20 kB\"; write the number and unit together, like \"20kB\"")
        #expect(failure(Units.parseBytes("")) == "empty size; expected a number with a unit, like \"20kB\"")
        #expect(failure(Units.parseBytes("1..5MB"))
            == "malformed number '1..5' in \"1..5MB\"; expected digits with an optional decimal point, like \"20kB\"")
        let huge = String(repeating: "9", count: 400) + "GB"
        #expect(failure(Units.parseBytes(huge)) == "size \"\(huge)\" is too large")
    }

    // MARK: Rates

    @Test func parsesEveryRateUnit() {
        #expect(Units.parseRate("10B/s") == .success(10))
        #expect(Units.parseRate("50kB/s") == .success(50_000))
        #expect(Units.parseRate("2MB/s") == .success(2_000_000))
        #expect(Units.parseRate("1GB/s") == .success(1_000_000_000))
        #expect(Units.parseRate("1KiB/s") == .success(1_024))
        #expect(Units.parseRate("1MiB/s") == .success(1_048_576))
        #expect(Units.parseRate("1GiB/s") == .success(1_073_741_824))
        #expect(Units.parseRate("8bit/s") == .success(1))
        #expect(Units.parseRate("100kbit/s") == .success(12_500))
        #expect(Units.parseRate("1Mbit/s") == .success(125_000))
        #expect(Units.parseRate("1.5Mbit/s") == .success(187_500))
        #expect(Units.parseRate("1Gbit/s") == .success(125_000_000))
        #expect(Units.parseRate("-1kB/s") == .success(-1_000))
    }

    @Test func explainsRateMistakes() {
        let units = "B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, kbit/s, Mbit/s, Gbit/s"
        #expect(failure(Units.parseRate("20kB")) == "missing '/s' in \"20kB\"; a rate is an amount per second, like \"20kB/s\"")
        #expect(failure(Units.parseRate("1 Mbit")) == "missing '/s' in \"1 Mbit\"; a rate is an amount per second, like \"1Mbit/s\"")
        #expect(failure(Units.parseRate("1Mbps")) == "unknown unit 'Mbps' in \"1Mbps\"; expected one of \(units) (did you mean 'Mbit/s'?)")
        #expect(failure(Units.parseRate("1KB/s"))
            == "unknown unit 'KB/s' in \"1KB/s\"; expected one of \(units) (did you mean 'kB/s' (1000 bytes) or 'KiB/s' (1024 bytes)?)")
        #expect(failure(Units.parseRate("1kB/min")) == "unknown unit 'kB/min' in \"1kB/min\"; expected one of \(units)")
        #expect(failure(Units.parseRate("5")) == "missing unit in \"5\"; expected one of \(units), like \"5kB/s\" or \"5Mbit/s\"")
        #expect(failure(Units.parseRate("1 Mbit/s"))
            == "unexpected space in \"1 Mbit/s\"; write the number and unit together, like \"1Mbit/s\"")
    }

    // MARK: Formatting

    @Test func formatsShortDurationsWithTheLargestFittingUnit() {
        #expect(Units.formatDuration(0) == "0s")
        #expect(Units.formatDuration(1) == "1ns")
        #expect(Units.formatDuration(999) == "999ns")
        #expect(Units.formatDuration(1_000) == "1us")
        #expect(Units.formatDuration(1_500) == "1.5us")
        #expect(Units.formatDuration(1_500_000) == "1.5ms")
        #expect(Units.formatDuration(1_234_567) == "1.234567ms")
        #expect(Units.formatDuration(1_000_000_001) == "1.000000001s")
        #expect(Units.formatDuration(59_500_000_000) == "59.5s")
        #expect(Units.formatDuration(-1_500_000) == "-1.5ms")
    }

    @Test func formatsLongDurationsAsParts() {
        #expect(Units.formatDuration(60_000_000_000) == "1m")
        #expect(Units.formatDuration(360_000_000_000) == "6m")
        #expect(Units.formatDuration(90_250_000_000) == "1m30.25s")
        #expect(Units.formatDuration(5_400_000_000_000) == "1h30m")
        #expect(Units.formatDuration(86_400_000_000_000) == "1d")
        #expect(Units.formatDuration(86_401_000_000_000) == "1d1s")
        #expect(Units.formatDuration(97_200_000_000_000) == "1d3h")
        #expect(Units.formatDuration(-5_400_000_000_000) == "-1h30m")
        #expect(Units.formatDuration(Int64.min) == "-106751d23h47m16.854775808s")
        #expect(Units.formatDuration(Int64.max) == "106751d23h47m16.854775807s")
    }

    @Test func shortFormatsParseBackToTheSameValue() {
        for ns: Int64 in [1, 999, 1_000, 1_500, 1_234_567, 250_000_000, 1_000_000_001, 59_999_999_999, -42_000] {
            #expect(Units.parseDuration(Units.formatDuration(ns)) == .success(ns))
        }
    }
}
