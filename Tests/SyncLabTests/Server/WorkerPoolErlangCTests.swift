import Testing
@testable import SyncLab
import SyncLabKernel

/// The worker pool as an M/M/c queue against Erlang C: Poisson arrivals at rate λ, exponential
/// service at rate μ, c workers, FIFO.
///
/// With offered load a = λ/μ and utilisation ρ = a/c < 1, the chance an arrival waits is
/// C(c, a) = (aᶜ/c! · c/(c − a)) / (Σ_{k<c} aᵏ/k! + aᶜ/c! · c/(c − a)), the mean wait in queue is
/// W_q = C/(cμ − λ), and Little's law gives the mean number waiting L_q = λ·W_q. The number
/// waiting is measured apart from the waits: by PASTA (Poisson arrivals see time averages) the
/// mean queue an arrival finds is L_q.
@Suite struct WorkerPoolErlangCTests {
    /// C(c, a) from its definition.
    static func erlangC(workers c: Int, load a: Double) -> Double {
        var term = 1.0, sum = 0.0
        for k in 0..<c {
            sum += term
            term *= a / Double(k + 1)
        }
        let top = term * Double(c) / (Double(c) - a)   // aᶜ/c! · c/(c − a)
        return top / (sum + top)
    }

    /// c = 4 workers, μ = 10/s (mean service 100 ms), λ = 30/s: a = 3, ρ = 0.75, so
    /// Σ_{k<4} 3ᵏ/k! = 13, 3⁴/4! · 4/1 = 13.5, C = 13.5/26.5 = 0.50943, W_q = C/10 s = 50.94 ms,
    /// L_q = 1.5283.
    ///
    /// Tolerances: 400,000 arrivals after 20,000 of warm-up, cut into 40 batches of 10,000; the
    /// standard error of each figure is the spread of its 40 batch means over √40 (batches of
    /// 10,000 arrivals are hundreds of times longer than the queue's relaxation time at ρ = 0.75,
    /// so their means are close to independent). Each figure must lie within 5 of those
    /// standard errors of the closed form (1–2% of the value here); the seed is fixed.
    @Test func waitsMatchErlangCAndLittlesLaw() {
        let c = 4, lambda = 30.0, mu = 10.0
        let expectedC = Self.erlangC(workers: c, load: lambda / mu)
        #expect(abs(expectedC - 13.5 / 26.5) < 1e-12)
        let expectedWait = expectedC / (Double(c) * mu - lambda)   // seconds
        let expectedQueue = lambda * expectedWait

        var pool = WorkerPool(workers: c)
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("erlang-c"))
        let warmUp = 20_000, batches = 40, perBatch = 10_000
        var t = 0.0
        var waitedShare: [Double] = [], meanWait: [Double] = [], meanQueue: [Double] = []
        for b in -1..<batches {
            let count = b < 0 ? warmUp : perBatch
            var waited = 0, waitSum = 0.0, queueSum = 0
            for _ in 0..<count {
                t += -lnOf(rng.unitOpenBelow()) / lambda
                let service = -lnOf(rng.unitOpenBelow()) / mu
                let arrival = SimTime(ns: Int64(t * 1e9))
                guard case .served(let start, _, let queued) = pool.admit(at: arrival, service: Int64(service * 1e9)) else {
                    Issue.record("an unlimited queue refused a request")
                    return
                }
                let wait = Double(start.ns - arrival.ns) / 1e9
                if wait > 0 { waited += 1 }
                waitSum += wait
                queueSum += queued - (wait > 0 ? 1 : 0)   // the queue found on arrival
            }
            guard b >= 0 else { continue }
            waitedShare.append(Double(waited) / Double(count))
            meanWait.append(waitSum / Double(count))
            meanQueue.append(Double(queueSum) / Double(count))
        }
        for (name, xs, expected) in [("P(wait > 0)", waitedShare, expectedC), ("W_q", meanWait, expectedWait),
                                     ("L_q", meanQueue, expectedQueue)] {
            let m = xs.reduce(0, +) / Double(xs.count)
            let sd = (xs.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(xs.count - 1)).squareRoot()
            let se = sd / Double(xs.count).squareRoot()
            #expect(abs(m - expected) < 5 * se, "\(name): \(m) vs \(expected) ± \(se)")
            #expect(se < 0.05 * expected, "\(name): standard error \(se) too wide to test")
        }
    }
}

/// ln x by the kernel's deterministic log.
private func lnOf(_ x: Double) -> Double { DeterministicMath.log(x) }
