import Testing
@testable import SyncLab
@testable import SyncLabReports

/// JUnit XML and the other texts of `synclab check`, from hand-made verdicts.
@Suite struct JUnitReportTests {
    static let outcomes = [
        // Epoch 2012-02-08T18:00:00.371Z, the default scenario's: JUnit writes no timestamp from it.
        CheckOutcome(scenario: "v115 <pausing>", file: "Scenarios/a&b.json", seed: 7, verdicts: [
            BudgetVerdict(budget: Budget(name: "gap \"p99\" < 500 ms & more", metric: "transitionGapMs.p99", comparison: .atMost, limit: 500),
                          value: 1234.5, pass: false),
            BudgetVerdict(budget: Budget(name: "bare | share", metric: "bareShare", comparison: .atMost, limit: 0.01),
                          value: 0.003793, pass: true),
            BudgetVerdict(budget: Budget(name: "within", metric: "transitionsWithin500msShare", comparison: .atLeast, limit: 0.999),
                          value: nil, pass: false),
        ], epochUnix: 1_328_724_000_371_000_000),
        CheckOutcome(scenario: "uptime", file: "u.json", seed: 1, verdicts: [
            BudgetVerdict(budget: Budget(name: "cost < $40", metric: "costPerMonth.vps", comparison: .atMost, limit: 40), value: 20, pass: true),
        ]),
    ]

    @Test func exactXML() {
        let expected = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- synclab check: 4 budgets, 2 failing -->
        <testsuites>
          <testsuite name="v115 &lt;pausing&gt;" package="synclab.check" id="0" tests="3" failures="2" errors="0" time="0" hostname="synclab">
            <properties>
              <property name="file" value="Scenarios/a&amp;b.json"/>
              <property name="seed" value="7"/>
            </properties>
            <testcase name="gap &quot;p99&quot; &lt; 500 ms &amp; more" classname="v115 &lt;pausing&gt;" time="0">
              <failure type="budget" message="measured 1.2 s; must be at most 500 ms (transitionGapMs.p99)">budget: gap &quot;p99&quot; &lt; 500 ms &amp; more
        figure: transitionGapMs.p99
        limit: transitionGapMs.p99 ≤ 500 ms
        measured: 1.2 s
        reproduce: synclab run Scenarios/a&amp;b.json --seed 7</failure>
            </testcase>
            <testcase name="bare | share" classname="v115 &lt;pausing&gt;" time="0"/>
            <testcase name="within" classname="v115 &lt;pausing&gt;" time="0">
              <failure type="budget" message="transitionsWithin500msShare was not measured, so the budget fails; it must be at least 99.9%">budget: within
        figure: transitionsWithin500msShare
        limit: transitionsWithin500msShare ≥ 99.9%
        measured: not measured
        reproduce: synclab run Scenarios/a&amp;b.json --seed 7</failure>
            </testcase>
            <system-out/>
            <system-err/>
          </testsuite>
          <testsuite name="uptime" package="synclab.check" id="1" tests="1" failures="0" errors="0" time="0" hostname="synclab">
            <properties>
              <property name="file" value="u.json"/>
              <property name="seed" value="1"/>
            </properties>
            <testcase name="cost &lt; $40" classname="uptime" time="0"/>
            <system-out/>
            <system-err/>
          </testsuite>
        </testsuites>

        """
        #expect(JUnitReport.render(Self.outcomes) == expected)
    }

    /// The rules of Jenkins' JUnit schema that our output touches, kept to the Ant schema's shape
    /// except its required `timestamp`: the attributes each element may and must carry, no
    /// `timestamp` (only the host clock knows when tests ran), and the order of a suite's children
    /// (properties, test cases, system-out, system-err).
    static func schemaProblems(_ xml: String) -> [String] {
        guard let doc = XMLTree(xml) else { return ["not well-formed"] }
        var problems: [String] = []
        let suiteKeys: Set<String> = ["name", "package", "id", "tests", "failures", "errors", "time", "hostname"]
        let jenkinsSuite: Set<String> = ["name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp",
                                         "hostname", "id", "package", "file", "log", "url", "version"]
        let decimal = try! Regex("^[0-9]+(\\.[0-9]+)?$")
        for (i, e) in doc.elements.enumerated() {
            let keys = Set(e.attributes.keys)
            switch e.name {
            case "testsuites":
                if !keys.isEmpty { problems.append("testsuites: Ant allows no attribute; has \(keys.sorted())") }
            case "testsuite":
                if keys != suiteKeys { problems.append("testsuite: attributes \(keys.sorted()), want \(suiteKeys.sorted())") }
                if !keys.isSubset(of: jenkinsSuite) { problems.append("testsuite: Jenkins does not know \(keys.subtracting(jenkinsSuite).sorted())") }
                if (try? decimal.wholeMatch(in: e.attributes["time"] ?? "")) == nil { problems.append("suite time") }
                if (e.attributes["hostname"] ?? "").isEmpty || (e.attributes["name"] ?? "").isEmpty { problems.append("empty name or hostname") }
                for key in ["tests", "failures", "errors", "id"] where Int(e.attributes[key] ?? "") == nil { problems.append("\(key) not an int") }
                // Children in order: properties, testcase*, system-out, system-err.
                let depth = e.ancestors.count + 1
                let children = doc.elements[(i + 1)...].prefix { $0.ancestors.count >= depth }.filter { $0.ancestors.count == depth }.map(\.name)
                let cases = children.dropFirst().prefix { $0 == "testcase" }.count
                if children != ["properties"] + Array(repeating: "testcase", count: cases) + ["system-out", "system-err"] {
                    problems.append("testsuite children \(children)")
                }
            case "testcase":
                if keys != ["name", "classname", "time"] { problems.append("testcase: attributes \(keys.sorted())") }
            case "failure":
                if e.attributes["type"] == nil || !keys.isSubset(of: ["type", "message"]) { problems.append("failure: attributes \(keys.sorted())") }
            case "property":
                if keys != ["name", "value"] { problems.append("property: attributes \(keys.sorted())") }
            case "properties", "system-out", "system-err":
                break
            default:
                problems.append("unknown element \(e.name)")
            }
        }
        return problems
    }

    @Test func validUnderJenkinsSchemaWithoutATimestamp() {
        #expect(Self.schemaProblems(JUnitReport.render(Self.outcomes)) == [])
        #expect(Self.schemaProblems(JUnitReport.render([])) == [])
        let seeds = SeedCheckOutcome(scenario: "s", file: "s.json", seeds: [1, 2], failingSeeds: [2], maxFailures: 0,
                                     budgets: [Budget(name: "rate", metric: "seedFailureRate", comparison: .atMost, limit: 0.1)])
        #expect(Self.schemaProblems(JUnitReport.render(Self.outcomes, across: [seeds])) == [])
        // The checker itself: the old header, a suite without its system-out and one with a
        // timestamp fail.
        #expect(!Self.schemaProblems("<testsuites name=\"x\"></testsuites>").isEmpty)
        #expect(!Self.schemaProblems(JUnitReport.render(Self.outcomes).replacingOccurrences(of: "    <system-out/>\n", with: "")).isEmpty)
        #expect(!Self.schemaProblems(JUnitReport.render(Self.outcomes).replacingOccurrences(of: " hostname=", with: " timestamp=\"2012-02-08T18:00:00\" hostname=")).isEmpty)
    }

    /// `Epoch.formatSeconds` (public in SyncLab) writes UTC to the second.
    @Test func epochFormatsInUTCToTheSecond() {
        // By hand: 2000 is 10,957 days after 1970 (30 × 365 + 7 leap days), 29 February is day 59.
        #expect(Epoch.formatSeconds((10_957 + 59) * 86_400 * 1_000_000_000) == "2000-02-29T00:00:00")
        #expect(Epoch.formatSeconds(1_328_724_000_999_999_999) == "2012-02-08T18:00:00")
        #expect(Epoch.formatSeconds(86_399 * 1_000_000_000) == "1970-01-01T23:59:59")
        #expect(Epoch.formatSeconds(Epoch.parse("2199-12-31T23:59:59.5Z")!) == "2199-12-31T23:59:59")
    }

    @Test func parsesBackToTheSameNames() throws {
        let doc = try #require(XMLTree(JUnitReport.render(Self.outcomes)))
        #expect(doc.all("testsuite").map { $0.attributes["name"] } == ["v115 <pausing>", "uptime"])
        #expect(doc.all("testcase").map { $0.attributes["name"] } == ["gap \"p99\" < 500 ms & more", "bare | share", "within", "cost < $40"])
        let failures = doc.all("failure")
        #expect(failures.count == 2)
        #expect(failures.map { $0.attributes["message"] } == ["measured 1.2 s; must be at most 500 ms (transitionGapMs.p99)",
            "transitionsWithin500msShare was not measured, so the budget fails; it must be at least 99.9%"])
        #expect(failures[0].text.hasPrefix("budget: gap \"p99\" < 500 ms & more\n"))
        #expect(failures[0].ancestors == ["testsuites", "testsuite", "testcase"])
    }

    @Test func attributesKeepLineBreaks() throws {
        let o = CheckOutcome(scenario: "s", file: "f", seed: 1, verdicts: [
            BudgetVerdict(budget: Budget(name: "two\nlines", metric: "bareShare", comparison: .atMost, limit: 0), value: 1, pass: false)])
        let doc = try #require(XMLTree(JUnitReport.render([o])))
        #expect(doc.all("testcase").first?.attributes["name"] == "two\nlines")
    }

    @Test func emptyRunIsValid() throws {
        let xml = JUnitReport.render([])
        #expect(xml == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- synclab check: 0 budgets, 0 failing -->\n<testsuites>\n</testsuites>\n")
        #expect(XMLTree(xml) != nil)
    }

    @Test func consoleLines() {
        #expect(CheckReport.lines(Self.outcomes[0]) == """
        v115 <pausing>\tgap "p99" < 500 ms & more\ttransitionGapMs.p99 ≤ 500 ms\t1.2 s\tFAIL
        v115 <pausing>\tbare | share\tbareShare ≤ 1%\t0.379%\tPASS
        v115 <pausing>\twithin\ttransitionsWithin500msShare ≥ 99.9%\tnot measured\tFAIL

        """)
        let tabbed = CheckOutcome(scenario: "s", file: "f", seed: 1, verdicts: [
            BudgetVerdict(budget: Budget(name: "a\tb\r\nc", metric: "bareShare", comparison: .atMost, limit: 1), value: 0, pass: true)])
        #expect(CheckReport.lines(tabbed) == "s\ta b  c\tbareShare ≤ 100%\t0%\tPASS\n")
        #expect(CheckReport.tally(Self.outcomes) == "2 of 4 budgets fail in 2 scenarios")
        #expect(CheckReport.tally([Self.outcomes[1]]) == "the 1 budget holds in 1 scenario")
        #expect(CheckReport.tally([Self.outcomes[0], Self.outcomes[0]].map { o in
            var one = o
            one.verdicts = [o.verdicts[0]]
            return one
        }) == "2 of 2 budgets fail in 2 scenarios")
        var single = Self.outcomes[0]
        single.verdicts = Array(single.verdicts.prefix(2))
        #expect(CheckReport.tally([single]) == "1 of 2 budgets fails in 1 scenario")
        #expect(CheckReport.scenarioTally(failed: 0, of: 1) == "the 1 scenario passes")
        #expect(CheckReport.scenarioTally(failed: 0, of: 3) == "all 3 scenarios pass")
        #expect(CheckReport.scenarioTally(failed: 1, of: 1) == "1 of 1 scenario fails")
        #expect(CheckReport.scenarioTally(failed: 2, of: 3) == "2 of 3 scenarios fail")
    }

    @Test func stepSummaryTable() {
        #expect(CheckReport.markdown(Self.outcomes) == """
        ### synclab check: ❌ 2 of 4 budgets fail in 2 scenarios

        | scenario | budget | limit | measured | verdict |
        |---|---|---|---|---|
        | v115 &lt;pausing&gt; | gap "p99" &lt; 500 ms &amp; more | `transitionGapMs.p99 ≤ 500 ms` | 1.2 s | ❌ FAIL |
        | v115 &lt;pausing&gt; | bare \\| share | `bareShare ≤ 1%` | 0.379% | ✅ PASS |
        | v115 &lt;pausing&gt; | within | `transitionsWithin500msShare ≥ 99.9%` | not measured | ❌ FAIL |
        | uptime | cost &lt; \\$40 | `costPerMonth.vps ≤ $40` | \\$20 | ✅ PASS |

        Reproduce: `synclab run Scenarios/a&b.json --seed 7`


        """)
    }
}
