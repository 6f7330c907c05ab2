import Testing
@testable import SyncLab

/// The one near-miss rule ("did you mean") of keys, figures, kinds and options.
@Suite struct NearMissTests {
    @Test func aCaseSlipWinsThenTheNearestWithinReach() {
        #expect(NearMiss.suggestion(for: "PollInterval", among: ["poll", "pollInterval"]) == "pollInterval")
        #expect(NearMiss.suggestion(for: "latncy", among: ["loss", "latency"]) == "latency")
        #expect(NearMiss.suggestion(for: "clok", among: ["clock", "estimator", "tick"]) == "clock")
        // Ties go to the earlier candidate.
        #expect(NearMiss.suggestion(for: "ab", among: ["abc", "abd"]) == "abc")
        // Two edits at most under 12 characters, three from 12 on.
        #expect(NearMiss.suggestion(for: "timout", among: ["timeout"]) == "timeout")
        #expect(NearMiss.suggestion(for: "tmot", among: ["timeout"]) == nil)
        #expect(NearMiss.suggestion(for: "transitonGapM.p98", among: ["transitionGapMs.p99"]) == "transitionGapMs.p99")
        #expect(NearMiss.suggestion(for: "transitonGpM.p98", among: ["transitionGapMs.p99"]) == nil)
    }

    @Test func shortOrUnrelatedWordsAreNotSuggested() {
        #expect(NearMiss.suggestion(for: "xy", among: ["ab"]) == nil)
        #expect(NearMiss.suggestion(for: "zz", among: ["a"]) == nil)
        #expect(NearMiss.suggestion(for: "bandwidth", among: ["latency"]) == nil)
        #expect(NearMiss.suggestion(for: "x", among: []) == nil)
    }

    @Test func theNearestAreRankedByDistanceThenOrder() {
        let keys = ["requests", "bareShare", "staleShare", "peakRequestsPerSecond"]
        #expect(NearMiss.nearest(3, to: "zzz", among: keys) == ["requests", "bareShare", "staleShare"])
        #expect(NearMiss.nearest(2, to: "staleShar", among: keys) == ["staleShare", "bareShare"])
        #expect(NearMiss.nearest(5, to: "a", among: ["b"]) == ["b"])
        #expect(NearMiss.alternatives(["a", "b", "c"]) == "'a', 'b' or 'c'")
        #expect(NearMiss.alternatives(["a"]) == "'a'")
        #expect(NearMiss.hint(for: "exponental", among: ["normal", "exponential"]) == " (did you mean 'exponential'?)")
        #expect(NearMiss.hint(for: "gaussian", among: ["normal", "exponential"]) == "")
    }

    @Test func editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        #expect(NearMiss.distance("kitten", "sitting") == 3)
        #expect(NearMiss.distance("", "abc") == 3)
        #expect(NearMiss.distance("abc", "") == 3)
        #expect(NearMiss.distance("uplink", "uplnk") == 1)
        #expect(NearMiss.distance("a", "a") == 0)
    }

    /// A megabyte-long word costs no more than its first `longestWord` characters.
    @Test func aHugeWordIsComparedByItsStart() {
        let huge = String(repeating: "x", count: 1_000_000)
        #expect(NearMiss.distance(huge, "xx") == NearMiss.longestWord - 2)
        #expect(NearMiss.suggestion(for: huge, among: ["xx", "clock"]) == nil)
        #expect(NearMiss.nearest(1, to: huge, among: ["clock", "xx"]) == ["xx"])
    }
}
