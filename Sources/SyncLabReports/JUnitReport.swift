import SyncLab

/// JUnit XML for `synclab check --junit`: CI systems (GitHub, GitLab, Jenkins) show it as tests.
///
/// One `testsuite` per scenario, one `testcase` per budget; a failing budget carries a
/// `failure` whose message says in words what was measured and what the budget allows.
///
/// The file is valid under Jenkins' JUnit schema, which GitHub's test reporters and GitLab also
/// read: a bare `testsuites` root; on each suite `name`, `package`, `id`, `tests`, `failures`,
/// `errors`, `time`, `hostname`, then `properties`, the cases, `system-out` and `system-err`; on
/// each case `name`, `classname`, `time`. The file must be a pure function of the verdicts so the
/// same runs give the same bytes on any machine, so nothing comes from the host:
/// - no `timestamp`: in JUnit it says when the tests ran, which only the host clock knows (the
///   scenario's simulated epoch, 2012 for most, would read as the run's date). Jenkins' schema
///   makes it optional, and the CI tool dates the results by its own job instead. The Apache Ant
///   schema requires it, which is why the file no longer claims to follow that one;
/// - `time` is 0, the value CI tools show for a duration not recorded: the wall time of a run
///   goes to stderr, never into a file (GitHub's and GitLab's readers expect a number there);
/// - `hostname` is "synclab", a constant (Jenkins' schema allows it, older readers expect it).
public enum JUnitReport {
    /// The `hostname` of every suite: a constant, so the file does not depend on the machine.
    public static let hostname = "synclab"
    /// The `package` of every suite.
    public static let package = "synclab.check"

    public static func render(_ outcomes: [CheckOutcome]) -> String {
        var suites: [String] = []
        for (i, o) in outcomes.enumerated() { suites.append(suite(o, id: i)) }
        let tests = outcomes.reduce(0) { $0 + $1.verdicts.count }
        let failures = outcomes.reduce(0) { $0 + $1.failures }
        return document(suites, tests: tests, failures: failures)
    }

    /// The document around its suites, with the totals in a comment (the Ant schema allows no
    /// attribute on `testsuites`).
    static func document(_ suites: [String], tests: Int, failures: Int) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<!-- synclab check: \(Format.count(tests, "budget")), \(failures) failing -->\n"
            + "<testsuites>\n" + suites.joined() + "</testsuites>\n"
    }

    /// One test case: its name and, when it fails, the failure's message and text.
    struct Case {
        var name: String
        var failure: (message: String, body: String)?
    }

    /// One scenario's `testsuite` element.
    static func suite(_ o: CheckOutcome, id: Int) -> String {
        let cases = o.verdicts.map { v -> Case in
            guard !v.pass else { return Case(name: v.budget.name) }
            let body = "budget: \(v.budget.name)\nfigure: \(v.budget.metric)\nlimit: \(CheckReport.limit(v.budget))\n"
                + "measured: \(CheckReport.measured(v))\nreproduce: \(o.reproduce)"
            return Case(name: v.budget.name, failure: (CheckReport.failureMessage(v), body))
        }
        return suite(name: o.scenario, id: id,
                     properties: [("file", o.file), ("seed", "\(o.seed)")], cases: cases)
    }

    /// A `testsuite` element in the shape Jenkins' schema accepts.
    static func suite(name: String, id: Int, properties: [(String, String)], cases: [Case]) -> String {
        func attr(_ s: String) -> String { Format.xml(s, attribute: true) }
        let failed = cases.filter { $0.failure != nil }.count
        var xml = "  <testsuite name=\"\(attr(name))\" package=\"\(package)\" id=\"\(id)\" tests=\"\(cases.count)\" "
            + "failures=\"\(failed)\" errors=\"0\" time=\"0\" hostname=\"\(hostname)\">\n"
        xml += "    <properties>\n"
        for (key, value) in properties { xml += "      <property name=\"\(attr(key))\" value=\"\(attr(value))\"/>\n" }
        xml += "    </properties>\n"
        for c in cases {
            let open = "    <testcase name=\"\(attr(c.name))\" classname=\"\(attr(name))\" time=\"0\""
            guard let failure = c.failure else {
                xml += open + "/>\n"
                continue
            }
            xml += open + ">\n"
            xml += "      <failure type=\"budget\" message=\"\(attr(failure.message))\">\(Format.xml(failure.body))</failure>\n"
            xml += "    </testcase>\n"
        }
        xml += "    <system-out/>\n    <system-err/>\n"
        return xml + "  </testsuite>\n"
    }
}
