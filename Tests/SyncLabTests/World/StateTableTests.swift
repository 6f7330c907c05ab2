import Testing
@testable import SyncLab
import SyncLabKernel

/// The world's pointer-backed tables: writes land in place, copies are independent, and a copied
/// world still behaves as a value.
@Suite struct StateTableTests {
    @Test func writesInPlaceAndCopiesAreIndependent() {
        let table = StateTable([1, 2, 3])
        table[1] = 20
        table[2] += 5
        #expect(Array(table) == [1, 20, 8])
        let copy = table.copy()
        copy[0] = 100
        #expect(Array(table) == [1, 20, 8] && Array(copy) == [100, 20, 8])
        #expect(StateTable([Int]()).isEmpty)
    }

    /// Running a copy of a world leaves the original's players untouched, and the original, run
    /// afterwards, moves its players exactly as a fresh world does. (The metric accumulators are
    /// references with one owner, as before the tables: a copy shares them, so results are
    /// compared through the players' state here.)
    @Test func aCopiedWorldKeepsItsOwnPlayers() throws {
        var scenario = try DeterminismTests.shipped("v115-uptime.json")
        scenario.population.players = 40
        scenario.duration = 20 * .minute
        var original = World(scenario: scenario)
        let before = original.clients.map(\.fetchEpoch)
        var copy = original
        _ = copy.run()
        #expect(original.clients.map(\.fetchEpoch) == before)
        #expect(copy.clients.map(\.fetchEpoch) != before)
        _ = original.run()
        var fresh = World(scenario: scenario)
        _ = fresh.run()
        #expect(original.clients.map(\.fetchEpoch) == fresh.clients.map(\.fetchEpoch))
        #expect(original.clients.map(\.anchor) == fresh.clients.map(\.anchor))
        #expect(copy.clients.map(\.anchor) == fresh.clients.map(\.anchor))
    }
}
