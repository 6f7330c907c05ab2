import Testing
@testable import SyncLab
import SyncLabKernel

/// `client.probeTarget` as a scenario names it: the store by default, a time endpoint with its
/// defaults or its own values, and every bad value refused at its key path.
@Suite struct ProbeTargetTests {
    static func load(_ override: String) throws -> Scenario {
        try ScenarioLoader().load(text: try ScenarioFixtures.variant(override))
    }

    @Test func theStoreIsTheDefault() throws {
        #expect(try Self.load("{}").client.probeTarget == .store)
        #expect(try Self.load(#"{"client": {"probeTarget": "store"}}"#).client.probeTarget == .store)
        #expect(try Self.load(#"{"client": {"probeTarget": {"kind": "store"}}}"#).client.probeTarget == .store)
    }

    @Test func anEndpointTakesItsDefaultsOrItsOwnValues() throws {
        let plain = try Self.load(#"{"client": {"probeTarget": "time-endpoint"}}"#).client.probeTarget
        #expect(plain == .timeEndpoint(TimeEndpoint(responseBytes: 360, servedBy: .webServer, serviceTime: .constant(100_000))))
        let pool = try Self.load(#"{"client": {"probeTarget": {"kind": "time-endpoint", "servedBy": "worker-pool"}}}"#).client.probeTarget
        #expect(pool.endpoint?.serviceTime == .constant(1_000_000) && pool.endpoint?.takesWorkers == true)
        let own = try Self.load(#"{"client": {"probeTarget": {"kind": "time-endpoint", "responseBytes": 500, "servedBy": "web-server", "serviceTime": "50us"}}}"#)
        #expect(own.client.probeTarget == .timeEndpoint(TimeEndpoint(responseBytes: 500, servedBy: .webServer, serviceTime: .constant(50_000))))
    }

    @Test(arguments: [
        (#"{"client": {"probeTarget": "endpoint"}}"#, "client.probeTarget"),
        (#"{"client": {"probeTarget": 3}}"#, "client.probeTarget"),
        (#"{"client": {"probeTarget": {"kind": "nginx"}}}"#, "client.probeTarget.kind"),
        (#"{"client": {"probeTarget": {"responseBytes": 300}}}"#, "client.probeTarget.kind"),
        (#"{"client": {"probeTarget": {"kind": "time-endpoint", "responseBytes": 0}}}"#, "client.probeTarget.responseBytes"),
        (#"{"client": {"probeTarget": {"kind": "time-endpoint", "responseBytes": 2.5}}}"#, "client.probeTarget.responseBytes"),
        (#"{"client": {"probeTarget": {"kind": "time-endpoint", "servedBy": "nginx"}}}"#, "client.probeTarget.servedBy"),
        (#"{"client": {"probeTarget": {"kind": "time-endpoint", "serviceTime": "-1ms"}}}"#, "client.probeTarget.serviceTime"),
        (#"{"client": {"probeTarget": {"kind": "time-endpoint", "servedby": "web-server"}}}"#, "client.probeTarget"),
        (#"{"client": {"probeTarget": {"kind": "store", "responseBytes": 300}}}"#, "client.probeTarget"),
        // The original plan serves positions from its database: no store file, no time.
        (#"{"server": {"design": {"kind": "database-per-position"}, "fleet": null, "workers": null}, "client": {"probeTarget": "time-endpoint"}}"#,
         "client.probeTarget"),
    ])
    func badValuesNameTheirKey(_ override: String, _ keyPath: String) throws {
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(override))
        #expect(error?.keyPath == keyPath, "\(override): \(String(describing: error))")
        #expect(error?.file == "bad.json")
    }

    @Test func theEndpointIsDescribed() {
        #expect(ProbeTarget.store.summary == nil)
        let summary = ProbeTarget.timeEndpoint(TimeEndpoint()).summary ?? ""
        #expect(summary.contains("360 B") && summary.contains("outside the worker pool") && summary.contains("100us"))
    }
}
