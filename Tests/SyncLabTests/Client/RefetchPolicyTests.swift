import Testing
@testable import SyncLab
import SyncLabKernel

private func refetchStream(_ entity: UInt64) -> RandomStream {
    RandomStream(seed: 0x2EF3_7C4, purpose: StreamPurpose("test-refetch-policy"), entity: entity)
}

@Suite struct RefetchPolicyTests {
    @Test func defaultsAreTheSeeds() {
        let refetch = UniformWindowRefetch()
        #expect(refetch.minimum == 6 * .minute)
        #expect(refetch.maximum == 9 * .minute)
        #expect(refetch.name == "uniform-after-load")
        let retry = FixedIntervalRetry()
        #expect(retry.interval == 5 * .second)
        #expect(retry.name == "fixed")
    }

    @Test func delayIsMinimumPlusAnUnbiasedDrawOverTheWholeNanosecondWindow() {
        // The window [6 min, 9 min] has 180e9 + 1 whole-ns values; one `below` draw picks one.
        let refetch = UniformWindowRefetch()
        var rng = refetchStream(1)
        var mirror = rng
        for _ in 0..<1_000 {
            let delay = refetch.delayAfterLoad(&rng)
            #expect(delay == 6 * .minute + Int64(mirror.below(180_000_000_001)))
            #expect(rng == mirror)
            #expect(6 * .minute <= delay && delay <= 9 * .minute)
        }
    }

    @Test func degenerateWindowIsFixedAndStillDraws() {
        // min == max: below(1) is always 0, so the delay is the minimum; the stream still advances once.
        let refetch = UniformWindowRefetch(minimum: 7 * .minute, maximum: 7 * .minute)
        var rng = refetchStream(2)
        let before = rng
        #expect(refetch.delayAfterLoad(&rng) == 7 * .minute)
        var once = before
        _ = once.next()
        #expect(rng == once)
    }

    @Test func bothEndpointsOfATinyWindowOccur() {
        // [1 ns, 3 ns]: three values, each with probability 1/3; 3 000 draws see all of them,
        // each roughly a third of the time (binomial sd ≈ 26, so ±150 is > 5 sd).
        let refetch = UniformWindowRefetch(minimum: 1, maximum: 3)
        var rng = refetchStream(3)
        var counts: [Int64: Int] = [:]
        for _ in 0..<3_000 { counts[refetch.delayAfterLoad(&rng), default: 0] += 1 }
        #expect(Set(counts.keys) == [1, 2, 3])
        for v in counts.values { #expect(abs(v - 1_000) < 150) }
    }

    @Test func seededMeanIsTheWindowMidpoint() {
        // Uniform on [6, 9] min: mean 7.5 min, sd = 3 min / √12 ≈ 52 s; the mean of 20 000 draws has
        // sd ≈ 0.37 s, so ±3 s is over 8 sd.
        let refetch = UniformWindowRefetch()
        var rng = refetchStream(4)
        var sum: Int64 = 0
        var lowest = Int64.max, highest = Int64.min
        for _ in 0..<20_000 {
            let d = refetch.delayAfterLoad(&rng)
            sum += d
            lowest = min(lowest, d)
            highest = max(highest, d)
        }
        #expect(abs(sum / 20_000 - 450 * .second) < 3 * .second)
        // Spread: with 20 000 draws the extremes are within 0.1% of the window of its ends.
        #expect(lowest < 6 * .minute + 180 * .millisecond)
        #expect(highest > 9 * .minute - 180 * .millisecond)
    }

    @Test func sameStreamSameDelays() {
        let refetch = UniformWindowRefetch(minimum: .second, maximum: .hour)
        var a = refetchStream(5), b = refetchStream(5)
        for _ in 0..<100 { #expect(refetch.delayAfterLoad(&a) == refetch.delayAfterLoad(&b)) }
    }

    @Test func fixedRetryIgnoresFailuresAndDrawsNothing() {
        let retry = FixedIntervalRetry(interval: 5 * .second)
        var rng = refetchStream(6)
        let before = rng
        for failures in [1, 2, 3, 10, 1_000] {
            #expect(retry.delay(afterFailures: failures, &rng) == 5 * .second)
        }
        #expect(rng == before)
        #expect(FixedIntervalRetry(interval: 1).delay(afterFailures: 1, &rng) == 1)
    }
}
