import Foundation
import Testing
@testable import SyncLab
import SyncLabReports

/// The audit in report.md and summary.json, the figure checks `index` and `merge` share, and
/// docs/summary-json.md's figure table.
@Suite struct ModelAuditReportTests {
    static let root = #filePath.components(separatedBy: "/Tests/").first!

    static func result(rows: [AuditRow]) -> RunResult {
        var s = try! ScenarioLoader().load(path: Self.root + "/Scenarios/v115-idealised.json")
        s.population.players = 200
        s.duration = 5 * .minute
        s.population.release = nil
        var r = Simulation.run(s, threads: 1)
        r.modelAudit = rows
        return r
    }

    @Test func aRowThatDoesNotHoldSaysSo() throws {
        let good = AuditRow(model: "link wifi", figure: "uplinkMs.p50", expected: 10, realised: 10.2, tolerance: 0.5, samples: 900)
        let bad = AuditRow(model: "radio lte", figure: "promotionShare", expected: 1.0 / 3, realised: 0.3175, tolerance: 0.002, samples: 40_000)
        let r = Self.result(rows: [good, bad])
        let md = MarkdownReport.render(r)
        #expect(md.contains("## What the models did"))
        #expect(md.contains("**1 row of 2 do not hold"))
        #expect(md.contains("| radio lte | `promotionShare` | 33.333% | 31.750% | ± 0.200% | 40,000 | **no: does not hold** |"))
        #expect(md.contains("| link wifi | `uplinkMs.p50` | 10.0 ms | 10.2 ms | ± 0.50 ms | 900 | yes |"))
        let json = try JSONParser.parse(SummaryJSON.render(r))
        #expect(json["modelAudit"]?["allHold"] == .bool(false))
        guard case .array(let list)? = json["modelAudit"]?["rows"] else { Issue.record("no rows"); return }
        #expect(list.count == 2 && list[1]["holds"] == .bool(false) && list[1]["figure"] == .string("promotionShare"))
        #expect(r.figures["modelAudit.allHold"] == 0)
        #expect(Self.result(rows: [good]).figures["modelAudit.allHold"] == 1)
    }

    /// A run whose audit followed a sample says whom, in report.md and summary.json; one that
    /// followed every player says nothing more.
    @Test func theSampleIsNamedWhenTheAuditFollowedOne() throws {
        let row = AuditRow(model: "link wifi", figure: "uplinkMs.p50", expected: 10, realised: 10.2, tolerance: 0.5, samples: 900)
        var r = Self.result(rows: [row])
        #expect(r.auditedPlayers == 200 && r.auditStride == 1)
        #expect(!MarkdownReport.render(r).contains("keep-alive rows count"))
        #expect(try JSONParser.parse(SummaryJSON.render(r))["modelAudit"]?["auditedPlayers"] == .number(200, literal: "200"))
        r.auditedPlayers = 67
        r.auditStride = 3
        #expect(MarkdownReport.render(r).contains("Every row holds. The link, standby, radio and keep-alive rows count 67 of the 200 players "
            + "(one in 3, from a start the seed chose): their samples and tolerances are that sample's.\n"))
        #expect(try JSONParser.parse(SummaryJSON.render(r))["modelAudit"]?["auditedPlayers"] == .number(67, literal: "67"))
    }

    /// Every figure summary.json holds sits where its declaration says, with its decimals.
    @Test func summaryJSONHoldsEveryDeclaredFigureAtItsPath() throws {
        let r = Self.result(rows: [])
        let json = try JSONParser.parse(SummaryJSON.render(r))
        let f = r.figures
        var checked = 0
        for figure in Figure.all where figure.scope == .run && figure.placeholder == nil && figure.key != "modelAudit.allHold" {
            guard let path = figure.json else { continue }
            var node: JSONValue? = json
            for part in path.split(separator: ".") { node = node?[String(part)] }
            guard let node else { continue }   // a section this scenario does not write
            switch (node, f[figure.key] ?? nil) {
            case (.number(_, let literal), let value?): #expect(literal == Format.fixed(value, figure.decimals), "\(figure.key)")
            case (.null, nil): break
            default: Issue.record("\(figure.key) at \(path): \(node) against \(String(describing: f[figure.key]))")
            }
            checked += 1
        }
        #expect(checked > 50)
    }

    @Test func aSummaryWithAnImpossibleFigureIsRefused() throws {
        let r = Self.result(rows: [])
        let text = SummaryJSON.render(r)
        #expect(Headline.impossibleFigure(in: try JSONParser.parse(text)) == nil)
        let seven = text.replacingOccurrences(of: #"\n  "viewersInBest500msShare": [^,]*"#, with: "\n  \"viewersInBest500msShare\": 7",
                                              options: .regularExpression)
        #expect(seven != text)
        #expect(Headline.impossibleFigure(in: try JSONParser.parse(seven))
                == "viewersInBest500msShare: expected a share from 0 to 1 or null; got 7 (a number)")
        let negative = try JSONParser.parse(#"{"errorSourceMs": {"uiTick": {"mean": -3, "sd": -1}}}"#)
        #expect(Headline.impossibleFigure(in: negative) == "errorSourceMs.uiTick.sd: expected milliseconds ≥ 0 or null; got -1 (a number)")
        let byLink = try JSONParser.parse(#"{"boundCoverage": {"byLink": {"wifi": 0.5, "lte": 1.5}}}"#)
        #expect(Headline.impossibleFigure(in: byLink) == "boundCoverage.byLink.lte: expected a share from 0 to 1 or null; got 1.5 (a number)")
        let verdict = try JSONParser.parse(#"{"modelAudit": {"allHold": 1}}"#)
        #expect(Headline.impossibleFigure(in: verdict) == "modelAudit.allHold: expected true or false or null; got 1 (a number)")
        #expect(Headline.isPossible(0.5, figure: "viewersInBest500msShare") && !Headline.isPossible(7, figure: "viewersInBest500msShare"))
        #expect(Headline.expected(figure: "p99RequestsPerSecond") == "requests per second ≥ 0")
    }

    @Test func theDocsTableIsTheDeclaration() throws {
        let page = try String(contentsOfFile: Self.root + "/docs/summary-json.md", encoding: .utf8)
        #expect(page.contains(FigureTable.figures()), "docs/summary-json.md's figure table differs from Figure.all")
        #expect(page.contains(FigureTable.audit()), "docs/summary-json.md's audit table differs from Figure.audit")
    }

    @Test func requestsCSV() {
        var r = Self.result(rows: [])
        #expect(RequestTraceCSV.render(r) == nil)
        var row = TraceRow(player: 7, link: 0, sent: 1_500_000, sentReading: 2_000_000)
        row.reachedServer = 21_000_000
        row.waited = 0
        row.served = 21_000_000
        row.stamp = 20_000_000
        row.responseStart = 29_000_000
        row.end = 40_250_000
        row.endReading = 40_750_000
        row.outcome = .answered
        row.probe = 2
        r.requestTrace = [row, TraceRow(player: 9, link: 0, kind: .timeEndpoint, sent: 3_000_000, sentReading: 3_000_001)]
        let lines = RequestTraceCSV.render(r)!.split(separator: "\n").map(String.init)
        #expect(lines[0] == RequestTraceCSV.header)
        #expect(lines[1] == "7,wifi,1.500,2.000,0.000,0.000,0.000,21.000,0.000,21.000,20.000,29.000,0.000,40.250,40.750,answered,store,2")
        #expect(lines[2] == "9,wifi,3.000,3.000,0.000,0.000,0.000,,,,,,,,,unfinished,time-endpoint,")
    }
}
