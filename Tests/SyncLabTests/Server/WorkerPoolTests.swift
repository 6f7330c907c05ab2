import Testing
@testable import SyncLab
import SyncLabKernel

/// The FIFO worker pool on hand-worked arrivals (times in plain nanoseconds for readability).
@Suite struct WorkerPoolTests {
    static func t(_ ns: Int64) -> SimTime { SimTime(ns: ns) }

    @Test func unlimitedWorkersNeverQueue() {
        var pool = WorkerPool(workers: nil)
        for k in 0..<5 {
            #expect(pool.admit(at: Self.t(10), service: Int64(k + 1)) == .served(start: Self.t(10), done: Self.t(11 + Int64(k)), queued: 0))
        }
    }

    /// One worker: each request starts when the previous one is done; the queue holds those not
    /// yet started, and drains as their start instants pass.
    @Test func oneWorkerServesInArrivalOrder() {
        var pool = WorkerPool(workers: 1)
        #expect(pool.admit(at: Self.t(0), service: 10) == .served(start: Self.t(0), done: Self.t(10), queued: 0))
        #expect(pool.admit(at: Self.t(2), service: 5) == .served(start: Self.t(10), done: Self.t(15), queued: 1))
        #expect(pool.admit(at: Self.t(3), service: 1) == .served(start: Self.t(15), done: Self.t(16), queued: 2))
        // At 12 the request due at 10 has started; the one due at 15 still waits, plus this one.
        #expect(pool.admit(at: Self.t(12), service: 4) == .served(start: Self.t(16), done: Self.t(20), queued: 2))
        #expect(pool.queueLength(at: Self.t(16)) == 0)
        #expect(pool.admit(at: Self.t(30), service: 1) == .served(start: Self.t(30), done: Self.t(31), queued: 0))
    }

    /// Two workers: a request takes whichever worker is free first.
    @Test func twoWorkersTakeTheEarliestFree() {
        var pool = WorkerPool(workers: 2)
        #expect(pool.admit(at: Self.t(0), service: 10) == .served(start: Self.t(0), done: Self.t(10), queued: 0))
        #expect(pool.admit(at: Self.t(0), service: 12) == .served(start: Self.t(0), done: Self.t(12), queued: 0))
        #expect(pool.admit(at: Self.t(1), service: 3) == .served(start: Self.t(10), done: Self.t(13), queued: 1))
        #expect(pool.admit(at: Self.t(2), service: 1) == .served(start: Self.t(12), done: Self.t(13), queued: 2))
        #expect(pool.admit(at: Self.t(2), service: 1) == .served(start: Self.t(13), done: Self.t(14), queued: 3))
    }

    /// A full queue turns a request away, and it takes no worker.
    @Test func queueLimitRefusesWithoutTakingAWorker() {
        var pool = WorkerPool(workers: 1, queueLimit: 1)
        #expect(pool.admit(at: Self.t(0), service: 10) == .served(start: Self.t(0), done: Self.t(10), queued: 0))
        #expect(pool.admit(at: Self.t(1), service: 10) == .served(start: Self.t(10), done: Self.t(20), queued: 1))
        #expect(pool.admit(at: Self.t(2), service: 10) == .queueFull)
        // At 11 the waiting one has started: room again, behind it.
        #expect(pool.admit(at: Self.t(11), service: 1) == .served(start: Self.t(20), done: Self.t(21), queued: 1))
        // A limit of zero: served while a worker is free, refused as soon as one would wait.
        var strict = WorkerPool(workers: 1, queueLimit: 0)
        #expect(strict.admit(at: Self.t(0), service: 10) == .served(start: Self.t(0), done: Self.t(10), queued: 0))
        #expect(strict.admit(at: Self.t(5), service: 10) == .queueFull)
        #expect(strict.admit(at: Self.t(10), service: 10) == .served(start: Self.t(10), done: Self.t(20), queued: 0))
    }

    /// A request that would wait past its patience gives up then, and later ones do not wait for it.
    @Test func impatientRequestsGiveUpWithoutTakingAWorker() {
        var pool = WorkerPool(workers: 1)
        #expect(pool.admit(at: Self.t(0), service: 10, patience: 5) == .served(start: Self.t(0), done: Self.t(10), queued: 0))
        #expect(pool.admit(at: Self.t(1), service: 10, patience: 5) == .gaveUp(at: Self.t(6)))
        #expect(pool.admit(at: Self.t(2), service: 10, patience: 8) == .served(start: Self.t(10), done: Self.t(20), queued: 1))
        // A wait of exactly the patience is served.
        #expect(pool.admit(at: Self.t(15), service: 1, patience: 5) == .served(start: Self.t(20), done: Self.t(21), queued: 1))
    }
}
