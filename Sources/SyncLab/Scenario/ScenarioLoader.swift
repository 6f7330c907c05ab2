import Foundation
import SyncLabKernel

/// Reads scenario files: JSON with units, `extends` for variants, every key validated.
///
/// Any problem is an `InputError` naming the file and the key path; nothing is half-loaded.
public struct ScenarioLoader {
    public var plugins: Plugins
    public init(plugins: Plugins = .builtIn) { self.plugins = plugins }

    /// Loads `path`, following `extends` chains (paths relative to the extending file).
    public func load(path: String) throws(InputError) -> Scenario {
        let merged = try resolve(path: path, chain: [])
        do {
            return try decode(InputNode(merged, file: path))
        } catch let error as InputError {
            throw error
        } catch {
            throw InputError(file: path, keyPath: "", message: "\(error)")
        }
    }

    /// Decodes a scenario from text (no `extends`), for tests and embedding.
    public func load(text: String, file: String = "<inline>") throws(InputError) -> Scenario {
        let root = try InputNode.parse(text, file: file)
        do {
            return try decode(root)
        } catch let error as InputError {
            throw error
        } catch {
            throw InputError(file: file, keyPath: "", message: "\(error)")
        }
    }

    /// The file's JSON with its `extends` chain merged in (the `extends` key removed).
    func resolve(path: String, chain: [String]) throws(InputError) -> JSONValue {
        let canonical = URL(fileURLWithPath: path).standardizedFileURL.path
        if chain.contains(canonical) {
            let cycle = (chain + [canonical]).map { URL(fileURLWithPath: $0).lastPathComponent }
            throw InputError(file: path, keyPath: "extends",
                             message: "extends cycle: \(cycle.joined(separator: " → "))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, keyPath: "", message: "cannot read the file (missing or not readable)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(file: path, keyPath: "", message: "the file is not UTF-8 text")
        }
        let root = try InputNode.parse(text, file: path)
        guard case .object(var members) = root.value else {
            throw root.error("expected a scenario object at the top level; got \(root.value.typeName)")
        }
        guard let index = members.firstIndex(where: { $0.key == "extends" }) else { return root.value }
        guard case .string(let parent) = members[index].value else {
            throw InputError(file: path, keyPath: "extends", message: "expected a file path string")
        }
        members.remove(at: index)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let parentPath = parent.hasPrefix("/") ? parent : directory.appendingPathComponent(parent).path
        guard FileManager.default.fileExists(atPath: parentPath) else {
            throw InputError(file: path, keyPath: "extends", message: "no such file '\(parent)'")
        }
        let base = try resolve(path: parentPath, chain: chain + [canonical])
        return JSONValue.merging(base: base, override: .object(members))
    }

    func decode(_ root: InputNode) throws -> Scenario {
        try root.expectObject()
        let name = try root.required("name").string()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            throw try root.required("name").error("must be a non-empty name of letters, digits, '-', '_' or '.' (it names the report folder)")
        }
        let description = try root.value("description", default: "") { try $0.string() }
        let seed = try root.value("seed", default: 1) { try $0.int(min: 0) }
        let (epochUnix, epochText) = try root.value("epoch", default: (Int64(1_328_724_000_371_000_000), "2012-02-08T18:00:00.371Z")) { n in
            let text = try n.string()
            guard let unix = Epoch.parse(text) else {
                throw n.error("expected an ISO 8601 UTC instant like \"2012-02-08T18:00:00.371Z\"; got \"\(text)\"")
            }
            return (unix, text)
        }
        let duration = try root.required("duration").positiveDuration()
        guard duration <= 30 * 24 * .hour else { throw try root.required("duration").error("must be at most 30 days") }
        let warmup = try root.value("warmup", default: 30 * Int64.minute) { try $0.nonNegativeDuration() }

        // Store and server.
        let storeNode = try root.required("store")
        let positions = try storeNode.value("positions", default: 12) { try $0.int(min: 1, max: 1000) }
        let shelfLife = try storeNode.value("shelfLife", default: Distribution.uniform(min: 45e9, max: 240e9)) {
            try $0.distribution(.duration)
        }
        let resolution = try storeNode.value("resolution", default: Int64.second) { try $0.positiveDuration() }
        let file = try storeNode.value("file", default: StoreFileFormat()) { n in
            let f = StoreFileFormat(
                overheadBytes: try n.value("overheadBytes", default: 120) { try $0.int(min: 0, max: 100_000_000) },
                bytesPerItem: try n.value("bytesPerItem", default: 150) { try $0.int(min: 1, max: 1_000_000) },
                encrypted: try n.value("encrypted", default: true) { try $0.bool() },
                base64: try n.value("base64", default: true) { try $0.bool() },
                headerBytes: try n.value("headerBytes", default: 300) { try $0.int(min: 0, max: 1_000_000) })
            try n.rejectUnknownKeys()
            return f
        }
        try storeNode.rejectUnknownKeys()

        let serverNode = try root.required("server")
        var server = ServerConfig(file: file)
        if let cron = serverNode.child("cron") {
            server.cronPeriod = try cron.value("period", default: Int64.minute) { try $0.positiveDuration() }
            server.cronJitter = try cron.value("jitter", default: server.cronJitter) { try $0.distribution(.duration) }
            server.horizon = try cron.value("horizon", default: 10 * Int64.minute) { try $0.positiveDuration() }
            try cron.rejectUnknownKeys()
        }
        if let publish = serverNode.child("publish") {
            server.publishLag = try publish.value("lag", default: server.publishLag) { try $0.nonNegativeDuration() }
            server.publishDuration = try publish.value("duration", default: server.publishDuration) { try $0.distribution(.duration) }
            try publish.rejectUnknownKeys()
        }
        server.timestampResolution = try serverNode.value("timestampResolution", default: Int64.second) { try $0.positiveDuration() }
        server.serviceTime = try serverNode.value("serviceTime", default: server.serviceTime) { try $0.distribution(.duration) }
        server.clockOffset = try serverNode.value("clockOffset", default: 0) { try $0.duration() }
        try serverNode.rejectUnknownKeys()

        // Network.
        let networkNode = try root.required("network")
        let requestBytes = try networkNode.value("requestBytes", default: 400) { try $0.int(min: 1, max: 100_000_000) }
        let profilesNode = try networkNode.required("profiles")
        let profileNodes = try profilesNode.elements()
        guard !profileNodes.isEmpty else { throw profilesNode.error("needs at least one link profile") }
        var links: [LinkProfile] = []
        for p in profileNodes {
            let shareNode = try p.required("share")
            let share = try shareNode.probability()
            let link = LinkProfile(
                name: try p.required("name").string(), share: share,
                uplink: try p.required("uplink").distribution(.duration),
                downlink: try p.required("downlink").distribution(.duration),
                bandwidth: try p.required("bandwidth").distribution(.rate),
                failure: try p.value("failure", default: 0) { try $0.probability() },
                timeout: try p.value("timeout", default: 30 * Int64.second) { try $0.positiveDuration() })
            try p.rejectUnknownKeys()
            if links.contains(where: { $0.name == link.name }) {
                throw try p.required("name").error("duplicate link profile name '\(link.name)'")
            }
            links.append(link)
        }
        let shareSum = links.reduce(0) { $0 + $1.share }
        guard abs(shareSum - 1) < 1e-6 else {
            throw profilesNode.error("shares must sum to 1; they sum to \(shareSum)")
        }
        try networkNode.rejectUnknownKeys()

        // Devices.
        var devices = DeviceConfig()
        if let d = root.child("devices") {
            devices.driftPPM = try d.value("driftPpm", default: devices.driftPPM) { try $0.distribution(.number) }
            devices.wallClockOffset = try d.value("wallClockOffset", default: devices.wallClockOffset) {
                try $0.signedDistribution()
            }
            devices.uptimeAtStart = try d.value("uptimeAtStart", default: devices.uptimeAtStart) { try $0.distribution(.duration) }
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
            try c.rejectUnknownKeys()
        }

        // Population.
        let popNode = try root.required("population")
        var population = PopulationConfig(players: try popNode.required("players").int(min: 1, max: 20_000_000))
        population.visitGap = try popNode.value("visitGap", default: population.visitGap) { try $0.distribution(.duration) }
        population.sessionsPerVisit = try popNode.value("sessionsPerVisit", default: population.sessionsPerVisit) { n in
            let d = try n.distribution(.number)
            guard d.mean >= 1 && d.mean <= 1000 else { throw n.error("must have a mean between 1 and 1000 sessions") }
            return d
        }
        population.viewing = try popNode.value("viewing", default: population.viewing) { try $0.distribution(.duration) }
        population.breakDuration = try popNode.value("break", default: population.breakDuration) { try $0.distribution(.duration) }
        population.lockShare = try popNode.value("lockShare", default: population.lockShare) { try $0.probability() }
        population.sleepDelay = try popNode.value("sleepDelay", default: population.sleepDelay) { try $0.distribution(.duration) }
        population.release = try popNode.optional("release") { n in
            let at = try n.required("at").nonNegativeDuration()
            guard at < duration else { throw try n.required("at").error("must fall inside the run's duration") }
            let multiplierNode = try n.required("multiplier")
            let multiplier = try multiplierNode.double()
            guard multiplier >= 1 && multiplier <= 10_000 else { throw multiplierNode.error("must be between 1 and 10000") }
            let window = try n.value("window", default: Int64.minute) { try $0.positiveDuration() }
            try n.rejectUnknownKeys()
            return PopulationConfig.Release(at: SimTime(ns: at), multiplier: multiplier, window: window)
        }
        try popNode.rejectUnknownKeys()

        var sampleEvery = 5 * Int64.second
        if let m = root.child("metrics") {
            sampleEvery = try m.value("sampleEvery", default: sampleEvery) { n in
                let v = try n.positiveDuration()
                guard v >= 100 * .millisecond else { throw n.error("must be at least 100ms") }
                return v
            }
            try m.rejectUnknownKeys()
        }

        let budgets = try root.value("budgets", default: [Budget]()) { n in
            try n.elements().map { try Self.budget($0, keys: RunResult.figureKeys(for: partial(links))) }
        }
        try root.rejectUnknownKeys()

        return Scenario(name: name, description: description, seed: UInt64(seed), epochUnix: epochUnix,
                        epochText: epochText, duration: duration, warmup: warmup, positions: positions,
                        shelfLife: shelfLife, scheduleResolution: resolution, server: server, links: links,
                        requestBytes: requestBytes, devices: devices, client: design, population: population,
                        sampleEvery: sampleEvery, budgets: budgets)
    }

    /// A scenario with just the links set, to list the figure keys budgets may name.
    func partial(_ links: [LinkProfile]) -> Scenario {
        Scenario(name: "keys", links: links, population: PopulationConfig(players: 1))
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
        switch (max, min) {
        case (let limit?, nil): return Budget(name: name, metric: metric, comparison: .atMost, limit: limit)
        case (nil, let limit?): return Budget(name: name, metric: metric, comparison: .atLeast, limit: limit)
        default: throw n.error("give exactly one of 'max' or 'min'")
        }
    }

    public static func editDistanceForHints(_ a: String, _ b: String) -> Int { editDistance(a, b) }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where i <= a.count {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where j <= b.count {
                let current = row[j]
                row[j] = Swift.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

extension InputNode {
    /// A distribution of durations that may be negative (clock offsets), e.g. normal {mean, sd}.
    func signedDistribution() throws -> Distribution {
        guard case .object = value else { return .constant(Double(try duration())) }
        let kind = try required("kind").string()
        switch kind {
        case "normal":
            let mean = Double(try required("mean").duration())
            let sd = Double(try required("sd").nonNegativeDuration())
            try rejectUnknownKeys()
            return .normal(mean: mean, sd: sd)
        case "uniform":
            let lo = Double(try required("min").duration())
            let hiNode = try required("max")
            let hi = Double(try hiNode.duration())
            guard lo <= hi else { throw hiNode.error("must be at least min") }
            try rejectUnknownKeys()
            return .uniform(min: lo, max: hi)
        case "constant":
            let v = Double(try required("value").duration())
            try rejectUnknownKeys()
            return .constant(v)
        default:
            throw try required("kind").error("unknown distribution '\(kind)' for an offset; expected constant, uniform or normal")
        }
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
}
