import SyncLabKernel

/// A server's workers and their FIFO queue: `workers` requests served at once (nil: as many as
/// arrive, the v1.1.5 model), the rest waiting in arrival order.
///
/// Requests are offered in nondecreasing arrival time, as the event loop delivers them. Under
/// FIFO a request's start is known the moment it arrives — the instant the earliest worker is
/// free (the Kiefer–Wolfowitz recursion) — so the pool needs no events of its own and can be
/// tested alone. A request that finds `queueLimit` requests waiting, or would wait longer than
/// its patience, is turned away and takes no worker, so later requests are unaffected by it.
///
/// Cost: O(log c + log q) per request for c workers and q waiting.
public struct WorkerPool: Sendable {
    public enum Admission: Equatable, Sendable {
        /// Served: starts at `start`, the response leaves at `done`; `queued` requests (this one
        /// included, when it waits) were waiting just after it arrived.
        case served(start: SimTime, done: SimTime, queued: Int)
        /// `queueLimit` requests were already waiting.
        case queueFull
        /// It would have waited longer than its patience; it gives up at `at`.
        case gaveUp(at: SimTime)
    }

    public let workers: Int?
    public let queueLimit: Int?
    /// When each worker is next free, a min-heap (finite pools only).
    var freeAt: [Int64]
    /// Start instants of admitted requests not yet started, a min-heap: the queue.
    var waiting: [Int64] = []
    var lastArrival = Int64.min

    public init(workers: Int?, queueLimit: Int? = nil) {
        precondition(workers.map { $0 > 0 } ?? true, "a pool needs at least one worker")
        self.workers = workers
        self.queueLimit = queueLimit
        freeAt = [Int64](repeating: .min, count: workers ?? 0)
    }

    /// Requests waiting at true time t (after those due to start by t have started).
    public mutating func queueLength(at t: SimTime) -> Int {
        while let first = waiting.first, first <= t.ns { Self.popMin(&waiting) }
        return waiting.count
    }

    /// Offers a request arriving at t that needs `service` of a worker.
    public mutating func admit(at t: SimTime, service: Nanoseconds, patience: Nanoseconds? = nil) -> Admission {
        precondition(t.ns >= lastArrival, "requests must arrive in time order")
        lastArrival = t.ns
        guard workers != nil else { return .served(start: t, done: t + service, queued: 0) }
        let queued = queueLength(at: t)
        let start = max(t.ns, freeAt[0])
        // Only a request that would wait needs a place in the queue.
        if let limit = queueLimit, start > t.ns, queued >= limit { return .queueFull }
        if let patience, start &- t.ns > patience { return .gaveUp(at: t + patience) }
        freeAt[0] = start &+ service
        Self.siftDown(&freeAt, 0)
        if start > t.ns { Self.push(&waiting, start) }
        return .served(start: SimTime(ns: start), done: SimTime(ns: start &+ service), queued: waiting.count)
    }

    // A plain binary min-heap on Int64 (ties need no order: equal values are interchangeable).
    static func push(_ h: inout [Int64], _ v: Int64) {
        h.append(v)
        var i = h.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard h[i] < h[parent] else { break }
            h.swapAt(i, parent)
            i = parent
        }
    }

    static func popMin(_ h: inout [Int64]) {
        let last = h.removeLast()
        guard !h.isEmpty else { return }
        h[0] = last
        siftDown(&h, 0)
    }

    static func siftDown(_ h: inout [Int64], _ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < h.count && h[l] < h[m] { m = l }
            if r < h.count && h[r] < h[m] { m = r }
            if m == i { return }
            h.swapAt(i, m)
            i = m
        }
    }
}
