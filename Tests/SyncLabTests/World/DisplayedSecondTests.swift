import Testing
@testable import SyncLab
import SyncLabKernel

/// What the screen shows, against what the UI computed.
///
/// With the seeds' uptime clock (whole seconds) the UI computes stamp + (tick reading − sync
/// reading), and the reading difference is a whole number k of seconds. A whole-second stamp S
/// gives S + k; a microsecond stamp S + f (0 ≤ f < 1 s) gives S + f + k, which the countdown
/// cuts to the same whole second S + k. So `fix-subsecond-timestamp` moves the computed value
/// (the UI time error, `clientErrorMs`) but neither a show instant nor a second on the screen.
@Suite struct DisplayedSecondTests {
    @Test func aSubsecondStampMovesTheComputedTimeButNotTheScreen() throws {
        // The seeds' story's small runs: 1,500 players for 2 h.
        let whole = try SeedsStoryTests.run("v115-uptime.json")
        let micro = try SeedsStoryTests.run("fix-subsecond-timestamp.json")
        // The same shows, change by change, and the same wrong-second samples.
        #expect(whole.transitions == micro.transitions)
        #expect(whole.samples == micro.samples && whole.samples > 10_000)
        #expect(whole.wrongSecondSamples == micro.wrongSecondSamples)
        #expect(whole.wrongSecondSamples > 0)
        // The computed value is closer to the truth by the stamp's fraction, about half a second.
        let p50Whole = (whole.figures["clientErrorMs.p50"] ?? nil) ?? 0
        let p50Micro = (micro.figures["clientErrorMs.p50"] ?? nil) ?? 0
        #expect(p50Whole - p50Micro > 250)
    }
}
