import SyncLab

/// JUnit XML for `synclab check --junit`: CI systems (GitHub, GitLab, Jenkins) show it as tests.
///
/// One `testsuite` per scenario, one `testcase` per budget; a failing budget carries a
/// `failure` with the measured value and the limit. No timing attributes: the file is a pure
/// function of the verdicts, so the same runs give the same bytes.
public enum JUnitReport {
    public static func render(_ outcomes: [CheckOutcome]) -> String {
        let tests = outcomes.reduce(0) { $0 + $1.verdicts.count }
        let failures = outcomes.reduce(0) { $0 + $1.failures }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"synclab check\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\">\n"
        for o in outcomes { xml += suite(o) }
        return xml + "</testsuites>\n"
    }

    /// One scenario's `testsuite` element.
    static func suite(_ o: CheckOutcome) -> String {
        func attr(_ s: String) -> String { Format.xml(s, attribute: true) }
        var xml = ""
        xml += "  <testsuite name=\"\(attr(o.scenario))\" tests=\"\(o.verdicts.count)\" failures=\"\(o.failures)\" errors=\"0\" skipped=\"0\">\n"
        xml += "    <properties>\n"
        xml += "      <property name=\"file\" value=\"\(attr(o.file))\"/>\n"
        xml += "      <property name=\"seed\" value=\"\(o.seed)\"/>\n"
        xml += "    </properties>\n"
        for v in o.verdicts {
            let open = "    <testcase classname=\"\(attr(o.scenario))\" name=\"\(attr(v.budget.name))\""
            if v.pass {
                xml += open + "/>\n"
                continue
            }
            let limit = CheckReport.limit(v.budget)
            let measured = CheckReport.measured(v)
            let message = v.value == nil ? "\(v.budget.metric) not measured; limit \(limit)"
                : "\(v.budget.metric) measured \(measured); limit \(limit)"
            let body = "budget: \(v.budget.name)\nfigure: \(v.budget.metric)\nlimit: \(limit)\nmeasured: \(measured)\n"
                + "reproduce: \(o.reproduce)"
            xml += open + ">\n"
            xml += "      <failure type=\"budget\" message=\"\(attr(message))\">\(Format.xml(body))</failure>\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n"
        return xml
    }
}
