import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab
#if canImport(Glibc)
import Glibc
#endif

/// Hostile trace files, through `synclab trace-stats` and a scenario's `linkTrace`: each test
/// runs a case of the hostile sweep (docs/safety.md) and checks its exit status and message.
/// Cases that need a real process (a FIFO, a resource limit, standard output on a full device)
/// run the built executable with a deadline; the others call the command line in-process.
@Suite struct HostileTraceTests {
    static func synclab(_ args: [String]) -> (status: Int32, out: String, err: String) { CLITests.synclab(args) }

    static func run(_ arguments: [String], through shell: String, timeout: TimeInterval = 60) throws
        -> (status: Int32, out: String, err: String, timedOut: Bool)? {
        try SafetyTests.runExecutable(arguments, through: shell, timeout: timeout)
    }

    /// A folder with the sweep's traces: `fine` (1 … 5 ms), `one1` (one line, 1), and traces of
    /// two opportunities spanning 10¹³ ms, 9.2·10¹² ms, 10⁹ ms, 10⁸ ms and 6 h.
    static func traces() throws -> String {
        let dir = CLITests.temporaryDirectory()
        for (name, text) in [("fine", "1\n2\n3\n4\n5\n"), ("one1", "1\n"), ("big13", "0\n9999999999999\n"),
                             ("maxms", "0\n9223372036854\n"), ("span1e9", "0\n1000000000\n"), ("span1e8", "0\n100000000\n"),
                             ("span6h", "0\n21600000\n"), ("span3e8", "0\n300000000\n"),
                             ("ms300", (1...300).map(String.init).joined(separator: "\n") + "\n")] {
            try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        return dir
    }

    static func hasRawControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
    }

    // MARK: A path holding control characters

    @Test func controlCharactersInATracePathAreEscaped() throws {
        let dir = try Self.traces()
        let hostile = dir + "/e\u{1B}]0;PWNED\u{7}.up"
        try "0\n5\n10\n".write(toFile: hostile, atomically: true, encoding: .utf8)
        // Read: the report's title names it, escaped.
        let read = Self.synclab(["trace-stats", hostile, dir + "/fine"])
        #expect(read.status == 0, "\(read.err)")
        #expect(!Self.hasRawControls(read.out) && !Self.hasRawControls(read.err))
        #expect(read.out.hasPrefix("# \(dir)/e\\u{1B}]0;PWNED\\u{7}.up and \(dir)/fine\n"), "\(read.out.prefix(200))")
        // Missing: the message names it, escaped.
        let missing = Self.synclab(["trace-stats", dir + "/x\u{1B}]0;PWNED\u{7}.up", dir + "/fine"])
        #expect(missing.status == 2)
        #expect(missing.err == "synclab trace-stats: trace file '\(dir)/x\\u{1B}]0;PWNED\\u{7}.up' does not exist\n")
        #expect(missing.out.isEmpty)
        // An option's value too.
        let preset = Self.synclab(["trace-stats", dir + "/fine", dir + "/fine", "--against", "\u{1B}[2J"])
        #expect(preset.status == 2 && !Self.hasRawControls(preset.err) && preset.err.contains("'\\u{1B}[2J'"), "\(preset.err)")
    }

    // MARK: A path that is not a regular file

    @Test func aPathThatIsNotARegularFileSaysWhatItIs() throws {
        let dir = try Self.traces()
        try FileManager.default.createDirectory(atPath: dir + "/adir", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir + "/loop1", withDestinationPath: "loop2")
        try FileManager.default.createSymbolicLink(atPath: dir + "/loop2", withDestinationPath: "loop1")
        #expect(mkfifo(dir + "/fifo", 0o644) == 0)
        // A real process with a deadline: a FIFO read by mistake would block it for ever.
        let shell = #"""
        for p in "$1/adir" "$1/loop1" "$1/fifo" /dev/zero; do "$SYNCLAB" trace-stats "$p" "$1/fine"; echo "status $?"; done
        """#
        guard let r = try Self.run([dir], through: shell) else { return }
        #expect(!r.timedOut, "trace-stats blocked on a FIFO or read /dev/zero")
        #expect(r.out == "status 2\nstatus 2\nstatus 2\nstatus 2\n", "\(r.out)\n\(r.err)")
        #expect(r.err == """
            synclab trace-stats: trace file '\(dir)/adir' is a folder; expected a Mahimahi trace file
            synclab trace-stats: trace file '\(dir)/loop1' cannot be read: it is a symbolic link loop (a link that leads back to itself)
            synclab trace-stats: trace file '\(dir)/fifo' cannot be read: it is a FIFO (named pipe); expected a regular file
            synclab trace-stats: trace file '/dev/zero' cannot be read: it is a device; expected a regular file

            """, "\(r.err)")
        #expect(!r.err.contains("NSCocoaErrorDomain") && !r.err.contains("Permission denied"))
    }

    // MARK: Traces shorter than an entry step

    @Test func oneLineTracesGetAReport() throws {
        let dir = try Self.traces()
        let r = Self.synclab(["trace-stats", dir + "/one1", dir + "/one1"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("- uplink: 1 opportunity over 0.001 s, 12.00 Mbit/s on average\n"))
        #expect(r.out.contains("- entered once, at the start of one 0.001 s pass;"))
        #expect(r.out.contains("| 100ms | not informed: the trace repeats every 0.001 s |"), "\(r.out)")
        #expect(!r.out.contains("nan"))
    }

    // MARK: Huge spans and messages: refused before anything is allocated

    @Test func hugeSpansAndMessagesAreRefusedWithTheirLimit() throws {
        let dir = try Self.traces()
        // Each under an address-space limit of 4 GB: a refusal must come before any allocation.
        let shell = #"""
        ulimit -v 4000000
        "$SYNCLAB" trace-stats "$1/big13" "$1/fine"; echo "big13 $?"
        "$SYNCLAB" trace-stats "$1/maxms" "$1/fine"; echo "maxms $?"
        "$SYNCLAB" trace-stats "$1/span1e9" "$1/fine"; echo "span1e9 $?"
        "$SYNCLAB" trace-stats "$1/fine" "$1/span1e8" --message-bytes 1000000000; echo "span1e8 $?"
        "$SYNCLAB" trace-stats "$1/fine" "$1/span6h" --message-bytes 1000000000; echo "span6h $?"
        """#
        guard let r = try Self.run([dir], through: shell) else { return }
        #expect(!r.timedOut)
        #expect(r.out == "big13 2\nmaxms 2\nspan1e9 2\nspan1e8 2\nspan6h 2\n", "\(r.out)\n\(r.err)")
        #expect(r.err == """
            synclab trace-stats: trace file '\(dir)/big13' line 2: 9999999999999 ms is past the longest a trace may last, 30d (2592000000 ms)
            synclab trace-stats: trace file '\(dir)/maxms' line 2: 9223372036854 ms is past the longest a trace may last, 30d (2592000000 ms)
            synclab trace-stats: trace file '\(dir)/span1e9' lasts 11d13h46m40s a pass; trace-stats enters a pass every 5 ms and reads passes of at most 6h
            synclab trace-stats: trace file '\(dir)/span1e8' lasts 1d3h46m40s a pass; trace-stats enters a pass every 5 ms and reads passes of at most 6h
            synclab trace-stats: trace file '\(dir)/span6h': --message-bytes 1000000000 takes 666667 packets, which need up to 333335 passes of this trace to cross it (2 opportunities in each 6h pass), 83333d18h, more than the 365d a crossing may take; use a trace with more opportunities or a smaller message

            """, "\(r.err)")
    }

    // MARK: Short traces: every figure defined

    @Test func aTraceUnderHalfASecondPrintsNoNaNAndNoAbsurdTimeConstant() throws {
        let dir = try Self.traces()
        let r = Self.synclab(["trace-stats", dir + "/ms300", dir + "/ms300"])
        #expect(r.status == 0, "\(r.err)")
        #expect(!r.out.contains("nan") && !r.out.contains("| inf") && !r.out.contains("| -inf"), "\(r.out)")
        #expect(r.out.contains("| 1s | not informed: the trace repeats every 0.3 s |"), "\(r.out)")
        // Every implied τ is a number of seconds below a year, a lower bound, or "—".
        let lines = r.out.split(separator: "\n").filter { $0.hasPrefix("| 100ms |") }
        #expect(lines.count == 1)
        for line in lines {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(cells.count == 5, "\(line)")
            let tau = cells[3]
            let seconds = Double(tau.replacingOccurrences(of: "over ", with: "").replacingOccurrences(of: " s", with: ""))
            #expect(tau == "—" || (seconds.map { $0 >= 0 && $0 < 3.2e7 } ?? false), "τ is \(tau)")
            #expect(cells[4] == "not informed" || Double(cells[4]) != nil, "persistence is \(cells[4])")
        }
    }

    // MARK: An option given twice

    @Test func anOptionGivenTwiceIsRefused() throws {
        let dir = try Self.traces()
        let r = Self.synclab(["trace-stats", dir + "/fine", dir + "/fine", "--base-delay", "1ms", "--base-delay", "2ms"])
        #expect(r.status == 2)
        #expect(r.err == "synclab trace-stats: --base-delay is given more than once\nRun 'synclab trace-stats --help' for usage.\n")
        #expect(r.out.isEmpty)
    }

    // MARK: The same traces in a scenario

    /// A small scenario whose one link profile is driven by `up` and `down`.
    static func linkTraceScenario(_ dir: String, _ up: String, _ down: String, extra: String = "", linkExtra: String = "") throws -> String {
        _ = try CLITests.smallScenario(in: dir)
        let text = #"{ "extends": "small.json", "name": "lt", \#(extra) "network": { "profiles": [ { "name": "tr", "share": 1, "#
            + #""linkTrace": { "uplink": { "trace": "\#(up)" }, "downlink": { "trace": "\#(down)" }\#(linkExtra) } } ] }, "budgets": [] }"#
        let path = dir + "/lt-\(up)-\(down).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aScenarioRefusesTheSameTracesBeforeTheRun() throws {
        let dir = try Self.traces()
        let long = try Self.linkTraceScenario(dir, "big13", "fine")
        let heavy = try Self.linkTraceScenario(dir, "fine", "span3e8", extra: #""store": { "file": { "fixedBytes": 100000000 } },"#)
        let shell = #"""
        for s in "$1" "$2"; do
          "$SYNCLAB" validate "$s"; echo "validate $?"
          (ulimit -v 4000000; "$SYNCLAB" run "$s" --out "$3/r" --quiet --clients 200 --duration 10m); echo "run $?"
        done
        """#
        guard let r = try Self.run([long, heavy, dir], through: shell) else { return }
        #expect(!r.timedOut)
        // Nothing on stdout but the statuses: no run started (its seed line is its first).
        #expect(r.out == "validate 2\nrun 2\nvalidate 2\nrun 2\n", "\(r.out)\n\(r.err)")
        let tooLong = "network.profiles[0].linkTrace.uplink.trace: trace file '\(dir)/big13' line 2: "
            + "9999999999999 ms is past the longest a trace may last, 30d (2592000000 ms)"
        let tooSlow = "network.profiles[0].linkTrace.downlink.trace: trace file '\(dir)/span3e8': the store file (store.file, "
            + "100000000 bytes) takes 66667 packets, which need up to 33335 passes of this trace to cross it "
            + "(2 opportunities in each 3d11h20m pass), more than the 365d a crossing may take; "
            + "use a trace with more opportunities or a smaller message"
        #expect(r.err.components(separatedBy: tooLong).count == 3, "\(r.err)")
        #expect(r.err.components(separatedBy: tooSlow).count == 3, "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/r"))
    }

    @Test func aBaseDelayLongerThanTheTimeOutIsRefused() throws {
        let dir = try Self.traces()
        let path = try Self.linkTraceScenario(dir, "fine", "fine", linkExtra: #", "baseDelay": "2h""#)
        let r = Self.synclab(["validate", path])
        #expect(r.status == 2)
        #expect(r.err.contains("network.profiles[0].linkTrace.baseDelay: a base delay of 2h is longer than the link's time-out of 30s; "
            + "no message could arrive in time"), "\(r.err)")
        // Within the time-out it loads.
        let ok = try Self.linkTraceScenario(dir, "fine", "one1", linkExtra: #", "baseDelay": "30s""#)
        #expect(Self.synclab(["validate", ok]).status == 0)
    }

    // MARK: The size limit of a trace file

    @Test func aTraceFileOverTheLimitIsRefusedUnread() throws {
        let dir = try Self.traces()
        // Sparse: its size is what counts, and it is refused before a byte is read.
        let huge = dir + "/huge.up"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, off_t(LatencyTrace.maximumFileBytes + 1)) == 0)
        #expect(MahimahiTrace.maximumFileBytes == LatencyTrace.maximumFileBytes && LatencyTrace.maximumFileBytes == 50_000_000)
        let stats = Self.synclab(["trace-stats", huge, dir + "/fine"])
        #expect(stats.status == 2)
        #expect(stats.err == "synclab trace-stats: trace file '\(huge)' has 50000001 bytes; at most 50000000 are allowed\n")
        let scenario = try Self.linkTraceScenario(dir, "huge.up", "fine")
        let validate = Self.synclab(["validate", scenario])
        #expect(validate.status == 2)
        #expect(validate.err.contains("trace file '\(huge)' has 50000001 bytes; at most 50000000 are allowed"), "\(validate.err)")
    }

    // MARK: Standard output that cannot be written

    @Test func aFailedWriteToStandardOutputFailsTheCommand() throws {
        let dir = try Self.traces()
        let shell = #"""
        "$SYNCLAB" trace-stats "$1/fine" "$1/fine" > /dev/full 2>"$1/e1"; echo "trace-stats full $?"
        (ulimit -f 1; "$SYNCLAB" trace-stats "$1/fine" "$1/fine" > "$1/ts.md" 2>"$1/e2"); echo "trace-stats size limit $?"
        "$SYNCLAB" schema > /dev/full 2>"$1/e3"; echo "schema full $?"
        (ulimit -f 1; "$SYNCLAB" schema > "$1/schema.json" 2>"$1/e4"); echo "schema size limit $?"
        "$SYNCLAB" trace-stats "$1/fine" "$1/fine" > "$1/ok.md"; echo "trace-stats $?"
        # A reader that stops early (| head) read what it wanted: no failure, no message.
        ( sleep 0.5; "$SYNCLAB" schema 2>"$1/e5"; echo "schema into a closed pipe $?" > "$1/s5" ) | true; cat "$1/s5" "$1/e5"
        cat "$1/e1" "$1/e2" "$1/e3" "$1/e4"
        """#
        guard let r = try Self.run([dir], through: shell) else { return }
        #expect(!r.timedOut)
        #expect(r.out.hasPrefix("trace-stats full 2\ntrace-stats size limit 2\nschema full 2\nschema size limit 2\ntrace-stats 0\n"
                                + "schema into a closed pipe 0\n"), "\(r.out)")
        #expect(r.out.hasSuffix("""
            synclab trace-stats: cannot write the standard output: No space left on device
            synclab trace-stats: cannot write the standard output: file too large: the file size limit (ulimit -f) was reached
            synclab schema: cannot write the standard output: No space left on device
            synclab schema: cannot write the standard output: file too large: the file size limit (ulimit -f) was reached

            """), "\(r.out)")
        let report = try String(contentsOfFile: dir + "/ok.md", encoding: .utf8)
        #expect(report.hasPrefix("# \(dir)/fine and \(dir)/fine\n") && report.hasSuffix("| downlink | longest | 1 ms | | |\n"))
    }

    // MARK: Help

    @Test func helpShowsAnExamplePathAnyoneCanHave() {
        let r = Self.synclab(["trace-stats", "--help"])
        #expect(r.status == 0)
        #expect(!r.out.contains("shared/") && !r.out.contains("Verizon"), "\(r.out)")
        #expect(r.out.contains("synclab trace-stats traces/lte.up traces/lte.down"))
    }
}
