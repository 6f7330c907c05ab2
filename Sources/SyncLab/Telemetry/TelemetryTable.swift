import SyncLabKernel

/// An app's telemetry of its time requests, read (`TelemetryCSV`) into columns: one entry per
/// row the lab can use, in the file's order, and a count by reason of every row it cannot
/// (docs/telemetry.md). Kept as columns of plain values (about 30 bytes a row) so a week of a
/// large app's requests, ten million rows, fits in a few hundred megabytes.
public struct TelemetryTable: Sendable {
    /// The file as named on the command line (for messages and reports).
    public var file: String
    /// Device ids, by index; `device` holds indices into it.
    public var devices: [String] = []
    /// Link labels, by index; `link` holds indices into it. A file without a `link` column, or
    /// a row with a blank link cell, is on the label `TelemetryTable.unlabelled`.
    public var links: [String] = []

    /// Per usable row: the device, the instant it was sent (ms since the Unix epoch, as logged on
    /// the device's clock), the link, whether it was answered, the round trip without the
    /// server's time (ns; 0 for a row not answered) and the response's bytes (-1 when not given).
    public var device: [UInt32] = []
    public var sentMs: [Int64] = []
    public var link: [UInt16] = []
    public var answered: [Bool] = []
    public var roundTripNs: [Double] = []
    public var bytes: [Int32] = []

    /// Rows read that the lab cannot use, by reason, with the first line of each (1-based,
    /// counting the header as line 1).
    public var dropped: [TelemetryDrop: Int] = [:]
    public var firstDroppedLine: [TelemetryDrop: Int] = [:]
    /// Lines read after the header, blank lines included.
    public var linesRead = 0

    /// The label of rows that name no link.
    public static let unlabelled = "all"

    public init(file: String) { self.file = file }

    public var count: Int { device.count }
    public var droppedCount: Int { dropped.values.reduce(0, +) }

    /// Counts a row that cannot be used.
    public mutating func drop(_ reason: TelemetryDrop, line: Int) {
        dropped[reason, default: 0] += 1
        if firstDroppedLine[reason] == nil { firstDroppedLine[reason] = line }
    }
}

/// Why a telemetry row cannot be used. Every row read is either used or counted under one of
/// these (docs/telemetry.md, "Dirty rows"); none is dropped silently.
public enum TelemetryDrop: String, CaseIterable, Sendable, Comparable {
    case blankLine = "blank line"
    case wrongCellCount = "wrong number of cells"
    case blankDevice = "blank device"
    case blankSent = "blank sent time"
    case unreadableSent = "unreadable sent time"
    case blankRoundTrip = "blank round trip on an answered row"
    case unreadableRoundTrip = "unreadable round trip"
    case nonPositiveRoundTrip = "round trip zero or negative"
    case receivedBeforeSent = "t4 before t1"
    case serverSentBeforeReceived = "t3 before t2"
    case serverTimeExceedsExchange = "server time longer than the exchange"
    case roundTripTooLong = "round trip longer than an hour"
    case unknownOutcome = "unknown outcome"
    case unreadableBytes = "unreadable bytes"
    case duplicate = "duplicate of an earlier row"
    case badLinkLabel = "link label not printable or over 64 characters"
    case badDeviceId = "device id not printable or over 256 characters"

    public static func < (a: TelemetryDrop, b: TelemetryDrop) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
