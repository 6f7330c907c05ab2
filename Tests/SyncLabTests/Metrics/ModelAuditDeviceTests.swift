import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The model audit's app-lifecycle and wall-clock rows (issue 38): run end to end on
/// v115-pausing's players, each expected value checked against a closed form or a Monte Carlo
/// written here, and each row failing when the process it judges is not the one that ran.
@Suite struct ModelAuditDeviceTests {
    static func run() throws -> (Scenario, AuditCounters) {
        var s = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("v115-pausing.json"))
        s.population.players = 3_000
        s.duration = 3 * .hour
        s.population.release = nil
        let r = Simulation.run(s, threads: 2)
        return (s, try #require(r.auditCounts))
    }

    static func phi(_ z: Double) -> Double { erfc(-z / 2.0.squareRoot()) / 2 }

    /// Breaks: locked with v115-pausing's lockShare 0.85; suspended when longer than the 30 s
    /// grace, of a lognormal (median 4 min, σ 0.9) drawn again above the 30 min bound:
    /// P(30 s < B | B ≤ 30 min) = (Φ(ln(30/4)/0.9) − Φ(ln(0.5/4)/0.9)) / Φ(ln(30/4)/0.9) = 0.9894.
    /// Terminations: the Poisson–binomial of each break's own 1 − S(b).
    @Test func lifecycleRowsHoldOnTheScenariosOwnParameters() throws {
        let (s, counts) = try Self.run()
        let lifecycle = try #require(s.devices.events.lifecycle)
        let rows = ModelAudit.lifecycleRows(s, lifecycle, counts)
        #expect(rows.map(\.figure) == ["lockedBreakShare", "suspendedShare", "terminatedShare", "terminatedShare"], "\(rows)")
        for row in rows { #expect(row.holds, "\(row)") }
        let locked = try #require(rows.first { $0.figure == "lockedBreakShare" })
        #expect(locked.expected == 0.85 && locked.samples > 500)
        let upper = Self.phi(log(30.0 / 4) / 0.9)
        let suspended = (upper - Self.phi(log(0.5 / 4) / 0.9)) / upper
        let row = try #require(rows.first { $0.figure == "suspendedShare" })
        #expect(abs(suspended - 0.9894) < 0.0005)
        #expect(abs(row.expected - suspended) < 5 * (suspended * (1 - suspended) / Double(ModelAudit.monteCarloDraws)).squareRoot(), "\(row)")
        #expect(abs(row.realised - suspended) <= row.tolerance, "\(row) vs \(suspended)")
        // Phones locked are terminated far less often than players in other apps (medians 2 h
        // against 15 min suspended): both rows rest on a hundred breaks or more.
        let byPlace = rows.filter { $0.figure == "terminatedShare" }
        #expect(byPlace[0].model == "app lifecycle (locked)" && byPlace[1].model == "app lifecycle (other apps)")
        #expect(byPlace[0].expected < byPlace[1].expected && byPlace[1].samples >= 100, "\(byPlace)")
    }

    /// The same counts judged against another lock share and a longer grace, and hand-made
    /// termination counts: 1,000 breaks whose chances sum to 100 (each 0.1) allow 100 ± 5·√90 + ½
    /// terminations, so 110 holds and 150 fails.
    @Test func lifecycleRowsFailWhenTheProcessIsWrong() throws {
        let (s, counts) = try Self.run()
        let lifecycle = try #require(s.devices.events.lifecycle)
        var halfLocked = s
        halfLocked.population.lockShare = 0.5
        #expect(ModelAudit.lifecycleRows(halfLocked, lifecycle, counts).first { $0.figure == "lockedBreakShare" }?.holds == false)
        var longGrace = lifecycle
        longGrace.grace = 3 * .minute
        #expect(ModelAudit.lifecycleRows(s, longGrace, counts).first { $0.figure == "suspendedShare" }?.holds == false)
        var hand = AuditCounters(scenario: s, players: 0..<0)
        for _ in 0..<1_000 { hand.breakEnds(locked: true, survival: 0.9, terminated: false) }
        hand.terminations[0] = 110
        let row = try #require(ModelAudit.lifecycleRows(s, lifecycle, hand).first)
        #expect(abs(row.expected - 0.1) < 1e-9 && abs(row.tolerance - (5 * 90.0.squareRoot() + 0.5) / 1_000) < 1e-9, "\(row)")
        #expect(row.holds)
        hand.terminations[0] = 150
        #expect(ModelAudit.lifecycleRows(s, lifecycle, hand).first?.holds == false)
    }

    /// Corrections: every 24 h at a uniform phase, so 3,000 phones over 3 h make 3,000 × 3/24 =
    /// 375 on average (1/24 an hour each), each phone 0 or 1 with chance 1/8. The first
    /// correction's step share against a Monte Carlo written here: a phone's offset at its first
    /// correction t (uniform over the window) is O + r·t, O ~ N(0, 50 ms), r ~ N(0, 20 ppm), its
    /// estimate off by half its link's asymmetry, a step above 128 ms.
    @Test func wallClockRowsHoldOnTheScenariosOwnParameters() throws {
        let (s, counts) = try Self.run()
        let sync = try #require(s.devices.events.wallClockSync)
        let rows = ModelAudit.wallClockRows(s, sync, counts)
        #expect(rows.map(\.figure) == ["correctionsPerPhoneHour", "firstCorrectionStepShare"], "\(rows)")
        for row in rows { #expect(row.holds, "\(row)") }
        let perHour = rows[0]
        #expect(abs(perHour.expected - 1.0 / 24) < 1e-12)
        #expect(abs(perHour.tolerance - (5 * (3_000 * 0.125 * 0.875).squareRoot() + 0.5) / 9_000) < 1e-12)
        #expect(perHour.samples > 250 && perHour.samples < 500, "\(perHour)")

        var rng = RandomStream(seed: 99, purpose: StreamPurpose("test-wall-clock"), entity: 0)
        let shares = s.links.map(\.share)
        var steps = 0
        let n = 200_000
        for _ in 0..<n {
            let normal = Distribution.normal(mean: 0, sd: 1)
            let o = 50e6 * normal.sample(&rng), r = 20e-6 * normal.sample(&rng)
            let t = rng.unit() * Double(s.duration)
            var u = rng.unit(), link = 0
            while link < shares.count - 1 && u >= shares[link] { u -= shares[link]; link += 1 }
            let e = (s.links[link].downlink.sample(&rng) - s.links[link].uplink.sample(&rng)) / 2
            if abs(o + r * t + e) > 128e6 { steps += 1 }
        }
        let p = Double(steps) / Double(n)
        let share = rows[1]
        #expect(p > 0.2 && p < 0.6)
        #expect(abs(share.expected - p) < 5 * (p * (1 - p) / Double(n)).squareRoot() + 0.005, "\(share) vs \(p)")
        #expect(abs(share.realised - p) <= share.tolerance + 0.005, "\(share) vs \(p)")
    }

    /// The step chances as the rows get them (from `StepChanceCurve` where the clock's mean
    /// stays put) against the chance worked out at every boundary from the same errors: within
    /// the curve's agreement, from fewer evaluations than boundaries (a link with too few for a
    /// curve at half their number is worked out at each). With a mean drift the
    /// chance moves with t through the mean too, and every boundary is worked out; so it is
    /// with a wall clock set exactly at the start (no spread in the offset).
    @Test func stepChancesAreThoseOfEveryBoundary() throws {
        let (s, counts) = try Self.run()
        let sync = try #require(s.devices.events.wallClockSync)
        let table = try #require(ModelAudit.stepChanceTable(s, sync, counts, threads: 2))
        let step = Double(sync.stepAbove)
        var errorsByLink: [Int: [Double]] = [:]
        for key in table.chances.keys {
            let link = key >> 32
            if errorsByLink[link] == nil {
                var rng = RandomStream(seed: s.seed, purpose: ModelAudit.purpose, entity: 2 << 40 | UInt64(link))
                errorsByLink[link] = (0..<10_000).map { _ in Double(sync.measurementError(&rng, link: s.links[link])) }
            }
            let t = Double(key & 0xFFFF_FFFF) * 6e10
            let direct = ModelAudit.stepChance(mean: 0, sd: (50e6 * 50e6 + (20 * 1e-6 * t) * (20 * 1e-6 * t)).squareRoot(),
                                               step: step, errors: errorsByLink[link]!)
            let curve = table.chances[key]!
            #expect(abs(curve.chance - direct.chance) <= StepChanceCurve.agreement
                    && abs(curve.error - direct.error) <= StepChanceCurve.agreement, "\(key): \(curve) vs \(direct)")
        }
        #expect(errorsByLink.count == s.links.count && table.evaluations < table.chances.count,
                "\(table.evaluations) evaluations for \(table.chances.count) boundaries")

        var drifting = s
        drifting.devices.driftPPM = .normal(mean: 5, sd: 20)
        let worked = try #require(ModelAudit.stepChanceTable(drifting, sync, counts, threads: 2))
        #expect(worked.evaluations == worked.chances.count)
        var setExactly = s
        setExactly.devices.wallClockOffset = .constant(0)
        let exact = try #require(ModelAudit.stepChanceTable(setExactly, sync, counts, threads: 2))
        #expect(exact.evaluations == exact.chances.count)
    }

    /// Judged against twice as frequent corrections, or a step threshold of 32 ms, the rows fail.
    @Test func wallClockRowsFailWhenTheProcessIsWrong() throws {
        let (s, counts) = try Self.run()
        let sync = try #require(s.devices.events.wallClockSync)
        var often = sync
        often.every = .constant(Double(12 * Int64.hour))
        #expect(ModelAudit.wallClockRows(s, often, counts).first?.holds == false)
        var lowStep = sync
        lowStep.stepAbove = 32 * .millisecond
        #expect(ModelAudit.wallClockRows(s, lowStep, counts).last?.holds == false)
    }
}
