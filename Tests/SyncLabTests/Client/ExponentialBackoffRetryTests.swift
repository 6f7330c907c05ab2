import Testing
@testable import SyncLab
import SyncLabKernel

private func retryStream(_ entity: UInt64) -> RandomStream {
    RandomStream(seed: 0xBAC0FF, purpose: StreamPurpose("test-exponential-retry"), entity: entity)
}

@Suite struct ExponentialBackoffRetryTests {
    @Test func ceilingDoublesToTheCap() {
        let r = ExponentialBackoffRetry(base: .second, cap: 10 * .second, jitter: .none)
        #expect(r.name == "exponential")
        var rng = retryStream(0)
        let before = rng
        #expect((1...7).map { r.delay(afterFailures: $0, &rng) } == [1, 2, 4, 8, 10, 10, 10].map { $0 * .second })
        #expect(rng == before)   // no jitter, no draw
        // Far past 63 doublings the shift cannot overflow.
        #expect(r.ceiling(afterFailures: 64) == 10 * .second)
        #expect(r.ceiling(afterFailures: 1_000_000) == 10 * .second)
        #expect(ExponentialBackoffRetry(base: 3, cap: .max / 2, jitter: .none).ceiling(afterFailures: 63) == .max / 2)
    }

    /// Full jitter: delay_n = U{0 … min(cap, base·2^(n−1))}, one `below` draw each.
    @Test func fullJitterSequence() {
        let r = ExponentialBackoffRetry(base: .second, cap: 10 * .second, jitter: .full)
        var rng = retryStream(1), mirror = rng
        for n in 1...12 {
            let d = r.delay(afterFailures: n, previous: 0, &rng)
            #expect(d == Int64(mirror.below(UInt64(r.ceiling(afterFailures: n)) + 1)))
            #expect(0 <= d && d <= min(10 * .second, .second << Int64(n - 1)))
        }
        #expect(rng == mirror)
        // Pinned: the same seed gives these delays on every machine.
        let pinned = ExponentialBackoffRetry(base: 100 * .millisecond, cap: .minute, jitter: .full)
        var p = retryStream(9)
        let values = (1...5).map { pinned.delay(afterFailures: $0, &p) }
        #expect(values == ExponentialBackoffRetryTests.pinnedFull)
    }

    /// Decorrelated: delay_n = min(cap, U{base … 3·delay_(n−1)}), delay_0 = base.
    @Test func decorrelatedSequence() {
        let r = ExponentialBackoffRetry(base: .second, cap: 20 * .second, jitter: .decorrelated)
        #expect(r.usesPreviousDelay)
        var rng = retryStream(2), mirror = rng
        var previous: Int64 = 0
        var expectedPrevious: Int64 = .second
        for n in 1...30 {
            let d = r.delay(afterFailures: n, previous: previous, &rng)
            let expected = min(20 * .second, .second + Int64(mirror.below(UInt64(3 * expectedPrevious - .second) + 1)))
            #expect(d == expected)
            #expect(.second <= d && d <= 20 * .second)
            previous = d
            expectedPrevious = d
        }
        // A new run of failures starts from base again, whatever the previous delay.
        var a = retryStream(3), b = retryStream(3)
        #expect(r.delay(afterFailures: 1, previous: 20 * .second, &a) == r.delay(afterFailures: 1, previous: 0, &b))
        var p = retryStream(9)
        let pinned = ExponentialBackoffRetry(base: 100 * .millisecond, cap: .minute, jitter: .decorrelated)
        var last: Int64 = 0
        let values = (1...5).map { n -> Int64 in
            last = pinned.delay(afterFailures: n, previous: last, &p)
            return last
        }
        #expect(values == ExponentialBackoffRetryTests.pinnedDecorrelated)
    }

    /// The cap binds: with base = cap every delay of `none` is the cap and decorrelated never exceeds it.
    @Test func capBinds() {
        let r = ExponentialBackoffRetry(base: 5 * .second, cap: 5 * .second, jitter: .decorrelated)
        var rng = retryStream(4)
        var previous: Int64 = 0
        for n in 1...50 {
            previous = r.delay(afterFailures: n, previous: previous, &rng)
            #expect(previous == 5 * .second)
        }
    }

    /// base 100 ms, cap 1 min, stream 9: each within its ceiling 100, 200, 400, 800, 1600 ms.
    static let pinnedFull: [Int64] = [53_656_665, 64_074_540, 67_794_409, 542_208_828, 1_088_574_874]
    /// Each within [100 ms, 3 × the previous]: [100, 300], [100, 622], [100, 802], [100, 657], [100, 1432] ms.
    static let pinnedDecorrelated: [Int64] = [207_313_331, 267_215_326, 218_919_187, 477_348_581, 1_006_269_704]
}
