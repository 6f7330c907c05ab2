import Foundation
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

/// The pool against a brute-force FIFO c-server queue written here: the Kiefer–Wolfowitz
/// recursion (J. Kiefer and J. Wolfowitz, "On the theory of queues with many servers", Trans.
/// AMS 78, 1955) kept as each server's next free instant, the vector sorted afresh for every
/// request, which takes the earliest; the queue's length counted over every start so far. Random
/// arrivals (Poisson, a fifth of them in bursts at one instant) and exponential service at loads
/// from light to overloaded, with and without a queue limit and patience.
@Suite struct WorkerPoolKieferWolfowitzTests {
    struct Request { var at: Int64; var service: Int64; var patience: Int64? }

    /// What each request gets from a FIFO queue of `workers` servers, worked out by brute force.
    static func bruteForce(_ requests: [Request], workers: Int, queueLimit: Int?) -> [WorkerPool.Admission] {
        var free = [Int64](repeating: .min, count: workers)
        var starts: [Int64] = []
        var out: [WorkerPool.Admission] = []
        for r in requests {
            free.sort()
            let start = max(r.at, free[0])
            let waiting = starts.filter { $0 > r.at }.count
            if let limit = queueLimit, start > r.at, waiting >= limit { out.append(.queueFull); continue }
            if let patience = r.patience, start - r.at > patience { out.append(.gaveUp(at: SimTime(ns: r.at + patience))); continue }
            free[0] = start + r.service
            starts.append(start)
            out.append(.served(start: SimTime(ns: start), done: SimTime(ns: start + r.service),
                               queued: waiting + (start > r.at ? 1 : 0)))
        }
        return out
    }

    /// `count` requests to `workers` workers at offered load `load` (arrival rate × mean service
    /// ÷ workers), service times with a mean of 1 s.
    static func requests(seed: UInt64, count: Int, workers: Int, load: Double, patient: Bool) -> [Request] {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("worker-pool-kw"))
        func exponential(mean: Double) -> Int64 { Int64((-mean * Foundation.log(1 - rng.unit())).rounded()) }
        let meanService = 1e9, meanGap = meanService / (load * Double(workers))
        var t: Int64 = 0
        return (0..<count).map { _ in
            if !rng.bernoulli(0.2) { t += exponential(mean: meanGap) }
            let patience = patient ? exponential(mean: 2 * meanService) : nil
            return Request(at: t, service: exponential(mean: meanService), patience: patience)
        }
    }

    @Test(arguments: [(1, 0.5), (3, 0.9), (8, 0.95), (4, 1.3)])
    func startsAreTheBruteForceQueues(workers: Int, load: Double) {
        for (queueLimit, patient) in [(nil, false), (5, false), (nil, true), (3, true)] as [(Int?, Bool)] {
            let requests = Self.requests(seed: UInt64(workers), count: 3_000, workers: workers, load: load, patient: patient)
            var pool = WorkerPool(workers: workers, queueLimit: queueLimit)
            let got = requests.map { pool.admit(at: SimTime(ns: $0.at), service: $0.service, patience: $0.patience) }
            let expected = Self.bruteForce(requests, workers: workers, queueLimit: queueLimit)
            let label = "\(workers) workers, load \(load), limit \(queueLimit.map(String.init) ?? "none"), patient \(patient)"
            #expect(got == expected, "\(label)")
            // The walk reached the cases it is about: requests waited, and were turned away where
            // the queue is bounded or impatient.
            let waited = got.filter { if case .served(_, _, let queued) = $0 { queued > 0 } else { false } }.count
            let turnedAway = got.filter { if case .served = $0 { false } else { true } }.count
            #expect(waited > 30, "\(label)")
            #expect((turnedAway > 0) == (queueLimit != nil || patient), "\(label)")
        }
    }
}
