import Foundation
import SyncLabKernel

/// Packet-delivery traces in the format of the Mahimahi link emulator (Netravali et al., USENIX
/// ATC 2015), in which the Saturator recordings of the Sprout paper (Winstein, Sivaraman,
/// Balakrishnan, NSDI 2013) are published.
///
/// One line per opportunity for one 1500-byte packet to cross the link: a whole number of
/// milliseconds since the trace's start, never decreasing; a time written k times is k packets
/// in that millisecond. The trace lasts until its last time and then repeats. Blank lines are
/// skipped; a line may end in CRLF. Every problem names its line (`LatencyTrace.Problem`).
public enum MahimahiTrace {
    /// Trace files larger than this are refused unread (the published ones are at most 1.3 MB).
    public static let maximumFileBytes = 100_000_000
    public static let maximumOpportunities = 20_000_000

    /// The opportunities in `text`, in ms since the trace's start, in order. Pure: the file
    /// system is read by the caller.
    public static func opportunities(in text: String) throws(LatencyTrace.Problem) -> [Int64] {
        var times: [Int64] = []
        var lineNumber = 0, lastLine = 0
        var utf8 = Array(text.utf8)
        utf8.append(UInt8(ascii: "\n"))
        var start = 0
        for (i, byte) in utf8.enumerated() where byte == UInt8(ascii: "\n") {
            lineNumber += 1
            defer { start = i + 1 }
            var line = utf8[start..<i]
            while let first = line.first, first == 0x20 || first == 0x09 || first == 0x0D { line = line.dropFirst() }
            while let last = line.last, last == 0x20 || last == 0x09 || last == 0x0D { line = line.dropLast() }
            if line.isEmpty { continue }
            // The line is not quoted: a trace path can name any readable file (docs/safety.md).
            guard line.count <= 18, line.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) || (line.first == UInt8(ascii: "-") && line.count > 1
                && line.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })) else {
                throw LatencyTrace.Problem(line: lineNumber, message: "is not a whole number of milliseconds")
            }
            let ms = Int64(String(decoding: line, as: UTF8.self))!
            guard ms >= 0 else { throw LatencyTrace.Problem(line: lineNumber, message: "\(ms) is negative; a time since the trace's start cannot be") }
            if let previous = times.last, ms < previous {
                throw LatencyTrace.Problem(line: lineNumber, message: "\(ms) comes after \(previous); the times must not decrease")
            }
            guard times.count < maximumOpportunities else {
                throw LatencyTrace.Problem(line: lineNumber, message: "more than \(maximumOpportunities) opportunities")
            }
            times.append(ms)
            lastLine = lineNumber
        }
        guard let last = times.last else { throw LatencyTrace.Problem(line: 0, message: "has no delivery opportunities") }
        guard last > 0 else {
            throw LatencyTrace.Problem(line: lastLine, message: "ends at 0 ms; a trace must last (its last time is its length)")
        }
        return times
    }

    /// The opportunities of the file at `path` as a link direction, or an error naming the file
    /// and line. `path` is read through `node`'s resolver (relative to the scenario file).
    static func read(_ path: String, at node: InputNode) throws(InputError) -> DeliveryOpportunities {
        let data: Data
        do {
            data = try node.resolver.contents(of: node.resolver.name(of: path, from: nil), maximumBytes: maximumFileBytes)
        } catch {
            switch error {
            case .missing: throw node.error("trace file '\(path)' does not exist (paths are relative to the scenario file)")
            case .folder: throw node.error("trace file '\(path)' is a folder; expected a Mahimahi trace")
            case .tooLarge(let bytes):
                throw node.error("trace file '\(path)' has \(bytes) bytes; at most \(maximumFileBytes) are allowed")
            case .unreadable: throw node.error("trace file '\(path)' cannot be read")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else { throw node.error("trace file '\(path)' is not UTF-8 text") }
        do {
            return DeliveryOpportunities(milliseconds: try opportunities(in: text), file: path)
        } catch {
            throw node.error("trace file '\(path)'\(error.line == 0 ? "" : " line \(error.line)"): \(error.message)")
        }
    }
}
