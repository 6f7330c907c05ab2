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
    /// When each worker is next free, one instant per worker (finite pools only). The kernel's
    /// heap orders equal instants by when they were set; here any of them would do.
    var freeAt: BinaryHeapQueue<Void>
    /// Start instants of admitted requests not yet started: the queue.
    var waiting = BinaryHeapQueue<Void>()
    var lastArrival = Int64.min

    public init(workers: Int?, queueLimit: Int? = nil) {
        precondition(workers.map { $0 > 0 } ?? true, "a pool needs at least one worker")
        self.workers = workers
        self.queueLimit = queueLimit
        freeAt = BinaryHeapQueue(capacity: workers ?? 0)
        for _ in 0..<(workers ?? 0) { freeAt.schedule((), at: SimTime(ns: .min)) }
    }

    /// Requests waiting at true time t (after those due to start by t have started).
    public mutating func queueLength(at t: SimTime) -> Int {
        while let first = waiting.nextTime, first <= t { _ = waiting.pop() }
        return waiting.count
    }

    /// Offers a request arriving at t that needs `service` of a worker.
    public mutating func admit(at t: SimTime, service: Nanoseconds, patience: Nanoseconds? = nil) -> Admission {
        precondition(t.ns >= lastArrival, "requests must arrive in time order")
        lastArrival = t.ns
        guard workers != nil else { return .served(start: t, done: t + service, queued: 0) }
        let queued = queueLength(at: t)
        let start = max(t.ns, freeAt.nextTime!.ns)
        // Only a request that would wait needs a place in the queue.
        if let limit = queueLimit, start > t.ns, queued >= limit { return .queueFull }
        if let patience, start &- t.ns > patience { return .gaveUp(at: t + patience) }
        freeAt.replaceFirst(with: (), at: SimTime(ns: start &+ service))
        if start > t.ns { waiting.schedule((), at: SimTime(ns: start)) }
        return .served(start: SimTime(ns: start), done: SimTime(ns: start &+ service), queued: waiting.count)
    }
}
