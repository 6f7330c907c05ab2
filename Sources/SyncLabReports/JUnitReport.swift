import SyncLab

/// JUnit XML for `synclab check --junit`: CI systems (GitHub, GitLab, Jenkins) show it as tests.
///
/// One `testsuite` per scenario, one `testcase` per budget; a failing budget carries a
/// `failure` whose message says in words what was measured and what the budget allows.
///
/// The file is valid under both JUnit schemas CI tools check against: the Apache Ant one (a bare
/// `testsuites` root; on each suite `name`, `package`, `id`, `tests`, `failures`, `errors`,
/// `time`, `timestamp`, `hostname`, then `properties`, the cases, `system-out` and `system-err`;
/// on each case `name`, `classname`, `time`) and Jenkins' (which allows all of that). The schemas
/// want a time and a host, but the file must be a pure function of the verdicts so the same runs
/// give the same bytes on any machine. So nothing comes from the host:
/// - `timestamp` is the scenario's epoch (the simulated instant the run starts), in UTC to the
///   second without a zone suffix, as the Ant schema's pattern requires;
/// - `time` is 0: the wall time of a run goes to stderr, never into a file;
/// - `hostname` is "synclab", a constant (the schema asks for a non-empty name).
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
        return suite(name: o.scenario, id: id, epochUnix: o.epochUnix,
                     properties: [("file", o.file), ("seed", "\(o.seed)")], cases: cases)
    }

    /// A `testsuite` element in the shape both schemas accept.
    static func suite(name: String, id: Int, epochUnix: Int64, properties: [(String, String)], cases: [Case]) -> String {
        func attr(_ s: String) -> String { Format.xml(s, attribute: true) }
        let failed = cases.filter { $0.failure != nil }.count
        var xml = "  <testsuite name=\"\(attr(name))\" package=\"\(package)\" id=\"\(id)\" tests=\"\(cases.count)\" "
            + "failures=\"\(failed)\" errors=\"0\" time=\"0\" timestamp=\"\(Epoch.formatSeconds(epochUnix))\" hostname=\"\(hostname)\">\n"
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
