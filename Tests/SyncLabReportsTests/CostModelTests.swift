import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel
@testable import SyncLabReports

/// Cost models: parsing with located errors, the arithmetic worked by hand, and the figures,
/// summary keys and report section a run gets from them.
@Suite struct CostModelTests {
    static func parse(_ json: String) throws -> [CostModel] {
        try CostModel.list(from: InputNode.parse(json, file: "c.json"))
    }

    static func error(_ json: String) -> String {
        do {
            _ = try parse(json)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func shippedScenarioNamesTheSeedsTwoModels() throws {
        let s = try ScenarioLoader().load(path: SmallRun.shippedPausing)
        #expect(s.costModels == [
            CostModel(name: "parse-like", pricing: PerRequestPricing(baseMonthly: 199, includedRequests: 1_000_000, pricePerMillion: 100)),
            CostModel(name: "vps", pricing: FlatRatePricing(monthly: 20, capacityRps: 577)),
        ])
    }

    @Test func parsesEveryKey() throws {
        let models = try Self.parse("""
        [ { "name": "api", "kind": "per-request", "pricePerMillion": 2.5 },
          { "name": "box_2", "kind": "flat", "monthly": 5, "pricePerGB": 0.01, "includedEgress": "1000GB" } ]
        """)
        #expect(models == [
            CostModel(name: "api", pricing: PerRequestPricing(baseMonthly: 0, includedRequests: 0, pricePerMillion: 2.5)),
            CostModel(name: "box_2", pricing: FlatRatePricing(monthly: 5, capacityRps: nil), pricePerGB: 0.01, includedEgressBytes: 1e12),
        ])
    }

    @Test(arguments: [
        ("[{\"name\": \"x\", \"kind\": \"monthly\", \"monthly\": 1}]", "c.json: [0].kind: unknown cost model 'monthly'; expected one of 'per-request', 'flat'"),
        ("[{\"name\": \"x\", \"kind\": \"flat\", \"monthly\": 20, \"pricePerMillion\": 1}]", "c.json: [0]: unknown key 'pricePerMillion'"),
        ("[{\"name\": \"x\", \"kind\": \"flat\", \"monthly\": -20}]", "c.json: [0].monthly: must not be negative"),
        ("[{\"name\": \"x\", \"kind\": \"flat\", \"monthly\": 20, \"capacityRps\": 0}]", "c.json: [0].capacityRps: must be greater than zero"),
        ("[{\"name\": \"x\", \"kind\": \"per-request\"}]", "c.json: [0].pricePerMillion: missing required key"),
        ("[{\"name\": \"a b\", \"kind\": \"flat\", \"monthly\": 1}]", "c.json: [0].name: must be a non-empty name"),
        ("[{\"name\": \"a\", \"kind\": \"flat\", \"monthly\": 1}, {\"name\": \"a\", \"kind\": \"flat\", \"monthly\": 2}]",
         "c.json: [1].name: duplicate cost model name 'a'"),
        ("[{\"name\": \"a\", \"kind\": \"flat\", \"monthly\": 1, \"capacityRPS\": 5}]", "did you mean 'capacityRps'?"),
        ("{\"name\": \"a\"}", "expected an array"),
    ])
    func badModelsAreLocated(json: String, message: String) {
        let e = Self.error(json)
        #expect(e.contains(message), "got: \(e)")
    }

    @Test func perRequestArithmetic() {
        // The default scenario's window: 10301 requests in 3 h. A month is 240 such windows.
        let requests = CostModel.perMonth(10_301, over: 10_800)
        #expect(requests == 2_472_240)
        let parse = CostModel(name: "p", pricing: PerRequestPricing(baseMonthly: 199, includedRequests: 1_000_000, pricePerMillion: 100))
        let bill = parse.estimate(requestsPerMonth: 2_472_240, bytesPerMonth: 0, peakRequestsPerSecond: 99)
        // 199 + (2472240 − 1000000) / 10^6 × 100 = 199 + 147.224
        #expect(abs(bill.monthly - 346.224) < 1e-9)
        #expect(abs(bill.requestCharge - 147.224) < 1e-9)
        #expect(bill.servers == nil && bill.peakFits == nil)
        // Under the included quota only the base fee is due.
        #expect(parse.estimate(requestsPerMonth: 33_333 * 30, bytesPerMonth: 0, peakRequestsPerSecond: 1).monthly == 199)
        #expect(CostModel.perMonth(5, over: 0) == nil)
    }

    @Test func flatArithmetic() {
        let vps = CostModel(name: "vps", pricing: FlatRatePricing(monthly: 20, capacityRps: 200))
        let fits = vps.estimate(requestsPerMonth: 1e9, bytesPerMonth: 0, peakRequestsPerSecond: 99)
        #expect(fits.monthly == 20 && fits.servers == 1 && fits.peakFits == true)
        let exact = vps.estimate(requestsPerMonth: 0, bytesPerMonth: 0, peakRequestsPerSecond: 200)
        #expect(exact.servers == 1 && exact.peakFits == true)
        // 450 / 200 = 2.25: three servers.
        let spike = vps.estimate(requestsPerMonth: 0, bytesPerMonth: 0, peakRequestsPerSecond: 450)
        #expect(spike.monthly == 60 && spike.servers == 3 && spike.peakFits == false)
        let unknown = CostModel(name: "u", pricing: FlatRatePricing(monthly: 20, capacityRps: nil))
            .estimate(requestsPerMonth: 0, bytesPerMonth: 0, peakRequestsPerSecond: 10_000)
        #expect(unknown.monthly == 20 && unknown.servers == 1 && unknown.peakFits == nil)
    }

    @Test func egressArithmetic() {
        // 150 GB a month, 100 GB included per server, $0.09 per further GB: 50 × 0.09 = 4.50.
        let box = CostModel(name: "b", pricing: FlatRatePricing(monthly: 20, capacityRps: 100), pricePerGB: 0.09, includedEgressBytes: 100e9)
        let one = box.estimate(requestsPerMonth: 0, bytesPerMonth: 150e9, peakRequestsPerSecond: 50)
        #expect(abs(one.monthly - 24.5) < 1e-9 && abs(one.egressCharge - 4.5) < 1e-9)
        // Two servers include 200 GB: no egress charge.
        let two = box.estimate(requestsPerMonth: 0, bytesPerMonth: 150e9, peakRequestsPerSecond: 150)
        #expect(two.monthly == 40 && two.egressCharge == 0)
    }

    @Test func budgetsMayNameCostFigures() throws {
        let base = try String(contentsOfFile: SmallRun.shippedPausing, encoding: .utf8)
        let withBudget = base.replacingOccurrences(
            of: "\"budgets\": [",
            with: "\"budgets\": [ { \"name\": \"cheap\", \"metric\": \"costPerMonth.vps\", \"max\": 40 }, "
                + "{ \"name\": \"traffic\", \"metric\": \"requestsPerMonth\", \"max\": 1e7 }, "
                + "{ \"name\": \"egress\", \"metric\": \"bytesPerMonth\", \"max\": 1e12 },")
        let s = try ScenarioLoader().load(text: withBudget, file: "b.json")
        #expect(s.budgets.prefix(3).map(\.metric) == ["costPerMonth.vps", "requestsPerMonth", "bytesPerMonth"])
        let unknown = base.replacingOccurrences(
            of: "\"budgets\": [", with: "\"budgets\": [ { \"name\": \"x\", \"metric\": \"costPerMonth.aws\", \"max\": 1 },")
        do {
            _ = try ScenarioLoader().load(text: unknown, file: "b.json")
            Issue.record("costPerMonth.aws was accepted")
        } catch {
            #expect("\(error)".contains("b.json: budgets[0].metric: unknown figure 'costPerMonth.aws'; did you mean 'costPerMonth.vps'?"))
        }
    }

    @Test func runFiguresSummaryAndReport() throws {
        let r = SmallRun.result
        // 30 minutes: a 30-day month is 1440 windows.
        let requests = Double(r.requestsServed) * 1440
        let bytes = Double(r.bytesServed) * 1440
        let parse = 199 + max(0, requests - 1_000_000) / 1e6 * 100
        let peak = Double(r.requestsPerSecond.max() ?? 0)
        let vps = 20 * max(1, (peak / 200).rounded(.up))
        let f = r.figures
        #expect(f["requestsPerMonth"] == requests)
        #expect(f["bytesPerMonth"] == bytes)
        #expect(abs(((f["costPerMonth.parse-like"] ?? nil) ?? -1) - parse) < 1e-6)
        #expect(f["costPerMonth.vps"] == vps)
        for key in ["requestsPerMonth", "bytesPerMonth", "costPerMonth.parse-like", "costPerMonth.vps"] {
            #expect(RunResult.figureKeys(for: r.scenario).contains(key))
        }

        let summary = SummaryJSON.render(r)
        #expect(summary.contains("\"requestsPerMonth\": \(Format.fixed(requests, 0)),\n"))
        #expect(summary.contains("\"bytesPerMonth\": \(Format.fixed(bytes, 0)),\n"))
        #expect(summary.contains("\"costs\": [\n    { \"name\": \"parse-like\", \"monthly\": \(Format.fixed(parse, 2)), \"servers\": null, \"peakFits\": null },\n"
            + "    { \"name\": \"vps\", \"monthly\": \(Format.fixed(vps, 2)), \"servers\": 1, \"peakFits\": true }\n  ],\n"))

        let md = MarkdownReport.render(r)
        #expect(md.contains("\n## Capacity and cost\n"))
        #expect(md.contains("| requests per month | \(Format.grouped(requests)) ("))
        #expect(md.contains("| parse-like | per request: \\$199.00 a month including 1,000,000 requests, \\$100.00 per further million | **\\$\(Format.fixed(parse, 2))** |"))
        #expect(md.contains("| vps | flat: \\$20.00 a month per server, 577 requests/s each | **\\$20.00** | the peak of \(Int(peak)) requests/s fits one server |"))
    }

    @Test func noModelsStillReportsTraffic() throws {
        var s = try SmallRun.scenario()
        s.costModels = []
        s.duration = 5 * .minute
        s.population.players = 20
        s.population.release = nil
        let r = Simulation.run(s)
        #expect(r.costEstimates.isEmpty)
        #expect(SummaryJSON.render(r).contains("\"costs\": [],\n"))
        let md = MarkdownReport.render(r)
        #expect(md.contains("The scenario names no price models (`costs`)"))
        #expect(md.contains("| requests per month | \(Format.grouped(Double(r.requestsServed) * 8640)) ("))
    }
}
