import SyncLab

// One answer, for `synclab index` (a summary.json) and `synclab merge` (a sweep part), to "could a
// run have written this figure?": a file that is not what SyncLab wrote is refused the same way
// by both, never turned into a row of nonsense.

extension Headline {
    /// A time above this is not from any run (a millennium, in milliseconds).
    public static let largestMs = 3.2e13
    /// A request rate above this is not from any run (a billion requests a second).
    public static let largestRate = 1e9

    /// What figure `key` is, for messages: "a share from 0 to 1", "milliseconds ≥ 0", …
    public static func expected(figure key: String) -> String {
        let range = RunResult.possibleValues(of: key)
        if range.upperBound == 1 { return "a share from 0 to 1" }
        if key.hasSuffix("RequestsPerSecond") { return "requests per second ≥ 0" }
        if key.contains("Ms.") { return range.lowerBound < 0 ? "milliseconds" : "milliseconds ≥ 0" }
        return range.lowerBound < 0 ? "a number" : "a number ≥ 0"
    }

    /// Whether `value` is one figure `key` of a run can take: finite, inside
    /// `RunResult.possibleValues`, and no larger than the largest time or rate.
    public static func isPossible(_ value: Double, figure key: String) -> Bool {
        guard value.isFinite, RunResult.possibleValues(of: key).contains(value) else { return false }
        if key.contains("Ms.") && abs(value) > largestMs { return false }
        if key.hasSuffix("RequestsPerSecond") && value > largestRate { return false }
        return true
    }
}
