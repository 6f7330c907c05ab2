import Foundation
import Testing
@testable import SyncLabCLI
@testable import SyncLab
import SyncLabKernel
import SyncLabReports

/// docs/safety.md's table of limits on what input can ask for is the code's: each row's value
/// is the constant it names, and every `static let maximum…` in the sources has a row (or is
/// named below as not a limit on input).
@Suite struct InputLimitsTests {
    static let root = #filePath.components(separatedBy: "/Tests/").first ?? "."

    static func count(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }

    static func bytes(_ n: Int) -> String { count(n) + " bytes" }

    static func duration(_ ns: Int64) -> String {
        if ns % (24 * 3_600 * .second) == 0 { return "\(ns / (24 * 3_600 * .second)) d" }
        precondition(ns % (3_600 * .second) == 0, "a limit in whole hours or days")
        return "\(ns / (3_600 * .second)) h"
    }

    /// Each limit's value, written as the table writes it, from the constant itself.
    static let code: [String: String] = [
        "ScenarioLoader.maximumFileBytes": bytes(ScenarioLoader.maximumFileBytes),
        "ScenarioLoader.maximumExtendsDepth": count(ScenarioLoader.maximumExtendsDepth),
        "JSONParser.maximumDepth": count(JSONParser.maximumDepth),
        "NearMiss.longestWord": count(NearMiss.longestWord),
        "LinkProfile.maximumLossRoundTrip": duration(LinkProfile.maximumLossRoundTrip),
        "ScenarioLoader.Limits.players": count(ScenarioLoader.Limits.players),
        "ScenarioLoader.Limits.positions": count(ScenarioLoader.Limits.positions),
        "ScenarioLoader.Limits.linkProfiles": count(ScenarioLoader.Limits.linkProfiles),
        "ScenarioLoader.Limits.runLength": duration(ScenarioLoader.Limits.runLength),
        "ScenarioLoader.Limits.delay": duration(ScenarioLoader.Limits.delay),
        "Scenario.memoryLimitBytes": bytes(Scenario.memoryLimitBytes),
        "ScenarioLoader.maximumProbes": count(ScenarioLoader.maximumProbes),
        "NTPEstimator.maximumWindow": count(NTPEstimator.maximumWindow),
        "MedianEstimator.maximumWindow": count(MedianEstimator.maximumWindow),
        "MarzulloEstimator.maximumWindow": count(MarzulloEstimator.maximumWindow),
        "GilbertElliottDelays.maximumRate": count(Int(exactly: GilbertElliottDelays.maximumRate) ?? -1) + " per second",
        "TCPRetransmitLoss.maximumLosses": count(TCPRetransmitLoss.maximumLosses),
        "LatencyTrace.maximumFileBytes": bytes(LatencyTrace.maximumFileBytes),
        "LatencyTrace.maximumSamples": count(LatencyTrace.maximumSamples),
        "MahimahiTrace.maximumOpportunities": count(MahimahiTrace.maximumOpportunities),
        "MahimahiTrace.maximumLength": duration(MahimahiTrace.maximumLength),
        "TraceLink.maximumCrossing": duration(TraceLink.maximumCrossing),
        "TraceStatsCommand.maximumPass": duration(TraceStatsCommand.maximumPass),
        "TraceStatsCommand.maximumMessageBytes": bytes(TraceStatsCommand.maximumMessageBytes),
        "TraceStatsCommand.maximumBaseDelay": duration(TraceStatsCommand.maximumBaseDelay),
        "TraceStatsCommand.maximumTau": duration(TraceStatsCommand.maximumTau),
        "SearchSpace.maximumCandidates": count(SearchSpace.maximumCandidates),
        "SearchSpace.maximumKnobs": count(SearchSpace.maximumKnobs),
        "SearchSpace.maximumConstraints": count(SearchSpace.maximumConstraints),
        "SearchSpace.maximumSeeds": count(SearchSpace.maximumSeeds),
        "SearchScreen.maximumSlack": count(Int(exactly: SearchScreen.maximumSlack) ?? -1),
        "SequentialConfirmation.maximumConfidence": String(SequentialConfirmation.maximumConfidence),
        "SweepSpec.maximumPoints": count(SweepSpec.maximumPoints),
        "SweepSpec.maximumSeeds": count(SweepSpec.maximumSeeds),
        "SweepPart.maximumShards": count(SweepPart.maximumShards),
        "CheckCommand.maximumSeeds": count(CheckCommand.maximumSeeds),
        "SearchCommand.maximumPartBytes": bytes(SearchCommand.maximumPartBytes),
        "MergeCommand.maximumPartBytes": bytes(MergeCommand.maximumPartBytes),
        "IndexCommand.maximumSummaryBytes": bytes(IndexCommand.maximumSummaryBytes),
        "TelemetryCSV.maximumRows": count(TelemetryCSV.maximumRows),
        "TelemetryCSV.maximumCellBytes": bytes(TelemetryCSV.maximumCellBytes),
        "TelemetryCSV.maximumLineBytes": bytes(TelemetryCSV.maximumLineBytes),
        "TelemetryCSV.maximumLinks": count(TelemetryCSV.maximumLinks),
        "FitCommand.maximumResamples": count(FitCommand.maximumResamples),
        "FitCommand.maximumBurstGap": duration(FitCommand.maximumBurstGap),
        "FitCommand.maximumLinks": count(FitCommand.maximumLinks),
    ]

    /// `static let maximum…` constants that are not limits on input, each with why.
    static let notInputLimits: Set<String> = [
        "MahimahiTrace.maximumFileBytes",   // the same constant as LatencyTrace's, kept for the API
        "SweepCommand.maximumSeeds",        // SweepSpec's, under the command's name
        "SweepCommand.maximumPoints",       // likewise
        "SafePaths.maximumNameBytes",       // the file system's NAME_MAX, checked on output names
        "RoundTripMixture.maximumIterations", // the EM's stopping rule, not read from input
        "RoundTripMixture.maximumCensoredIterations", // the three-part EM's, likewise
        "DirectionSplit.Correction.maximumEvaluations", // the split's refinement's, likewise
    ]

    /// The table's rows: (limit, value).
    static func table() throws -> [(String, String)] {
        let doc = try String(contentsOfFile: root + "/docs/safety.md", encoding: .utf8)
        let section = doc.components(separatedBy: "## Limits on what input can ask for").dropFirst().first ?? ""
        let body = section.components(separatedBy: "\n## ").first ?? ""
        return body.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`") else { return nil }
            return (cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[2])
        }
    }

    @Test func eachRowIsTheConstantItNames() throws {
        let rows = try Self.table()
        #expect(rows.count == Self.code.count, "rows: \(rows.map(\.0))")
        for (name, value) in rows {
            #expect(Self.code[name] == value, "\(name): the table says \(value), the code \(Self.code[name] ?? "nothing")")
        }
        #expect(Set(rows.map(\.0)) == Set(Self.code.keys))
    }

    /// Every `static let maximumX` in the sources is a row, or is named as not a limit on input:
    /// a new limit cannot be added without the table.
    @Test func noLimitIsMissingFromTheTable() throws {
        let documented = Set(Self.code.keys).union(Self.notInputLimits)
        let members = Set(documented.map { $0.split(separator: ".").last.map(String.init) ?? $0 })
        var missing: [String] = []
        let sources = Self.root + "/Sources"
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100)
        let declaration = try Regex(#"static let (maximum[A-Za-z]*)"#)
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in text.matches(of: declaration) {
                let member = String(text[match.output[1].range!])
                // The row's type must be declared or extended in this file.
                let owners = documented.filter { $0.hasSuffix("." + member) }.map { $0.split(separator: ".").dropLast().last.map(String.init) ?? "" }
                let declared = owners.contains { owner in
                    ["struct ", "enum ", "class ", "extension "].contains { text.contains($0 + owner) }
                }
                if !members.contains(member) || !declared { missing.append("\(file): \(member)") }
            }
        }
        #expect(missing.isEmpty, "limits without a row in docs/safety.md: \(missing)")
    }
}
