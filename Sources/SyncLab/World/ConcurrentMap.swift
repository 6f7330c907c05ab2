import Dispatch

/// body(0), …, body(count − 1) worked out on every core, in `blocks` runs of consecutive
/// indices (one index each when nil), and returned in order. For work whose items read only
/// their own inputs, so the result is the same on any number of cores: shards built at once,
/// the model audit's rows, a quantile table's grid, the show summaries' rows.
func concurrentMap<T>(_ count: Int, blocks: Int? = nil, _ body: @Sendable (Int) -> T) -> [T] {
    guard count > 1 else { return (0..<count).map(body) }
    let blocks = min(count, max(1, blocks ?? count)), perBlock = (count + blocks - 1) / blocks
    return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        nonisolated(unsafe) let slots = buffer
        DispatchQueue.concurrentPerform(iterations: blocks) { b in
            for k in min(count, b * perBlock)..<min(count, (b + 1) * perBlock) {
                (slots.baseAddress! + k).initialize(to: body(k))
            }
        }
        initialized = count
    }
}
