import Synchronization
import Testing
@testable import SyncLab

/// Work shared out over the cores comes back whole and in order, however it is cut into blocks
/// (more blocks than items, blocks that do not divide the items, one item, none) and on however
/// many threads, and never runs on more threads than it was given.
@Suite struct ConcurrentMapTests {
    @Test func everyIndexOnceInOrder() {
        for count in [0, 1, 2, 10, 8_193] {
            for blocks in [nil, 1, 3, 8, 16, 64] as [Int?] {
                for threads in [nil, 1, 2, 3] as [Int?] {
                    #expect(concurrentMap(count, blocks: blocks, threads: threads) { $0 * $0 } == (0..<count).map { $0 * $0 })
                }
            }
        }
    }

    @Test func neverMoreThreadsThanGiven() {
        for threads in [1, 2] {
            let running = Atomic<Int>(0), most = Atomic<Int>(0)
            let got = concurrentMap(200, threads: threads) { k -> Int in
                let now = running.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
                var seen = most.load(ordering: .sequentiallyConsistent)
                while now > seen {
                    let (exchanged, original) = most.compareExchange(expected: seen, desired: now, ordering: .sequentiallyConsistent)
                    if exchanged { break }
                    seen = original
                }
                var x = UInt64(k)   // a little work, so that items overlap when they may
                for _ in 0..<20_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                return k + Int(x & 0)
            }
            #expect(got == Array(0..<200))
            #expect(most.load(ordering: .sequentiallyConsistent) <= threads, "\(threads) threads")
        }
    }
}
