import SyncLab

/// requests.csv (`run --trace-requests N`): one row per request of the traced players, in
/// player then send order. Times in ms of true time from the window's start (3 decimals, so
/// to the microsecond), device readings in ms of the design clock; a step the request never
/// reached is empty.
public enum RequestTraceCSV {
    public static let header = "player,link,sent_ms,sent_device_ms,promotion_ms,setup_ms,request_retransmit_ms,reached_server_ms,"
        + "waited_ms,served_ms,stamp_ms,response_start_ms,response_retransmit_ms,response_end_ms,response_end_device_ms,outcome,kind,probe"

    public static func render(_ r: RunResult) -> String? {
        guard let rows = r.requestTrace else { return nil }
        func ms(_ ns: Int64?) -> String { ns.map { Format.fixed(Double($0) / 1e6, 3) } ?? "" }
        var out = header + "\n"
        for row in rows {
            let link = r.scenario.links.indices.contains(row.link) ? r.scenario.links[row.link].name : "\(row.link)"
            out += "\(row.player),\(link),\(ms(row.sent)),\(ms(row.sentReading)),\(ms(row.promotion)),\(ms(row.setup)),"
                + "\(ms(row.requestRetransmit)),\(ms(row.reachedServer)),\(ms(row.waited)),\(ms(row.served)),\(ms(row.stamp)),"
                + "\(ms(row.responseStart)),\(row.responseStart == nil ? "" : ms(row.responseRetransmit)),\(ms(row.end)),"
                + "\(ms(row.endReading)),\(row.outcome.rawValue),\(row.kind.rawValue),\(row.probe.map(String.init) ?? "")\n"
        }
        return out
    }
}
