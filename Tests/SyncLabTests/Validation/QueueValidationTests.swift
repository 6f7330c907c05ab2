import Testing
@testable import SyncLab
import SyncLabKernel

/// The server's worker pool checked against queueing theory (issue 6): Poisson arrivals from a
/// seeded stream, FIFO, c workers.
///
/// - M/M/c: the mean wait in queue is Wq = C(c, a) / (cμ − λ), with a = λ/μ and Erlang's C
///   formula C(c, a) = [aᶜ/c! · 1/(1−ρ)] / [Σₖ₌₀^{c−1} aᵏ/k! + aᶜ/c! · 1/(1−ρ)], ρ = a/c.
/// - M/D/1: Pollaczek–Khinchine with constant service D = 1/μ: Wq = ρ / (2μ(1 − ρ)).
///
/// Tolerance, by batch means: successive waits are strongly correlated near saturation, so the
/// sample variance of single waits would understate the error. The run (after a warm-up of
/// 20,000 requests, discarded so the empty start does not bias the mean) is cut into B = 40
/// batches of 50,000 requests; batches this long (hundreds of relaxation times even at ρ = 0.9,
/// whose relaxation time for M/M/1 is about 1/(μ(1−√ρ)²) ≈ 380 service times) have nearly
/// independent means, so the overall mean has standard error s_B/√B, with s_B the sample sd of
/// the batch means. The tolerance is 4.5 standard errors (Student t with 39 degrees of freedom
/// exceeds 4.5 with probability about 6e-5); the seeds are fixed, so the outcome is
/// deterministic. Each test also checks the tolerance is tight (below 10% of the expected value),
/// so a loose estimate cannot pass by itself.
@Suite struct QueueValidationTests {
    static let batches = 40
    static let batchSize = 50_000
    static let warmup = 20_000

    /// Erlang C: the probability an arrival waits in M/M/c with offered load a = λ/μ.
    static func erlangC(servers c: Int, load a: Double) -> Double {
        var term = 1.0, sum = 0.0
        for k in 0..<c {
            if k > 0 { term *= a / Double(k) }
            sum += term
        }
        let top = term * a / Double(c) / (1 - a / Double(c))   // aᶜ/c! · 1/(1−ρ)
        return top / (sum + top)
    }

    /// Mean wait and its batch-means standard error, in units of the mean service time.
    static func simulate(workers c: Int, utilisation rho: Double, deterministic: Bool, seed: UInt64) -> (mean: Double, se: Double) {
        let service = 100_000_000.0                      // 100 ms mean service time
        let interarrival = Distribution.exponential(mean: service / (Double(c) * rho))
        let serviceTime: Distribution = deterministic ? .constant(service) : .exponential(mean: service)
        var arrivals = RandomStream(seed: seed, purpose: StreamPurpose("validation-arrivals"))
        var services = RandomStream(seed: seed, purpose: StreamPurpose("validation-services"))
        var pool = WorkerPool(workers: c)
        var t: Int64 = 0
        var means: [Double] = []
        var sum = 0.0
        for i in 0..<(warmup + batches * batchSize) {
            t += interarrival.sampleDuration(&arrivals)
            guard case let .served(start, _, _) = pool.admit(at: SimTime(ns: t), service: serviceTime.sampleDuration(&services)) else {
                Issue.record("an unlimited queue refused a request")
                return (0, 0)
            }
            guard i >= warmup else { continue }
            sum += Double(start.ns - t) / service
            if (i - warmup + 1) % batchSize == 0 {
                means.append(sum / Double(batchSize))
                sum = 0
            }
        }
        let mean = means.reduce(0, +) / Double(means.count)
        let variance = means.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(means.count - 1)
        return (mean, (variance / Double(means.count)).squareRoot())
    }

    @Test(arguments: [0.5, 0.8, 0.9])
    func mmcMeanWaitMatchesErlangC(rho: Double) {
        let c = 4
        let a = rho * Double(c)
        let expected = Self.erlangC(servers: c, load: a) / (Double(c) - a)   // Wq·μ = C/(c − a)
        let (simulated, se) = Self.simulate(workers: c, utilisation: rho, deterministic: false, seed: 11)
        let tolerance = 4.5 * se
        print("M/M/\(c) rho=\(rho): Wq expected \(expected) simulated \(simulated) ± \(tolerance) (service times)")
        #expect(tolerance < 0.1 * expected, "batch-means error \(se) too large to check anything")
        #expect(abs(simulated - expected) <= tolerance, "M/M/\(c) ρ=\(rho): Wq \(simulated) vs Erlang C \(expected) ± \(tolerance)")
    }

    @Test(arguments: [0.5, 0.8])
    func md1MeanWaitMatchesPollaczekKhinchine(rho: Double) {
        let expected = rho / (2 * (1 - rho))                                 // Wq·μ
        let (simulated, se) = Self.simulate(workers: 1, utilisation: rho, deterministic: true, seed: 12)
        let tolerance = 4.5 * se
        print("M/D/1 rho=\(rho): Wq expected \(expected) simulated \(simulated) ± \(tolerance) (service times)")
        #expect(tolerance < 0.1 * expected, "batch-means error \(se) too large to check anything")
        #expect(abs(simulated - expected) <= tolerance, "M/D/1 ρ=\(rho): Wq \(simulated) vs P-K \(expected) ± \(tolerance)")
    }

    /// The closed forms themselves, on values worked by hand: M/M/1 has C = ρ, and M/M/2 at
    /// a = 1 has C = (1/2 · 2) / (1 + 1 + 1) = 1/3.
    @Test func erlangCByHand() {
        #expect(abs(Self.erlangC(servers: 1, load: 0.7) - 0.7) < 1e-12)
        #expect(abs(Self.erlangC(servers: 2, load: 1) - 1.0 / 3) < 1e-12)
    }
}
