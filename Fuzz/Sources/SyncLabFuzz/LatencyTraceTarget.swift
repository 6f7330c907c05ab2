// Latency traces: a CSV of recorded delays that a scenario uses as a delay distribution
// (`{"trace": FILE, "column": NAME, "unit": "ms"}`). Parsed as the library reads it, with no
// column named and with the header's first columns named, then used as a link's delays in a
// scenario: loaded, validated and run small.

import Foundation
import SyncLab

enum LatencyTraceTarget {
    static let target = FuzzTarget(name: "latency-trace", summary: "latency-trace CSV: parse, as a link's delays in a scenario, a tiny run") { data in
        guard let text = String(data: data, encoding: .utf8) else {
            // The loader's refusal of a file that is not UTF-8 is worth reaching too.
            load(data, column: nil, unit: "ms")
            return
        }
        _ = try? LatencyTrace.samples(in: text, column: nil)
        // Up to two cells of the first line that is not a note, each as the column a scenario names.
        let first = text.split(whereSeparator: \.isNewline).lazy.map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("#") }
        let header = first.map { $0.split(separator: ",").prefix(2).map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        for name in header { _ = try? LatencyTrace.samples(in: text, column: name) }
        // The column a scenario would name: one of a header's (a line with a cell that is not a
        // number), none without. The unit and the column follow from the input, so every unit is
        // tried across inputs, and the same input always takes the same path.
        let hash = FuzzInput.hash(data)
        let column = header.contains { Double($0) == nil } ? header[Int(hash % UInt64(header.count))] : nil
        let unit = LatencyTrace.units[Int(hash / 7 % UInt64(LatencyTrace.units.count))].name
        load(data, column: column, unit: unit)
    }

    /// Loads a scenario whose one link draws its uplink delays from the trace `data`, and runs it.
    static func load(_ data: Data, column: String?, unit: String) {
        var uplink: [JSONMember] = [JSONMember(key: "trace", value: .string("fuzz.csv")), JSONMember(key: "unit", value: .string(unit))]
        if let column { uplink.append(JSONMember(key: "column", value: .string(column))) }
        let scenario = JSONValue.object([
            JSONMember(key: "extends", value: .string("r1.json")),
            JSONMember(key: "name", value: .string("fuzz-latency")),
            JSONMember(key: "network", value: .object([JSONMember(key: "profiles", value: .array([.object([
                JSONMember(key: "preset", value: .string("wifi")), JSONMember(key: "share", value: .number(1, literal: "1")),
                JSONMember(key: "uplink", value: .object(uplink)),
            ])]))])),
        ])
        let resolver = FuzzResolver(files: ["fuzz.json": Data(scenario.serialized(indent: 0).utf8), "fuzz.csv": data])
        do {
            TinyRun.run(try ScenarioLoader().load(path: "fuzz.json", resolver: resolver), reports: FuzzInput.sampled(data))
        } catch {
            FuzzInput.refused(error)
        }
    }
}
