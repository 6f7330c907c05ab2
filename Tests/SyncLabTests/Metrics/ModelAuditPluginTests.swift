import Testing
@testable import SyncLab
import SyncLabKernel
import Foundation

/// A delay process written here, in the test target, as an app team writes its own: the model
/// audit judges it from what it declares of itself (`DelayProcess.memory`) and from Monte Carlo
/// of its own `delay`, with no edit in the library.
///
/// Each draw is the link's own, times `factor` — and times `later` once true time passes `change`,
/// a process whose law moves in time though it says it does not depend on time.
struct ScaledDelays: DelayProcess {
    static let family = PluginFamily.delayProcess
    static let kind = "test-scaled"
    static let schema = SchemaFragment("The link's draws, scaled (a test's own process).")

    var factor: Double
    var later = 1.0
    var change = SimTime(ns: .max)
    var declared = DelayMemory.none

    init(factor: Double, later: Double = 1, change: SimTime = SimTime(ns: .max), declared: DelayMemory = .none) {
        self.factor = factor
        self.later = later
        self.change = change
        self.declared = declared
    }

    init(_ node: InputNode, in context: PluginContext) throws { factor = 1 }

    var summary: String { "scaled ×\(factor)" }
    var memory: DelayMemory { declared }

    func check(_ link: LinkProfile, at node: InputNode) throws {}

    func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, at now: SimTime, player: UInt64,
               seed: UInt64, _ rng: inout RandomStream) -> Double {
        _ = memory.advance(direction, to: now)
        return link.distribution(direction).sample(&rng) * factor * (now >= change ? later : 1)
    }
}

@Suite struct ModelAuditPluginTests {
    static func run(_ process: ScaledDelays) -> (Scenario, RunResult) {
        var s = ModelAuditTests.scenario(players: 3_000)
        for i in s.links.indices { s.links[i].correlation = process }
        return (s, Simulation.run(s, threads: 1))
    }

    static func row(_ r: RunResult, _ model: String, _ figure: String) -> AuditRow? {
        r.modelAudit.first { $0.model == model && $0.figure == figure }
    }

    /// The toy's law is the link's, 1.5 times: the audit's expected medians are the plain link's
    /// times 1.5 (the same keyed Monte Carlo draws, scaled; the floors lie below both), and every
    /// row holds. A process without memory in time has every draw counted and one lag point.
    @Test func aProcessFromTheTestTargetIsJudgedOnItsOwnLaw() throws {
        let (s, plain) = Self.run(ScaledDelays(factor: 1))
        let (_, scaled) = Self.run(ScaledDelays(factor: 1.5))
        for link in s.links {
            for figure in ["uplinkMs.p50", "downlinkMs.p50"] {
                let a = try #require(Self.row(plain, "link \(link.name)", figure))
                let b = try #require(Self.row(scaled, "link \(link.name)", figure))
                #expect(abs(b.expected / a.expected - 1.5) < 0.002, "\(link.name) \(figure): \(a.expected) → \(b.expected)")
                #expect(b.holds, "\(b)")
            }
        }
        for row in scaled.modelAudit { #expect(row.holds, "\(row)") }
        #expect(scaled.figures["modelAudit.allHold"] == 1)
    }

    /// The same toy, whose draws double from minute 10 on while the Monte Carlo (fresh players at
    /// time zero) sees the law before: two thirds of the window's draws come from a law with twice
    /// the median, so every link's realised uplink median lies far above the expected one, and the
    /// rows fail. The audit judges what the process does, not what it says.
    @Test func aProcessWhoseLawMovesInTimeFails() throws {
        let (s, r) = Self.run(ScaledDelays(factor: 1, later: 2, change: SimTime(ns: 10 * .minute)))
        for link in s.links {
            let row = try #require(Self.row(r, "link \(link.name)", "uplinkMs.p50"))
            #expect(!row.holds && row.realised > 1.3 * row.expected, "\(row)")
        }
        #expect(r.figures["modelAudit.allHold"] == 0)
    }

    /// What it declares decides which draws count: `.none`, every draw in the window; `.unknown`,
    /// each audited player's first draw only (at most one per player, against thousands of draws).
    @Test func theDeclaredMemoryChoosesTheDraws() throws {
        let (s, every) = Self.run(ScaledDelays(factor: 1))
        let (_, first) = Self.run(ScaledDelays(factor: 1, declared: .unknown))
        let all = try #require(every.auditCounts).links, firsts = try #require(first.auditCounts).links
        for i in s.links.indices {
            #expect(firsts[i].uplink.count <= s.population.players, "\(s.links[i].name)")
            #expect(all[i].uplink.count > 3 * firsts[i].uplink.count, "\(s.links[i].name): \(all[i].uplink.count) vs \(firsts[i].uplink.count)")
        }
        #expect(ModelAudit.forgetting(s.links[0]).horizon == 0)
        var fades = s.links[0]
        fades.correlation = ScaledDelays(factor: 1, declared: .fades(timeConstant: 1e9, directionsShareState: true))
        // e^(−Δt/1 s) ≤ 0.001 from Δt = ln 1000 s = 6.9078 s.
        let f = ModelAudit.forgetting(fades)
        #expect(f.horizon == Int64((1e9 * log(1000.0)).rounded(.up)) && f.directionsShareState)
    }
}
