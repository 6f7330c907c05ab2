import Testing
@testable import SyncLab
import SyncLabKernel

private func at(_ ns: Int64) -> SimTime { SimTime(ns: ns) }

/// Uniform integer in [lo, hi].
private func uniformIn(_ lo: Int64, _ hi: Int64, _ rng: inout RandomStream) -> Int64 {
    lo &+ Int64(bitPattern: rng.below(UInt64(bitPattern: hi &- lo) &+ 1))
}

/// The seeds' shelf life: uniform between 45 s and 4 min.
private let seedsShelfLife = Distribution.uniform(min: 45e9, max: 240e9)

@Suite struct StoreScheduleTests {
    /// Unix …000.371 s.
    static let epoch: Int64 = 1_700_000_000_371_000_000

    /// How far before the first whole second the chain of position `p` starts: its first draw
    /// (constant lives draw nothing, so `below` is the stream's first use).
    static func back(seed: UInt64, position: Int, lifeSeconds: UInt64) -> Int64 {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("shelf-life"), entity: UInt64(position))
        return Int64(rng.below(lifeSeconds)) * .second
    }

    // MARK: Hand cases with constant shelf lives

    @Test func constantSixtySecondChain() {
        // Whole unix second at or before the start (t = 0, unix …000.371): …000 → t = −0.371 s.
        // The chain begins `back` ∈ [0, 59] s before that and steps by 60 s until a boundary is past
        // the end (200 s).
        let s = StoreSchedule(positions: 2, shelfLife: .constant(60e9), resolution: .second, start: .zero,
                              end: at(200 * .second), epochUnix: Self.epoch, seed: 7)
        #expect(s.positions == 2)
        var expectedTransitions: [StoreSchedule.Transition] = []
        for p in 0..<2 {
            let c0 = -371 * .millisecond - Self.back(seed: 7, position: p, lifeSeconds: 60)
            var expected = [c0]
            repeat { expected.append(expected.last! + .minute) } while expected.last! <= 200 * .second
            #expect(s.bounds[p] == expected)
            #expect(s.bounds[p][0] <= 0 && 0 < s.bounds[p][1])
            for k in 1..<expected.count {
                expectedTransitions.append(.init(time: expected[k], position: Int32(p), item: Int32(k)))
            }
        }
        expectedTransitions.sort { ($0.time, $0.position) < ($1.time, $1.position) }
        #expect(s.transitions == expectedTransitions)
    }

    @Test func startOffTheEpochFloorsToTheWholeUnixSecond() {
        // start 1000.5 s: unix …1000.871 → …1000 → t = 999.629 s, minus the back-off.
        let s = StoreSchedule(positions: 1, shelfLife: .constant(90e9), resolution: .second, start: at(1_000_500 * .millisecond),
                              end: at(1_100 * .second), epochUnix: Self.epoch, seed: 3)
        let c0 = 999_629 * .millisecond - Self.back(seed: 3, position: 0, lifeSeconds: 90)
        #expect(s.bounds[0].first == c0)
        #expect(s.bounds[0].count >= 2)
        #expect(zip(s.bounds[0], s.bounds[0].dropFirst()).allSatisfy { $1 - $0 == 90 * .second })
    }

    @Test func livesRoundDownToTheResolutionButNeverBelowIt() {
        // 45.7 s at 1 s → 45 s; at 1 ms → 45.7 s; 0.3 s at 1 s → floor 0, raised to 1 s.
        for (life, resolution, step) in [(45.7e9, Int64.second, 45 * Int64.second),
                                         (45.7e9, .millisecond, 45_700 * .millisecond),
                                         (0.3e9, .second, .second)] {
            let s = StoreSchedule(positions: 3, shelfLife: .constant(life), resolution: resolution, start: .zero,
                                  end: at(10 * .minute), epochUnix: Self.epoch, seed: 11)
            for chain in s.bounds {
                #expect(zip(chain, chain.dropFirst()).allSatisfy { $1 - $0 == step })
                #expect(chain.allSatisfy { (Self.epoch + $0) % resolution == 0 })
            }
        }
        // A 1 s life has back = below(1) = 0: the chain starts on the whole second at the start.
        let s = StoreSchedule(positions: 1, shelfLife: .constant(0.3e9), resolution: .second, start: .zero,
                              end: at(5 * .second), epochUnix: Self.epoch, seed: 11)
        #expect(s.bounds[0] == [-371, 629, 1_629, 2_629, 3_629, 4_629, 5_629].map { $0 * .millisecond })
    }

    // MARK: Seeded properties (the seeds' 45 s – 4 min lives)

    @Test(arguments: [UInt64(1), 2, 3, 42, 0xDEAD_BEEF])
    func chainsAreContiguousOnWholeSecondsWithLivesInRange(seed: UInt64) {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("test-store-schedule"))
        let epoch = 1_700_000_000_000_000_000 + uniformIn(0, 999_999_999, &rng)
        let start = at(uniformIn(0, .hour, &rng))
        let end = start + uniformIn(.minute, 3 * .hour, &rng)
        let s = StoreSchedule(positions: 9, shelfLife: seedsShelfLife, resolution: .second, start: start, end: end,
                              epochUnix: epoch, seed: seed)
        #expect(s.bounds.count == 9)
        var lives: [Int64] = []
        for chain in s.bounds {
            #expect(chain.count >= 2)
            // The first item is on the shelf at the start; the last boundary is past the end, the one
            // before it is not (the chain extends exactly as far as needed).
            #expect(chain[0] <= start.ns && start.ns < chain[1])
            #expect(chain.last! > end.ns)
            #expect(chain[chain.count - 2] <= end.ns)
            for b in chain { #expect((epoch + b) % .second == 0, "boundary \(b) not on a whole unix second") }
            for (a, b) in zip(chain, chain.dropFirst()) {
                let life = b - a
                lives.append(life)
                #expect(life % .second == 0)
                #expect(45 * .second <= life && life <= 240 * .second, "life \(life)")
            }
        }
        // The lives look uniform: mean ≈ (45 + 240) / 2 − 0.5 ≈ 142 s (sd of one ≈ 56 s).
        let mean = lives.reduce(0, +) / Int64(lives.count)
        if lives.count >= 200 { #expect(abs(mean - 142 * .second) < 20 * .second) }

        // Transitions: every boundary but each chain's first, sorted by (time, position), counted.
        #expect(s.transitions.count == s.bounds.reduce(0) { $0 + $1.count - 1 })
        for tr in s.transitions {
            #expect(s.bounds[Int(tr.position)][Int(tr.item)] == tr.time)
            #expect(tr.item >= 1)
        }
        for (a, b) in zip(s.transitions, s.transitions.dropFirst()) {
            #expect(a.time < b.time || (a.time == b.time && a.position < b.position))
        }
        var perPosition = [Int](repeating: 0, count: 9)
        for tr in s.transitions { perPosition[Int(tr.position)] += 1 }
        #expect(perPosition == s.bounds.map { $0.count - 1 })
    }

    @Test func firstTransitionAndItemAgreeWithALinearScan() {
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("test-store-schedule-scan"))
        let s = StoreSchedule(positions: 6, shelfLife: seedsShelfLife, resolution: .second, start: .zero,
                              end: at(.hour), epochUnix: Self.epoch, seed: 99)
        var queries: [Int64] = [.min / 2, -10 * .minute, 0, 2 * .hour]
        for tr in s.transitions { queries += [tr.time - 1, tr.time, tr.time + 1] }
        for _ in 0..<500 { queries.append(uniformIn(-5 * .minute, .hour + 10 * .minute, &rng)) }
        for q in queries {
            let linear = s.transitions.firstIndex { $0.time > q } ?? s.transitions.count
            #expect(s.firstTransition(after: q) == linear, "query \(q)")
            for p in 0..<s.positions {
                let chain = s.bounds[p]
                let item = (chain.lastIndex { $0 <= q }) ?? -1
                #expect(s.item(at: q, position: p) == item, "query \(q) position \(p)")
            }
        }
        // At a boundary the new item is showing; 1 ns before it, the old one.
        for tr in s.transitions.prefix(50) {
            #expect(s.item(at: tr.time, position: Int(tr.position)) == Int(tr.item))
            #expect(s.item(at: tr.time - 1, position: Int(tr.position)) == Int(tr.item) - 1)
        }
    }

    /// The galloping search from a hint finds the same index as the plain binary search, from
    /// any hint (before, at, after the answer, or out of range).
    @Test func firstTransitionNearAHintAgreesWithTheBinarySearch() {
        var rng = RandomStream(seed: 6, purpose: StreamPurpose("test-store-schedule-hint"))
        let s = StoreSchedule(positions: 5, shelfLife: seedsShelfLife, resolution: .second, start: .zero,
                              end: at(.hour), epochUnix: Self.epoch, seed: 7)
        let n = s.transitions.count
        var queries: [Int64] = [.min / 2, 0, 2 * .hour]
        for tr in s.transitions.prefix(40) { queries += [tr.time - 1, tr.time, tr.time + 1] }
        for _ in 0..<300 { queries.append(uniformIn(-5 * .minute, .hour + 10 * .minute, &rng)) }
        for q in queries {
            let expected = s.firstTransition(after: q)
            var hints = [-5, 0, 1, n - 1, n, n + 3, expected, expected - 1, expected + 1]
            for _ in 0..<8 { hints.append(Int(rng.below(UInt64(n + 1)))) }
            for h in hints { #expect(s.firstTransition(after: q, near: h) == expected, "query \(q) hint \(h)") }
        }
    }

    @Test func chainsDependOnlyOnSeedAndPosition() {
        let a = StoreSchedule(positions: 3, shelfLife: seedsShelfLife, resolution: .second, start: .zero,
                              end: at(.hour), epochUnix: Self.epoch, seed: 21)
        let b = StoreSchedule(positions: 8, shelfLife: seedsShelfLife, resolution: .second, start: .zero,
                              end: at(.hour), epochUnix: Self.epoch, seed: 21)
        let again = StoreSchedule(positions: 3, shelfLife: seedsShelfLife, resolution: .second, start: .zero,
                                  end: at(.hour), epochUnix: Self.epoch, seed: 21)
        let other = StoreSchedule(positions: 3, shelfLife: seedsShelfLife, resolution: .second, start: .zero,
                                  end: at(.hour), epochUnix: Self.epoch, seed: 22)
        #expect(Array(b.bounds.prefix(3)) == a.bounds)
        #expect(again.bounds == a.bounds)
        #expect(again.transitions == a.transitions)
        #expect(other.bounds != a.bounds)
        // A longer run extends the same chains.
        let longer = StoreSchedule(positions: 3, shelfLife: seedsShelfLife, resolution: .second, start: .zero,
                                   end: at(2 * .hour), epochUnix: Self.epoch, seed: 21)
        for p in 0..<3 { #expect(Array(longer.bounds[p].prefix(a.bounds[p].count)) == a.bounds[p]) }
    }

    /// A shard's own copy has the same items in buffers not shared with the original.
    @Test func ownCopyIsEqualButUnshared() {
        let s = StoreSchedule(positions: 3, shelfLife: .uniform(min: 45e9, max: 240e9), resolution: .second, start: .zero,
                              end: SimTime(ns: 2 * .hour), epochUnix: 1_328_724_000_371_000_000, seed: 7)
        let copy = s.ownCopy()
        #expect(copy.bounds == s.bounds)
        #expect(copy.transitions.map(\.time) == s.transitions.map(\.time))
        #expect(copy.transitions.map(\.position) == s.transitions.map(\.position))
        let a = s.transitions.withUnsafeBufferPointer { $0.baseAddress }
        let b = copy.transitions.withUnsafeBufferPointer { $0.baseAddress }
        #expect(a != b)
    }
}
