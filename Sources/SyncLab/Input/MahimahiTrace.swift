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
    /// Trace files larger than this are refused unread: the limit of every trace file, latency
    /// traces' (`LatencyTrace.maximumFileBytes`, 50 MB; the published traces are at most 1.3 MB).
    public static let maximumFileBytes = LatencyTrace.maximumFileBytes
    /// The most lines a trace may hold: its opportunities are kept as 8-byte times (160 MB).
    public static let maximumOpportunities = 20_000_000
    /// The longest a trace may last (its last time): 30 days, the longest measured duration of a
    /// run. It bounds the arithmetic of a crossing (`TraceLink.maximumCrossing`); `synclab
    /// trace-stats`, which enters a pass every 5 ms, reads shorter ones (its `maximumPass`).
    public static let maximumLength: Nanoseconds = 30 * 24 * 3_600 * .second

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
            guard ms <= maximumLength / .millisecond else {
                throw LatencyTrace.Problem(line: lineNumber, message: "\(ms) ms is past the longest a trace may last, "
                    + "\(Units.formatDuration(maximumLength)) (\(maximumLength / .millisecond) ms)")
            }
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

    /// The trace file at `path` as a link direction, read through `resolver` (a scenario's, where
    /// `path` is relative to the scenario file; `synclab trace-stats` reads it as given), or why
    /// not, in words that name the file: what the path is when it is not a regular file, its
    /// size against the limit, the line of a bad time. Every limit of a trace file is applied
    /// here, so a scenario and `trace-stats` refuse the same files alike. `missing` words a file
    /// that does not exist. The path is quoted as given; whoever prints the message escapes its
    /// control characters (`InputError.escapingControls`).
    public static func load(_ path: String, through resolver: any ScenarioResolver, missing: String = "does not exist")
        -> Result<DeliveryOpportunities, LoadProblem> {
        let data: Data
        do {
            data = try resolver.contents(of: resolver.name(of: path, from: nil), maximumBytes: maximumFileBytes)
        } catch {
            switch error {
            case .missing: return .failure(LoadProblem("trace file '\(path)' \(missing)"))
            case .folder: return .failure(LoadProblem("trace file '\(path)' is a folder; expected a Mahimahi trace file"))
            case .tooLarge(let bytes):
                return .failure(LoadProblem("trace file '\(path)' has \(bytes) bytes; at most \(maximumFileBytes) are allowed"))
            case .unreadable(let reason): return .failure(LoadProblem("trace file '\(path)' cannot be read: \(reason)"))
            }
        }
        guard let text = String(data: data, encoding: .utf8) else { return .failure(LoadProblem("trace file '\(path)' is not UTF-8 text")) }
        do {
            return .success(DeliveryOpportunities(milliseconds: try opportunities(in: text), file: path))
        } catch {
            return .failure(LoadProblem("trace file '\(path)'\(error.line == 0 ? "" : " line \(error.line)"): \(error.message)"))
        }
    }

    /// Why a trace file could not be loaded, as a whole message (`load`).
    public struct LoadProblem: Error, Equatable, Sendable {
        public var message: String
        public init(_ message: String) { self.message = message }
    }

    /// The opportunities of the file at `path` as a link direction, or an error naming the file
    /// and line. `path` is read through `node`'s resolver (relative to the scenario file).
    static func read(_ path: String, at node: InputNode) throws(InputError) -> DeliveryOpportunities {
        switch load(path, through: node.resolver, missing: "does not exist (paths are relative to the scenario file)") {
        case .success(let trace): return trace
        case .failure(let problem): throw node.error(problem.message)
        }
    }
}
