import Testing
import SyncLab

/// `Scenario.resize`: the command line's `--clients` and `--duration` rules from Swift.
@Suite struct ScenarioResizeTests {
    /// v115-pausing: 3 h, a release at 90 min.
    static func pausing() throws -> Scenario { try ShippedScenarios.load("v115-pausing") }

    @Test func aReleaseAtOrAfterTheNewEndIsDropped() throws {
        var s = try Self.pausing()
        #expect(s.population.release?.at.ns == 90 * .minute)
        let dropped = try s.resize(duration: 90 * .minute)
        #expect(dropped == 90 * .minute, "a release at the very end has no instant to happen in")
        #expect(s.population.release == nil && s.duration == 90 * .minute)
    }

    @Test func aReleaseBeforeTheNewEndIsKept() throws {
        var s = try Self.pausing()
        let dropped = try s.resize(players: 2_000, duration: 2 * .hour)
        #expect(dropped == nil)
        #expect(s.population.release?.at.ns == 90 * .minute)
        #expect(s.population.players == 2_000 && s.duration == 2 * .hour)
    }

    @Test func outOfRangeOrTooLargeIsRefusedAndChangesNothing() throws {
        let original = try Self.pausing()
        var s = original
        #expect(throws: ScenarioSizeError("players must be from 1 to 20000000; got 0")) { try s.resize(players: 0) }
        #expect(throws: ScenarioSizeError.self) { try s.resize(duration: 31 * 24 * .hour) }
        #expect(throws: ScenarioSizeError.self) { try s.resize(duration: 0) }
        // 1 MiB holds no run of 1,000 players: the loader's memory estimate refuses it.
        let tiny = MemoryLimit(bytes: 1_048_576, source: "a test's 1 MiB")
        do {
            try s.resize(players: 1_000, duration: .hour, memory: tiny)
            Issue.record("a run in 1 MiB was accepted")
        } catch {
            #expect(error.message.contains("a test's 1 MiB"), "\(error.message)")
        }
        #expect(s.population.players == original.population.players && s.duration == original.duration)
        #expect(s.population.release != nil)
    }
}
