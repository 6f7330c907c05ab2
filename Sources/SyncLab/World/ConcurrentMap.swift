import Dispatch
import Foundation

/// body(0), …, body(count − 1) worked out on up to `threads` threads (every core when nil), in
/// `blocks` runs of consecutive indices (one index each when nil), and returned in order. For
/// work whose items read only their own inputs, so the result is the same on any number of
/// threads: shards built at once, the model audit's rows, a quantile table's grid, the show
/// summaries' rows. A run passes the threads it was given, so a run on one thread stays on one
/// (a library run is most often one of many tests already running in parallel, one per core).
func concurrentMap<T>(_ count: Int, blocks: Int? = nil, threads: Int? = nil, _ body: @Sendable (Int) -> T) -> [T] {
    let blocks = min(count, max(1, blocks ?? count)), perBlock = blocks > 0 ? (count + blocks - 1) / blocks : 0
    let workers = min(blocks, max(1, threads ?? blocks))
    guard count > 1, workers > 1 else { return (0..<count).map(body) }
    return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        nonisolated(unsafe) let slots = buffer
        // Each worker takes the next block not yet taken: blocks of unequal cost (a cellular
        // link's Monte Carlo beside a fixed line's) still keep every worker busy. A lock, not an
        // atomic: the standard library's atomics need macOS 15, and a block is far longer than it.
        let taken = BlockCounter()
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let b = taken.next()
                guard b < blocks else { return }
                for k in min(count, b * perBlock)..<min(count, (b + 1) * perBlock) {
                    (slots.baseAddress! + k).initialize(to: body(k))
                }
            }
        }
        initialized = count
    }
}

/// The next block to take, for `concurrentMap`'s workers.
private final class BlockCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = 0

    func next() -> Int {
        lock.lock(); defer { lock.unlock() }
        taken += 1
        return taken - 1
    }
}
