import Foundation

/// Reads an app's telemetry of its time requests — a CSV file, one row per exchange — into a
/// `TelemetryTable` (docs/telemetry.md, "The format" and "Dirty rows").
///
/// The reader streams the file through a buffer of about 2 MiB and works on its bytes: numbers
/// and times are parsed by hand, and a `String` is made only to look up a device id or a link
/// label. Every row read is kept or counted under a `TelemetryDrop`; what no row can fix (a
/// missing column, a line too long, an unterminated quote, no usable row) is an `InputError`.
/// Header names are matched exactly, case included, after trimming spaces.
public enum TelemetryCSV {
    /// The names of the columns the reader looks for; unknown columns are ignored.
    public struct Columns: Sendable, Equatable {
        public var device = "device", sent = "sent", roundTrip = "rtt_ms", t1 = "t1", t2 = "t2", t3 = "t3", t4 = "t4",
                   link = "link", outcome = "outcome", bytes = "bytes"
        public init() {}

        /// The mapping keys (the default names), with the property each sets.
        static var keys: [(String, WritableKeyPath<Columns, String>)] { [
            ("device", \.device), ("sent", \.sent), ("rtt_ms", \.roundTrip), ("t1", \.t1), ("t2", \.t2), ("t3", \.t3),
            ("t4", \.t4), ("link", \.link), ("outcome", \.outcome), ("bytes", \.bytes),
        ] }
    }

    /// A `--columns` mapping that cannot be read.
    public struct ColumnMapError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { InputError.escapingControls(message) }
    }

    /// The most rows (lines after the header, blank ones included) a file may hold: 50 million
    /// rows are some 1.5 GB of columns.
    public static let maximumRows = 50_000_000
    /// The longest cell, in bytes (after unquoting).
    public static let maximumCellBytes = 4_096
    /// The longest row, in bytes, line breaks inside quotes included.
    public static let maximumLineBytes = 1 << 20
    /// The most distinct link labels; each becomes a link profile to fit.
    public static let maximumLinks = 1_000
    /// A device id longer than this (bytes) is dropped as `.badDeviceId`.
    public static let longestDeviceIdBytes = 256
    /// A link label longer than this (characters) is dropped as `.badLinkLabel`.
    public static let longestLinkLabel = 64
    /// A round trip longer than this (ns) is dropped as `.roundTripTooLong`.
    public static let longestRoundTripNs = 3.6e12

    /// "device=uid,sent=ts,rtt_ms=latency" → `Columns`: each key is a default column name,
    /// each value the name the file uses. Keys not given keep their default.
    public static func columns(mapping: String) throws(ColumnMapError) -> Columns {
        var columns = Columns()
        var given: [String: String] = [:]
        let pairs = mapping.split(separator: ",", omittingEmptySubsequences: false)
        guard !mapping.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ColumnMapError("expected KEY=NAME pairs separated by commas, like device=uid,sent=ts,rtt_ms=latency; got nothing")
        }
        let keys = Columns.keys.map(\.0).joined(separator: ", ")
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            guard parts.count == 2 else {
                throw ColumnMapError("expected KEY=NAME, like sent=ts; got '\(pair.prefix(100))'")
            }
            let name = parts[1].trimmingCharacters(in: .whitespaces)
            guard let path = Columns.keys.first(where: { $0.0 == key })?.1 else {
                throw ColumnMapError("unknown key '\(key.prefix(100))'; the keys are \(keys)")
            }
            guard !name.isEmpty else { throw ColumnMapError("\(key) names no column") }
            guard given[key] == nil else { throw ColumnMapError("\(key) is given twice") }
            given[key] = name
            columns[keyPath: path] = name
        }
        // Two keys on one column would read one cell as two things.
        var owner: [String: String] = [:]
        for (key, path) in Columns.keys {
            let name = columns[keyPath: path]
            if let other = owner[name] {
                throw ColumnMapError("\(other) and \(key) both name the column '\(name.prefix(100))'")
            }
            owner[name] = key
        }
        return columns
    }

    /// Reads the telemetry CSV at `path`, streaming it in 1 MiB chunks.
    public static func read(_ path: String, columns: Columns = Columns()) throws(InputError) -> TelemetryTable {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw InputError(file: path, keyPath: "", message: "cannot be opened: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var parser = Parser(file: path, columns: columns)
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { parser.fileBytes = Int(info.st_size) }
        let chunk = 1 << 20
        let capacity = maximumLineBytes + chunk + 64
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var filled = 0
        while true {
            let n = Glibc.read(fd, buffer + filled, capacity - filled)
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(file: path, keyPath: "", message: "cannot be read: \(String(cString: strerror(errno)))")
            }
            filled += n
            let eof = n == 0
            let used = try parser.consume(UnsafeBufferPointer(start: buffer, count: filled), eof: eof)
            if eof { break }
            // What is left is part of one row (under maximumLineBytes, else consume threw).
            if used > 0 {
                (buffer).update(from: buffer + used, count: filled - used)
                filled -= used
            }
        }
        return try parser.finish()
    }

    /// Reads telemetry CSV held in memory, as `read(_:columns:)` reads a file; `file` names it in
    /// messages.
    public static func read(bytes: [UInt8], file: String, columns: Columns = Columns()) throws(InputError) -> TelemetryTable {
        var parser = Parser(file: file, columns: columns)
        parser.fileBytes = bytes.count
        var failure: InputError?
        bytes.withUnsafeBufferPointer { p in
            do throws(InputError) { _ = try parser.consume(p, eof: true) } catch { failure = error }
        }
        if let failure { throw failure }
        return try parser.finish()
    }
}

// MARK: - The parser

extension TelemetryCSV {
    /// One cell of the row being read: a range of the input, or of `unquoted` for a quoted cell.
    struct Cell {
        var start: Int
        var end: Int
        var unquoted: Bool
    }

    /// Where each column the reader uses sits in a row (-1: not in the file).
    struct Layout {
        var device = -1, sent = -1, roundTrip = -1, t1 = -1, t2 = -1, t3 = -1, t4 = -1, link = -1, outcome = -1, bytes = -1
        var cells = 0
        /// Whether the round trip comes from t1..t4 (all four present) rather than rtt_ms.
        var exchange = false
        var names: [String] = []
    }

    struct Parser: ~Copyable {
        let file: String
        let columns: Columns
        var table: TelemetryTable
        /// The file's size when known: the columns are reserved for its rows up front, so they do
        /// not double past what the file needs.
        var fileBytes = 0
        var layout: Layout? = nil
        /// The line the next row starts on (the header is line 1).
        var line = 1
        var atStart = true
        var cells: [Cell] = []
        /// Quoted cells' contents without their quotes; never more than one row's bytes.
        let unquoted: UnsafeMutablePointer<UInt8>
        var deviceIndex: [String: UInt32] = [:]
        var linkIndex: [String: UInt16] = [:]
        /// Each kept row's line, for the first duplicate's line; dropped once duplicates are found.
        var rowLine: [UInt32] = []

        init(file: String, columns: Columns) {
            self.file = file
            self.columns = columns
            table = TelemetryTable(file: file)
            unquoted = .allocate(capacity: TelemetryCSV.maximumLineBytes + 16)
            cells.reserveCapacity(16)
        }

        deinit { unquoted.deallocate() }

        func error(_ line: Int, _ message: String, column: String? = nil) -> InputError {
            let at = column.map { "line \(line), column '\(Self.shown($0))'" } ?? "line \(line)"
            return InputError(file: file, keyPath: at, message: message)
        }

        /// A name from the file as a message shows it: at most 40 characters.
        static func shown(_ name: String) -> String { name.count > 40 ? name.prefix(40) + "…" : name }

        /// Parses every whole row of `input`; returns how many bytes it used. At `eof` the last
        /// row need not end in a line break.
        mutating func consume(_ input: UnsafeBufferPointer<UInt8>, eof: Bool) throws(InputError) -> Int {
            var i = 0
            let end = input.count
            if atStart {
                // A BOM needs three bytes; wait for them unless the file is shorter.
                if end < 3 && !eof { return 0 }
                if end >= 3 && input[0] == 0xEF && input[1] == 0xBB && input[2] == 0xBF { i = 3 }
                atStart = false
            }
            while i < end {
                let rowStart = i
                guard let next = try row(input, from: i, eof: eof) else {
                    if end - rowStart > TelemetryCSV.maximumLineBytes {
                        throw error(line, "a row over \(TelemetryCSV.maximumLineBytes) bytes (the longest a row may be)")
                    }
                    return rowStart
                }
                i = next
            }
            return end
        }

        /// Splits the row starting at `start` into `cells` and handles it; returns where the next
        /// row starts, or nil when the row does not end within `input` and more is to come.
        mutating func row(_ input: UnsafeBufferPointer<UInt8>, from start: Int, eof: Bool) throws(InputError) -> Int? {
            let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
            let end = input.count
            var i = start
            var breaks = 0
            var u = 0
            cells.removeAll(keepingCapacity: true)
            row: while true {
                let cellStart = i
                if i < end && input[i] == quote {
                    // Quoted: up to the quote not doubled; then, leniently, anything up to the comma.
                    let opened = line + breaks
                    let uStart = u
                    i += 1
                    while true {
                        guard i < end else {
                            if eof { throw error(opened, "a quote opened on this line is not closed by the end of the file") }
                            return nil
                        }
                        // Checked on every byte, escaped quotes included: each unquoted byte stands
                        // for one read or more, so `unquoted` (maximumLineBytes + 16) cannot overflow.
                        if i - start > TelemetryCSV.maximumLineBytes { return nil }
                        let b = input[i]
                        if b == quote {
                            if i + 1 < end && input[i + 1] == quote { unquoted[u] = quote; u += 1; i += 2; continue }
                            if i + 1 >= end && !eof { return nil }
                            i += 1
                            break
                        }
                        if b == lf { breaks += 1 }
                        unquoted[u] = b
                        u += 1
                        i += 1
                    }
                    while i < end && input[i] != comma && input[i] != lf {
                        if i - start > TelemetryCSV.maximumLineBytes { return nil }
                        if !(input[i] == cr && (i + 1 == end || input[i + 1] == lf)) { unquoted[u] = input[i]; u += 1 }
                        i += 1
                    }
                    cells.append(Cell(start: uStart, end: u, unquoted: true))
                } else {
                    while i < end && input[i] != comma && input[i] != lf { i += 1 }
                    var cellEnd = i
                    if cellEnd > cellStart && input[cellEnd - 1] == cr && (i == end || input[i] == lf) { cellEnd -= 1 }
                    cells.append(Cell(start: cellStart, end: cellEnd, unquoted: false))
                }
                if i - start > TelemetryCSV.maximumLineBytes { return nil }
                guard i < end else {
                    if !eof { return nil }
                    break row
                }
                if input[i] == lf { i += 1; break row }
                i += 1   // the comma
            }
            let rowLine = line
            line += 1 + breaks
            // A row that ends the file without a line break still counts; nothing after the
            // last line break is not a row.
            try handle(input, line: rowLine, bytes: i - start)
            return i
        }

        /// The bytes of `cell`.
        @inline(__always)
        func bytes(_ input: UnsafeBufferPointer<UInt8>, _ cell: Cell) -> UnsafeBufferPointer<UInt8> {
            cell.unquoted ? UnsafeBufferPointer(start: unquoted + cell.start, count: cell.end - cell.start)
                : UnsafeBufferPointer(rebasing: input[cell.start..<cell.end])
        }

        /// The bytes of column `index` of this row, spaces and tabs trimmed; empty when the column
        /// is not in the file.
        @inline(__always)
        func cell(_ input: UnsafeBufferPointer<UInt8>, _ index: Int) -> UnsafeBufferPointer<UInt8> {
            guard index >= 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
            return Bytes.trimmed(bytes(input, cells[index]))
        }

        mutating func handle(_ input: UnsafeBufferPointer<UInt8>, line: Int, bytes rowBytes: Int) throws(InputError) {
            for (k, c) in cells.enumerated() where c.end - c.start > TelemetryCSV.maximumCellBytes {
                let name = layout.map { k < $0.names.count ? $0.names[k] : "\(k + 1)" } ?? "\(k + 1)"
                throw error(line, "a cell of \(c.end - c.start) bytes; a cell may hold at most \(TelemetryCSV.maximumCellBytes)", column: name)
            }
            guard let layout else {
                layout = try header(input)
                reserve(headerBytes: rowBytes)
                return
            }
            table.linesRead += 1
            if table.linesRead > TelemetryCSV.maximumRows {
                throw error(line, "more than \(TelemetryCSV.maximumRows) rows; split the file (the most one file may hold)")
            }
            if let reason = try readRow(input, layout, line: line) { table.drop(reason, line: line) }
        }

        /// Reserves the columns for the rows a file of `fileBytes` holds, guessed from the header's
        /// length (a row is rarely shorter than its header): at most `maximumRows`.
        mutating func reserve(headerBytes: Int) {
            guard fileBytes > 0 else { return }
            let guess = min(fileBytes / max(headerBytes, 16) + 16, TelemetryCSV.maximumRows)
            table.device.reserveCapacity(guess)
            table.sentMs.reserveCapacity(guess)
            table.link.reserveCapacity(guess)
            table.answered.reserveCapacity(guess)
            table.roundTripNs.reserveCapacity(guess)
            table.bytes.reserveCapacity(guess)
            rowLine.reserveCapacity(guess)
        }

        /// The header's columns, or an error naming what is missing.
        func header(_ input: UnsafeBufferPointer<UInt8>) throws(InputError) -> Layout {
            var l = Layout()
            l.cells = cells.count
            l.names = cells.map { String(decoding: Bytes.trimmed(bytes(input, $0)), as: UTF8.self) }
            func find(_ name: String) -> Int { l.names.firstIndex(of: name) ?? -1 }
            l.device = find(columns.device)
            l.sent = find(columns.sent)
            l.roundTrip = find(columns.roundTrip)
            l.t1 = find(columns.t1); l.t2 = find(columns.t2); l.t3 = find(columns.t3); l.t4 = find(columns.t4)
            l.link = find(columns.link)
            l.outcome = find(columns.outcome)
            l.bytes = find(columns.bytes)
            l.exchange = l.t1 >= 0 && l.t2 >= 0 && l.t3 >= 0 && l.t4 >= 0
            var missing: [String] = []
            if l.device < 0 { missing.append(columns.device) }
            if l.sent < 0 { missing.append(columns.sent) }
            if l.roundTrip < 0 && !l.exchange { missing.append(columns.roundTrip) }
            guard let first = missing.first else { return l }
            let named = missing.map { "'\(Self.shown($0))'" }.joined(separator: ", ")
            var listed = l.names.prefix(20).map { "'\(Self.shown($0))'" }.joined(separator: ", ")
            if l.names.count > 20 { listed += " and \(l.names.count - 20) more" }
            let exchange = l.roundTrip < 0 && !l.exchange
                ? " (or all four of '\(Self.shown(columns.t1))', '\(Self.shown(columns.t2))', '\(Self.shown(columns.t3))', '\(Self.shown(columns.t4))' for the round trip)"
                : ""
            throw error(1, "no column \(named)\(exchange); the header's columns are \(listed). "
                + "Name the file's own columns with --columns (fit) or --telemetry-columns (run, check), like device=uid,sent=ts,rtt_ms=latency",
                column: first)
        }

        /// Reads one row into the table; returns why it cannot be used, if it cannot.
        mutating func readRow(_ input: UnsafeBufferPointer<UInt8>, _ l: Layout, line: Int) throws(InputError) -> TelemetryDrop? {
            if cells.count == 1 && cell(input, 0).isEmpty && !cells[0].unquoted { return .blankLine }
            guard cells.count == l.cells else { return .wrongCellCount }
            let device = cell(input, l.device)
            if device.isEmpty { return .blankDevice }
            if device.count > TelemetryCSV.longestDeviceIdBytes || Bytes.hasControl(device) { return .badDeviceId }
            let sentCell = cell(input, l.sent)
            if sentCell.isEmpty { return .blankSent }
            guard let sent = Time.epochMilliseconds(sentCell) else { return .unreadableSent }
            let answered: Bool
            switch Bytes.outcome(cell(input, l.outcome)) {
            case .some(let a): answered = a
            case nil: return .unknownOutcome
            }
            var roundTrip = 0.0
            if answered {
                if l.exchange {
                    let cells4 = [cell(input, l.t1), cell(input, l.t2), cell(input, l.t3), cell(input, l.t4)]
                    if cells4.contains(where: \.isEmpty) { return .blankRoundTrip }
                    guard let t1 = Number.nanoseconds(cells4[0]), let t2 = Number.nanoseconds(cells4[1]),
                          let t3 = Number.nanoseconds(cells4[2]), let t4 = Number.nanoseconds(cells4[3]) else { return .unreadableRoundTrip }
                    let (exchange, o1) = t4.subtractingReportingOverflow(t1)
                    let (server, o2) = t3.subtractingReportingOverflow(t2)
                    if o1 || o2 { return .unreadableRoundTrip }
                    if exchange < 0 { return .receivedBeforeSent }
                    if server < 0 { return .serverSentBeforeReceived }
                    if server > exchange { return .serverTimeExceedsExchange }
                    roundTrip = Double(exchange - server)
                } else {
                    let c = cell(input, l.roundTrip)
                    if c.isEmpty { return .blankRoundTrip }
                    guard let ns = Number.roundTripNanoseconds(c) else { return .unreadableRoundTrip }
                    roundTrip = ns
                }
                if roundTrip <= 0 { return .nonPositiveRoundTrip }
                if roundTrip > TelemetryCSV.longestRoundTripNs { return .roundTripTooLong }
            }
            var size: Int32 = -1
            let bytesCell = cell(input, l.bytes)
            if !bytesCell.isEmpty {
                guard let n = Number.wholeBytes(bytesCell) else { return .unreadableBytes }
                size = n
            }
            // The link and the device last: only a row kept adds a label or an id.
            var linkNumber: UInt16 = 0
            let label = cell(input, l.link)
            if label.isEmpty {
                linkNumber = try self.link(TelemetryTable.unlabelled, line: line)
            } else {
                guard let name = String(validating: label, as: UTF8.self) else { return .badLinkLabel }
                if let known = linkIndex[name] {
                    linkNumber = known
                } else {
                    if name.count > TelemetryCSV.longestLinkLabel || Bytes.hasControl(label) { return .badLinkLabel }
                    linkNumber = try self.link(name, line: line)
                }
            }
            guard let id = String(validating: device, as: UTF8.self) else { return .badDeviceId }
            let deviceNumber: UInt32
            if let known = deviceIndex[id] {
                deviceNumber = known
            } else {
                deviceNumber = UInt32(table.devices.count)
                deviceIndex[id] = deviceNumber
                table.devices.append(id)
            }
            table.device.append(deviceNumber)
            table.sentMs.append(sent)
            table.link.append(linkNumber)
            table.answered.append(answered)
            table.roundTripNs.append(roundTrip)
            table.bytes.append(size)
            rowLine.append(UInt32(truncatingIfNeeded: line))
            return nil
        }

        /// The number of link `name`, added when new; more than `maximumLinks` is an error.
        mutating func link(_ name: String, line: Int) throws(InputError) -> UInt16 {
            if let known = linkIndex[name] { return known }
            guard table.links.count < TelemetryCSV.maximumLinks else {
                throw error(line, "more than \(TelemetryCSV.maximumLinks) distinct link labels (the most a file may hold; "
                    + "each is a link to fit): this row's '\(Self.shown(name))' is one too many", column: columns.link)
            }
            let n = UInt16(table.links.count)
            linkIndex[name] = n
            table.links.append(name)
            return n
        }

        /// The table, duplicates removed; an error when no row is usable.
        consuming func finish() throws(InputError) -> TelemetryTable {
            guard layout != nil else { throw InputError(file: file, keyPath: "", message: "the file is empty: expected a header line, then rows") }
            removeDuplicates()
            guard table.count > 0 else {
                let reasons = table.dropped.keys.sorted().map { r in
                    "\(table.dropped[r]!) \(r.rawValue) (first on line \(table.firstDroppedLine[r]!))"
                }
                let what = reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
                throw InputError(file: file, keyPath: "", message: "no usable row; of \(table.linesRead) line\(table.linesRead == 1 ? "" : "s") after the header, "
                    + "\(table.droppedCount) dropped\(what)")
            }
            return table
        }

        /// Drops each row identical in (device, sent, link, answered, round trip's bits) to an
        /// earlier one. The rows' indices are sorted by that whole key, then the file's order, so
        /// equal rows are neighbours however other rows of the same device and instant interleave
        /// with them; O(n log n) time, 4 bytes a row beside the columns.
        mutating func removeDuplicates() {
            let n = table.count
            guard n > 1 else { return }
            var order = [UInt32](unsafeUninitializedCapacity: n) { p, count in
                for k in 0..<n { p[k] = UInt32(k) }
                count = n
            }
            var isDuplicate = [Bool](repeating: false, count: n)
            var found = false
            table.device.withUnsafeBufferPointer { device in
            table.sentMs.withUnsafeBufferPointer { sent in
            table.link.withUnsafeBufferPointer { link in
            table.answered.withUnsafeBufferPointer { answered in
            table.roundTripNs.withUnsafeBufferPointer { rt in
                func same(_ a: Int, _ b: Int) -> Bool {
                    device[a] == device[b] && sent[a] == sent[b] && link[a] == link[b] && answered[a] == answered[b]
                        && rt[a].bitPattern == rt[b].bitPattern
                }
                order.sort { x, y in
                    let a = Int(x), b = Int(y)
                    if device[a] != device[b] { return device[a] < device[b] }
                    if sent[a] != sent[b] { return sent[a] < sent[b] }
                    if link[a] != link[b] { return link[a] < link[b] }
                    if answered[a] != answered[b] { return !answered[a] }
                    if rt[a].bitPattern != rt[b].bitPattern { return rt[a].bitPattern < rt[b].bitPattern }
                    return a < b
                }
                for k in 1..<n where same(Int(order[k - 1]), Int(order[k])) {
                    isDuplicate[Int(order[k])] = true
                    found = true
                }
            }}}}}
            order = []
            guard found else { rowLine = []; return }
            var kept = 0
            for k in 0..<n {
                if isDuplicate[k] {
                    table.drop(.duplicate, line: Int(rowLine[k]))
                    continue
                }
                if kept != k {
                    table.device[kept] = table.device[k]
                    table.sentMs[kept] = table.sentMs[k]
                    table.link[kept] = table.link[k]
                    table.answered[kept] = table.answered[k]
                    table.roundTripNs[kept] = table.roundTripNs[k]
                    table.bytes[kept] = table.bytes[k]
                }
                kept += 1
            }
            rowLine = []
            table.device.removeLast(n - kept)
            table.sentMs.removeLast(n - kept)
            table.link.removeLast(n - kept)
            table.answered.removeLast(n - kept)
            table.roundTripNs.removeLast(n - kept)
            table.bytes.removeLast(n - kept)
        }
    }
}

// MARK: - Cells

extension TelemetryCSV {
    enum Bytes {
        static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

        /// `b` without leading and trailing spaces and tabs.
        @inline(__always)
        static func trimmed(_ b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
            var s = 0, e = b.count
            while s < e && (b[s] == space || b[s] == tab) { s += 1 }
            while e > s && (b[e - 1] == space || b[e - 1] == tab) { e -= 1 }
            return s == 0 && e == b.count ? b : UnsafeBufferPointer(rebasing: b[s..<e])
        }

        /// Whether `b` holds a control character: C0 (tab included), DEL, or C1 in UTF-8.
        static func hasControl(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
            for k in 0..<b.count {
                let c = b[k]
                if c < 0x20 || c == 0x7F { return true }
                if c == 0xC2 && k + 1 < b.count && (0x80...0x9F).contains(b[k + 1]) { return true }
            }
            return false
        }

        /// The outcome cell: true for answered, false for not answered, nil when unknown.
        /// Case-insensitive; blank is answered.
        static func outcome(_ b: UnsafeBufferPointer<UInt8>) -> Bool? {
            if b.isEmpty { return true }
            guard b.count <= 9 else { return nil }
            var word = ""
            for c in b { word.unicodeScalars.append(Unicode.Scalar((c >= 65 && c <= 90) ? c + 32 : c)) }
            switch word {
            case "ok", "success", "200": return true
            case "timeout", "timed out", "failed", "failure", "error": return false
            default: return nil
            }
        }
    }

    /// Numbers written in decimal, parsed by hand: digits, an optional point and more digits. No
    /// exponent, no "nan" or "inf", no thousands separators.
    enum Number {
        static let powers: [Int64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]
        static let inversePowers: [Double] = (0...20).map { Double("1e\($0)")! }

        /// A decimal as (negative, mantissa, digits after the point), or nil; at most 19 digits.
        @inline(__always)
        static func decimal(_ b: UnsafeBufferPointer<UInt8>, signed: Bool) -> (Bool, UInt64, Int)? {
            var k = 0
            var negative = false
            if signed && k < b.count && (b[k] == UInt8(ascii: "-") || b[k] == UInt8(ascii: "+")) {
                negative = b[k] == UInt8(ascii: "-")
                k += 1
            }
            var mantissa: UInt64 = 0, digits = 0, decimals = 0, point = false, sawDigit = false
            while k < b.count {
                let c = b[k]
                if c == UInt8(ascii: ".") && !point {
                    point = true
                } else if c >= 48 && c <= 57 {
                    sawDigit = true
                    // Digits past the 19th are dropped after the point (below any use), refused before it.
                    if digits == 19 {
                        guard point else { return nil }
                    } else {
                        mantissa = mantissa * 10 + UInt64(c - 48)
                        if mantissa > 0 || point { digits += 1 }
                        if point { decimals += 1 }
                    }
                } else {
                    return nil
                }
                k += 1
            }
            guard sawDigit else { return nil }
            return (negative, mantissa, decimals)
        }

        /// rtt_ms → ns. With up to 6 decimals the ns are a whole number, exact up to 2^53; with
        /// more, the mantissa is divided by a power of ten (one rounding, within 1e-16 relative).
        static func roundTripNanoseconds(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
            guard let (negative, mantissa, decimals) = decimal(b, signed: true) else { return nil }
            let ns: Double
            if decimals <= 6 {
                let (whole, overflow) = mantissa.multipliedReportingOverflow(by: UInt64(powers[6 - decimals]))
                ns = overflow ? Double(mantissa) * Double(powers[6 - decimals]) : Double(whole)
            } else {
                ns = Double(mantissa) / inversePowers[decimals - 6]
            }
            return negative ? -ns : ns
        }

        /// A t1..t4 cell (ms, decimals allowed, a sign allowed) → whole ns, exactly: digits past
        /// the sixth decimal are cut. Nil when unreadable or beyond ±9.2e12 ms.
        static func nanoseconds(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
            guard let (negative, mantissa, decimals) = decimal(b, signed: true), mantissa <= UInt64(Int64.max) else { return nil }
            var m = Int64(mantissa), d = decimals
            while d > 6 { m /= 10; d -= 1 }
            let (ns, overflow) = m.multipliedReportingOverflow(by: powers[6 - d])
            if overflow { return nil }
            return negative ? -ns : ns
        }

        /// The bytes cell: a whole number from 0 to Int32.max.
        static func wholeBytes(_ b: UnsafeBufferPointer<UInt8>) -> Int32? {
            guard b.count <= 10 else { return nil }
            var n: Int64 = 0
            for c in b {
                guard c >= 48 && c <= 57 else { return nil }
                n = n * 10 + Int64(c - 48)
            }
            return n <= Int64(Int32.max) ? Int32(n) : nil
        }
    }
}
