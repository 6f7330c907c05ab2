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
