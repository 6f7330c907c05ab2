import Foundation
import Testing
import SyncLabReports

/// The figures the gallery's notes (docs/gallery.md, the prose of Reports/README.md), the model
/// notes (docs/model.md) and the clock notes (docs/clocks.md) quote, checked against the committed reports they describe. Each
/// row names a sentence's words around one figure, the report file and the figure's key path;
/// the test formats the report's value as the prose does and asserts the prose contains it. When
/// `make reports` changes a figure under the prose, the row fails and names what to rewrite.
///
/// Not every number in the notes is here: the key ones are (the servers the recommended design
/// runs, each scenario's headline figures in the story). The notes' sections on how the
/// reports moved as the models grew quote the reports of their moment and are not checked.
@Suite struct DocsFiguresTests {
    static var root: String { #filePath.components(separatedBy: "/Tests/").first ?? "." }

    /// How the prose writes a figure.
    enum Style: Sendable {
        /// A share as a percentage with this many decimals ("99.54%", "27%").
        case percent(Int)
        /// Milliseconds in the reports' one duration format ("24 min 50 s", "662 ms").
        case duration
        /// A count with thousands grouped ("12,741,611").
        case grouped
        /// Milliseconds as a whole number, the unit written by the prose ("from 514 to 298 ms").
        case wholeMs

        func text(_ value: Double) -> String {
            switch self {
            case .percent(let decimals): return Format.fixed(value * 100, decimals) + "%"
            case .duration: return Format.duration(ms: value)
            case .grouped: return Format.grouped(value)
            case .wholeMs: return Format.fixed(value, 0)
            }
        }
    }

    /// `quote` with `{}` where the figure stands, in `doc`; the figure is `key` of the JSON file
    /// `report`: dot-separated, `[i]` for an array element, or `budget METRIC` for the measured
    /// value of the budget on that figure.
    struct Quote: Sendable, CustomStringConvertible {
        let doc: String, quote: String, report: String, key: String, style: Style
        init(_ doc: String, _ quote: String, _ report: String, _ key: String, _ style: Style) {
            (self.doc, self.quote, self.report, self.key, self.style) = (doc, quote, report, key, style)
        }
        var description: String { "\(doc): \"\(quote)\" ← \(report) \(key)" }
    }

    static let gallery = "docs/gallery.md", model = "docs/model.md", clocks = "docs/clocks.md"
    static func summary(_ scenario: String) -> String { "Reports/\(scenario)/summary.json" }

    static let quotes: [Quote] = [
        // The servers the recommended design runs, and what they hold on 20 seeds.
        Quote(gallery, "fail 9 seeds and the recommended design's {} fail 6", summary("recommended"), "costs[1].servers", .grouped),
        // The original plan.
        Quote(gallery, "the peak second is {} requests", summary("original-plan"), "peakRequestsPerSecond", .grouped),
        Quote(gallery, "and {} over the whole window", summary("original-plan"), "bareShare", .percent(1)),
        Quote(gallery, "In the worst 1% of changes only {} of viewers fall", summary("original-plan"), "transitionBest500msShare.p1", .percent(0)),
        Quote(gallery, "(longest queue {})", summary("original-plan"), "originalPlan.maxQueueLength", .grouped),
        Quote(gallery, "; {} requests fail past the 10 s time-out", summary("original-plan"), "originalPlan.timedOut", .grouped),
        Quote(gallery, "{} shows came before the item's start", summary("original-plan"), "originalPlan.earlyShows", .grouped),
        // The idealised worst case.
        Quote(gallery, "dominates (sd 3 min 17 s). In the worst 1% of changes {} of viewers", summary("v115-idealised"), "transitionBest500msShare.p1", .percent(0)),
        Quote(gallery, "The worst pair is {} at the median change and 1 h 30 min at p99", summary("v115-idealised"), "transitionGapMs.p50", .duration),
        Quote(gallery, "The worst pair is 43 min 38 s at the median change and {} at p99", summary("v115-idealised"), "transitionGapMs.p99", .duration),
        Quote(gallery, "`standbyPause` dominates (sd {}). In the worst 1% of changes 23%", summary("v115-idealised"), "errorSourceMs.standbyPause.sd", .duration),
        Quote(gallery, "The estimator's ± bound holds for only {} of samples. - **v1.1.5", summary("v115-idealised"), "boundCoverage.share", .percent(0)),
        // v1.1.5 as shipped.
        Quote(gallery, "`standbyPause` dominates (sd {}). In the worst 1% of changes only", summary("v115-pausing"), "errorSourceMs.standbyPause.sd", .duration),
        Quote(gallery, "In the worst 1% of changes only {} of viewers fall in the best 500 ms window, and 50%", summary("v115-pausing"), "transitionBest500msShare.p1", .percent(0)),
        Quote(gallery, "window, and {} of viewer pairs are within 500 ms. The worst pair, which grows with viewers, is 24", summary("v115-pausing"), "viewerPairsWithin500msShare", .percent(0)),
        Quote(gallery, "The worst pair, which grows with viewers, is {} at the median change. The estimator", summary("v115-pausing"), "transitionGapMs.p50", .duration),
        Quote(gallery, "The estimator's ± bound holds for only {} of samples. - **The uptime fix", summary("v115-pausing"), "boundCoverage.share", .percent(0)),
        // The uptime fix and its sources.
        Quote(gallery, "in the worst 1% of changes {} of viewers fall in the best 500 ms window, and 64%", summary("v115-uptime"), "transitionBest500msShare.p1", .percent(0)),
        Quote(gallery, "the whole-second timestamp {}, the upload-complete", summary("v115-uptime"), "errorSourceMs.timestampResolution.sd", .duration),
        Quote(gallery, "the upload-complete estimator {}, the clock's", summary("v115-uptime"), "errorSourceMs.pathAndEstimator.sd", .duration),
        Quote(gallery, "the clock's 1 s resolution {}, and the 1 s", summary("v115-uptime"), "errorSourceMs.clockResolution.sd", .duration),
        Quote(gallery, "UI tick at an arbitrary phase {}.", summary("v115-uptime"), "errorSourceMs.uiTick.sd", .duration),
        Quote(gallery, "is a small fifth (sd {}).", summary("v115-uptime"), "errorSourceMs.clockDrift.sd", .duration),
        // The single fixes.
        Quote(gallery, "cuts the estimate's p50 error from {} to", summary("v115-uptime"), "estimateErrorMs.p50", .wholeMs),
        Quote(gallery, "error from 514 to {} ms but does not move", summary("fix-subsecond-timestamp"), "estimateErrorMs.p50", .wholeMs),
        Quote(gallery, "widens the path error's spread (sd {} to", summary("v115-uptime"), "errorSourceMs.pathAndEstimator.sd", .wholeMs),
        Quote(gallery, "(sd 309 to {} ms;", summary("fix-rtt-half"), "errorSourceMs.pathAndEstimator.sd", .wholeMs),
        Quote(gallery, "viewer pairs within 500 ms fall from 64% to {}", summary("fix-rtt-half"), "viewerPairsWithin500msShare", .percent(0)),
        Quote(gallery, "This is the best single fix: in the worst 1% of changes {} of viewers", summary("fix-aligned-ticks"), "transitionBest500msShare.p1", .percent(0)),
        Quote(gallery, "and {} of viewer pairs are within 500 ms. The clock's", summary("fix-aligned-ticks"), "viewerPairsWithin500msShare", .percent(0)),
        Quote(gallery, "players agree about as well as the uptime fix: {} of viewers", summary("fix-continuous-clock"), "transitionBest500msShare.p1", .percent(1)),
        Quote(gallery, "the worst 1% of changes ({} with the uptime fix)", summary("v115-uptime"), "transitionBest500msShare.p1", .percent(1)),
        // The recommended design.
        Quote(gallery, "in the worst 1% of the 901 changes {} of viewers fall", summary("recommended"), "transitionBest500msShare.p1", .percent(2)),
        Quote(gallery, "window, and {} of viewer pairs are within 500 ms; all 7 budgets hold", summary("recommended"), "viewerPairsWithin500msShare", .percent(2)),
        Quote(gallery, "positions are bare {} of the time against a 1% budget", summary("recommended"), "bareShare", .percent(3)),
        Quote(gallery, "The worst pair, which grows with viewers, is {} at the median change, 5.1 s", summary("recommended"), "transitionGapMs.p50", .duration),
        Quote(gallery, "at the median change, {} at p99 and 9.2 s at most", summary("recommended"), "transitionGapMs.p99", .duration),
        Quote(gallery, "it is within 500 ms in {} of changes", summary("recommended"), "transitionsWithin500msShare", .percent(2)),
        Quote(gallery, "EDGE players' p99 error is {}. The ± bound NTP claims", summary("recommended"), "budget clientErrorMs.byLink.edge.p99", .duration),
        Quote(gallery, "held at every one of {} samples", summary("recommended"), "boundCoverage.samples", .grouped),
        Quote(gallery, "three probes make the release's peak second {} requests", summary("recommended"), "peakRequestsPerSecond", .grouped),
        Quote(gallery, "against {} for v1.1.5", summary("v115-pausing"), "peakRequestsPerSecond", .grouped),
        // 80 positions.
        Quote(gallery, "Synchronisation is unaffected (it reads the headers): {} of viewers", summary("multistore-80"), "transitionBest500msShare.p1", .percent(2)),
        Quote(gallery, "and EDGE players' p99 error is {}. But the Store", summary("multistore-80"), "budget clientErrorMs.byLink.edge.p99", .duration),
        Quote(gallery, "But the Store is bare {} of the time", summary("multistore-80"), "bareShare", .percent(2)),
        Quote(gallery, "the 12-position design meets ({})", summary("recommended"), "bareShare", .percent(3)),
        // The outage.
        Quote(gallery, "the waits reach {} ms", summary("outage-fixed-retry"), "serverQueue.waitMsMax", .wholeMs),
        Quote(gallery, "and {} requests are turned away on top of", summary("outage-fixed-retry"), "serverQueue.queueFull", .grouped),
        Quote(gallery, "on top of the {} refused in the outage", summary("outage-fixed-retry"), "serverQueue.outageRefused", .grouped),
        Quote(gallery, "The servers accept at most {} requests in a second", summary("outage-fixed-retry"), "peakRequestsPerSecond", .grouped),
        Quote(gallery, "halves the refused requests ({})", summary("outage-backoff"), "serverQueue.outageRefused", .grouped),
        Quote(gallery, "its longest line is {} and its peak", summary("outage-backoff"), "serverQueue.maxQueueLength", .grouped),
        Quote(gallery, "and its peak {}, close to the", summary("outage-backoff"), "peakRequestsPerSecond", .grouped),
        Quote(gallery, "close to the {} of the uptime fix without an outage", summary("v115-uptime"), "peakRequestsPerSecond", .grouped),
        Quote(gallery, "Store bare {} of the time with fixed retries", summary("outage-fixed-retry"), "bareShare", .percent(1)),
        Quote(gallery, "with fixed retries and {} with backoff", summary("outage-backoff"), "bareShare", .percent(1)),
        // The leap second.
        Quote(gallery, "changes only {} of viewers fall in the best 500 ms window ({} in the recommended", summary("leap-second-step"), "transitionBest500msShare.p1", .percent(2)),
        Quote(gallery, "in the best 500 ms window ({} in the recommended design's own 3-hour window)", summary("recommended"), "transitionBest500msShare.p1", .percent(2)),
        Quote(gallery, "the clock error's p99 is {}, and 6 of 7", summary("leap-second-step"), "clientErrorMs.p99", .duration),
        Quote(gallery, "nothing a player sees moves: {} in the best window", summary("leap-second-smear"), "transitionBest500msShare.p1", .percent(2)),
        Quote(gallery, "in the best window, p99 {};", summary("leap-second-smear"), "clientErrorMs.p99", .duration),
        Quote(gallery, "only the bare budget fails, by a hair ({}:", summary("leap-second-smear"), "bareShare", .percent(3)),
        // The clock notes: the leap-second reports.
        Quote(clocks, "committed reports have its figures (in the worst 1% of changes {} and", summary("leap-second-step"), "transitionBest500msShare.p1", .percent(2)),
        Quote(clocks, "in the worst 1% of changes 53.12% and {} of viewers in the best 500 ms window", summary("leap-second-smear"), "transitionBest500msShare.p1", .percent(2)),
        // The model notes: v1.1.5's five servers.
        Quote(model, "about 2,440 requests a second for that minute, {} in the busiest second", summary("v115-pausing"), "peakRequestsPerSecond", .grouped),
        Quote(model, "the release queues (the longest line is {}, the longest wait", summary("v115-pausing"), "serverQueue.maxQueueLength", .grouped),
        Quote(model, "the longest wait {} ms) and nothing is turned away", summary("v115-pausing"), "serverQueue.waitMsMax", .wholeMs),
    ]

    /// `text` with every run of white space made one space (prose wraps anywhere).
    static func flattened(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
    }

    /// The value at `key` ("a.b[2].c", or "budget METRIC") of a parsed summary.json.
    static func value(_ json: Any, _ key: String) -> Double? {
        if key.hasPrefix("budget ") {
            let metric = String(key.dropFirst("budget ".count))
            let budget = ((json as? [String: Any])?["budgets"] as? [[String: Any]])?.first { $0["metric"] as? String == metric }
            return (budget?["value"] as? NSNumber)?.doubleValue
        }
        var node: Any? = json
        for part in key.split(separator: ".") {
            var name = Substring(part), index: Int? = nil
            if let open = part.firstIndex(of: "["), part.hasSuffix("]") {
                name = part[..<open]
                index = Int(part[part.index(after: open)..<part.index(before: part.endIndex)])
            }
            if !name.isEmpty { node = (node as? [String: Any])?[String(name)] }
            if let index {
                guard let array = node as? [Any], array.indices.contains(index) else { return nil }
                node = array[index]
            }
        }
        return (node as? NSNumber)?.doubleValue
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    @Test(arguments: quotes)
    func theProseQuotesTheReport(_ q: Quote) throws {
        let json = try JSONSerialization.jsonObject(with: Data(try Self.read(q.report).utf8))
        let value = try #require(Self.value(json, q.key), "\(q.report) has no number at \(q.key)")
        let figure = q.style.text(value)
        // The first `{}` is this row's figure; any other stands for another row's.
        guard let slot = q.quote.range(of: "{}") else { Issue.record("no {} in \(q)"); return }
        let before = String(q.quote[..<slot.lowerBound]), after = String(q.quote[slot.upperBound...]).components(separatedBy: "{}")
        let doc = Self.flattened(try Self.read(q.doc))
        let found = doc.contains(before + figure + after[0]) && after.dropFirst().allSatisfy { doc.contains($0) }
        #expect(found, "\(q.doc) should quote \(q.key) of \(q.report) as \(figure): \"\(before)\(figure)\(after[0])\"")
    }

    /// Every row's words around its figure occur in its document, whatever the figure: a row whose
    /// sentence was rewritten fails here rather than passing by matching nothing.
    @Test func everyQuoteIsFoundWithoutItsFigure() throws {
        for q in Self.quotes {
            let doc = Self.flattened(try Self.read(q.doc))
            for piece in q.quote.components(separatedBy: "{}") where !piece.trimmingCharacters(in: .whitespaces).isEmpty {
                #expect(doc.contains(piece), "\(q.doc) lacks \"\(piece)\" (\(q))")
            }
        }
    }
}
