import SyncLabKernel

/// The opt-in serving keys of `server` (ServingModel.swift, DatabasePlan.swift): read here so the
/// main loader only calls one function.
extension ScenarioLoader {
    func readServing(_ n: InputNode, into server: inout ServerConfig, duration: Nanoseconds, context: PluginContext) throws {
        server.timestampAt = try n.value("timestampAt", default: TimestampInstant.requestStart) { try $0.choice(TimestampInstant.self) }
        server.fleet = try n.setChild("fleet").map { f in
            try f.expectObject()
            let servers = try f.value("servers", default: 1) { try $0.int(min: 1, max: 1000) }
            let fleet = Fleet(
                servers: servers,
                clockOffset: try f.value("clockOffset", default: Distribution.constant(0)) {
                    try $0.signedDistribution(Bounds(most: Double(Limits.delay)))
                },
                balancing: try f.value("balancing", default: Fleet.Balancing.roundRobin) { try $0.choice(Fleet.Balancing.self) },
                clockOffsets: try f.value("clockOffsets", default: []) { try Self.readClockOffsets($0, servers: servers) },
                faults: try f.value("faults", default: []) { try Self.readClockFaults($0, servers: servers, duration: duration, context: context) })
            try f.rejectUnknownKeys()
            return fleet
        }
        // Absent: PHP-FPM's stock pool (ServerConfig.stockWorkers, stockBacklog); "unlimited"
        // keeps v1.1.5's idealised server that answers every request at once.
        if let w = n.setChild("workers") { server.workers = try w.intOrUnlimited(min: 1, max: 1_000_000) }
        if server.workers == nil {
            if let k = n.setChild("queueLimit") {
                throw k.error("applies to a finite pool; with \"workers\": \"unlimited\" no request waits")
            }
            server.queueLimit = nil
        } else if let q = n.setChild("queueLimit") {
            server.queueLimit = try q.intOrUnlimited(min: 0, max: 100_000_000)
        }
        server.outages = try n.value("outages", default: [Outage]()) { list in
            try list.elements().map { o in
                try o.expectObject()
                let atNode = try o.required("at")
                let at = try atNode.duration(in: 0...Limits.runLength)
                guard at < duration else {
                    var problem = atNode.error("must fall inside the run's duration (\(Units.formatDuration(duration))); got \(InputNode.describeScalar(atNode.value))")
                    problem.relatedPath = "duration"
                    throw problem
                }
                let outage = Outage(at: SimTime(ns: at),
                                    duration: try o.required("duration").duration(in: Int64.millisecond...Limits.delay),
                                    mode: try o.required("mode").choice(Outage.Mode.self))
                try o.rejectUnknownKeys()
                return outage
            }
        }
        if let designNode = n.child("design") {
            // The world simulates the database plan; every other design is the store file.
            server.design = try context.read(.serverDesign, from: designNode, as: (any Plugin).self) as? DatabasePlan
            if server.design != nil {
                // These describe the store-file API; the plan's database has its own parameters.
                for key in ["timestampAt", "fleet", "workers", "queueLimit"] {
                    if let k = n.setChild(key) {
                        throw k.error("applies to the store-file design; the database-per-position design takes "
                                      + "'connections', 'queryTime', 'queueLimit' and 'timeout' under 'design'")
                    }
                }
                // The store-file API's pool does not exist in this design.
                server.workers = nil
                server.queueLimit = nil
            }
        }
    }
}

extension ScenarioLoader {
    /// `fleet.clockOffsets`: one entry per server, a signed duration given outright or null for
    /// an offset drawn from `fleet.clockOffset`.
    static func readClockOffsets(_ node: InputNode, servers: Int) throws -> [Nanoseconds?] {
        let list = try node.elements()
        guard list.count == servers else {
            var problem = node.error("must have one entry per server (\(servers), server.fleet.servers), null for a drawn offset; got \(list.count)")
            problem.relatedPath = "server.fleet.servers"
            throw problem
        }
        return try list.map { e -> Nanoseconds? in
            if case .null = e.value { return nil }
            return try e.duration(in: -Limits.delay...Limits.delay)
        }
    }

    /// `fleet.faults`: server clock faults (ServerClockFault.swift), each on a server of the
    /// fleet and starting inside the run.
    static func readClockFaults(_ node: InputNode, servers: Int, duration: Nanoseconds,
                                context: PluginContext) throws -> [any ServerClockFault] {
        try node.elements().map { e in
            let fault = try context.read(.serverClockFault, from: e) as any ServerClockFault
            if fault.server >= servers {
                var problem = (e.child("server") ?? e).error("must name a server of the fleet (0 to \(servers - 1)); got \(fault.server)")
                problem.relatedPath = "server.fleet.servers"
                throw problem
            }
            if fault.start.ns >= duration {
                let key = e.child("at") ?? e.child("from") ?? e
                throw key.error("must fall inside the run's duration (\(Units.formatDuration(duration))); got \(InputNode.describeScalar(key.value))")
            }
            return fault
        }
    }

    /// The original plan keeps a slot per player and position (plus the whole Store), numbered
    /// in the event's client field (`WorldEvent.clientLimit`): refuse a population that would
    /// overflow it. That also bounds the plan's per-position state: each slot keeps 39 bytes
    /// (item, countdown, flags, retry count, request instants, request number), and each player
    /// 4 more, about 40 a slot, so at most 2.5 GiB.
    static func checkPlanSlots(players: Int, positions: Int, at node: InputNode) throws(InputError) {
        let slots = players * (positions + 1)
        guard slots < WorldEvent.clientLimit else {
            throw InputError(file: node.file, keyPath: node.path.isEmpty ? "population.players" : node.path + ".players",
                             message: "the database-per-position design supports players × (positions + 1) below \(WorldEvent.clientLimit); "
                                 + "got \(players) × \(positions + 1) = \(slots)")
        }
    }
}

extension InputNode {
    /// The member `key` unless it is absent or null: null drops a value inherited through
    /// `extends` (JSONValue.merging), and means the same in a file that extends nothing.
    func setChild(_ key: String) -> InputNode? {
        guard let node = child(key), node.value != .null else { return nil }
        return node
    }

    /// A whole number in min...max, or "unlimited" (nil).
    func intOrUnlimited(min: Int, max: Int) throws(InputError) -> Int? {
        if case .string(let text) = value {
            guard text == "unlimited" else {
                throw error("expected a whole number from \(min) to \(max) or \"unlimited\"; got \"\(text)\"")
            }
            return nil
        }
        return try int(min: min, max: max)
    }

    /// One of an enumeration's names, e.g. "request-start".
    func choice<E: RawRepresentable & CaseIterable>(_ type: E.Type) throws(InputError) -> E where E.RawValue == String {
        let text = try string()
        guard let v = E(rawValue: text) else {
            let names = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
            throw error("expected \(names); got \(InputNode.describeScalar(value))")
        }
        return v
    }
}
