import Foundation
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
            let running = Running()
            let got = concurrentMap(200, threads: threads) { k -> Int in
                running.enter()
                var x = UInt64(k)   // a little work, so that items overlap when they may
                for _ in 0..<20_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                running.leave()
                return k + Int(x & 0)
            }
            #expect(got == Array(0..<200))
            #expect(running.most <= threads, "\(threads) threads")
        }
    }
}

/// How many items run at once, and the most that ever did.
private final class Running: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0
    private(set) var most = 0

    func enter() {
        lock.lock(); defer { lock.unlock() }
        now += 1
        most = max(most, now)
    }

    func leave() { lock.lock(); now -= 1; lock.unlock() }
}
