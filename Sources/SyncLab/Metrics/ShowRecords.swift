import Dispatch
import SyncLabKernel

/// The show offsets of every transition (one per player who showed it), the largest record a run
/// keeps: about 70 million values for a day of a million players.
///
/// Values go into fixed-size chunks from pages of one pool, chained per transition, so nothing
/// is ever reallocated (per-transition arrays grew by doubling, up to twice the memory, and
/// copied again when shards merged). Merging another shard's records keeps its pool and chains
/// it behind this one's, without copying. A transition's offsets are gathered into one array
/// only when its row is measured. The pool is a reference: the recorder that owns it is its only
/// writer, as with `ErrorBank`.
struct ShowRecords {
    /// This recorder's own pool (the one appended to: held on its own, reaching it through the
    /// array cost a reference count per show), then each merged shard's pools in order.
    private var own: ShowPool
    private var merged: [ShowPool] = []
    var pools: [ShowPool] { [own] + merged }

    init(transitions: Int) { own = ShowPool(transitions: transitions) }

    @inline(__always) func append(_ offset: Int64, to transition: Int) { own.append(offset, to: transition) }

    mutating func merge(_ other: ShowRecords) { merged += other.pools }

    /// Gives these records a pool of their own to append to when a copy shares it (a copied
    /// world about to run). The merged pools are only read.
    mutating func ensureUniquePool() {
        if !isKnownUniquelyReferenced(&own) { own = own.copy() }
    }

    func isEmpty(_ transition: Int) -> Bool {
        own.count(transition) == 0 && merged.allSatisfy { $0.count(transition) == 0 }
    }

    /// Every offset of `transition`, this recorder's first, then each merged shard's in order.
    func offsets(_ transition: Int) -> [Int64] {
        var all: [Int64] = []
        all.reserveCapacity(merged.reduce(own.count(transition)) { $0 + $1.count(transition) })
        own.collect(transition, into: &all)
        for pool in merged { pool.collect(transition, into: &all) }
        return all
    }

    /// One row per transition inside [0, duration) that someone showed, in transition order, and
    /// the number nobody showed. Rows are measured on all cores (a day of a million players sorts
    /// about 90 million offsets); each row depends only on its own offsets, so the result is the
    /// same for any number of threads.
    func rows(_ transitions: [StoreSchedule.Transition], duration: Int64, window: Int64) -> (rows: [TransitionRow], unviewed: Int) {
        let inWindow = transitions.indices.filter { transitions[$0].time >= 0 && transitions[$0].time < duration }
        let shownIndices = inWindow.filter { !isEmpty($0) }
        let measured = UnsafeMutableBufferPointer<TransitionRow>.allocate(capacity: shownIndices.count)
        defer { measured.deallocate() }
        let blocks = Swift.min(64, Swift.max(1, shownIndices.count / 64))
        nonisolated(unsafe) let out = measured
        DispatchQueue.concurrentPerform(iterations: blocks) { b in
            for k in stride(from: b, to: shownIndices.count, by: blocks) {
                let i = shownIndices[k], tr = transitions[i]
                (out.baseAddress! + k).initialize(to: .measure(time: tr.time, position: Int(tr.position),
                                                              offsets: offsets(i), window: window))
            }
        }
        let rows = Array(measured)
        measured.baseAddress?.deinitialize(count: shownIndices.count)
        return (rows, inWindow.count - shownIndices.count)
    }

    /// Bytes held (for the memory estimate).
    var bytes: Int { merged.reduce(own.bytes) { $0 + $1.bytes } }
}

final class ShowPool: @unchecked Sendable {
    /// Values per chunk; the chunk's last slot links to the next chunk of the same transition.
    static let values = 15
    static let chunkSlots = 16
    static let pageShift = 13                     // 8,192 chunks (1 MiB) per page
    // One writer (the recorder that owns the pool): no dynamic exclusivity checks, which cost
    // more than the appends themselves.
    @exclusivity(unchecked) private var pages: [UnsafeMutablePointer<Int64>] = []
    @exclusivity(unchecked) private var chunks = 0
    @exclusivity(unchecked) private var tail: [Int32]
    @exclusivity(unchecked) private var head: [Int32]
    @exclusivity(unchecked) private var counts: [Int32]

    init(transitions: Int) {
        tail = [Int32](repeating: -1, count: transitions)
        head = tail
        counts = [Int32](repeating: 0, count: transitions)
    }

    deinit { for page in pages { page.deallocate() } }

    /// An independent pool with the same contents.
    func copy() -> ShowPool {
        let other = ShowPool(transitions: counts.count)
        let pageSlots = ShowPool.chunkSlots << ShowPool.pageShift
        other.pages = pages.map { page in
            let p = UnsafeMutablePointer<Int64>.allocate(capacity: pageSlots)
            p.update(from: page, count: pageSlots)
            return p
        }
        other.chunks = chunks
        other.tail = tail
        other.head = head
        other.counts = counts
        return other
    }

    var bytes: Int { pages.count << (ShowPool.pageShift + 7) + 12 * counts.count }

    func count(_ transition: Int) -> Int { Int(counts[transition]) }

    @inline(__always) private func chunk(_ c: Int) -> UnsafeMutablePointer<Int64> {
        pages[c >> ShowPool.pageShift] + (c & ((1 << ShowPool.pageShift) - 1)) * ShowPool.chunkSlots
    }

    @inline(__always) func append(_ offset: Int64, to i: Int) {
        let n = Int(counts[i])
        let slot = n % ShowPool.values
        if slot == 0 {
            if chunks >> ShowPool.pageShift == pages.count {
                pages.append(.allocate(capacity: ShowPool.chunkSlots << ShowPool.pageShift))
            }
            let c = chunks
            chunks += 1
            if n == 0 { head[i] = Int32(c) } else { chunk(Int(tail[i]))[ShowPool.values] = Int64(c) }
            tail[i] = Int32(c)
        }
        chunk(Int(tail[i]))[slot] = offset
        counts[i] = Int32(n + 1)
    }

    func collect(_ i: Int, into all: inout [Int64]) {
        var left = Int(counts[i])
        var c = Int(head[i])
        while left > 0 {
            let p = chunk(c)
            let k = min(left, ShowPool.values)
            all.append(contentsOf: UnsafeBufferPointer(start: p, count: k))
            left -= k
            if left > 0 { c = Int(p[ShowPool.values]) }
        }
    }
}
