import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The audit's tables: the per-player memory a run keeps is what its rows read (`AuditMemory`),
/// and keeping less gives the same rows as keeping everything; a copy counts apart, and shards
/// merge to the counts of one.
@Suite struct AuditTablesTests {
    /// A few fetches of each of `players` players, as the world tells them (its link by index),
    /// with a standby, a radio and a connection asked, some before the window.
    static func events(links: Int, players: Int = 400) -> [ModelEvent] {
        var rng = RandomStream(seed: 9, purpose: StreamPurpose("test-audit-memory"))
        var out: [ModelEvent] = []
        for p in 0..<players {
            let link = p % links
            var t = Int64(rng.below(120_000_000_000)) - 60_000_000_000
            out.append(.standbyBegan(player: p))
            out.append(.standbyWoke(player: p, at: t, slept: 9_000_000_000, length: Int64(rng.below(4_000_000_000))))
            out.append(.standbyEnded(player: p, at: t + 1_000, slept: 5_000_000_000))
            for _ in 0..<10 {
                let up = 20_000_000 + Int64(rng.below(80_000_000))
                out.append(.uplinkDrawn(player: p, link: link, delay: up, at: t))
                out.append(.radioAsked(player: p, link: link, at: t, promoted: rng.below(3) == 0))
                out.append(.connectionAsked(player: p, link: link, at: t, wasOpen: rng.below(2) == 0, cold: false, lookedUp: false))
                let down = 30_000_000 + Int64(rng.below(90_000_000))
                out.append(.downlinkDrawn(player: p, link: link, delay: down, at: t + up, requestArrivedAt: t + up))
                out.append(.networkBusy(player: p, until: t + up + down))
                t += Int64(rng.below(900_000_000_000))
            }
        }
        return out
    }

    /// The reference fleet reads no player's draw times, activity or standby; v1.1.5 as shipped
    /// reads them all (its LTE preset is correlated in time, its links have radios and
    /// keep-alives, its phones standby wakes); without those models, only the draw times.
    @Test func theMemoryKeptIsWhatTheRowsRead() throws {
        let r1 = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("r1.json"))
        #expect(AuditMemory(scenario: r1) == AuditMemory(drawTimes: false, lastActive: false, standby: false))
        let pausing = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("v115-pausing.json"))
        #expect(AuditMemory(scenario: pausing) == .everything)
        #expect(AuditMemory(scenario: try Self.plainLinks()) == AuditMemory(drawTimes: true, lastActive: false, standby: false))
    }

    /// v1.1.5 without radios, keep-alives or standby wakes: its links still correlated in time.
    static func plainLinks() throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("v115-pausing.json"))
        for i in s.links.indices {
            s.links[i].radio = nil
            s.links[i].connection = nil
        }
        s.devices.events.standbyWakes = nil
        return s
    }

    /// The same events counted keeping only what the rows read and keeping everything: the same
    /// rows, to the bit (the shortcut's equivalence).
    @Test func keepingLessGivesTheSameRows() throws {
        for (name, scenario) in [("r1", try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("r1.json"))),
                                 ("v1.1.5 plain links", try Self.plainLinks())] {
            var s = scenario
            s.population.players = 400
            var needed = AuditCounters(scenario: s, players: 0..<400)
            var everything = AuditCounters(scenario: s, players: 0..<400, memory: .everything)
            #expect(needed.tables.memory != .everything, "\(name)")
            for event in Self.events(links: s.links.count) {
                needed.observe(event)
                everything.observe(event)
            }
            let rows = ModelAudit.rows(s, needed, serving: nil)
            #expect(rows.contains { $0.figure == "uplinkLag1Correlation" } && rows.contains { $0.figure == "downlinkMs.p99" }, "\(name)")
            #expect(rows == ModelAudit.rows(s, everything, serving: nil), "\(name)")
        }
    }

    /// A copy counts apart from its original (a copied world's audit); two shards' counts merged
    /// are the counts of one audit that saw both.
    @Test func aCopyCountsApartAndShardsMerge() throws {
        var s = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("r1.json"))
        s.population.players = 40   // every player audited
        let events = Self.events(links: 1, players: 40)
        func player(_ e: ModelEvent) -> Int? {
            switch e {
            case let .uplinkDrawn(p, _, _, _), let .downlinkDrawn(p, _, _, _, _): p
            default: nil
            }
        }
        var whole = AuditCounters(scenario: s, players: 0..<40)
        var low = AuditCounters(scenario: s, players: 0..<40), high = AuditCounters(scenario: s, players: 0..<40)
        for e in events {
            whole.observe(e)
            if let p = player(e) { if p < 20 { low.observe(e) } else { high.observe(e) } }
        }
        var copy = low
        copy.ensureUniqueTables()
        copy.observe(.uplinkDrawn(player: 0, link: 0, delay: 1, at: 0))
        #expect(copy.links[0].uplink.count == low.links[0].uplink.count + 1)
        low.merge(high)
        let merged = low.links[0], one = whole.links[0]
        #expect(merged.uplink.histogram == one.uplink.histogram && merged.downlink.histogram == one.downlink.histogram)
        #expect(merged.uplink.sum == one.uplink.sum && merged.uplink.squares == one.uplink.squares)
        #expect(merged.downlink.sum == one.downlink.sum && merged.downlink.squares == one.downlink.squares)
        #expect(merged.lag.count == one.lag.count && merged.lag.xy == one.lag.xy && merged.lag.x == one.lag.x)
        #expect(one.uplink.count > 300 && one.lag.count > 300)
    }

    /// Draws wait in a short list and are counted a few hundred at once (`AuditTables.flush`): a
    /// player's successive uplinks pair in the order they were drawn even when a flush falls
    /// between them, and whatever reads the counts (the rows, a copy without the players'
    /// memory) sees every draw, held or not. By hand: uplinks of 40, 50 and 30 ms pair as
    /// (ln 40 ms, ln 50 ms) and (ln 50 ms, ln 30 ms), scaled.
    @Test func heldDrawsCountInOrderAcrossAFlush() throws {
        var s = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("r1.json"))
        s.population.players = 2   // both audited
        var audit = AuditCounters(scenario: s, players: 0..<2)
        let ms: Int64 = 1_000_000
        // Player 1 draws until one place is left in the list; player 0's first uplink fills it
        // (a flush), its next two wait in the next list.
        for k in 0..<(AuditTables.heldRoom - 1) {
            audit.observe(.downlinkDrawn(player: 1, link: 0, delay: 20 * ms, at: Int64(k) * 100 * ms, requestArrivedAt: Int64(k) * 100 * ms))
        }
        for (k, delay) in [40 * ms, 50 * ms, 30 * ms].enumerated() {
            audit.observe(.uplinkDrawn(player: 0, link: 0, delay: delay, at: Int64(k) * 600_000 * ms))
        }
        let (a, b, c) = (ScaledLog.of(40 * ms), ScaledLog.of(50 * ms), ScaledLog.of(30 * ms))
        #expect(a == Int64((log(40e6) * 0x1p24).rounded()) && b == Int64((log(50e6) * 0x1p24).rounded()))
        let counts = audit.links[0]
        #expect(counts.lag.count == 2)
        #expect(counts.lag.x == Int128(a) + Int128(b) && counts.lag.y == Int128(b) + Int128(c))
        #expect(counts.lag.xy == Int128(a) * Int128(b) + Int128(b) * Int128(c))
        #expect(counts.uplink.count == 3 && counts.uplink.sum == 120_000)   // µs
        #expect(counts.downlink.count == AuditTables.heldRoom - 1)
        // Held draws are counted into a copy that drops the players' memory, not lost with it.
        audit.observe(.uplinkDrawn(player: 1, link: 0, delay: 60 * ms, at: 0))
        audit.forgetPlayers()
        #expect(audit.links[0].uplink.count == 4 && audit.links[0].uplink.sum == 180_000)
    }
}
