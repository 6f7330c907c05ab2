import Testing
@testable import SyncLab
@testable import SyncLabReports

/// JUnit XML and the other texts of `synclab check`, from hand-made verdicts.
@Suite struct JUnitReportTests {
    static let outcomes = [
        CheckOutcome(scenario: "v115 <pausing>", file: "Scenarios/a&b.json", seed: 7, verdicts: [
            BudgetVerdict(budget: Budget(name: "gap \"p99\" < 500 ms & more", metric: "transitionGapMs.p99", comparison: .atMost, limit: 500),
                          value: 1234.5, pass: false),
            BudgetVerdict(budget: Budget(name: "bare | share", metric: "bareShare", comparison: .atMost, limit: 0.01),
                          value: 0.003793, pass: true),
            BudgetVerdict(budget: Budget(name: "within", metric: "transitionsWithin500msShare", comparison: .atLeast, limit: 0.999),
                          value: nil, pass: false),
        ]),
        CheckOutcome(scenario: "uptime", file: "u.json", seed: 1, verdicts: [
            BudgetVerdict(budget: Budget(name: "cost < $40", metric: "costPerMonth.vps", comparison: .atMost, limit: 40), value: 20, pass: true),
        ]),
    ]

    @Test func exactXML() {
        let expected = """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="synclab check" tests="4" failures="2" errors="0">
          <testsuite name="v115 &lt;pausing&gt;" tests="3" failures="2" errors="0" skipped="0">
            <properties>
              <property name="file" value="Scenarios/a&amp;b.json"/>
              <property name="seed" value="7"/>
            </properties>
            <testcase classname="v115 &lt;pausing&gt;" name="gap &quot;p99&quot; &lt; 500 ms &amp; more">
              <failure type="budget" message="transitionGapMs.p99 measured 1234.5; limit transitionGapMs.p99 ≤ 500">budget: gap &quot;p99&quot; &lt; 500 ms &amp; more
        figure: transitionGapMs.p99
        limit: transitionGapMs.p99 ≤ 500
        measured: 1234.5
        reproduce: synclab run Scenarios/a&amp;b.json --seed 7</failure>
            </testcase>
            <testcase classname="v115 &lt;pausing&gt;" name="bare | share"/>
            <testcase classname="v115 &lt;pausing&gt;" name="within">
              <failure type="budget" message="transitionsWithin500msShare not measured; limit transitionsWithin500msShare ≥ 0.999">budget: within
        figure: transitionsWithin500msShare
        limit: transitionsWithin500msShare ≥ 0.999
        measured: not measured
        reproduce: synclab run Scenarios/a&amp;b.json --seed 7</failure>
            </testcase>
          </testsuite>
          <testsuite name="uptime" tests="1" failures="0" errors="0" skipped="0">
            <properties>
              <property name="file" value="u.json"/>
              <property name="seed" value="1"/>
            </properties>
            <testcase classname="uptime" name="cost &lt; $40"/>
          </testsuite>
        </testsuites>

        """
        #expect(JUnitReport.render(Self.outcomes) == expected)
    }

    @Test func parsesBackToTheSameNames() throws {
        let doc = try #require(XMLTree(JUnitReport.render(Self.outcomes)))
        #expect(doc.all("testsuite").map { $0.attributes["name"] } == ["v115 <pausing>", "uptime"])
        #expect(doc.all("testcase").map { $0.attributes["name"] } == ["gap \"p99\" < 500 ms & more", "bare | share", "within", "cost < $40"])
        let failures = doc.all("failure")
        #expect(failures.count == 2)
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
        #expect(xml == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"synclab check\" tests=\"0\" failures=\"0\" errors=\"0\">\n</testsuites>\n")
        #expect(XMLTree(xml) != nil)
    }

    @Test func consoleLines() {
        #expect(CheckReport.lines(Self.outcomes[0]) == """
        v115 <pausing>\tgap "p99" < 500 ms & more\ttransitionGapMs.p99 ≤ 500\t1234.5\tFAIL
        v115 <pausing>\tbare | share\tbareShare ≤ 0.01\t0.003793\tPASS
        v115 <pausing>\twithin\ttransitionsWithin500msShare ≥ 0.999\tnot measured\tFAIL

        """)
        let tabbed = CheckOutcome(scenario: "s", file: "f", seed: 1, verdicts: [
            BudgetVerdict(budget: Budget(name: "a\tb\r\nc", metric: "bareShare", comparison: .atMost, limit: 1), value: 0, pass: true)])
        #expect(CheckReport.lines(tabbed) == "s\ta b  c\tbareShare ≤ 1\t0\tPASS\n")
        #expect(CheckReport.tally(Self.outcomes) == "2 of 4 budgets fail in 2 scenarios")
        #expect(CheckReport.tally([Self.outcomes[1]]) == "the 1 budget holds in 1 scenario")
    }

    @Test func stepSummaryTable() {
        #expect(CheckReport.markdown(Self.outcomes) == """
        ### synclab check: ❌ 2 of 4 budgets fail in 2 scenarios

        | scenario | budget | limit | measured | verdict |
        |---|---|---|---|---|
        | v115 &lt;pausing&gt; | gap "p99" &lt; 500 ms &amp; more | `transitionGapMs.p99 ≤ 500` | 1234.5 | ❌ FAIL |
        | v115 &lt;pausing&gt; | bare \\| share | `bareShare ≤ 0.01` | 0.003793 | ✅ PASS |
        | v115 &lt;pausing&gt; | within | `transitionsWithin500msShare ≥ 0.999` | not measured | ❌ FAIL |
        | uptime | cost &lt; \\$40 | `costPerMonth.vps ≤ 40` | 20 | ✅ PASS |

        Reproduce: `synclab run Scenarios/a&b.json --seed 7`


        """)
    }
}
