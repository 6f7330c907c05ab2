import Testing
@testable import SyncLab
import SyncLabKernel

/// The world's pointer-backed tables: writes land in place, copies are independent, and a copied
/// world still behaves as a value.
@Suite struct StateTableTests {
    /// An index out of range stops the run, in the release build the tests run on too, rather
    /// than read or write another player's state.
    @Test func anIndexOutOfRangeStops() async {
        await #expect(processExitsWith: .failure) {
            let table = StateTable([1, 2, 3])
            table[3] = 4
        }
        await #expect(processExitsWith: .failure) {
            let table = StateTable([1, 2, 3])
            _ = table[-1]
        }
    }

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

    /// Copies of a table share its block, as a reference would: a write through one is seen by
    /// the other, and the block is unique again once the other copy is gone.
    @Test func copiesOfATableShareItsBlockUntilCopied() {
        var table = StateTable([1, 2, 3])
        let alone = table.isUnique()
        #expect(alone)
        do {
            let shared = table
            shared[0] = 7
            let sharing = table.isUnique()
            #expect(!sharing && table[0] == 7)
        }
        let aloneAgain = table.isUnique()
        #expect(aloneAgain)
        let own = table.copy()
        own[1] = 9
        let stillAlone = table.isUnique()
        #expect(table[1] == 2 && stillAlone)
    }

    /// A table made element by element in its own block holds what one made from an array does,
    /// each element made once, in order; and it starts on a cache line like any other.
    @Test func aTableMadeInPlaceHoldsTheSameElements() {
        var made: [Int] = []
        let table = StateTable(count: 5) { k in made.append(k); return 10 * k + 1 }
        #expect(Array(table) == Array(StateTable([1, 11, 21, 31, 41])))
        #expect(made == [0, 1, 2, 3, 4])
        #expect(Int(bitPattern: table.base) % 64 == 0)
        #expect(StateTable(count: 0) { _ in 1 }.isEmpty)
    }

    /// Running a copy of a world leaves the original's players untouched, and the original, run
    /// afterwards, moves its players exactly as a fresh world does.
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

    /// A world copied halfway and both run to the end: each reports what a world run straight
    /// through reports (the recorder's tables are references too, and the copy being run takes
    /// its own).
    @Test func aCopiedWorldKeepsItsOwnResults() throws {
        var scenario = try DeterminismTests.shipped("v115-pausing.json")
        scenario.population.players = 300
        scenario.duration = 2 * .hour
        scenario.population.release = nil
        let end = SimTime(ns: scenario.duration)
        var straight = World(scenario: scenario)
        straight.run(until: end)
        let expected = straight.finish()
        var original = World(scenario: scenario)
        original.run(until: SimTime(ns: .hour))
        var copy = original
        original.run(until: end)
        copy.run(until: end)
        let a = original.finish(), b = copy.finish()
        #expect(expected.samples > 1_000 && expected.responses > 50)
        let want = DeterminismTests.fingerprint(expected)
        for (label, got) in [("original", DeterminismTests.fingerprint(a)), ("copy", DeterminismTests.fingerprint(b))] {
            #expect(got.count == want.count, "\(label)")
            for (k, line) in got.enumerated() where k < want.count && line != want[k] {
                Issue.record("\(label): fingerprint line \(k) differs: \(line.prefix(80)) vs \(want[k].prefix(80))")
            }
        }
        #expect(a.errorByClock.map(\.1) == expected.errorByClock.map(\.1) && a.bounds == expected.bounds)
        #expect(b.roundTrip == expected.roundTrip && b.timeline == expected.timeline)
    }
}
