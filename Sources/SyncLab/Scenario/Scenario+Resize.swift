import SyncLabKernel

// Changing a loaded scenario's size from Swift with the command line's rules: `synclab run
// --clients N --duration D` calls this, so a test that sets players or duration gets the same
// scenario the command line would run, or the same refusal.

/// Why a scenario cannot be resized: a size outside the lab's limits, or a run that would not fit
/// in memory (with the estimate).
public struct ScenarioSizeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Scenario {
    /// Sets the number of players and the measured duration as `synclab run --clients --duration`
    /// does: each within the loader's limits (1 … 20,000,000 players, more than 0 and at most
    /// 30 days); a release that would fall at or after the new end is dropped (the run has no
    /// such instant); and the resized run must fit in `memory` (by default the lab's fixed
    /// ceiling, the same on every machine; the command line passes `MemoryLimit.current()`).
    ///
    /// Returns the instant of the release it dropped, if any, so a caller can say so. On an error
    /// the scenario is left as it was.
    @discardableResult
    public mutating func resize(players: Int? = nil, duration: Nanoseconds? = nil,
                                memory limit: MemoryLimit = .plannable) throws(ScenarioSizeError) -> Nanoseconds? {
        let maxPlayers = ScenarioLoader.Limits.players, maxDuration = ScenarioLoader.Limits.runLength
        if let players, !(1...maxPlayers).contains(players) {
            throw ScenarioSizeError("players must be from 1 to \(maxPlayers); got \(players)")
        }
        if let duration, !(duration > 0 && duration <= maxDuration) {
            throw ScenarioSizeError("duration must be greater than zero and at most \(Units.formatDuration(maxDuration)); got \(Units.formatDuration(duration))")
        }
        var resized = self
        var dropped: Nanoseconds? = nil
        if let players { resized.population.players = players }
        if let duration {
            if let release = resized.population.release, release.at.ns >= duration {
                dropped = release.at.ns
                resized.population.release = nil
            }
            resized.duration = duration
        }
        // The new size changes what the run allocates: refuse before the world is built.
        if let problem = ScenarioLoader.memoryProblem(resized, limit: limit) { throw ScenarioSizeError(problem) }
        self = resized
        return dropped
    }
}
