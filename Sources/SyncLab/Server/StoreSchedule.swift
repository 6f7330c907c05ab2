import SyncLabKernel

/// The truth: which item each shelf position shows at every instant.
///
/// From the seeds (v1.1.5): a cron job "went through each position and randomly chose an item
/// along with a random shelf life between 45 seconds and 4 minutes", every minute, keeping 10
/// minutes of items ahead. Each position's chain of items is drawn from its own stream, so the
/// chain does not depend on when the cron happens to extend it; the cron (see `StoreServer`)
/// decides when each item becomes *known*. Item times are whole server seconds (PHP `time()`),
/// or whatever `resolution` the scenario sets.
public struct StoreSchedule: Sendable {
    /// One item change on one position: the old item ends and the next begins at `time`.
    public struct Transition: Sendable, Equatable {
        /// Server time of the change, ns since the epoch (true time when the server clock is exact).
        public var time: Int64
        public var position: Int32
        /// Index of the item that begins, within its position's chain.
        public var item: Int32
    }

    public let positions: Int
    /// Per position, the item boundaries in ascending order: item k runs [bounds[k], bounds[k+1]).
    public private(set) var bounds: [[Int64]]
    /// Every boundary except each chain's first, sorted by (time, position).
    public private(set) var transitions: [Transition]

    /// Draws each position's chain from before `start` until past `end`.
    public init(positions: Int, shelfLife: Distribution, resolution: Nanoseconds, start: SimTime,
                end: SimTime, epochUnix: Int64, seed: UInt64) {
        self.positions = positions
        var bounds: [[Int64]] = []
        var transitions: [Transition] = []
        for p in 0..<positions {
            var rng = RandomStream(seed: seed, purpose: StreamPurpose("shelf-life"), entity: UInt64(p))
            func life() -> Int64 { max(resolution, floorTo(shelfLife.sampleDuration(&rng), resolution)) }
            // The chain starts with an item already on the shelf, begun part of a life ago, with
            // boundaries on whole server seconds (resolution steps of unix time).
            let first = life()
            let back = Int64(rng.below(UInt64(first / resolution))) &* resolution
            var t = floorTo(epochUnix &+ start.ns, resolution) &- epochUnix &- back
            var chain: [Int64] = [t]
            t &+= first
            var item: Int32 = 1
            while true {
                chain.append(t)
                transitions.append(Transition(time: t, position: Int32(p), item: item))
                if t > end.ns { break }
                t &+= life()
                item += 1
            }
            bounds.append(chain)
        }
        transitions.sort { $0.time != $1.time ? $0.time < $1.time : $0.position < $1.position }
        self.bounds = bounds
        self.transitions = transitions
    }

    /// A schedule from given chains, each ascending (the original plan's, `DatabasePlan`).
    init(positions: Int, bounds: [[Int64]]) {
        self.positions = positions
        self.bounds = bounds
        var transitions: [Transition] = []
        for (p, chain) in bounds.enumerated() {
            for k in chain.indices.dropFirst() {
                transitions.append(Transition(time: chain[k], position: Int32(p), item: Int32(k)))
            }
        }
        transitions.sort { $0.time != $1.time ? $0.time < $1.time : $0.position < $1.position }
        self.transitions = transitions
    }

    /// The same schedule in buffers of its own. Shards running on different cores each read the
    /// schedule millions of times; sharing one buffer makes every retain of it write the same
    /// cache line from both cores, which stalls both.
    public func ownCopy() -> StoreSchedule {
        var copy = self
        copy.bounds = bounds.map { $0.map { $0 } }
        copy.transitions = transitions.map { $0 }
        return copy
    }

    /// Index of the first transition strictly after server time `s`.
    public func firstTransition(after s: Int64) -> Int {
        var lo = 0, hi = transitions.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if transitions[mid].time <= s { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The same index, searched outward from `hint` (galloping, then binary): O(log distance),
    /// for callers that know an index near the answer.
    public func firstTransition(after s: Int64, near hint: Int) -> Int {
        let n = transitions.count
        var lo: Int, hi: Int   // the answer lies in [lo, hi]
        let h = Swift.min(Swift.max(hint, 0), n)
        if h < n && transitions[h].time <= s {
            // The answer is after h: gallop up.
            lo = h + 1
            var step = 1
            hi = h + step
            while hi < n && transitions[hi].time <= s { lo = hi + 1; step &<<= 1; hi = h + step }
            hi = Swift.min(hi, n)
        } else {
            // The answer is h or before: gallop down.
            hi = h
            var step = 1
            lo = h - step
            while lo >= 0 && transitions[lo].time > s { hi = lo; step &<<= 1; lo = h - step }
            lo = Swift.max(lo + 1, 0)
            if lo > hi { lo = hi }
        }
        while lo < hi {
            let mid = (lo + hi) >> 1
            if transitions[mid].time <= s { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Index, in its position's chain, of the item showing at server time `s`.
    public func item(at s: Int64, position p: Int) -> Int {
        let chain = bounds[p]
        var lo = 0, hi = chain.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if chain[mid] <= s { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }
}
