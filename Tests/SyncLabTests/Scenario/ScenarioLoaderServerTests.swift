import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The opt-in server keys: each read into the config, each mistake named by its key path.
@Suite struct ScenarioLoaderServerTests {
    /// Without `workers` a server is PHP-FPM's stock pool (5 workers, 128 waiting); null drops
    /// v115-pausing's fleet and workers, so this is the default server.
    @Test func defaultServerIsPHPFPMsStockPool() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"server": {"fleet": null, "workers": null}}"#))
        #expect(s.server.workers == 5 && s.server.queueLimit == 128)
        #expect(s.server.hasServingModel && s.server.couplesPlayers)
        #expect(s.server.timestampAt == .requestStart && s.server.fleet == nil)
        #expect(s.server.outages.isEmpty && s.server.design == nil)
        let code = ServerConfig()
        #expect(code.workers == ServerConfig.stockWorkers && code.queueLimit == ServerConfig.stockBacklog)
    }

    /// "unlimited" keeps v1.1.5's idealised server: no pool, no queue, players uncoupled.
    @Test func unlimitedWorkersKeepThePlainServer() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"server": {"fleet": null, "workers": "unlimited"}}"#))
        #expect(s.server.workers == nil && s.server.queueLimit == nil)
        #expect(!s.server.hasServingModel && !s.server.couplesPlayers)
        let open = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"server": {"queueLimit": "unlimited"}}"#))
        #expect(open.server.workers == 5 && open.server.queueLimit == nil)
    }

    /// v1.1.5 as shipped: five servers, each the stock pool, round-robin.
    @Test func defaultScenarioRunsTheStockFleet() throws {
        let s = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("v115-pausing.json"))
        #expect(s.server.fleet == Fleet(servers: 5) && s.server.workers == 5 && s.server.queueLimit == 128)
        let idealised = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("v115-idealised.json"))
        #expect(idealised.server.workers == nil && !idealised.server.couplesPlayers)
    }

    @Test func servingKeysAreRead() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant("""
            {"server": {"timestampAt": "response-send", "workers": 8, "queueLimit": 100,
              "fleet": {"servers": 3, "clockOffset": {"kind": "normal", "mean": "0ms", "sd": "20ms"}, "balancing": "random"},
              "outages": [{"at": "90m", "duration": "2m", "mode": "timeout"}]}}
            """))
        #expect(s.server.timestampAt == .responseSend)
        #expect(s.server.workers == 8 && s.server.queueLimit == 100)
        #expect(s.server.fleet == Fleet(servers: 3, clockOffset: .normal(mean: 0, sd: 20e6), balancing: .random))
        #expect(s.server.outages == [Outage(at: SimTime(ns: 90 * .minute), duration: 2 * .minute, mode: .timeout)])
        #expect(s.server.couplesPlayers)
    }

    @Test func databaseDesignIsRead() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant("""
            {"server": {"fleet": null, "workers": null, "design": {"kind": "database-per-position", "connections": 4, "queryTime": "30ms",
              "queueLimit": 50, "timeout": "5s", "endJitter": {"kind": "uniform", "min": "10s", "max": "45s"}, "overlap": "15s"}}}
            """))
        #expect(s.server.design == DatabasePlan(connections: 4, queryTime: .constant(30e6), queueLimit: 50, timeout: 5 * .second,
                                                endJitter: .uniform(min: 10e9, max: 45e9), overlap: .constant(15e9)))
        let file = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"server": {"design": "store-file"}}"#))
        #expect(file.server.design == nil)
    }

    /// The shipped original-plan scenario loads, selects the plan and passes the schema.
    @Test func originalPlanScenarioLoads() throws {
        let s = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("original-plan.json"))
        #expect(s.server.design?.connections == 8)
        #expect(s.server.couplesPlayers)
        let validator = MiniSchema(root: try ScenarioSchemaTests.schema())
        let text = try String(contentsOfFile: ScenarioFixtures.shippedPath("original-plan.json"), encoding: .utf8)
        #expect(validator.errors(try JSONParser.parse(text)) == [])
    }

    @Test func budgetsMayNameTheServerFigures() throws {
        let s = try ScenarioLoader().load(text: try ScenarioFixtures.variant("""
            {"server": {"workers": 4}, "budgets": [{"name": "queue", "metric": "queueWaitMs.p99", "max": 200},
              {"name": "leak", "metric": "originalPlan.earlyShowShare", "max": 0}]}
            """))
        #expect(s.budgets.map(\.metric) == ["queueWaitMs.p99", "originalPlan.earlyShowShare"])
    }

    @Test(arguments: [
        (#"{"server": {"timestampAt": "later"}}"#, "server.timestampAt", "\"arrival\" or \"request-start\" or \"response-send\""),
        (#"{"server": {"workers": 0}}"#, "server.workers", "between 1 and"),
        (#"{"server": {"fleet": {"servers": 2, "balancing": "weighted"}}}"#, "server.fleet.balancing", "round-robin"),
        (#"{"server": {"fleet": {"servers": 2, "clockOfset": "5ms"}}}"#, "server.fleet", "clockOffset"),
        (#"{"server": {"outages": [{"at": "90m", "duration": "2m"}]}}"#, "server.outages[0].mode", "missing"),
        (#"{"server": {"outages": [{"at": "90m", "duration": "2m", "mode": "down"}]}}"#, "server.outages[0].mode", "refused"),
        (#"{"server": {"outages": [{"at": "5h", "duration": "2m", "mode": "refused"}]}}"#, "server.outages[0].at", "inside the run"),
        (#"{"server": {"outages": [{"at": "90m", "duration": "0s", "mode": "refused"}]}}"#, "server.outages[0].duration", "at least"),
        (#"{"server": {"design": "sql"}}"#, "server.design", "database-per-position"),
        (#"{"server": {"fleet": null, "workers": null, "design": {"kind": "database-per-position", "connections": 0}}}"#, "server.design.connections", "between 1 and"),
        (#"{"server": {"fleet": null, "workers": null, "design": {"kind": "database-per-position", "timeout": "-1s"}}}"#, "server.design.timeout", "at least 1ms"),
        (#"{"server": {"design": "database-per-position", "fleet": null, "workers": 4}}"#, "server.workers", "store-file design"),
        (#"{"server": {"design": "database-per-position"}}"#, "server.fleet", "store-file design"),
        (#"{"server": {"workers": "many"}}"#, "server.workers", "\"unlimited\""),
        (#"{"server": {"workers": "unlimited", "queueLimit": 10}}"#, "server.queueLimit", "finite pool"),
        (#"{"server": {"queueLimit": -1}}"#, "server.queueLimit", "between 0 and"),
        (#"{"server": {"design": "database-per-position", "fleet": null, "workers": null}, "store": {"positions": 1000}, "population": {"players": 3000000}}"#,
         "population.players", "below 67108864"),
        (#"{"server": {"design": "database-per-position", "fleet": null, "workers": null}, "store": {"positions": 1000}, "population": {"players": 70000}}"#,
         "population.players", "70000 × 1001 = 70070000"),
    ])
    func mistakesNameTheirKeyPath(override: String, keyPath: String, mentions: String) throws {
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(override))
        #expect(error?.keyPath.hasPrefix(keyPath) == true, "\(override): \(String(describing: error))")
        #expect(error?.message.contains(mentions) == true, "\(override): \(String(describing: error))")
        #expect(error?.file == "bad.json")
    }
}
