import Testing
@testable import SyncLab

/// `RunResult.figure(_:)`: a figure by key, a typo an error rather than nil.
@Suite struct RunResultFigureTests {
    /// v115-pausing cut to 300 players for 20 minutes (its release at 90 min dropped): links
    /// wifi, lte and 3g; cost models parse-like and vps.
    static let result: RunResult = {
        var s = try! ShippedScenarios.load("v115-pausing")
        try! s.resize(players: 300, duration: 20 * .minute)
        return Simulation.run(s)
    }()

    @Test func aKnownKeyIsTheFiguresValue() throws {
        let r = Self.result
        // Every key a budget on this scenario may name, measured or not (nil), is the figure.
        let keys = Figure.keys(for: r.scenario)
        #expect(keys.count > 50)
        for key in keys { #expect(try r.figure(key) == (r.figures[key] ?? nil), "\(key)") }
        #expect(try r.figure("clientErrorMs.p99") != nil)
        #expect(try r.figure("requests") == Double(r.requestsServed))
        // A placeholder figure by its declaration and the link's name.
        let byLink = try #require(Figure.declared("clientErrorMs.byLink.lte.p99"))
        #expect(try r.figure(byLink, for: "lte") == r.figure("clientErrorMs.byLink.lte.p99"))
        #expect(try r.figure(byLink, for: "lte") != nil)
    }

    @Test func anUnknownKeyThrowsWithTheNearest() {
        let r = Self.result
        #expect(throws: UnknownFigure(key: "clientErorMs.p99", nearest: "clientErrorMs.p99")) { try r.figure("clientErorMs.p99") }
        // A link the scenario does not have, a figure only `check --seeds` measures.
        #expect(throws: UnknownFigure.self) { try r.figure("clientErrorMs.byLink.edge.p99") }
        #expect(throws: UnknownFigure.self) { try r.figure("seedFailureRate") }
        #expect(throws: UnknownFigure(key: "zzz", nearest: nil)) { try r.figure("zzz") }
        #expect(UnknownFigure(key: "zzz", nearest: nil).description == "no figure 'zzz' in this run (the keys: docs/summary-json.md)")
    }
}
