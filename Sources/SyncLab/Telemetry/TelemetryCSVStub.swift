// STAND-IN: replaced by TelemetryCSV.swift at merge
import Foundation
import SyncLabKernel

/// A minimal reader of `device,sent,rtt_ms[,link]` files (sent in ms since the Unix epoch, a
/// blank round trip for an unanswered row), with the real reader's signatures, so `run
/// --telemetry` can be built and tested before `TelemetryCSV.swift` lands. Well-formed files only.
public enum TelemetryCSV {
    /// Which header names hold each column.
    public struct Columns: Sendable, Equatable {
        public var device = "device"
        public var sent = "sent"
        public var roundTrip = "rtt_ms"
        public var link = "link"
        public init() {}
    }

    public struct ColumnMapError: Error, Sendable, Equatable {
        public var message: String
    }

    /// "device=uid,sent=ts,rtt_ms=latency,link=net": each role's column name.
    public static func columns(mapping: String) throws(ColumnMapError) -> Columns {
        var c = Columns()
        for part in mapping.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, !pair[1].isEmpty else { throw ColumnMapError(message: "expected role=column; got '\(part)'") }
            switch pair[0] {
            case "device": c.device = pair[1]
            case "sent": c.sent = pair[1]
            case "rtt_ms": c.roundTrip = pair[1]
            case "link": c.link = pair[1]
            default: throw ColumnMapError(message: "unknown role '\(pair[0])'")
            }
        }
        return c
    }

    public static func read(_ path: String, columns: Columns = .init()) throws(InputError) -> TelemetryTable {
        func fail(_ m: String) -> InputError { InputError(file: path, keyPath: "", message: m) }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw fail("cannot read the telemetry file")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard let header = lines.first?.split(separator: ",", omittingEmptySubsequences: false).map(String.init) else {
            throw fail("the file is empty; expected a header line")
        }
        guard let d = header.firstIndex(of: columns.device), let s = header.firstIndex(of: columns.sent),
              let r = header.firstIndex(of: columns.roundTrip) else {
            throw fail("the header needs columns '\(columns.device)', '\(columns.sent)' and '\(columns.roundTrip)'")
        }
        let l = header.firstIndex(of: columns.link)
        var table = TelemetryTable(file: path)
        var deviceIndex: [String: UInt32] = [:], linkIndex: [String: UInt16] = [:]
        for (n, line) in lines.enumerated().dropFirst() {
            table.linesRead += 1
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == header.count, let sent = Int64(cells[s]) else { throw fail("line \(n + 1): not a well-formed row") }
            let label = l.map { cells[$0].isEmpty ? TelemetryTable.unlabelled : cells[$0] } ?? TelemetryTable.unlabelled
            let device = deviceIndex[cells[d]] ?? {
                table.devices.append(cells[d]); return UInt32(table.devices.count - 1)
            }()
            deviceIndex[cells[d]] = device
            let link = linkIndex[label] ?? {
                table.links.append(label); return UInt16(table.links.count - 1)
            }()
            linkIndex[label] = link
            let rtt = cells[r].isEmpty ? nil : Double(cells[r])
            if !cells[r].isEmpty && rtt == nil { throw fail("line \(n + 1): unreadable round trip '\(cells[r])'") }
            table.device.append(device)
            table.sentMs.append(sent)
            table.link.append(link)
            table.answered.append(rtt != nil)
            table.roundTripNs.append((rtt ?? 0) * 1e6)
            table.bytes.append(-1)
        }
        return table
    }
}
