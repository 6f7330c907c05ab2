import Foundation
import Testing
@testable import SyncLab

/// The telemetry CSV reader: every drop reason on a hand-written row, times, the exchange's
/// arithmetic, quoting, the column mapping, each refusal, duplicates, and a file read in chunks
/// as it reads in memory.
@Suite struct TelemetryCSVTests {
    static func read(_ text: String, columns: TelemetryCSV.Columns = .init()) throws(InputError) -> TelemetryTable {
        try TelemetryCSV.read(bytes: Array(text.utf8), file: "app.csv", columns: columns)
    }

    /// The InputError reading `text` throws, or nil.
    static func refusal(_ text: String, columns: TelemetryCSV.Columns = .init()) -> InputError? {
        do { _ = try read(text, columns: columns); return nil } catch { return error }
    }

    static func sent(_ text: String) -> Int64? {
        Array(text.utf8).withUnsafeBufferPointer { TelemetryCSV.Time.epochMilliseconds($0) }
    }

    // MARK: Dirty rows

    /// One row per reason, each on a known line; every line read is kept or counted once.
    @Test func everyDropReasonOnItsLine() throws {
        let long = String(repeating: "x", count: 65)
        let rtt = """
            device,sent,rtt_ms,link,outcome,bytes
            d1,1767225600000,12.5,wifi,ok,300

            d1,1767225600000,12.5
            ,1767225600000,12.5,wifi,,
            d\tx,1767225600000,12.5,wifi,,
            d2,,12.5,wifi,,
            d2,yesterday,12.5,wifi,,
            d2,1767225600000,,wifi,ok,
            d2,1767225600000,nan,wifi,,
            d2,1767225600000,-3,wifi,,
            d2,1767225600000,3600001,wifi,,
            d2,1767225600000,12,wifi,maybe,
            d2,1767225600000,12,wifi,,-1
            d1,1767225600000,12.5,wifi,ok,300
            d2,1767225600000,12,\(long),,
            d3,1767225600001,,cell,Timed Out,
            d1,1767225600000,12.5,wifi,SUCCESS,999

            """
        let a = try Self.read(rtt)
        let expected: [TelemetryDrop: (count: Int, line: Int)] = [
            .blankLine: (1, 3), .wrongCellCount: (1, 4), .blankDevice: (1, 5), .badDeviceId: (1, 6), .blankSent: (1, 7),
            .unreadableSent: (1, 8), .blankRoundTrip: (1, 9), .unreadableRoundTrip: (1, 10), .nonPositiveRoundTrip: (1, 11),
            .roundTripTooLong: (1, 12), .unknownOutcome: (1, 13), .unreadableBytes: (1, 14), .duplicate: (2, 15),
            .badLinkLabel: (1, 16),
        ]
        for (reason, want) in expected {
            #expect(a.dropped[reason] == want.count, "\(reason)")
            #expect(a.firstDroppedLine[reason] == want.line, "\(reason)")
        }
        #expect(a.dropped.count == expected.count)
        #expect(a.linesRead == 17)
        #expect(a.count + a.droppedCount == a.linesRead)
        // Kept: line 2, and line 17, not answered (its round trip blank, stored as 0).
        #expect(a.count == 2)
        #expect(a.devices == ["d1", "d3"] && a.links == ["wifi", "cell"])
        #expect(a.device == [0, 1] && a.sentMs == [1_767_225_600_000, 1_767_225_600_001] && a.link == [0, 1])
        #expect(a.answered == [true, false] && a.roundTripNs == [12_500_000, 0] && a.bytes == [300, -1])

        let exchange = """
            device,sent,t1,t2,t3,t4
            d,1000,100,5000,5001,110
            d,1001,110,5000,5001,100
            d,1002,100,5001,5000,110
            d,1003,100,5000,5020,110
            d,1004,100,5000,5010,110
            d,1005,100.25,5000.5,5001.125,110.75
            d,1006,100,,5001,110
            d,1007,0,0,0,3600000.001
            """
        let b = try Self.read(exchange)
        let expectedB: [TelemetryDrop: Int] = [.receivedBeforeSent: 3, .serverSentBeforeReceived: 4, .serverTimeExceedsExchange: 5,
                                               .nonPositiveRoundTrip: 6, .blankRoundTrip: 8, .roundTripTooLong: 9]
        for (reason, line) in expectedB {
            #expect(b.dropped[reason] == 1 && b.firstDroppedLine[reason] == line, "\(reason)")
        }
        #expect(b.linesRead == 8 && b.count + b.droppedCount == 8)
        // (t4 − t1) − (t3 − t2): (110 − 100) − (5001 − 5000) = 9 ms; (110.75 − 100.25) − (5001.125 − 5000.5) = 10.5 − 0.625 = 9.875 ms.
        #expect(b.roundTripNs == [9_000_000, 9_875_000])
        #expect(b.sentMs == [1000, 1005])

        // Every reason the reader knows is reached above.
        #expect(Set(a.dropped.keys).union(b.dropped.keys) == Set(TelemetryDrop.allCases))
    }

    @Test func bothWaysOfGivingTheRoundTripUseTheExchange() throws {
        // rtt_ms says 50, the exchange 9: t1..t4 win when all four are there.
        let t = try Self.read("device,sent,rtt_ms,t1,t2,t3,t4\nd,1,50,100,5000,5001,110\n")
        #expect(t.roundTripNs == [9_000_000])
        // With only three of them, rtt_ms is used.
        let r = try Self.read("device,sent,rtt_ms,t1,t2,t3\nd,1,50,100,5000,5001\n")
        #expect(r.roundTripNs == [50_000_000])
    }

    @Test func roundTripsInMillisecondsWithDecimals() throws {
        let t = try Self.read("device,sent,rtt_ms\na,1,0.000001\nb,1,1234.5678\nc,1,+7\nd,1,3600000\ne,1,.5\nf,1,0.0000001\n")
        // 0.0000001 ms is 0.1 ns: positive, kept.
        #expect(t.roundTripNs == [1, 1_234_567_800, 7_000_000, 3.6e12, 500_000, 0.1])
        for bad in ["1e3", "inf", "NaN", "1,5", "0x10", "1.2.3", ".", "-", "1_000", "12ms"] {
            let quoted = bad.contains(",") ? "\"\(bad)\"" : bad
            let d = try? Self.read("device,sent,rtt_ms\nok,1,5\nd,1,\(quoted)\n")
            #expect(d?.dropped[.unreadableRoundTrip] == 1, "\(bad)")
        }
    }

    @Test func outcomesAndBytes() throws {
        let t = try Self.read("""
            device,sent,rtt_ms,outcome,bytes
            a,1,5, ok ,0
            b,1,5,200,2147483647
            c,1,,FAILED,
            d,1,x,error,
            e,1,,failure,
            f,1,5,timeout,
            g,1,5,Success,
            h,1,5,202,
            i,1,5,,2147483648
            j,1,5,,1.5
            """)
        #expect(t.answered == [true, true, false, false, false, false, true])
        #expect(t.roundTripNs == [5e6, 5e6, 0, 0, 0, 0, 5e6])
        #expect(t.bytes == [0, Int32.max, -1, -1, -1, -1, -1])
        #expect(t.dropped == [.unknownOutcome: 1, .unreadableBytes: 2])
    }

    @Test func deviceIdsAndLabels() throws {
        let id256 = String(repeating: "é", count: 128), id257 = id256 + "x"
        let label64 = String(repeating: "é", count: 64)
        let t = try Self.read("""
            device,sent,rtt_ms,link
            \(id256),1,5,\(label64)
            \(id257),1,5,
            b,2,5,  Wi-Fi 5 GHz\u{0020}
            c,2,5,a\u{85}b
            b,3,5,
            """)
        #expect(t.devices == [id256, "b"])
        #expect(t.links == [label64, "Wi-Fi 5 GHz", TelemetryTable.unlabelled])
        #expect(t.link == [0, 1, 2])
        #expect(t.dropped == [.badDeviceId: 1, .badLinkLabel: 1])
        // No link column: every row on the unlabelled link.
        let u = try Self.read("device,sent,rtt_ms\na,1,5\n")
        #expect(u.links == [TelemetryTable.unlabelled] && u.link == [0])
    }

    // MARK: Times

    @Test func sentTimes() {
        // 2026-01-01: 56 years of 365 days and 14 leap days (1972…2024) = 20,454 days from 1970.
        // Nov 23 is day 304 + 22 = 326 of a common year: 20,780 days = 1,795,392,000 s; 08:15:02 is
        // 29,702 s more: 1,795,421,702 s.
        #expect(Self.sent("2026-11-23T08:15:02Z") == 1_795_421_702_000)
        #expect(Self.sent("2026-11-23t08:15:02z") == 1_795_421_702_000)
        #expect(Self.sent("2026-11-23T08:15:02.123Z") == 1_795_421_702_123)
        #expect(Self.sent("2026-11-23T08:15:02.1Z") == 1_795_421_702_100)
        #expect(Self.sent("2026-11-23T08:15:02.999999999Z") == 1_795_421_702_999)
        // +01:00 is an hour ahead of UTC: 3,600,000 ms earlier in UTC.
        #expect(Self.sent("2026-11-23 08:15:02.123456+01:00") == 1_795_418_102_123)
        // -0530: 19,800,000 ms later in UTC.
        #expect(Self.sent("2026-11-23T08:15:02-0530") == 1_795_441_502_000)
        // 2024-02-29T23:59:59.5+01:00 is 22:59:59.5Z. 2024-01-01 is 54 × 365 + 13 leap days
        // (1972…2020) = 19,723 days; Feb 29 is day 31 + 28 = 59 of it: 19,782 days = 1,709,164,800 s;
        // 22:59:59 is 82,799 s more: 1,709,247,599 s, and 500 ms.
        #expect(Self.sent("2024-02-29T23:59:59.5+01:00") == 1_709_247_599_500)
        // 2000 is a leap year (divisible by 400); 2000-03-01 is 951,868,800 s, a day after Feb 29.
        #expect(Self.sent("2000-02-29T00:00:00Z") == 951_782_400_000)
        // A leap second reads as the next minute's first instant: 2017-01-01T00:00:00Z.
        #expect(Self.sent("2016-12-31T23:59:60Z") == 1_483_228_800_000)
        #expect(Self.sent("1970-01-01T00:00:00Z") == 0)
        #expect(Self.sent("9999-12-31T23:59:59.999Z") == 253_402_300_799_999)
        for bad in ["2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z",
                    "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z",
                    "2026-01-01T00:00:61Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.1234567890Z",
                    "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00+01:60", "2026-01-01T00:00:00Zx", "1969-12-31T23:59:59Z",
                    "1970-01-01T00:30:00+01:00", "26-01-01T00:00:00Z", "2026-1-01T00:00:00Z", "2026-01-01"] {
            #expect(Self.sent(bad) == nil, "\(bad)")
        }
        // Epoch milliseconds, rounded down.
        #expect(Self.sent("1767225600123") == 1_767_225_600_123)
        #expect(Self.sent("1767225600123.999") == 1_767_225_600_123)
        #expect(Self.sent("0") == 0)
        for bad in ["-5", "1e12", "253402300800000", "12:00", "+5", "", "99999999999999999999"] {
            #expect(Self.sent(bad) == nil, "\(bad)")
        }
    }

    // MARK: Format

    @Test func quotingCRLFAndBOM() throws {
        let text = "\u{FEFF}\"device\" , sent ,rtt_ms,link,note\r\n"
            + "\"a,b\",1767225600000,5,\"say \"\"hi\"\"\",x\r\n"
            + "c,1767225600000,6,wifi,\"two\r\nlines\"\r\n"
            + "d,1767225600000,7\r\n"
            + "e,1767225600000,8,wifi,last"
        let t = try Self.read(text)
        #expect(t.devices == ["a,b", "c", "e"])
        #expect(t.links == ["say \"hi\"", "wifi"])
        #expect(t.roundTripNs == [5e6, 6e6, 8e6])
        // The quoted line break makes line 3 two lines: the short row is on line 5.
        #expect(t.dropped == [.wrongCellCount: 1] && t.firstDroppedLine[.wrongCellCount] == 5)
        #expect(t.linesRead == 4)
        // A file ending in a line break has no empty last row; an empty line before it is one.
        #expect(try Self.read("device,sent,rtt_ms\na,1,5\n").linesRead == 1)
        #expect(try Self.read("device,sent,rtt_ms\na,1,5\n\n").dropped == [.blankLine: 1])
    }

    @Test func columnMapping() throws {
        var want = TelemetryCSV.Columns()
        want.device = "uid"; want.sent = "ts"; want.roundTrip = "latency"
        #expect(try TelemetryCSV.columns(mapping: "device=uid, sent = ts,rtt_ms=latency") == want)
        let t = try Self.read("uid,ts,latency,device\nu1,5,10,ignored\n", columns: want)
        #expect(t.devices == ["u1"] && t.sentMs == [5] && t.roundTripNs == [10e6])
        // Swapping two names is a mapping too.
        var swapped = TelemetryCSV.Columns()
        swapped.t1 = "t2"; swapped.t2 = "t1"
        #expect(try TelemetryCSV.columns(mapping: "t1=t2,t2=t1") == swapped)
        func problem(_ m: String) -> String? {
            do { _ = try TelemetryCSV.columns(mapping: m); return nil } catch { return error.message }
        }
        #expect(problem("")?.contains("got nothing") == true)
        #expect(problem("uid")?.contains("expected KEY=NAME") == true)
        #expect(problem("user=uid")?.contains("unknown key 'user'; the keys are device, sent, rtt_ms, t1, t2, t3, t4, link, outcome, bytes") == true)
        #expect(problem("device=")?.contains("device names no column") == true)
        #expect(problem("device=a,device=b")?.contains("device is given twice") == true)
        #expect(problem("device=sent") == "device and sent both name the column 'sent'")
    }

    // MARK: Refusals

    @Test func aMissingColumnIsNamedWithTheHeaderAndTheOption() {
        let e = Self.refusal("device,sent,latency,t1\na,1,5,3\n")
        #expect(e?.file == "app.csv" && e?.keyPath == "line 1, column 'rtt_ms'")
        #expect(e?.message.contains("no column 'rtt_ms' (or all four of 't1', 't2', 't3', 't4' for the round trip)") == true)
        #expect(e?.message.contains("the header's columns are 'device', 'sent', 'latency', 't1'") == true)
        #expect(e?.message.contains("--columns (fit) or --telemetry-columns (run, check), like device=uid,sent=ts,rtt_ms=latency") == true)
        let both = Self.refusal("uid,ts,rtt_ms\n")
        #expect(both?.keyPath == "line 1, column 'device'" && both?.message.contains("no column 'device', 'sent';") == true)
        // A header's escape character reaches the message escaped.
        let raw = Self.refusal("dev\u{1B}ice,sent\n")
        #expect(raw?.description.contains("'dev\\u{1B}ice'") == true && raw?.description.contains("\u{1B}") == false)
        #expect(Self.refusal("")?.message.contains("empty") == true)
    }

    @Test func aFileWithNoUsableRowListsWhy() {
        let e = Self.refusal("device,sent,rtt_ms\n,1,5\na,,5\n\n,2,5\n")
        #expect(e?.keyPath == "")
        #expect(e?.message == "no usable row; of 4 lines after the header, 4 dropped: 1 blank line (first on line 4); "
            + "2 blank device (first on line 2); 1 blank sent time (first on line 3)")
        #expect(Self.refusal("device,sent,rtt_ms\n")?.message == "no usable row; of 0 lines after the header, 0 dropped")
    }

    @Test func sizeLimitsNameTheLineAndColumn() {
        let big = String(repeating: "x", count: TelemetryCSV.maximumCellBytes + 1)
        let cell = Self.refusal("device,sent,rtt_ms,note\na,1,5,ok\na,1,5,\"\(big)\"\n")
        #expect(cell?.keyPath == "line 3, column 'note'" && cell?.message.contains("a cell of 4097 bytes") == true)
        #expect(Self.refusal("device,sent,rtt_ms\n\(big),1,5\n")?.keyPath == "line 2, column 'device'")
        // A row of 1 MiB and more: 300 cells of 4,000 bytes.
        let wide = Array(repeating: String(repeating: "y", count: 4_000), count: 300).joined(separator: ",")
        let row = Self.refusal("device,sent,rtt_ms\na,1,5\n\(wide)\n")
        #expect(row?.keyPath == "line 3" && row?.message.contains("a row over 1048576 bytes") == true)
        // A quoted cell of escaped quotes only, past 1 MiB: refused as a long row, never written
        // past the unquoting buffer.
        let escapes = "\"" + String(repeating: "\"\"", count: TelemetryCSV.maximumLineBytes / 2 + 10) + "\""
        let escaped = Self.refusal("device,sent,rtt_ms\na,1,5\nb,1,\(escapes)\n")
        #expect(escaped?.keyPath == "line 3" && escaped?.message.contains("a row over 1048576 bytes") == true)
        let quote = Self.refusal("device,sent,rtt_ms\na,1,5\nb,\"1,\n5\n")
        #expect(quote?.keyPath == "line 3" && quote?.message.contains("a quote opened on this line is not closed") == true)
        let links = (0...TelemetryCSV.maximumLinks).map { "d,1,5,L\($0)" }.joined(separator: "\n")
        let many = Self.refusal("device,sent,rtt_ms,link\n" + links)
        #expect(many?.keyPath == "line 1002, column 'link'" && many?.message.contains("more than 1000 distinct link labels") == true)
    }

    @Test func aFileThatCannotBeOpened() {
        do {
            _ = try TelemetryCSV.read("/nonexistent/app.csv")
            Issue.record("read")
        } catch {
            #expect(error.file == "/nonexistent/app.csv" && error.message.contains("cannot be opened"))
        }
    }

    // MARK: Duplicates

    @Test func duplicatesAreRemovedKeepingTheFirst() throws {
        // Line 4 repeats line 2 with line 3 between them (same device and instant, another link);
        // line 6 differs from line 2 only in its bytes, which are not compared; line 5 in its
        // round trip, line 7 in being answered.
        let t = try Self.read("""
            device,sent,rtt_ms,link,outcome,bytes
            a,10,5,wifi,,1
            a,10,5,cell,,1
            a,10,5,wifi,,1
            a,10,5.000001,wifi,,1
            a,10,5,wifi,ok,2
            a,10,,wifi,timeout,
            b,10,5,wifi,,1
            a,10,,wifi,failed,
            """)
        #expect(t.dropped == [.duplicate: 3] && t.firstDroppedLine[.duplicate] == 4)
        #expect(t.link == [0, 1, 0, 0, 0] && t.roundTripNs == [5e6, 5e6, 5_000_001, 0, 5e6] && t.device == [0, 0, 0, 0, 1])
        #expect(t.bytes == [1, 1, 1, -1, 1])
    }

    // MARK: Streaming

    /// Reads the file SYNCLAB_TELEMETRY_BENCH names and prints its counts and time: for
    /// measuring a large file under /usr/bin/time -v (the commit that changes the reader says how).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SYNCLAB_TELEMETRY_BENCH"] != nil))
    func benchFile() throws {
        let path = ProcessInfo.processInfo.environment["SYNCLAB_TELEMETRY_BENCH"]!
        let start = DispatchTime.now().uptimeNanoseconds
        let t = try TelemetryCSV.read(path)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print("telemetry bench: \(t.count) rows, \(t.devices.count) devices, \(t.links.count) links, "
            + "\(t.droppedCount) dropped, \(String(format: "%.2f", seconds)) s")
    }

    /// A file of several chunks, with a quoted line break across a chunk's end, reads as the same
    /// bytes do in memory.
    @Test func aFileReadInChunksReadsAsInMemory() throws {
        var text = "device,sent,rtt_ms,link,note\n"
        var k = 0
        while text.utf8.count < 2_600_000 {
            text += "dev\(k % 500),\(k),\(k % 300 + 1).5,l\(k % 7)," + (k % 9_973 == 0 ? "\"two\nlines, \"\"quoted\"\"\"\n" : "\n")
            k += 1
        }
        let path = NSTemporaryDirectory() + "telemetry-\(UInt64.random(in: 0...UInt64.max)).csv"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try TelemetryCSV.read(path)
        let memory = try TelemetryCSV.read(bytes: Array(text.utf8), file: path)
        #expect(file.count == k && file.droppedCount == 0)
        #expect(file.device == memory.device && file.sentMs == memory.sentMs && file.link == memory.link)
        #expect(file.roundTripNs == memory.roundTripNs && file.devices == memory.devices && file.links == memory.links)
        #expect(file.linesRead == k && file.links.count == 7)
    }
}
