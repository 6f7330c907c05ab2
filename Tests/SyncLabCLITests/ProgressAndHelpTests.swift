import Foundation
import Testing
@testable import SyncLabCLI
import SyncLab

/// Progress on stderr (in place on a terminal, plain lines elsewhere, none with --quiet), and
/// help for every subcommand.
@Suite struct ProgressAndHelpTests {
    final class Box: @unchecked Sendable { var out = ""; var err = ""; var now = 0.0; var step = 0.0 }

    /// `synclab ARGS` in-process; progress as on a terminal or not, on a clock that moves `step`
    /// seconds at every reading (so plain lines appear even though the runs are short).
    static func synclab(_ args: [String], progress: Bool, terminal: Bool = true, term: String? = "xterm-256color", step: Double = 0)
        -> (status: Int32, out: String, err: String) {
        let box = Box()
        box.step = step
        var cli = CLI(out: { box.out += $0 }, err: { box.err += $0 }, showsProgress: progress, stderrIsTerminal: terminal,
                      terminalType: term)
        cli.progressClock = { box.now += box.step; return box.now }
        let status = cli.main(args)
        return (status, box.out, box.err)
    }

    /// A meter over a simulated day on a clock the test sets.
    static func meter(_ style: ProgressMeter.Style, simulated: Int64 = 24 * 3600 * 1_000_000_000) -> (Box, ProgressMeter) {
        let box = Box()
        box.now = 100
        let meter = ProgressMeter(label: "day", simulated: simulated, style: style, clock: { box.now }, write: { box.err += $0 })
        return (box, meter)
    }

    @Test func onATerminalOneLineShowsSimulatedTimeRateAndTimeLeft() {
        var (box, meter) = Self.meter(.terminal)
        box.now = 100.2
        meter.update(0.01)   // under half a second: no rate yet
        box.now = 112
        meter.update(0.25)   // 6 h simulated in 12 s: 1800 simulated s per s, 36 s left
        box.now = 113
        meter.update(0.255)  // the same whole percent: not rewritten
        box.now = 124
        meter.update(0.5)
        box.now = 148
        meter.update(1)
        #expect(box.err.components(separatedBy: "\r") == ["",
            "day: 14 min 24 s of 24 h 00 min simulated (1%)\u{1B}[K",
            "day: 6 h 00 min of 24 h 00 min simulated (25%), 30.0 sim min/s, 36.0 s left\u{1B}[K",
            "day: 12 h 00 min of 24 h 00 min simulated (50%), 30.0 sim min/s, 24.0 s left\u{1B}[K",
            "day: 24 h 00 min of 24 h 00 min simulated (100%), 30.0 sim min/s\u{1B}[K"])
    }

    @Test func offATerminalALineEvery10PercentOr30SecondsWhicheverComesLater() {
        var (box, meter) = Self.meter(.lines)
        for (at, done) in [(105.0, 0.05), (120, 0.15),   // 15% but only 20 s: nothing yet
                           (132, 0.2),                    // 20% and 32 s: a line
                           (170, 0.25),                   // 38 s later but only 5% more
                           (175, 0.3),                    // 10% more and 43 s: a line
                           (190, 0.9),                    // 60% more but only 15 s
                           (200, 1)] {                    // done: a closing line, as lines were shown
            box.now = at
            meter.update(done)
        }
        #expect(box.err == """
            day: 4 h 48 min of 24 h 00 min simulated (20%), 9.0 sim min/s, 2 min 08 s left
            day: 7 h 12 min of 24 h 00 min simulated (30%), 5.8 sim min/s, 2 min 55 s left
            day: done, 24 h 00 min simulated in 1 min 40 s

            """)
    }

    @Test func offATerminalAShortRunPrintsNothing() {
        var (box, meter) = Self.meter(.lines)
        for (at, done) in [(101.0, 0.3), (102, 0.6), (129, 0.99), (129.9, 1)] {
            box.now = at
            meter.update(done)
        }
        #expect(box.err == "")
    }

    @Test func theRateReadsInSimulatedHoursPerSecondWhenFast() {
        var (box, meter) = Self.meter(.lines, simulated: 30 * 24 * 3600 * 1_000_000_000)
        box.now = 160
        meter.update(0.5)
        #expect(box.err == "day: 360 h 00 min of 720 h 00 min simulated (50%), 6.0 sim h/s, 1 min 00 s left\n")
    }

    /// In place only on a terminal whose type takes the carriage return and ESC[K: a dumb
    /// terminal (Emacs' shell), one without a type, and anything not a terminal get plain lines.
    @Test func theStyleFollowsTheTerminalAndItsType() {
        typealias Style = ProgressMeter.Style
        #expect(Style.forStderr(isTerminal: true, terminalType: "xterm-256color") == .terminal)
        #expect(Style.forStderr(isTerminal: true, terminalType: "screen") == .terminal)
        #expect(Style.forStderr(isTerminal: true, terminalType: "dumb") == .lines)
        #expect(Style.forStderr(isTerminal: true, terminalType: "") == .lines)
        #expect(Style.forStderr(isTerminal: true, terminalType: nil) == .lines)
        #expect(Style.forStderr(isTerminal: false, terminalType: "xterm") == .lines)
        // The command line's own choice, and its closing clear, follow the same rule.
        let box = Box()
        var cli = CLI(out: { _ in }, err: { box.err += $0 }, showsProgress: true, stderrIsTerminal: true, terminalType: "dumb")
        #expect(cli.progressStyle == .lines)
        cli.progressDone(flags: [])
        #expect(box.err.isEmpty)
        cli.terminalType = "xterm"
        #expect(cli.progressStyle == .terminal)
        cli.progressDone(flags: [])
        #expect(box.err == "\r\u{1B}[K")
    }

    @Test func aCommandOfSeveralRunsNumbersThemAndQuietSilencesIt() throws {
        let scenario = try ScenarioLoader().load(path: CLITests.shippedPausing)
        let box = Box()
        var cli = CLI(out: { _ in }, err: { box.err += $0 }, showsProgress: true, stderrIsTerminal: true, terminalType: "xterm")
        cli.progressClock = { box.now }
        let handler = try #require(cli.progress("v115-pausing seed 3", simulating: scenario, run: 2, of: 5, flags: []))
        handler(0.5)
        #expect(box.err == "\rrun 2 of 5, v115-pausing seed 3: 1 h 45 min of 3 h 30 min simulated (50%)\u{1B}[K")
        #expect(cli.progress("x", simulating: scenario, flags: [CLI.quietFlag]) == nil)
        cli.showsProgress = false
        #expect(cli.progress("x", simulating: scenario, flags: []) == nil)
    }

    @Test func progressNeverChangesOutputsAndQuietSilencesIt() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let quiet = Self.synclab(["run", scenario, "--out", dir + "/a", "--quiet"], progress: true)
        #expect(quiet.status == 0)
        #expect(!quiet.err.contains("simulated (") && !quiet.err.contains("\r"), "stderr: \(quiet.err)")
        // The same run on a terminal, and off one on a clock that makes plain lines appear:
        // the report files and stdout are the same bytes.
        let terminal = Self.synclab(["run", scenario, "--out", dir + "/b"], progress: true, terminal: true)
        #expect(terminal.status == 0)
        #expect(terminal.err.contains("\rsmall: 40 min 00 s of 40 min 00 s simulated (100%)"), "stderr: \(terminal.err)")
        let log = Self.synclab(["run", scenario, "--out", dir + "/c"], progress: true, terminal: false, step: 31)
        #expect(log.status == 0)
        #expect(log.err.contains("small: done, 40 min 00 s simulated in ") && !log.err.contains("\r"), "stderr: \(log.err)")
        for name in ["report.md", "summary.json", "load.csv", "transitions.csv", "error_by_clock.csv"] {
            let a = FileManager.default.contents(atPath: dir + "/a/" + name)
            #expect(a != nil)
            #expect(a == FileManager.default.contents(atPath: dir + "/b/" + name), "\(name)")
            #expect(a == FileManager.default.contents(atPath: dir + "/c/" + name), "\(name)")
        }
        #expect(quiet.out.replacingOccurrences(of: dir + "/a", with: dir + "/b") == terminal.out, "stdout never carries progress")
        #expect(quiet.out.replacingOccurrences(of: dir + "/a", with: dir + "/c") == log.out, "stdout never carries progress")
    }

    @Test func checkAndSweepSayWhichRunOfHowMany() throws {
        let dir = CLITests.temporaryDirectory()
        let scenario = try CLITests.smallScenario(in: dir)
        let check = Self.synclab(["check", scenario, "--seeds", "2"], progress: true)
        #expect(check.err.contains("\rrun 1 of 2, small seed 1: ") && check.err.contains("\rrun 2 of 2, small seed 2: "), "stderr: \(check.err)")
        let sweep = Self.synclab(["sweep", scenario, "--vary", "population.players=200,300", "--out", dir + "/sweep"], progress: true)
        #expect(sweep.status == 0)
        #expect(sweep.err.contains("\rrun 1 of 2, point 0 seed 1: ") && sweep.err.contains("\rrun 2 of 2, point 1 seed 1: "), "stderr: \(sweep.err)")
    }

    @Test func everySubcommandHasHelpWithExamples() {
        for command in ["run", "check", "compare", "sweep", "merge", "validate", "list"] {
            let r = Self.synclab([command, "--help"], progress: false)
            #expect(r.status == 0, "\(command)")
            #expect(r.out.hasPrefix("synclab \(command) — "), "\(command)")
            #expect(r.out.contains("USAGE\n"), "\(command)")
            #expect(r.out.contains("EXAMPLE"), "\(command) --help has no example")
            #expect(Self.synclab(["help", command], progress: false).out == r.out)
            #expect(Self.synclab(["help"], progress: false).out.contains("synclab \(command) "), "\(command) missing from the usage")
        }
    }
}
