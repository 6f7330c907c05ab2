import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel
@testable import SyncLabReports

/// The time endpoint's load apart from the store's (`client.probeTarget`): in summary.json, the
/// report's Load section and the capacity a flat-rate server needs; absent on the default design.
@Suite struct EndpointLoadReportTests {
    static func run(_ target: ProbeTarget) throws -> RunResult {
        try MarkdownReportTests.tiny {
            $0.population.players = 40
            $0.client.probes = 3
            $0.client.probeTarget = target
        }
    }

    @Test func theDefaultWritesNothingApart() throws {
        let r = try Self.run(.store)
        #expect(!SummaryJSON.render(r).contains("requestsByKind"))
        #expect(!MarkdownReport.render(r).contains("Time endpoint probes"))
    }

    @Test(arguments: [TimeEndpoint.Host.webServer, .workerPool])
    func theKindsAddUpAndAreWritten(_ host: TimeEndpoint.Host) throws {
        let r = try Self.run(.timeEndpoint(TimeEndpoint(servedBy: host)))
        let kinds = try #require(r.loadByKind)
        #expect(kinds.store.requests + kinds.endpoint.requests == r.requestsServed)
        #expect(kinds.store.bytes + kinds.endpoint.bytes == r.bytesServed)
        #expect(kinds.endpoint.bytes == 360 * kinds.endpoint.requests)
        #expect(kinds.store.requests > 0 && kinds.endpoint.requests > kinds.store.requests)
        // The pool's own figures and a flat-rate server's capacity count only what takes a worker.
        let pooled = host == .workerPool ? r.requestsServed : kinds.store.requests
        #expect(r.serving?.requests == pooled)
        #expect(r.workerRequestsPerSecond.reduce(0) { $0 + UInt64($1) } == pooled)
        #expect(r.peakWorkerRequests == (host == .workerPool ? r.peakSecond?.requests ?? 0 : kinds.store.peak))
        let json = SummaryJSON.render(r)
        #expect(json.contains("  \"requestsByKind\": {\n    \"store\": { \"requests\": \(kinds.store.requests), \"bytes\": \(kinds.store.bytes), "
            + "\"peakRequestsPerSecond\": \(kinds.store.peak), "))
        #expect(json.contains("\n    \"peakWorkerRequestsPerSecond\": \(r.peakWorkerRequests)\n  },\n"))
        let md = MarkdownReport.render(r)
        #expect(md.contains("- Store fetches: \(Format.grouped(Double(kinds.store.requests))) served ("))
        #expect(md.contains("Time endpoint probes, answered " + (host == .workerPool ? "by the worker pool: " : "by the web server outside the worker pool: ")))
        #expect(md.contains("| peak second taking a worker |") == (host == .webServer))
        #expect(md.contains("probes a time endpoint (360 B responses"))
    }
}
