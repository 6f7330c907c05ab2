import Testing
@testable import SyncLabReports

/// `Format.duration` and `Format.figure`: what a person reads for a figure, worked by hand.
@Suite struct FormatTests {
    @Test func durationPicksTheUnitAfterRounding() {
        // Below 10 ms: one decimal.
        #expect(Format.duration(ms: 0) == "0.0 ms")
        #expect(Format.duration(ms: 3.24) == "3.2 ms")
        #expect(Format.duration(ms: 9.94) == "9.9 ms")
        // 9.96 rounds to 10.0, so whole milliseconds.
        #expect(Format.duration(ms: 9.96) == "10 ms")
        #expect(Format.duration(ms: 399.04) == "399 ms")
        // 999.6 ms rounds to 1000 ms: tenths of a second.
        #expect(Format.duration(ms: 999.6) == "1.0 s")
        #expect(Format.duration(ms: 12_345) == "12.3 s")
        // 59.96 s is 600 tenths: minutes and seconds, never "60.0 s".
        #expect(Format.duration(ms: 59_960) == "1 min 00 s")
        // The example: 832,648.7 ms = 832.6 s = 13 × 60 + 52.6 s, rounded to 53 s.
        #expect(Format.duration(ms: 832_648.7) == "13 min 53 s")
        #expect(Format.duration(ms: 3_599_400) == "59 min 59 s")
        // 3,599.6 s rounds to 3,600 s: hours and minutes.
        #expect(Format.duration(ms: 3_599_600) == "1 h 00 min")
        // 2 h 5 min 29 s rounds to 2 h 05 min; 26 h stays in hours.
        #expect(Format.duration(ms: (2 * 3600 + 5 * 60 + 29) * 1000) == "2 h 05 min")
        #expect(Format.duration(ms: 26 * 3_600_000) == "26 h 00 min")
        #expect(Format.duration(ms: -1_500) == "-1.5 s")
        #expect(Format.duration(ms: nil) == "n/a")
        #expect(Format.duration(ms: .infinity) == "n/a")
    }

    @Test func figuresInTheUnitTheirKeyNames() {
        #expect(Format.figure(3_191_181.438, metric: "transitionGapMs.p99") == "53 min 11 s")
        #expect(Format.figure(212.2, metric: "errorSourceMs.uiTick.sd") == "212 ms")
        #expect(Format.figure(0.999, metric: "transitionsWithin500msShare") == "99.9%")
        #expect(Format.figure(0.003793, metric: "bareShare") == "0.379%")
        #expect(Format.figure(1, metric: "boundCoverageShare.byLink.edge") == "100%")
        #expect(Format.figure(0.05, metric: "seedFailureRate.upper95") == "5%")
        #expect(Format.figure(2, metric: "wakeRecoveryMinutes.displayed.vsNoSleep") == "2 min")
        #expect(Format.figure(1234.567, metric: "costPerMonth.parse-like") == "$1,234.57")
        #expect(Format.figure(20, metric: "costPerMonth.vps") == "$20")
        #expect(Format.figure(143_000_000, metric: "bytesPerMonth") == "143.0 MB")
        #expect(Format.figure(98, metric: "peakRequestsPerSecond") == "98 req/s")
        #expect(Format.figure(1.0249, metric: "meanRequestsPerSecond") == "1.02 req/s")
        #expect(Format.figure(15_937_920, metric: "requestsPerMonth") == "15,937,920")
        #expect(Format.figure(nil, metric: "clientErrorMs.p99") == "not measured")
    }

    @Test func bytesCountsAndGrouping() {
        #expect(Format.bytes(950) == "950 B")
        #expect(Format.bytes(12_700) == "12.7 kB")
        #expect(Format.bytes(999_960) == "1.0 MB")
        #expect(Format.bytes(2.1e9) == "2.1 GB")
        #expect(Format.groupedCompact(-1234.5, 2) == "-1,234.5")
        #expect(Format.groupedCompact(-0.25, 2) == "-0.25")
        #expect(Format.groupedCompact(1_000_000, 2) == "1,000,000")
        #expect(Format.count(1, "scenario") == "1 scenario")
        #expect(Format.count(0, "seed") == "0 seeds")
        #expect(Format.count(2_000, "player") == "2,000 players")
    }
}

/// Differences in `compare.md`, in the figure's unit.
@Suite struct HeadlineDifferenceTests {
    @Test func signedDifferences() {
        #expect(Headline.signedFigure(-1_234.5, metric: "transitionGapMs.p99") == "-1.2 s")
        #expect(Headline.signedFigure(0.025, metric: "bareShare") == "+2.5%")
        #expect(Headline.signedFigure(0, metric: "requests") == "0")
        #expect(Headline.signedFigure(nil, metric: "requests") == "n/a")
        #expect(Headline.unitless("transition gap p99 (ms)") == "transition gap p99")
        #expect(Headline.unitless("peak requests per second") == "peak requests per second")
    }
}
