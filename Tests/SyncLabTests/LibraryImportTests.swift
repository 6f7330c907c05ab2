import Testing
import SyncLab   // and nothing else: the kernel comes with it

/// An app team's test target needs one import: the kernel's types that the plug-in protocols use
/// are re-exported by `SyncLab`, and none of them hides a standard-library clock.
@Suite struct LibraryImportTests {
    @Test func oneImportReachesTheKernelAndLeavesTheStandardClocksAlone() {
        let t = SimTime(ns: 3 * .second)
        let r = ClockReading(ns: 5)
        var rng = RandomStream(seed: 1, purpose: StreamPurpose("library-import"))
        #expect(t.ns == 3_000_000_000 && r.ns == 5 && rng.below(1) == 0)
        // `ContinuousClock` and `SuspendingClock` are still the standard library's.
        let continuous: Swift.ContinuousClock = ContinuousClock()
        let suspending: Swift.SuspendingClock = SuspendingClock()
        #expect(continuous.minimumResolution >= .zero && suspending.minimumResolution >= .zero)
    }
}
