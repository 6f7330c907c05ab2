import Testing
@testable import SyncLab
import SyncLabKernel

/// The reference fleet R1 (Scenarios/r1.json) against closed forms.
///
/// With no request bytes the estimate is stamp + (receive − send), so its error at the receive
/// instant is stamp − send = U − F: the uplink delay U minus the fraction F of a second the
/// server's whole-second stamp truncated (F ~ Uniform[0, 1), independent of U, because send
/// instants have no phase). Downlink and transfer cancel out. For U < 1 s (P(U ≥ 1 s) < 1e-10):
///   E[e] = E[U] − 1/2,  E|e| = E[U²] − E[U] + 1/2,  P(|e| > 250 ms) = E[max(0, U − ¼) + max(0, ¾ − U)],
/// with E[U] = m·e^{σ²/2}, E[U²] = m²·e^{2σ²} (lognormal, m = 40 ms, σ = 0.5).
/// Completed fetches per player are a delayed renewal count: the first at start + RTT, then one
/// per cycle μ = E[refetch] + E[RTT]; E[N(T)] ≈ 1 + (T − E[start])/μ + (σ_R² − μ²)/(2μ²).
@Suite struct ReferenceFleetTests {
    static let players = 500

    static func r1() throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path("r1.json"))
        s.population.players = players
        return s
    }

    @Test func scenarioIsTheDefinedFleet() throws {
        let s = try ScenarioLoader().load(path: ScenarioFiles.path("r1.json"))
        #expect(s.population.players == 100_000)
        #expect(s.duration == 24 * .hour && s.warmup == 0)
        #expect(s.requestBytes == 0)
        #expect(s.server.file.responseBytes(items: 7) == 20_000)
        #expect(s.server.serviceTime == .constant(0))
        #expect(s.client.tick is ImmediateTick)
        #expect(s.links.count == 1 && s.links[0].failure == 0)
        #expect(s.links[0].uplink == .lognormal(median: 40e6, sigma: 0.5))
        #expect(s.links[0].downlink == .lognormal(median: 60e6, sigma: 0.5))
        #expect(s.links[0].bandwidth == .uniform(min: 50e3, max: 2e6))
        #expect(s.population.visitGap == .uniform(min: 0, max: 60e9))
        #expect(s.reportsFetchSyncError)
    }

    @Test func figuresMatchClosedForms() throws {
        let s = try Self.r1()
        let r = Simulation.run(s, threads: 1)
        let m = 0.040, sigma = 0.5
        let eU = m * DeterministicMath.exp(sigma * sigma / 2)            // 45.325 ms
        let eU2 = m * m * DeterministicMath.exp(2 * sigma * sigma)
        // E[1/B] for B ~ Uniform(a, b) is ln(b/a)/(b − a).
        let transfer = 20_000 * DeterministicMath.log(2e6 / 50e3) / (2e6 - 50e3)
        let rtt = eU + 0.060 * DeterministicMath.exp(sigma * sigma / 2) + transfer
        let mu = 450 + rtt, refetchVar = 180.0 * 180 / 12
        let perPlayer = 1 + (86_400 - 30) / mu + (refetchVar - mu * mu) / (2 * mu * mu)
        let expectedCycles = Double(Self.players) * perPlayer                 // ≈ 96,190
        // Per player the count has sd ≈ √(T σ_R²/μ³) ≈ 1.6; over 500 players ≈ 36: allow 5 sd.
        #expect(abs(Double(r.responses) - expectedCycles) < 180)
        #expect(r.fetchSyncError.count == r.responses)
        #expect(r.requestsServed == r.requestsSent && r.requestsFailed == 0)
        let n = Double(r.fetchSyncError.count)
        // |e| and e have sd < 0.3 s; the standard error over ~96,000 fetches is < 1 ms: allow 5 ms.
        let meanAbs = try #require(r.fetchSyncErrorMeanAbs) / 1e9
        #expect(abs(meanAbs - (eU2 - eU + 0.5)) < 0.005)
        let meanSigned = try #require(r.fetchSyncError.meanSigned) / 1e9
        #expect(abs(meanSigned - (eU - 0.5)) < 0.005)
        // P(|e| > 250 ms) = ¾ − E[U] (U > 250 ms has probability 1e-4): binomial sd √(pq/n) ≈ 0.0015.
        let share = try #require(r.fetchSyncErrorOver250msShare)
        #expect(abs(share - (0.75 - eU)) < 5 * (0.7 * 0.3 / n).squareRoot() + 2e-4)
        // All players start within the first minute: the first second holds N/60 requests on average.
        let peak = Double(r.requestsPerSecond.max() ?? 0)
        #expect(peak >= Double(Self.players) / 60 && peak <= Double(Self.players) / 60 * 3)
    }

    /// No request bytes: upload complete = send, so the estimate is stamp + RTT exactly; and with
    /// the immediate tick the refetch is sent at the instant it falls due.
    @Test func refetchFiresExactlyWhenDue() throws {
        var s = try Self.r1()
        s.population.players = 1
        s.duration = 2 * .hour
        var world = World(scenario: s)
        var checked = 0
        var t = SimTime(ns: 0)
        while t.ns < s.duration - 20 * .minute {
            t = t + 30 * .second
            world.run(until: t)
            let c = world.player(0)
            guard c.hasSync, !c.fetchInFlight else { continue }
            #expect(c.request.uploadCompleteAt == c.request.sentAt)
            // Continuous clock, no drift: reading = true time − boot time.
            let due = SimTime(ns: c.refetchDue.ns + c.device.bootTime.ns)
            let error = c.anchor.serverTime - (c.anchor.reading.ns + c.device.bootTime.ns)
            #expect(error == c.request.timestamp - c.request.sentAt.ns)
            world.run(until: due + 1)
            #expect(world.player(0).request.sentAt == due)
            t = due + 1
            checked += 1
        }
        #expect(checked >= 10)
    }
}
