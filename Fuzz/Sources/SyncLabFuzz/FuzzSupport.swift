// What the targets share: files served from memory beside the shipped scenarios, splitting one
// input into several files, and a run small enough to make on every input.

import Foundation
import SyncLab
import SyncLabKernel
import SyncLabReports

/// The shipped scenarios' folder, with some files of its root served from memory: the fuzz input
/// as `fuzz.json` (or a trace), so it may `extends` a shipped scenario by name
/// ("recommended.json", "examples/devices-wall.json") and a shipped scenario's traces
/// ("traces/lte-sample.csv") are found as a user's scenario beside them would find them.
struct FuzzResolver: ScenarioResolver {
    static let shipped = ShippedScenarios.resolver
    /// In-memory files by name within the folder ("fuzz.json", "fuzz.up").
    var files: [String: Data]

    func name(of reference: String, from referrer: String?) -> String { Self.shipped.name(of: reference, from: referrer) }
    func identity(of name: String) -> String { Self.shipped.identity(of: name) }
    func contents(of name: String, maximumBytes: Int) throws(ScenarioFileProblem) -> Data {
        if let data = files[identity(of: name)] {
            guard data.count <= maximumBytes else { throw .tooLarge(bytes: data.count) }
            return data
        }
        return try Self.shipped.contents(of: name, maximumBytes: maximumBytes)
    }
}

enum FuzzInput {
    /// The line that separates the files of one input (an uplink and a downlink trace, the
    /// parts of a merge): "--8<--" on a line of its own.
    static let separator = Array("--8<--\n".utf8)

    /// `data` cut at each separator line into at most `limit` files (the last keeps the rest).
    static func files(_ data: Data, limit: Int) -> [Data] {
        let bytes = [UInt8](data)
        var out: [Data] = []
        var start = 0, i = 0
        while i + separator.count <= bytes.count, out.count < limit - 1 {
            if (i == 0 || bytes[i - 1] == UInt8(ascii: "\n")), bytes[i..<(i + separator.count)].elementsEqual(separator) {
                out.append(Data(bytes[start..<i]))
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        out.append(Data(bytes[start...]))
        return out
    }

    /// Whether refusals are printed (SYNCLAB_FUZZ_VERBOSE=1): to see why a seed stops early.
    static let verbose = ProcessInfo.processInfo.environment["SYNCLAB_FUZZ_VERBOSE"] == "1"

    /// Whether a raw control character in what a command prints is a finding too
    /// (SYNCLAB_FUZZ_TEXT=1): text from a file must not drive the terminal it is printed on.
    static let checksText = ProcessInfo.processInfo.environment["SYNCLAB_FUZZ_TEXT"] == "1"

    /// A reader refused the input: a normal outcome. Its message is built either way, so a trap
    /// in wording it is found too, and printed when verbose.
    static func refused(_ error: any Error) {
        let message = "\(error)"
        if verbose { FileHandle.standardError.write(Data("refused: \(message)\n".utf8)) }
    }

    /// Traps, when `checksText`, on a control character other than a line break or a tab in
    /// `text` (what a command prints), naming it and showing the text escaped.
    static func checkText(_ text: String, _ what: String) {
        guard checksText, let raw = text.unicodeScalars.first(where: { v in
            (v.value < 0x20 && v != "\n" && v != "\t") || (0x7F...0x9F).contains(v.value)
        }) else { return }
        fatalError("raw control character U+\(String(raw.value, radix: 16, uppercase: true)) in \(what): "
            + InputError.escapingControls(String(text.prefix(300))))
    }

    /// Whether a costly step that follows (a run's report) is taken for this input: one in four,
    /// chosen by the input's hash, so the same input always takes the same path.
    static func sampled(_ data: Data) -> Bool { hash(data) % 4 == 0 }

    /// FNV-1a 64 of `data`: a seed for the choices a target makes about one input, so the same
    /// input always takes the same path.
    static func hash(_ data: Data) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in data { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }
}

/// A run of a loaded scenario made small enough to run on every input: the loader's and the
/// run's code paths with the scenario's own models, at a size that keeps one execution well
/// under the 50 ms a fuzzer can afford. The limits are the harness's, not the lab's: a scenario
/// may ask for far more, and the loader's limits are what decide whether it may.
enum TinyRun {
    /// At most this many players, this long measured and this long warming up.
    static let players = 8
    static let duration: Nanoseconds = 2 * .minute
    static let warmup: Nanoseconds = 1 * .minute

    /// Loads and runs the recommended design once, which builds the tables of every link preset
    /// it uses (each a process builds once, in seconds under coverage instrumentation).
    static func warmUp() {
        if let s = try? ShippedScenarios.load("recommended") { run(s, reports: true) }
    }

    /// Runs `scenario` shrunk to the limits above on one thread, and renders its report when
    /// `reports`; a size the lab refuses is a normal outcome.
    static func run(_ scenario: Scenario, reports: Bool) {
        var s = scenario
        s.warmup = min(s.warmup, warmup)
        do {
            try s.resize(players: min(s.population.players, players), duration: min(s.duration, duration))
        } catch {
            FuzzInput.refused(error)
            return
        }
        let result = Simulation.run(s, threads: 1)
        // The report costs about as much as the run: the caller renders it for some inputs.
        if reports { _ = ReportBundle.files(result) }
    }
}
