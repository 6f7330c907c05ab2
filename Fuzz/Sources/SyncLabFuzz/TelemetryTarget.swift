// Telemetry CSV: an app's time requests, one row per exchange (docs/telemetry.md). Read by
// `TelemetryCSV.read(bytes:file:)` with the default columns, and, when the header's first cells
// are not the defaults, once more with them mapped as `--columns` would map them: every outcome
// must be a table or an InputError. A table's invariants are checked too: each row read is kept
// or counted once, and the columns agree in length and in the indices they hold.

import Foundation
import SyncLab

enum TelemetryTarget {
    static let target = FuzzTarget(name: "telemetry-csv", summary: "telemetry CSV: read, default and mapped columns",
                                   prepare: {}) { data in
        let bytes = [UInt8](data)
        read(bytes, columns: TelemetryCSV.Columns())
        // The first line's first three cells as device, sent and rtt_ms, through the mapping's parser.
        let first = bytes.prefix { $0 != UInt8(ascii: "\n") }.prefix(300)
        let names = String(decoding: first, as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false).prefix(3)
        guard names.count == 3 else { return }
        let mapping = "device=\(names[0]),sent=\(names[1]),rtt_ms=\(names[2])"
        do {
            read(bytes, columns: try TelemetryCSV.columns(mapping: mapping))
        } catch {
            FuzzInput.refused(error)
        }
    }

    static func read(_ bytes: [UInt8], columns: TelemetryCSV.Columns) {
        do {
            let t = try TelemetryCSV.read(bytes: bytes, file: "fuzz.csv", columns: columns)
            let n = t.count
            precondition(t.sentMs.count == n && t.link.count == n && t.answered.count == n && t.roundTripNs.count == n && t.bytes.count == n)
            precondition(n > 0 && n + t.droppedCount == t.linesRead, "rows kept \(n) + dropped \(t.droppedCount) != read \(t.linesRead)")
            precondition(t.device.allSatisfy { Int($0) < t.devices.count } && t.link.allSatisfy { Int($0) < t.links.count })
            precondition(t.links.count <= TelemetryCSV.maximumLinks)
            precondition(zip(t.answered, t.roundTripNs).allSatisfy { $0 ? ($1 > 0 && $1 <= TelemetryCSV.longestRoundTripNs) : $1 == 0 })
            _ = "\(t.dropped) \(t.firstDroppedLine)"
        } catch {
            FuzzInput.refused(error)
        }
    }
}
