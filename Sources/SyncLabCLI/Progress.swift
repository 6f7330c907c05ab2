import Foundation
import SyncLab
import SyncLabReports

// Progress of long runs, on stderr only: reports, stdout and output files never carry it, so they
// stay byte-identical with or without it. The host clock is read here, for progress and nothing
// else; the kernel and the lab only report the share of simulated time done.
//
// On a terminal one line is rewritten in place (carriage return, then ESC[K to clear what is
// left of the longer line before): simulated time done, the rate and the time left. Off a
// terminal (a CI log, a file), and on a terminal that declares it takes no cursor controls
// (TERM unset, empty or "dumb", as in Emacs' shell buffers), plain lines, one each time both 10%
// more of the run is done and 30 s of wall time have passed since the last, so a run shorter
// than 30 s prints none; a run that printed any ends with one saying it is done.

/// One run's progress meter: turns "share of simulated time done" into lines of text.
struct ProgressMeter {
    /// Where the lines go: a terminal gets one line updated in place, anything else plain lines.
    enum Style {
        case terminal, lines

        /// The style for stderr: in place only on a terminal whose type (`TERM`) takes the
        /// carriage return and ESC[K; plain lines on a dumb terminal, one of unknown type, or off one.
        static func forStderr(isTerminal: Bool, terminalType: String?) -> Style {
            guard isTerminal, let type = terminalType, !type.isEmpty, type != "dumb" else { return .lines }
            return .terminal
        }
    }

    /// A plain line at most this often (wall seconds)…
    static let lineInterval = 30.0
    /// …and only once this much more of the run is done.
    static let lineStep = 0.10

    let label: String
    /// Simulated nanoseconds of the whole run, warm-up included.
    let simulated: Int64
    let style: Style
    /// Wall seconds from an arbitrary origin (the host's monotonic clock, or a test's).
    let clock: () -> Double
    let write: (String) -> Void
    private let started: Double
    private var lastLine: (at: Double, done: Double)
    private var linesWritten = 0
    private var shownPercent = -1

    init(label: String, simulated: Int64, style: Style, clock: @escaping () -> Double, write: @escaping (String) -> Void) {
        self.label = label
        self.simulated = max(1, simulated)
        self.style = style
        self.clock = clock
        self.write = write
        started = clock()
        lastLine = (started, 0)
    }

    /// Told that `done` of the run's simulated time (in [0, 1]) is done.
    mutating func update(_ done: Double) {
        let now = clock()
        switch style {
        case .terminal:
            let percent = Int(done * 100)
            guard percent != shownPercent else { return }
            shownPercent = percent
            write("\r" + status(done, now: now) + "\u{1B}[K")
        case .lines:
            if done >= 1 {
                if linesWritten > 0 { write(finished(now: now) + "\n") }
                linesWritten = 0
            } else if done - lastLine.done >= Self.lineStep - 1e-9 && now - lastLine.at >= Self.lineInterval {
                lastLine = (now, done)
                linesWritten += 1
                write(status(done, now: now) + "\n")
            }
        }
    }

    /// "run 2 of 5, v115-pausing: 6 h 12 min of 24 h 30 min simulated (25%), 1.2 sim h/s, 15 min 30 s left"
    func status(_ done: Double, now: Double) -> String {
        let elapsed = now - started
        let percent = Int(done * 100)
        var text = "\(label): \(Self.duration(seconds: done * seconds)) of \(Self.duration(seconds: seconds)) simulated (\(percent)%)"
        // Rate and time left only once there is something to measure them by.
        if done > 0, elapsed >= 0.5 {
            text += ", " + Self.rate(done * seconds / elapsed)
            if done < 1 { text += ", " + Self.duration(seconds: elapsed * (1 - done) / done) + " left" }
        }
        return text
    }

    /// "run 2 of 5, v115-pausing: done, 24 h 30 min simulated in 32 min 40 s"
    func finished(now: Double) -> String {
        "\(label): done, \(Self.duration(seconds: seconds)) simulated in \(Self.duration(seconds: now - started))"
    }

    private var seconds: Double { Double(simulated) / 1e9 }

    /// "12.3 s", "13 min 53 s", "2 h 05 min".
    static func duration(seconds: Double) -> String { Format.duration(ms: seconds * 1000) }

    /// Simulated time per wall second, in the unit that keeps the figure readable.
    static func rate(_ simulatedPerSecond: Double) -> String {
        if simulatedPerSecond >= 3600 { return Format.fixed(simulatedPerSecond / 3600, 1) + " sim h/s" }
        if simulatedPerSecond >= 60 { return Format.fixed(simulatedPerSecond / 60, 1) + " sim min/s" }
        return Format.fixed(simulatedPerSecond, 1) + " sim s/s"
    }

    /// The host's monotonic clock in seconds: for progress on stderr only.
    static func hostClock() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

extension CLI {
    /// The option that silences progress, accepted by every command that simulates.
    static let quietFlag = "--quiet"

    /// A handler reporting the progress of one run of `scenario` on stderr, or nil when progress
    /// is off (`showsProgress` false, or `--quiet` among `flags`). `run` of `runs` numbers the run
    /// when a command makes several.
    func progress(_ label: String, simulating scenario: Scenario, run: Int = 1, of runs: Int = 1,
                  flags: Set<String>) -> Simulation.ProgressHandler? {
        guard showsProgress, !flags.contains(CLI.quietFlag) else { return nil }
        var meter = ProgressMeter(label: runs > 1 ? "run \(run) of \(runs), \(label)" : label,
                                  simulated: scenario.duration &+ scenario.warmup,
                                  style: progressStyle,
                                  clock: progressClock, write: writeProgress)
        return { meter.update($0) }
    }

    /// How progress is shown on stderr (`ProgressMeter.Style.forStderr`).
    var progressStyle: ProgressMeter.Style {
        .forStderr(isTerminal: stderrIsTerminal, terminalType: terminalType)
    }

    /// Clears the progress line on a terminal, so what follows starts on a clean line.
    func progressDone(flags: Set<String>) {
        if showsProgress, progressStyle == .terminal, !flags.contains(CLI.quietFlag) { writeProgress("\r\u{1B}[K") }
    }

    /// Every progress write goes through here, to stderr.
    func writeProgress(_ text: String) { err(text) }
}
