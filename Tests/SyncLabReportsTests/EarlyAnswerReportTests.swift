import Testing
@testable import SyncLab
import SyncLabKernel
@testable import SyncLabReports

/// `client.showFirstAnswerWithin` and `client.maxSyncBound` in the report: the design's options
/// in words and their counts in the headline table, absent on a design without them.
@Suite struct EarlyAnswerReportTests {
    static func run(within: Nanoseconds?, limit: Nanoseconds?) throws -> RunResult {
        try MarkdownReportTests.tiny {
            $0.population.players = 2_000   // a few dozen launches in the 10 minutes
            // µs stamps and a continuous clock: bounds of a round trip's half, not of a second.
            $0.server.timestampResolution = .microsecond
            $0.client.clock = ContinuousDeviceClock()
            $0.client.estimator = NTPEstimator(window: 8)
            $0.client.probes = 3
            $0.client.showFirstAnswerWithin = within
            $0.client.maxSyncBound = limit
        }
    }

    @Test func withoutTheOptionsNothingIsWritten() throws {
        let md = MarkdownReport.render(try Self.run(within: nil, limit: nil))
        #expect(!md.contains("rounds whose first answer") && !md.contains("rounds not used"))
        #expect(!md.contains("shows the first answer") && !md.contains("is not used and is retried"))
    }

    /// A limit of 1 ns leaves out every round (every bound is wider): the count is every
    /// round answered, and no round's first answer is shown (a shown answer needs both limits).
    @Test func theCountsAndTheOptionsAreWritten() throws {
        let shown = try Self.run(within: 250 * .millisecond, limit: nil)
        #expect(shown.firstAnswersShown > 0 && shown.syncsRejected == 0)
        var md = MarkdownReport.render(shown)
        #expect(md.contains("| rounds whose first answer was shown before the round ended | \(Format.grouped(Double(shown.firstAnswersShown))) |"))
        #expect(md.contains("a player with nothing current to show shows the first answer of its round whose ± bound is within 250ms at once"))
        let refused = try Self.run(within: 250 * .millisecond, limit: 1)
        #expect(refused.syncsRejected > 0 && refused.firstAnswersShown == 0 && refused.fetchSyncError.count == 0)
        md = MarkdownReport.render(refused)
        #expect(md.contains("| rounds not used, their ± bound over the limit | \(Format.grouped(Double(refused.syncsRejected))) |"))
        #expect(md.contains("a round whose estimate claims a ± bound over ") && md.contains(" is not used and is retried"))
    }
}
