import Foundation
import SyncLabKernel

// The readers of a scenario's sections, one per top-level key, called by `decode` in file order.
// Each reads its keys with their defaults and ranges (`Limits`) and refuses unknown ones.

extension ScenarioLoader {
    /// The top-level scalars: name, description, seed, epoch, duration and warm-up.
    func readHeader(_ root: InputNode, into s: inout Scenario) throws {
        _ = try root.optional("$schema") { try $0.string() }   // lets editors find the JSON Schema
        _ = root.child("extends")                               // resolved (and removed) by load(path:)
        let nameNode = try root.required("name")
        s.name = try nameNode.string()
        try Self.checkName(s.name, at: nameNode)
        s.description = try root.value("description", default: "") { try $0.printableText() }
        s.seed = UInt64(try root.value("seed", default: 1) { try $0.int(min: 0) })
        (s.epochUnix, s.epochText) = try root.value("epoch", default: (Int64(1_328_724_000_371_000_000), "2012-02-08T18:00:00.371Z")) { n in
            let text = try n.string()
            guard let unix = Epoch.parse(text) else {
                throw n.error("expected an ISO 8601 UTC instant from 1970 to 2199 like \"2012-02-08T18:00:00.371Z\"; got \(InputNode.describeScalar(n.value))")
            }
            return (unix, text)
        }
        s.duration = try root.required("duration").duration(in: 1...Limits.runLength)
        s.warmup = try root.value("warmup", default: 30 * Int64.minute) { try $0.duration(in: 0...Limits.runLength) }
    }

    /// `store`: positions, shelf life, the item-time resolution and the served file's format.
    func readStore(_ n: InputNode, into s: inout Scenario) throws {
        s.positions = try n.value("positions", default: 12) { try $0.int(min: 1, max: Limits.positions) }
        s.shelfLife = try n.value("shelfLife", default: Distribution.uniform(min: 45e9, max: 240e9)) {
            try $0.distribution(.duration, .durations(.second, Limits.runLength, finiteMean: true))
        }
        s.scheduleResolution = try n.value("resolution", default: Int64.second) { try $0.duration(in: 1...Int64.hour) }
        s.server = ServerConfig(file: try n.value("file", default: StoreFileFormat(), Self.readFileFormat))
        try n.rejectUnknownKeys()
    }

    /// `store.file`: the sizes and encodings that make a response's bytes.
    static func readFileFormat(_ n: InputNode) throws -> StoreFileFormat {
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

    /// `server`: the cron job, publication, stamps and service time, then the serving keys
    /// (ScenarioLoader+Server.swift). The store's file is already in `s.server`.
    func readServer(_ n: InputNode, into s: inout Scenario, context: PluginContext) throws {
        var server = s.server
        if let cron = n.child("cron") {
            server.cronPeriod = try cron.value("period", default: Int64.minute) { try $0.duration(in: Int64.second...Limits.delay) }
            server.cronJitter = try cron.value("jitter", default: server.cronJitter) { try $0.distribution(.duration, .durations(0, Limits.delay)) }
            server.horizon = try cron.value("horizon", default: 10 * Int64.minute) { try $0.duration(in: Int64.second...Limits.delay) }
            try cron.rejectUnknownKeys()
        }
        if let publish = n.child("publish") {
            server.publishLag = try publish.value("lag", default: server.publishLag) { try $0.duration(in: 0...Limits.delay) }
            server.publishDuration = try publish.value("duration", default: server.publishDuration) {
                try $0.distribution(.duration, .durations(0, Limits.delay))
            }
            try publish.rejectUnknownKeys()
        }
        server.timestampResolution = try n.value("timestampResolution", default: Int64.second) { try $0.duration(in: 1...Limits.delay) }
        server.serviceTime = try n.value("serviceTime", default: server.serviceTime) { try $0.distribution(.duration, .durations(0, Limits.delay)) }
        server.clockOffset = try n.value("clockOffset", default: 0) { try $0.duration(in: -Limits.delay...Limits.delay) }
        server.leapSecond = try n.optional("leapSecond") { try context.read(.leapSecond, from: $0) as any LeapSecondHandling }
        try readServing(n, into: &server, duration: s.duration, context: context)
        try n.rejectUnknownKeys()
        s.server = server
    }

    /// How far the link profiles' shares may sum from 1 (rounding in decimal shares such as
    /// thirds written 0.333333).
    static let shareSumTolerance = 1e-6

    /// `network`: request size and the link profiles, whose shares sum to 1.
    func readNetwork(_ n: InputNode, into s: inout Scenario, context: PluginContext) throws {
        s.requestBytes = try n.value("requestBytes", default: 400) { try $0.int(min: 0, max: 100_000_000) }
        let profilesNode = try n.required("profiles")
        let profileNodes = try profilesNode.elements()
        guard !profileNodes.isEmpty else { throw profilesNode.error("needs at least one link profile; got an empty array") }
        guard profileNodes.count <= Limits.linkProfiles else {
            throw profilesNode.error("has \(profileNodes.count) link profiles; at most \(Limits.linkProfiles) are allowed")
        }
        var links: [LinkProfile] = []
        for p in profileNodes {
            // Every key, or a preset with overrides (LinkPresets.swift).
            links.append(try LinkProfile.read(p, others: links, context: context))
        }
        let shareSum = links.reduce(0) { $0 + $1.share }
        guard abs(shareSum - 1) < Self.shareSumTolerance else {
            // Each share as written (the shortest decimal that reads back as it), and the sum to 9
            // digits: enough to show a miss of 1e-6 (0.5 + 0.500001 is 1.000001, not 1).
            let terms = links.map { "\($0.name) \($0.share.description)" }.joined(separator: " + ")
            throw profilesNode.error("shares must sum to 1 (within \(String(format: "%.6f", Self.shareSumTolerance))); "
                + "they sum to \(String(format: "%.9g", shareSum)) (\(terms))")
        }
        s.links = links
        try LinkProfile.checkTraceCrossings(links, at: profileNodes, requestBytes: s.requestBytes,
                                            storeFileBytes: s.server.file.responseBytes(items: s.positions))
        try n.rejectUnknownKeys()
    }

    /// `devices`: drift, wall-clock offsets, uptime, and the device events it switches on.
    func readDevices(_ d: InputNode, into s: inout Scenario, context: PluginContext) throws {
        var devices = DeviceConfig()
        devices.driftPPM = try d.value("driftPpm", default: devices.driftPPM) {
            try $0.distribution(.number, Bounds(least: -Limits.driftPPM, most: Limits.driftPPM, extreme: Limits.driftPPM, numberUnit: "ppm"))
        }
        devices.wallClockOffset = try d.value("wallClockOffset", default: devices.wallClockOffset) {
            try $0.signedDistribution(Bounds(most: Double(Limits.delay)))
        }
        devices.uptimeAtStart = try d.value("uptimeAtStart", default: devices.uptimeAtStart) {
            try $0.distribution(.duration, .durations(0, 365 * Limits.day))
        }
        devices.events = try DeviceEventsConfig.read(d, in: context)
        try d.rejectUnknownKeys()
        s.devices = devices
    }

    /// `client`: the design's plug-ins, read through the registry, then its options.
    func readClient(_ c: InputNode, into design: inout ClientDesign, context: PluginContext) throws {
        design.clock = try c.value("clock", default: design.clock) { try context.read(.clock, from: $0) }
        design.estimator = try c.value("estimator", default: design.estimator) { try context.read(.estimator, from: $0) }
        design.tick = try c.value("tick", default: design.tick) { try context.read(.tick, from: $0) }
        design.refetch = try c.value("refetch", default: design.refetch) { try context.read(.refetch, from: $0) }
        design.retry = try c.value("retry", default: design.retry) { try context.read(.retry, from: $0) }
        try Self.readClientOptions(c, into: &design)
        try c.rejectUnknownKeys()
    }

    /// `population`: how many players, how they visit and view, and a release spike.
    func readPopulation(_ n: InputNode, into s: inout Scenario) throws {
        var population = PopulationConfig(players: try n.required("players").int(min: 1, max: Limits.players))
        population.visitGap = try n.value("visitGap", default: population.visitGap) { try $0.distribution(.duration, .durations(0, 365 * Limits.day)) }
        population.sessionsPerVisit = try n.value("sessionsPerVisit", default: population.sessionsPerVisit) { n in
            let d = try n.distribution(.number, Bounds(least: 0, most: 1000, numberUnit: "sessions"))
            guard d.mean >= 1 && d.mean <= 1000 else {
                throw n.error("must have a mean between 1 and 1000 sessions; \(d.describe(.number)) has mean \(Bounds.number(d.mean))")
            }
            return d
        }
        population.viewing = try n.value("viewing", default: population.viewing) { try $0.distribution(.duration, .durations(0, Limits.delay)) }
        population.breakDuration = try n.value("break", default: population.breakDuration) {
            try $0.distribution(.duration, .durations(0, 30 * Limits.day))
        }
        population.lockShare = try n.value("lockShare", default: population.lockShare) { try $0.probability() }
        population.sleepDelay = try n.value("sleepDelay", default: population.sleepDelay) {
            try $0.distribution(.duration, .durations(0, Limits.delay))
        }
        population.release = try n.optional("release") { try Self.readRelease($0, duration: s.duration) }
        try n.rejectUnknownKeys()
        s.population = population
    }

    /// `population.release`: a spike of `multiplier` times the usual arrivals at `at`.
    static func readRelease(_ n: InputNode, duration: Nanoseconds) throws -> PopulationConfig.Release {
        let atNode = try n.required("at")
        let at = try atNode.duration(in: 0...Limits.runLength)
        guard at < duration else {
            var problem = atNode.error("must fall inside the run's duration (\(Units.formatDuration(duration))); got \(InputNode.describeScalar(atNode.value))")
            problem.relatedPath = "duration"
            throw problem
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

    /// `metrics`: how often errors are sampled, of how many players, and what reports show.
    func readMetrics(_ m: InputNode, into s: inout Scenario) throws {
        s.sampleEvery = try m.value("sampleEvery", default: 5 * Int64.second) { try $0.duration(in: 100 * Int64.millisecond...Limits.delay) }
        s.reportBounds = try m.value("bounds", default: true) { try $0.bool() }
        s.reportsFetchSyncError = try m.value("fetchSyncError", default: false) { try $0.bool() }
        s.samplePlayers = try m.optional("samplePlayers") { try $0.int(min: 1, max: Limits.players) }
        try m.rejectUnknownKeys()
    }
}
