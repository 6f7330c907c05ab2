import Testing
import SyncLab
import SyncLabKernel

/// "Time back within budget after wake" on hand-built minute-since-wake buckets: index 0 holds
/// players who never slept, index k ≥ 1 the minute k−1 after waking, the last one "10+ min".
@Suite struct RunResultWakeTests {
    /// 12 buckets; `p99ms[k]` (nil: no samples) is every sample's |error| in bucket k, so it is the p99.
    static func buckets(_ p99ms: [Int64?]) -> [ErrorStats] {
        p99ms.map { ms in
            var e = ErrorStats()
            if let ms { for _ in 0..<100 { e.record(ms * .millisecond) } }
            return e
        }
    }

    @Test func firstMinuteFromWhichEveryLaterMinuteIsWithin() {
        // Minutes 0, 1, 2 after waking are seconds off (a stopped clock), minute 3 on within 500 ms.
        let b = Self.buckets([300, 90_000, 40_000, 2_000, 400, 300, 300, 300, 300, 300, 300, 300])
        #expect(RunResult.wakeRecoveryMinutes(b) == 3)
    }

    @Test func aLateRelapseCountsAndEmptyMinutesDoNot() {
        // Within at minutes 1–5, above at minute 6, no samples at minutes 7–9, within at 10+.
        let b = Self.buckets([300, 900, 300, 300, 300, 300, 300, 700, nil, nil, nil, 300])
        #expect(RunResult.wakeRecoveryMinutes(b) == 7)
        // Exactly at the threshold is within (≤).
        #expect(RunResult.wakeRecoveryMinutes(Self.buckets([300] + [Int64](repeating: 500, count: 11))) == 0)
    }

    @Test func stillAboveTenMinutesAfterWakingIsEleven() {
        let b = Self.buckets([300, 300, 300, 300, 300, 300, 300, 300, 300, 300, 300, 600])
        #expect(RunResult.wakeRecoveryMinutes(b) == 11)
    }

    @Test func noSampleAfterAWakeIsNotMeasured() {
        #expect(RunResult.wakeRecoveryMinutes(Self.buckets([300] + [Int64?](repeating: nil, count: 11))) == nil)
        // The no-sleep bucket alone does not count, however bad.
        #expect(RunResult.wakeRecoveryMinutes(Self.buckets([90_000, 300] + [Int64?](repeating: nil, count: 10))) == 0)
    }

    @Test func againstPlayersWhoNeverSlept() {
        // A one-second-resolution design: everyone ~1.8 s off, so never within 500 ms absolute…
        let steady = Self.buckets([1_800, 1_850, 1_900, 1_800, 1_800, 1_800, 1_800, 1_800, 1_800, 1_800, 1_800, 1_800])
        #expect(RunResult.wakeRecoveryMinutes(steady) == 11)
        // …but within 500 ms of its no-sleep p99 (1.8 s + 0.5 s) from the moment of waking.
        #expect(RunResult.wakeRecoveryMinutesVsNoSleep(steady) == 0)
        // A clock that stopped in standby: minutes 0–5 above 2.3 s.
        let pausing = Self.buckets([1_800, 600_000, 500_000, 400_000, 200_000, 60_000, 2_400, 1_800, 1_800, 1_800, 1_800, 1_800])
        #expect(RunResult.wakeRecoveryMinutesVsNoSleep(pausing) == 6)
        // Without players who never slept there is no baseline.
        #expect(RunResult.wakeRecoveryMinutesVsNoSleep(Self.buckets([nil, 300] + [Int64?](repeating: 300, count: 10))) == nil)
    }

    @Test func figuresAreBudgetKeys() throws {
        let keys = RunResult.figureKeys(for: Scenario(name: "k", links: [], population: PopulationConfig(players: 1)))
        for key in RunResult.wakeRecoveryKeys { #expect(keys.contains(key)) }
        #expect(Budget(name: "rate", metric: "seedFailureRate", comparison: .atMost, limit: 0.05).acrossSeeds)
        #expect(!Budget(name: "wake", metric: "wakeRecoveryMinutes.displayed", comparison: .atMost, limit: 3).acrossSeeds)
    }
}
