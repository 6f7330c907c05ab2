import Testing
@testable import SyncLab

/// What a search file may say, without running anything: two spellings of one key or one value
/// are the same, the grid's size is checked without overflow, the memory the candidates would
/// take is known before any is loaded, and an objective no candidate measures is named.
@Suite struct SearchSpaceTests {
    @Test func aKeyPathHasOneSpelling() {
        #expect(InputKeyPath.canonical("client.probes") == "client.probes")
        #expect(InputKeyPath.canonical("client[\"probes\"]") == "client.probes")
        #expect(InputKeyPath.canonical("[\"client\"][\"probes\"]") == "client.probes")
        #expect(InputKeyPath.canonical("[\"seed\"]") == "seed")
        #expect(InputKeyPath.canonical("[\"$schema\"]") == "[\"$schema\"]")
        #expect(InputKeyPath.canonical("network.profiles[0][\"failure\"]") == "network.profiles[0].failure")
        #expect(InputKeyPath.canonical("a[\"b c\"]") == "a[\"b c\"]")
        // Control characters in a key come out escaped by JSON, never raw.
        #expect(InputKeyPath.canonical("a[\"\\u001b\"]") == "a[\"\\u001B\"]")
        for bad in ["", "a..b", "a[", "a[\"b\"", "[-1]", ".a"] { #expect(InputKeyPath.canonical(bad) == nil, "\(bad)") }
    }

    @Test func valuesThatReadAlikeHaveOneCanonicalText() throws {
        func text(_ json: String) throws -> String { try JSONParser.parse(json).canonicalText }
        let ones = try ["1", "1.0", "1e0", "10e-1", "0.1e1", "1.000"].map(text)
        #expect(Set(ones) == ["1"])
        #expect(try text("-0") == text("0"))
        #expect(try text("0.5") == text("5e-1"))
        #expect(try text("0.5") != text("0.25"))
        #expect(try text("\"1\"") != text("1"))
        #expect(try text("{\"kind\": \"ntp\", \"window\": 8}") == text("{\"window\": 8.0, \"kind\": \"ntp\"}"))
        #expect(try text("[1, 2]") != text("[2, 1]"))
        // Past 2^53 an integer reader sees every digit: two literals one apart differ.
        #expect(try text("9007199254740993") != text("9007199254740992"))
    }

    @Test func theHeldMemoryIsKnownFromTheFileAlone() {
        let number = { (n: Int) in JSONValue.number(Double(n), literal: String(n)) }
        let samples = JSONValue.object([JSONMember(key: "kind", value: .string("empirical")),
                                        JSONMember(key: "samples", value: .array((0..<1000).map(number)))])
        var space = SearchSpace(file: "s.json", basePath: "b.json", baseReference: "b.json",
                                knobs: [SearchKnob(keyPath: "client.probes", values: (1...4).map(number))],
                                constraints: [Budget(name: "b", metric: "bareShare", comparison: .atMost, limit: 0.1)],
                                constraintsGiven: true, objective: .servers, seedCount: 1, maxFailingSeeds: 0, screen: nil)
        let small = space.heldScenarioBytes
        #expect(small == 4 * (SearchSpace.candidateScenarioBytes + SearchSpace.knobValueBytesPerScalar))
        space.knobs.append(SearchKnob(keyPath: "population.sessionsPerVisit", values: [samples]))
        #expect(space.heldScenarioBytes > small + 4 * 1000 * SearchSpace.knobValueBytesPerScalar)
        #expect(space.heaviestKnob?.keyPath == "population.sessionsPerVisit")
        #expect(space.memoryProblem(limit: MemoryLimit(bytes: 1e12, source: "test")) == nil)
        let problem = space.memoryProblem(limit: MemoryLimit(bytes: 1e5, source: "a test's limit"))
        #expect(problem?.contains("4 candidates") == true && problem?.contains("a test's limit") == true, "\(problem ?? "nil")")
    }

    @Test func anObjectiveOnlyAnotherServerModelMeasuresIsNamed() throws {
        let plain = try ScenarioLoader().load(text: "{ \"extends\": \"v115-pausing.json\" }", resolver: ShippedScenarios.resolver)
        #expect(SearchSpace.unmeasured("originalPlan.earlyShowShare", by: plain)?.contains("original plan") == true)
        #expect(SearchSpace.unmeasured("peakRequestsPerSecond", by: plain) == nil)
        let original = try ScenarioLoader().load(text: "{ \"extends\": \"original-plan.json\" }", resolver: ShippedScenarios.resolver)
        #expect(SearchSpace.unmeasured("originalPlan.earlyShowShare", by: original) == nil)
        #expect(SearchSpace.unmeasured("queueWaitMs.p99", by: original) != nil)
    }
}
