import Foundation
import SyncLabKernel

/// Reads scenario files: JSON with units, `extends` for variants, every key validated.
///
/// Any problem is an `InputError` naming the file and the key path; nothing is half-loaded.
/// Every value is checked against a realistic range (`Limits`), and a scenario whose run would
/// not fit in memory is refused with the estimate before anything is allocated.
public struct ScenarioLoader {
    /// The plug-in kinds scenarios may name: the built-ins, or an app team's extension of them.
    public var plugins: PluginRegistry
    /// Where `load(path:)`, `inputFiles(path:)` and sweeps' overrides find files: paths on the
    /// file system, by default. The command line's also finds a shipped scenario an `extends`
    /// names when no such file is beside the extending one (`FileSystemScenarioResolver.fallback`).
    public var files: FileSystemScenarioResolver

    public init(plugins: PluginRegistry = .builtIn, files: FileSystemScenarioResolver = FileSystemScenarioResolver()) {
        self.plugins = plugins
        self.files = files
    }

    /// Loads `path`, following `extends` chains (paths relative to the extending file).
    ///
    /// An error inside the merged scenario names the file of the chain that wrote the offending
    /// key. `trace`, when given, records every key the loader asked for (see `KeyTrace`).
    public func load(path: String, trace: KeyTrace? = nil) throws(InputError) -> Scenario {
        try load(path: path, resolver: files, trace: trace)
    }

    /// Loads the file `path` names through `resolver` (`ShippedScenarios.resolver` for the
    /// scenarios the library ships), its `extends` chain and latency traces too.
    public func load(path: String, resolver: any ScenarioResolver, trace: KeyTrace? = nil) throws(InputError) -> Scenario {
        try load(layers: try resolve(path: resolver.name(of: path, from: nil), chain: [], resolver: resolver),
                 file: path, resolver: resolver, trace: trace)
    }

    /// Decodes a scenario from text, for tests and embedding. An `extends` in it names a file
    /// relative to `file`'s folder, found through `resolver`: a text may extend a shipped
    /// scenario with `resolver: ShippedScenarios.resolver` and `"extends": "recommended.json"`.
    public func load(text: String, file: String = "<inline>", resolver: any ScenarioResolver = FileSystemScenarioResolver(),
                     trace: KeyTrace? = nil) throws(InputError) -> Scenario {
        try load(layers: try resolve(path: file, text: text, chain: [], resolver: resolver), file: file, resolver: resolver, trace: trace)
    }

    /// Decodes the merged `extends` chain `layers` (base first) of the scenario `file`.
    func load(layers: [(file: String, value: JSONValue)], file: String, resolver: any ScenarioResolver,
              trace: KeyTrace?) throws(InputError) -> Scenario {
        // Trace paths are relative to the file that names them (LatencyTrace.swift).
        let layers = layers.map { (file: $0.file, value: LatencyTrace.anchorPaths($0.value, in: $0.file)) }
        let merged = layers.dropFirst().reduce(layers[0].value) { JSONValue.merging(base: $0, override: $1.value) }
        let root = InputNode(merged, file: file, trace: trace, resolver: resolver)
        do {
            let scenario = try decode(root)
            try Self.checkMemory(scenario, file: file)
            return scenario
        } catch {
            throw Self.attribute(Self.inputError(error, file: file), to: layers)
        }
    }

    /// Any error of decoding as an `InputError`. Readers throw only `InputError`; anything else
    /// is a bug in a reader, reported as such rather than hidden.
    static func inputError(_ error: any Error, file: String) -> InputError {
        if let inputError = error as? InputError { return inputError }
        return InputError(file: file, keyPath: "", message: "internal error while reading the scenario: \(error)")
    }

    /// Scenario files larger than this are refused unread: a scenario is a few kilobytes.
    public static let maximumFileBytes = 10_000_000
    /// At most this many files in one `extends` chain.
    public static let maximumExtendsDepth = 32

    /// The files of the `extends` chain of `path` (whose text is `text` when given), base first,
    /// each without its `extends` key.
    func resolve(path: String, text: String? = nil, chain: [String],
                 resolver given: (any ScenarioResolver)? = nil) throws(InputError) -> [(file: String, value: JSONValue)] {
        let resolver = given ?? files
        let identity = resolver.identity(of: path)
        let source: String
        if let text { source = text } else { source = try Self.readText(path, resolver) }
        var members = try Self.parseScenario(source, file: path, quoting: chain.isEmpty || path.hasSuffix(".json"))
        guard let index = members.firstIndex(where: { $0.key == "extends" }) else { return [(path, .object(members))] }
        guard case .string(let parent) = members[index].value, !parent.isEmpty else {
            throw InputError(file: path, keyPath: "extends", message: "expected the path of the scenario file this one extends, "
                             + "like \"v115-pausing.json\"; got \(InputNode.describe(members[index].value))")
        }
        members.remove(at: index)
        let parentPath = resolver.name(of: parent, from: path)
        let parentText: Result<String, InputError>
        do {
            parentText = .success(try Self.text(try resolver.contents(of: parentPath, maximumBytes: Self.maximumFileBytes), file: parentPath))
        } catch let error as ScenarioFileProblem {
            switch error {
            case .missing(let lookedFor):
                throw InputError(file: path, keyPath: "extends", message: "no such file '\(parent)' (looked for \(lookedFor))")
            case .folder:
                throw InputError(file: path, keyPath: "extends", message: "no such file '\(parent)' (\(parentPath) is a folder)")
            default:
                parentText = .failure(Self.inputError(error, scenario: parentPath))
            }
        } catch {
            parentText = .failure(Self.inputError(error, file: parentPath))
        }
        // The file whose `extends` closes a loop is the one named: its own key is the mistake.
        let chain = chain + [identity]
        let parentIdentity = resolver.identity(of: parentPath)
        if chain.contains(parentIdentity) {
            let cycle = (chain + [parentIdentity]).map { ($0 as NSString).lastPathComponent }
            throw InputError(file: path, keyPath: "extends", message: "extends cycle: \(cycle.joined(separator: " → "))")
        }
        // The file whose `extends` makes the chain too long is the one named, not its parent.
        guard chain.count < Self.maximumExtendsDepth else {
            throw InputError(file: path, keyPath: "extends",
                             message: "this file is number \(chain.count) of its extends chain and extends one more; "
                             + "a chain may have at most \(Self.maximumExtendsDepth) files")
        }
        return try resolve(path: parentPath, text: try parentText.get(), chain: chain, resolver: resolver) + [(path, .object(members))]
    }

    /// The text of the scenario file `path`, refusing folders, huge files and non-UTF-8 content.
    static func readText(_ path: String, _ resolver: any ScenarioResolver = FileSystemScenarioResolver()) throws(InputError) -> String {
        do {
            return try text(try resolver.contents(of: path, maximumBytes: maximumFileBytes), file: path)
        } catch let problem as ScenarioFileProblem {
            throw inputError(problem, scenario: path)
        } catch {
            throw inputError(error, file: path)
        }
    }

    /// A scenario file's problem in words, located at the file.
    static func inputError(_ problem: ScenarioFileProblem, scenario path: String) -> InputError {
        let message = switch problem {
        case .missing: "cannot read the file: it does not exist"
        case .folder: "cannot read the file: it is a folder; expected a scenario .json file"
        case .tooLarge(let bytes): "the file has \(bytes) bytes; a scenario file may have at most \(maximumFileBytes)"
        case .unreadable(let reason): "cannot read the file: \(reason)"
        }
        return InputError(file: path, keyPath: "", message: message)
    }

    /// A scenario file's bytes as text, refusing two byte order marks and non-UTF-8 content.
    static func text(_ data: Data, file path: String) throws(InputError) -> String {
        // Foundation drops one leading byte order mark and the parser another: two are a mistake.
        guard !data.starts(with: [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF]) else {
            throw InputError(file: path, keyPath: "", message: "the file starts with two byte order marks; remove them")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(file: path, keyPath: "", message: "the file is not UTF-8 text")
        }
        return text
    }

    /// Parses scenario text, whose top level must be an object, into its members.
    ///
    /// `quoting: false` is for a file reached through `extends` that is not named `.json`: a
    /// syntax error gives its line and column but quotes nothing of it, since it may be any
    /// readable file (docs/safety.md).
    static func parseScenario(_ text: String, file: String, quoting: Bool = true) throws(InputError) -> [JSONMember] {
        let root: InputNode
        do {
            root = try InputNode.parse(text, file: file)
        } catch {
            guard !quoting else { throw error }
            let at = error.message.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            throw InputError(file: file, keyPath: "", message: "not a JSON scenario file (\(at)); "
                             + "its content is not quoted because its name does not end in .json")
        }
        guard case .object(let members) = root.value else {
            throw root.error("expected a scenario object at the top level; got \(InputNode.describe(root.value))")
        }
        return members
    }

    /// `error` with its file set to the most derived file of the chain that writes the key it is
    /// about (an unknown key, a bad value); errors about absent keys stay with the loaded file.
    static func attribute(_ error: InputError, to layers: [(file: String, value: JSONValue)]) -> InputError {
        guard layers.count > 1 else { return error }
        let subject = error.subjectPath ?? error.keyPath
        guard !subject.isEmpty else { return error }
        for layer in layers.reversed() where InputKeyPath.lookup(subject, in: layer.value) != nil {
            var located = error
            located.file = layer.file
            // A value judged against another key (a release time against the duration): name the
            // file that set that key when it is not this one, which the user may have just changed.
            if let related = error.relatedPath,
               let setter = layers.last(where: { InputKeyPath.lookup(related, in: $0.value) != nil }), setter.file != layer.file {
                located.message += " (\(related) is set in \(setter.file))"
            }
            return located
        }
        return error
    }

    /// Reads a whole scenario, section by section in file order (ScenarioLoader+Sections.swift):
    /// a section may use what an earlier one read (the run's duration, the store's file).
    func decode(_ root: InputNode) throws -> Scenario {
        try root.expectObject()
        var scenario = Scenario(name: "", links: [], population: PopulationConfig(players: 1))
        try readHeader(root, into: &scenario)
        let context = PluginContext(registry: plugins, runDuration: scenario.duration)
        try readStore(try root.required("store"), into: &scenario)
        try readServer(try root.required("server"), into: &scenario, context: context)
        try readNetwork(try root.required("network"), into: &scenario, context: context)
        if let devices = root.child("devices") { try readDevices(devices, into: &scenario, context: context) }
        if let client = root.child("client") { try readClient(client, into: &scenario.client, context: context) }
        let populationNode = try root.required("population")
        try readPopulation(populationNode, into: &scenario)
        if let metrics = root.child("metrics") { try readMetrics(metrics, into: &scenario) }
        // Price models (CostModel.swift), read before budgets: `costPerMonth.<name>` is a figure.
        scenario.costModels = try root.value("costs", default: []) { try CostModel.list(from: $0, in: context) }
        let keys = RunResult.figureKeys(for: partial(scenario.links, scenario.costModels, scenario.devices)) + RunResult.seedFigureKeys
        scenario.budgets = try root.value("budgets", default: []) { n in try n.elements().map { try Self.budget($0, keys: keys) } }
        try root.rejectUnknownKeys()

        if scenario.server.design != nil, scenario.client.probeTarget != .store, let target = root.child("client")?.child("probeTarget") {
            // The original plan has no store file to fetch after the probes and no time to serve:
            // its API answers positions from the database.
            throw target.error("a time endpoint needs the store-file server; the database-per-position design "
                               + "(server.design) serves positions, not a store file or the time: use \"store\" or drop server.design")
        }
        if scenario.server.design != nil {
            try Self.checkPlanSlots(players: scenario.population.players, positions: scenario.positions, at: populationNode)
        }
        return scenario
    }

    /// A scenario with just the links and cost models set, to list the figure keys budgets may name.
    func partial(_ links: [LinkProfile], _ costModels: [CostModel] = [], _ devices: DeviceConfig = DeviceConfig()) -> Scenario {
        Scenario(name: "keys", links: links, devices: devices, population: PopulationConfig(players: 1), costModels: costModels)
    }

    static func budget(_ n: InputNode, keys: [String]) throws -> Budget {
        // Printed as it is in every report and on the terminal (check, run, search, list).
        let name = try n.required("name").printableText()
        let metricNode = try n.required("metric")
        let metric = try metricNode.string()
        guard keys.contains(metric) else { throw metricNode.error(unknownFigure(metric, keys: keys)) }
        let max = try n.optional("max") { try $0.double() }
        let min = try n.optional("min") { try $0.double() }
        try n.rejectUnknownKeys()
        // A limit outside what the figure can be makes a budget that always or never passes: a typo.
        // (Only a share's or verdict's upper bound limits a budget: a time or rate budget past a
        // millennium is odd but harmless, and the schema allows it.)
        let figure = Figure.declared(metric)
        for (key, limit) in [("max", max), ("min", min)] {
            guard let limit, let figure else { continue }
            let share = figure.range.upperBound == 1
            guard limit < figure.range.lowerBound || (share && limit > 1) else { continue }
            throw try n.required(key).error(share ? "'\(metric)' is a share from 0 to 1; got \(Bounds.number(limit))"
                                                  : "'\(metric)' is never negative; got \(Bounds.number(limit))")
        }
        switch (max, min) {
        case (let limit?, nil): return Budget(name: name, metric: metric, comparison: .atMost, limit: limit)
        case (nil, let limit?): return Budget(name: name, metric: metric, comparison: .atLeast, limit: limit)
        case (_?, _?): throw n.error("give exactly one of 'max' or 'min'; got both")
        case (nil, nil): throw n.error("give exactly one of 'max' or 'min'; got neither")
        }
    }

    /// Where every figure a budget may name is listed, for messages.
    public static let figureList = "docs/summary-json.md#every-figure-declared-once"

    /// "unknown figure 'bareShar'; did you mean 'bareShare'? (…)": the near miss when there is
    /// one (`NearMiss`), else the three nearest, and where the full list is; never all of them.
    public static func unknownFigure(_ metric: String, keys: [String]) -> String {
        let hint = NearMiss.suggestion(for: metric, among: keys).map { "did you mean '\($0)'?" }
            ?? "the nearest are " + NearMiss.alternatives(NearMiss.nearest(3, to: metric, among: keys))
        return "unknown figure \(InputNode.describeKey(metric)); \(hint) (every figure: \(figureList))"
    }

    /// The near-miss rule's edit distance (`NearMiss.distance`).
    public static func editDistanceForHints(_ a: String, _ b: String) -> Int { NearMiss.distance(a, b) }
}

extension ScenarioLoader {
    /// The realistic ranges scenario values are checked against. Wide enough for every design
    /// worth simulating, narrow enough that a typo ("5d" for "5s") is caught and that no value
    /// can overflow the world's integer nanoseconds.
    public enum Limits {
        public static let day: Int64 = 24 * .hour
        /// The measured duration and the warm-up.
        public static let runLength: Int64 = 30 * day
        /// Network and server delays, timers, time-outs, viewing sessions, sleep delays.
        public static let delay: Int64 = day
        public static let players = 20_000_000
        public static let positions = 1000
        /// Link profiles are stored per player in one byte.
        public static let linkProfiles = 64
        /// Every drift draw stays within ±10% (real oscillators: tens of ppm).
        public static let driftPPM = 100_000.0
    }

    /// Refuses a report-folder name that is empty, odd or hidden ("..", ".x").
    static func checkName(_ name: String, at node: InputNode) throws(InputError) {
        guard !name.isEmpty, name.count <= 100, !name.hasPrefix("."),
              name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
        else {
            throw node.error("must be 1 to 100 letters, digits, '-', '_' or '.', not starting with '.' "
                             + "(it names the report folder); got \(InputNode.describeScalar(node.value))")
        }
    }

    /// Refuses a scenario whose run would not fit in memory (see `memoryProblem`).
    static func checkMemory(_ scenario: Scenario, file: String) throws(InputError) {
        if let problem = memoryProblem(scenario) {
            throw InputError(file: file, keyPath: "population.players", message: problem)
        }
    }

    /// Bytes of the published store files a run keeps: one per cron run, two Int64 per position.
    public static func publishedFilesBytes(_ s: Scenario) -> Double {
        let files = Double(s.duration + s.warmup) / Double(max(s.server.cronPeriod, 1)) + 2
        return files * Double(16 * s.positions + 128)
    }

    /// Why a run of `scenario` would not fit in `limit` (by default the lab's fixed ceiling, the
    /// same on every machine; `synclab run` passes `MemoryLimit.current()`), with the estimate,
    /// what it is made of and the limit it hit; nil when it fits. Checked before anything is
    /// allocated.
    public static func memoryProblem(_ s: Scenario, limit: MemoryLimit = .plannable) -> String? {
        let files = publishedFilesBytes(s)
        let total = s.estimatedMemoryBytes + files
        guard !(total <= limit.bytes) else { return nil }   // NaN is refused too
        let players = Double(s.population.players) * Double(Scenario.bytesPerPlayer)
        let rest = max(0, s.estimatedMemoryBytes - players)
        return "this scenario would need about \(gib(total)) (\(s.population.players) players × \(Scenario.bytesPerPlayer) B = \(gib(players)); "
            + "\(Bounds.number(s.expectedTransitions.rounded())) item changes over \(Units.formatDuration(s.duration + s.warmup)) "
            + "on \(s.positions) positions with their show summaries and the rest \(gib(rest)); published files \(gib(files))); "
            + "\(limit.described); use fewer players, a shorter duration or fewer positions"
            + (limit.reserved > 0 ? ", or raise the limit to at least ulimit -v \(Int64(((total + limit.reserved) / 1024).rounded(.up)))" : "")
    }

    /// Bytes for people: "23.4 GiB", "16 GiB", "310 MiB".
    static func gib(_ bytes: Double) -> String {
        let value = bytes / 1_073_741_824
        guard value.isFinite else { return "an unbounded amount" }
        if value < 1 { return "\(Int64((bytes / 1_048_576).rounded())) MiB" }
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int64(tenths / 10)) GiB" : String(format: "%.1f GiB", value)
    }
}

/// ISO 8601 UTC instants ("2012-02-08T18:00:00.371Z") to unix nanoseconds, without Foundation's
/// date formatters (whose behaviour varies by platform and locale).
public enum Epoch {
    public static func parse(_ text: String) -> Int64? {
        let chars = Array(text.utf8)
        func digits(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= chars.count else { return nil }
            var v: Int64 = 0
            for c in chars[from..<from + count] {
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard chars.count >= 20, chars[4] == 45, chars[7] == 45, chars[10] == 84, chars[13] == 58, chars[16] == 58,
              let y = digits(0, 4), let mo = digits(5, 2), let d = digits(8, 2),
              let h = digits(11, 2), let mi = digits(14, 2), let s = digits(17, 2),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 60, y >= 1970, y < 2200
        else { return nil }
        var i = 19
        var fraction: Int64 = 0
        if chars[i] == 46 {
            i += 1
            var scale: Int64 = 100_000_000
            let begin = i
            while i < chars.count, chars[i] >= 48, chars[i] <= 57 {
                guard scale > 0 else { return nil }
                fraction += Int64(chars[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > begin else { return nil }
        }
        guard i == chars.count - 1, chars[i] == 90 else { return nil }
        // No 30 February: the day must exist in its month.
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard d <= monthDays[Int(mo) - 1] else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let yy = mo <= 2 ? y - 1 : y
        let era = yy / 400
        let yoe = yy - era * 400
        let mp = (mo + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return ((days * 24 + h) * 60 + mi) * 60 * 1_000_000_000 + s * 1_000_000_000 + fraction
    }

    /// Unix nanoseconds as "2012-02-08T18:00:00": UTC to the whole second (truncated), no zone
    /// suffix — the form the Ant JUnit schema's `timestamp` takes. Instants before 1970 read as
    /// 1970-01-01T00:00:00 (a scenario's epoch never is one).
    public static func formatSeconds(_ unixNs: Int64) -> String {
        var seconds = max(0, unixNs) / 1_000_000_000
        var days = seconds / 86_400
        seconds %= 86_400
        var year: Int64 = 1970
        func leap(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }
        while days >= (leap(year) ? 366 : 365) {
            days -= leap(year) ? 366 : 365
            year += 1
        }
        let monthDays: [Int64] = [31, leap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var month = 0
        while days >= monthDays[month] {
            days -= monthDays[month]
            month += 1
        }
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(Int64(month + 1)))-\(two(days + 1))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    }
}
