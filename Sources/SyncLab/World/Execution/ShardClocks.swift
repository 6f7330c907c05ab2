import Foundation
import Synchronization

/// One atomic clock per shard, each on its own cache line: a shard writes its own after every
/// event and other threads read it only when they wait.
@available(macOS 15.0, iOS 18.0, *)
final class AtomicShardClocks: ShardClocks, @unchecked Sendable {
    private final class Line: Sendable {
        let value = Atomic<Int64>(.min)
        // The rest of a 128-byte pair of lines, so two shards' clocks never share one.
        private let padding: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64)
            = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }
    private let lines: [Line]

    init(_ count: Int) { lines = (0..<count).map { _ in Line() } }

    func load(_ k: Int) -> Int64 { lines[k].value.load(ordering: .acquiring) }
    func store(_ k: Int, _ value: Int64) { lines[k].value.store(value, ordering: .releasing) }
}

/// The same behind a lock, for systems without the standard library's atomics.
final class LockedShardClocks: ShardClocks, @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int64]

    init(_ count: Int) { values = [Int64](repeating: .min, count: count) }

    func load(_ k: Int) -> Int64 {
        lock.lock(); defer { lock.unlock() }
        return values[k]
    }

    func store(_ k: Int, _ value: Int64) {
        lock.lock(); values[k] = value; lock.unlock()
    }
}

/// The fleet's lock: held for a few hundred nanoseconds at a time (a post, a trade), by shards
/// that each have a core. A lock that puts a waiter to sleep costs a system call to wake it (the
/// wake-ups alone were 2.7% of the profile of a million players' day on two threads); this one
/// spins, and yields its core only after a while, for when there are more threads than cores
/// (tests run in parallel).
protocol FleetLock: AnyObject, Sendable {
    func lock()
    func unlock()
}

@available(macOS 15.0, iOS 18.0, *)
final class SpinningFleetLock: FleetLock, @unchecked Sendable {
    private let held = Atomic<Bool>(false)

    func lock() {
        var spins = 0
        while held.load(ordering: .relaxed)
                || !held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            spins += 1
            if spins > 128 { sched_yield() }
        }
    }

    func unlock() { held.store(false, ordering: .releasing) }
}

extension NSLock: FleetLock {}

func makeFleetLock() -> any FleetLock {
    if #available(macOS 15.0, iOS 18.0, *) { return SpinningFleetLock() }
    return NSLock()
}
