import Foundation
import SyncLabKernel

/// Reads scenario files: JSON with units, `extends` for variants, every key validated.
///
/// Any problem is an `InputError` naming the file and the key path; nothing is half-loaded.
/// Every value is checked against a realistic range (`Limits`), and a scenario whose run would
/// not fit in memory is refused with the estimate before anything is allocated.
public struct ScenarioLoader {
    public var plugins: Plugins
    public init(plugins: Plugins = .builtIn) { self.plugins = plugins }

    /// Loads `path`, following `extends` chains (paths relative to the extending file).
    ///
    /// An error inside the merged scenario names the file of the chain that wrote the offending
    /// key. `trace`, when given, records every key the loader asked for (see `KeyTrace`).
    public func load(path: String, trace: KeyTrace? = nil) throws(InputError) -> Scenario {
        // Trace paths are relative to the file that names them (LatencyTrace.swift).
        let layers = try resolve(path: path, chain: []).map { (file: $0.file, value: LatencyTrace.anchorPaths($0.value, in: $0.file)) }
        let merged = layers.dropFirst().reduce(layers[0].value) { JSONValue.merging(base: $0, override: $1.value) }
        let root = InputNode(merged, file: path, trace: trace)
        do {
            let scenario = try decode(root)
            try Self.checkMemory(scenario, file: path)
            return scenario
        } catch {
            throw Self.attribute(Self.inputError(error, file: path), to: layers)
        }
    }

    /// Decodes a scenario from text (no `extends`), for tests and embedding.
    public func load(text: String, file: String = "<inline>", trace: KeyTrace? = nil) throws(InputError) -> Scenario {
        let root = InputNode(LatencyTrace.anchorPaths(.object(try Self.parseScenario(text, file: file)), in: file),
                             file: file, trace: trace)
        if root.value["extends"] != nil {
            throw InputError(file: file, keyPath: "extends",
                             message: "only a scenario file can extend another; load it with load(path:)")
        }
        do {
            let scenario = try decode(root)
            try Self.checkMemory(scenario, file: file)
            return scenario
        } catch {
            throw Self.inputError(error, file: file)
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

    /// The files of the `extends` chain of `path`, base first, each without its `extends` key.
    func resolve(path: String, chain: [String]) throws(InputError) -> [(file: String, value: JSONValue)] {
        let canonical = Self.canonical(path)
        var members = try Self.parseScenario(try Self.readText(path), file: path, quoting: chain.isEmpty || path.hasSuffix(".json"))
        guard let index = members.firstIndex(where: { $0.key == "extends" }) else { return [(path, .object(members))] }
        guard case .string(let parent) = members[index].value, !parent.isEmpty else {
            throw InputError(file: path, keyPath: "extends", message: "expected the path of the scenario file this one extends, "
                             + "like \"v115-pausing.json\"; got \(InputNode.describe(members[index].value))")
        }
        members.remove(at: index)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let parentPath = parent.hasPrefix("/") ? parent : directory.appendingPathComponent(parent).path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parentPath, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw InputError(file: path, keyPath: "extends",
                             message: "no such file '\(parent)' (looked for \(URL(fileURLWithPath: parentPath).standardizedFileURL.path))")
        }
        // The file whose `extends` closes a loop is the one named: its own key is the mistake.
        let chain = chain + [canonical]
        if chain.contains(Self.canonical(parentPath)) {
            let cycle = (chain + [Self.canonical(parentPath)]).map { URL(fileURLWithPath: $0).lastPathComponent }
            throw InputError(file: path, keyPath: "extends", message: "extends cycle: \(cycle.joined(separator: " → "))")
        }
        // The file whose `extends` makes the chain too long is the one named, not its parent.
        guard chain.count < Self.maximumExtendsDepth else {
            throw InputError(file: path, keyPath: "extends",
                             message: "this file is number \(chain.count) of its extends chain and extends one more; "
                             + "a chain may have at most \(Self.maximumExtendsDepth) files")
        }
        return try resolve(path: parentPath, chain: chain) + [(path, .object(members))]
    }

    /// An absolute path without `.`, `..` or symbolic links, to recognise a file seen before.
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The text of a scenario file, refusing folders, huge files and non-UTF-8 content.
    static func readText(_ path: String) throws(InputError) -> String {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputError(file: path, keyPath: "", message: "cannot read the file: it does not exist")
        }
        guard !isDirectory.boolValue else {
            throw InputError(file: path, keyPath: "", message: "cannot read the file: it is a folder; expected a scenario .json file")
        }
        let attributes = try? fm.attributesOfItem(atPath: path)
        if let size = (attributes?[.size] as? NSNumber)?.intValue, size > maximumFileBytes {
            throw InputError(file: path, keyPath: "", message: "the file has \(size) bytes; a scenario file may have at most \(maximumFileBytes)")
        }
        guard let data = fm.contents(atPath: path) else {
            throw InputError(file: path, keyPath: "", message: "cannot read the file: permission denied or not a regular file")
        }
        guard data.count <= maximumFileBytes else {
            throw InputError(file: path, keyPath: "", message: "the file has \(data.count) bytes; a scenario file may have at most \(maximumFileBytes)")
        }
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
            return located
        }
        return error
    }

    func decode(_ root: InputNode) throws -> Scenario {
        try root.expectObject()
        _ = try root.optional("$schema") { try $0.string() }   // lets editors find the JSON Schema
        _ = root.child("extends")                               // resolved (and removed) by load(path:)
        let nameNode = try root.required("name")
        let name = try nameNode.string()
        try Self.checkName(name, at: nameNode)
        let description = try root.value("description", default: "") { try $0.string() }
        let seed = try root.value("seed", default: 1) { try $0.int(min: 0) }
        let (epochUnix, epochText) = try root.value("epoch", default: (Int64(1_328_724_000_371_000_000), "2012-02-08T18:00:00.371Z")) { n in
            let text = try n.string()
            guard let unix = Epoch.parse(text) else {
                throw n.error("expected an ISO 8601 UTC instant from 1970 to 2199 like \"2012-02-08T18:00:00.371Z\"; got \(InputNode.describeScalar(n.value))")
            }
            return (unix, text)
        }
        let duration = try root.required("duration").duration(in: 1...Limits.runLength)
        let warmup = try root.value("warmup", default: 30 * Int64.minute) { try $0.duration(in: 0...Limits.runLength) }

        // Store and server.
        let storeNode = try root.required("store")
        let positions = try storeNode.value("positions", default: 12) { try $0.int(min: 1, max: Limits.positions) }
        let shelfLife = try storeNode.value("shelfLife", default: Distribution.uniform(min: 45e9, max: 240e9)) {
            try $0.distribution(.duration, .durations(.second, Limits.runLength, finiteMean: true))
        }
        let resolution = try storeNode.value("resolution", default: Int64.second) { try $0.duration(in: 1...Int64.hour) }
        let file = try storeNode.value("file", default: StoreFileFormat()) { n in
            var f = StoreFileFormat(
                overheadBytes: try n.value("overheadBytes", default: 120) { try $0.int(min: 0, max: 100_000_000) },
                bytesPerItem: try n.value("bytesPerItem", default: 150) { try $0.int(min: 1, max: 1_000_000) },
                encrypted: try n.value("encrypted", default: true) { try $0.bool() },
                base64: try n.value("base64", default: true) { try $0.bool() },
                headerBytes: try n.value("headerBytes", default: 300) { try $0.int(min: 0, max: 1_000_000) })
            f.fixedBytes = try n.optional("fixedBytes") { try $0.int(min: 0, max: 100_000_000) }
            try n.rejectUnknownKeys()
            return f
        }
        try storeNode.rejectUnknownKeys()

        let serverNode = try root.required("server")
        var server = ServerConfig(file: file)
        if let cron = serverNode.child("cron") {
            server.cronPeriod = try cron.value("period", default: Int64.minute) { try $0.duration(in: Int64.second...Limits.delay) }
            server.cronJitter = try cron.value("jitter", default: server.cronJitter) { try $0.distribution(.duration, .durations(0, Limits.delay)) }
            server.horizon = try cron.value("horizon", default: 10 * Int64.minute) { try $0.duration(in: Int64.second...Limits.delay) }
            try cron.rejectUnknownKeys()
        }
        if let publish = serverNode.child("publish") {
            server.publishLag = try publish.value("lag", default: server.publishLag) { try $0.duration(in: 0...Limits.delay) }
            server.publishDuration = try publish.value("duration", default: server.publishDuration) {
                try $0.distribution(.duration, .durations(0, Limits.delay))
            }
            try publish.rejectUnknownKeys()
        }
        server.timestampResolution = try serverNode.value("timestampResolution", default: Int64.second) { try $0.duration(in: 1...Limits.delay) }
        server.serviceTime = try serverNode.value("serviceTime", default: server.serviceTime) {
            try $0.distribution(.duration, .durations(0, Limits.delay))
        }
        server.clockOffset = try serverNode.value("clockOffset", default: 0) { try $0.duration(in: -Limits.delay...Limits.delay) }
        try readServing(serverNode, into: &server, duration: duration)
        try serverNode.rejectUnknownKeys()

        // Network.
        let networkNode = try root.required("network")
        let requestBytes = try networkNode.value("requestBytes", default: 400) { try $0.int(min: 0, max: 100_000_000) }
        let profilesNode = try networkNode.required("profiles")
        let profileNodes = try profilesNode.elements()
        guard !profileNodes.isEmpty else { throw profilesNode.error("needs at least one link profile; got an empty array") }
        guard profileNodes.count <= Limits.linkProfiles else {
            throw profilesNode.error("has \(profileNodes.count) link profiles; at most \(Limits.linkProfiles) are allowed")
        }
        var links: [LinkProfile] = []
        for p in profileNodes {
            // Every key, or a preset with overrides (LinkPresets.swift).
            let link = try LinkProfile.read(p, others: links)
            links.append(link)
        }
        let shareSum = links.reduce(0) { $0 + $1.share }
        guard abs(shareSum - 1) < 1e-6 else {
            let terms = links.map { "\($0.name) \(Bounds.number($0.share))" }.joined(separator: " + ")
            throw profilesNode.error("shares must sum to 1; they sum to \(String(format: "%.6g", shareSum)) (\(terms))")
        }
        try networkNode.rejectUnknownKeys()

        // Devices.
        var devices = DeviceConfig()
        if let d = root.child("devices") {
            devices.driftPPM = try d.value("driftPpm", default: devices.driftPPM) {
                try $0.distribution(.number, Bounds(least: -Limits.driftPPM, most: Limits.driftPPM, extreme: Limits.driftPPM, numberUnit: "ppm"))
            }
            devices.wallClockOffset = try d.value("wallClockOffset", default: devices.wallClockOffset) {
                try $0.signedDistribution(Bounds(most: Double(Limits.delay)))
            }
            devices.uptimeAtStart = try d.value("uptimeAtStart", default: devices.uptimeAtStart) {
                try $0.distribution(.duration, .durations(0, 365 * Limits.day))
            }
            devices.events = try DeviceEventsConfig.read(d, duration: duration)
            try d.rejectUnknownKeys()
        }

        // Client design.
        var design = ClientDesign()
        if let c = root.child("client") {
            design.clock = try c.value("clock", default: design.clock) { try $0.plugin("clock", from: plugins.clocks) }
            design.estimator = try c.value("estimator", default: design.estimator) { try $0.plugin("estimator", from: plugins.estimators) }
            design.tick = try c.value("tick", default: design.tick) { try $0.plugin("tick policy", from: plugins.ticks) }
            design.refetch = try c.value("refetch", default: design.refetch) { try $0.plugin("refetch policy", from: plugins.refetches) }
            design.retry = try c.value("retry", default: design.retry) { try $0.plugin("retry policy", from: plugins.retries) }
            try Self.readClientOptions(c, into: &design)
            try c.rejectUnknownKeys()
        }

        // Population.
        let popNode = try root.required("population")
        var population = PopulationConfig(players: try popNode.required("players").int(min: 1, max: Limits.players))
        population.visitGap = try popNode.value("visitGap", default: population.visitGap) {
            try $0.distribution(.duration, .durations(0, 365 * Limits.day))
        }
        population.sessionsPerVisit = try popNode.value("sessionsPerVisit", default: population.sessionsPerVisit) { n in
            let d = try n.distribution(.number, Bounds(least: 0, most: 1000, numberUnit: "sessions"))
            guard d.mean >= 1 && d.mean <= 1000 else {
                throw n.error("must have a mean between 1 and 1000 sessions; \(d.describe(.number)) has mean \(Bounds.number(d.mean))")
            }
            return d
        }
        population.viewing = try popNode.value("viewing", default: population.viewing) {
            try $0.distribution(.duration, .durations(0, Limits.delay))
        }
        population.breakDuration = try popNode.value("break", default: population.breakDuration) {
            try $0.distribution(.duration, .durations(0, 30 * Limits.day))
        }
        population.lockShare = try popNode.value("lockShare", default: population.lockShare) { try $0.probability() }
        population.sleepDelay = try popNode.value("sleepDelay", default: population.sleepDelay) {
            try $0.distribution(.duration, .durations(0, Limits.delay))
        }
        population.release = try popNode.optional("release") { n in
            let atNode = try n.required("at")
            let at = try atNode.duration(in: 0...Limits.runLength)
            guard at < duration else {
                throw atNode.error("must fall inside the run's duration (\(Units.formatDuration(duration))); got \(InputNode.describeScalar(atNode.value))")
            }
            let multiplierNode = try n.required("multiplier")
            let multiplier = try multiplierNode.double()
            guard multiplier >= 1 && multiplier <= 10_000 else {
                throw multiplierNode.error("must be between 1 and 10000; got \(InputNode.describeScalar(multiplierNode.value))")
            }
            let window = try n.value("window", default: Int64.minute) { try $0.duration(in: Int64.millisecond...Limits.delay) }
            try n.rejectUnknownKeys()
            return PopulationConfig.Release(at: SimTime(ns: at), multiplier: multiplier, window: window)
        }
        try popNode.rejectUnknownKeys()

        var sampleEvery = 5 * Int64.second
        var reportBounds = true
        var fetchSyncError = false
        var samplePlayers: Int? = nil
        if let m = root.child("metrics") {
            sampleEvery = try m.value("sampleEvery", default: sampleEvery) { try $0.duration(in: 100 * Int64.millisecond...Limits.delay) }
            reportBounds = try m.value("bounds", default: true) { try $0.bool() }
            fetchSyncError = try m.value("fetchSyncError", default: false) { try $0.bool() }
            samplePlayers = try m.optional("samplePlayers") { try $0.int(min: 1, max: Limits.players) }
            try m.rejectUnknownKeys()
        }

        // Price models (CostModel.swift), read before budgets: `costPerMonth.<name>` is a figure.
        let costModels = try root.value("costs", default: [CostModel]()) { try CostModel.list(from: $0) }

        let budgets = try root.value("budgets", default: [Budget]()) { n in
            try n.elements().map { try Self.budget($0, keys: RunResult.figureKeys(for: partial(links, costModels, devices)) + RunResult.seedFigureKeys) }
        }
        try root.rejectUnknownKeys()

        if server.design != nil { try Self.checkPlanSlots(players: population.players, positions: positions, at: popNode) }
        var scenario = Scenario(name: name, description: description, seed: UInt64(seed), epochUnix: epochUnix,
                        epochText: epochText, duration: duration, warmup: warmup, positions: positions,
                        shelfLife: shelfLife, scheduleResolution: resolution, server: server, links: links,
                        requestBytes: requestBytes, devices: devices, client: design, population: population,
                        sampleEvery: sampleEvery, budgets: budgets, costModels: costModels)
        scenario.reportBounds = reportBounds
        scenario.reportsFetchSyncError = fetchSyncError
        scenario.samplePlayers = samplePlayers
        return scenario
    }

    /// A scenario with just the links and cost models set, to list the figure keys budgets may name.
    func partial(_ links: [LinkProfile], _ costModels: [CostModel] = [], _ devices: DeviceConfig = DeviceConfig()) -> Scenario {
        Scenario(name: "keys", links: links, devices: devices, population: PopulationConfig(players: 1), costModels: costModels)
    }

    static func budget(_ n: InputNode, keys: [String]) throws -> Budget {
        let name = try n.required("name").string()
        let metricNode = try n.required("metric")
        let metric = try metricNode.string()
        guard keys.contains(metric) else {
            let near = keys.min { editDistance($0, metric) < editDistance($1, metric) }
            let hint = near.map { editDistance($0, metric) <= 3 ? "; did you mean '\($0)'?" : "" } ?? ""
            throw metricNode.error("unknown figure '\(metric)'\(hint) (known: \(keys.joined(separator: ", ")))")
        }
        let max = try n.optional("max") { try $0.double() }
        let min = try n.optional("min") { try $0.double() }
        try n.rejectUnknownKeys()
        // A limit outside what the figure can be makes a budget that always or never passes: a typo.
        let possible = RunResult.possibleValues(of: metric)
        for (key, limit) in [("max", max), ("min", min)] {
            guard let limit, !possible.contains(limit) else { continue }
            throw try n.required(key).error(possible.upperBound == 1 ? "'\(metric)' is a share from 0 to 1; got \(Bounds.number(limit))"
                                                                       : "'\(metric)' is never negative; got \(Bounds.number(limit))")
        }
        switch (max, min) {
        case (let limit?, nil): return Budget(name: name, metric: metric, comparison: .atMost, limit: limit)
        case (nil, let limit?): return Budget(name: name, metric: metric, comparison: .atLeast, limit: limit)
        case (_?, _?): throw n.error("give exactly one of 'max' or 'min'; got both")
        case (nil, nil): throw n.error("give exactly one of 'max' or 'min'; got neither")
        }
    }

    public static func editDistanceForHints(_ a: String, _ b: String) -> Int { editDistance(a, b) }

    static func editDistance(_ a: String, _ b: String) -> Int { InputNode.levenshtein(a, b) }
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
            + "the limit is \(gib(limit.bytes)), \(limit.source); use fewer players, a shorter duration or fewer positions"
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
