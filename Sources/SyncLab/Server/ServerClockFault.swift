import SyncLabKernel

/// A fault in one fleet server's clock, in time: `server.fleet.faults`
/// (`[{"kind": "step", "server": 0, "at": "30m", "by": "2s"}]`), none by default.
///
/// A real server's clock goes wrong in a few shapes, as TigerBeetle's simulator models them:
/// an operator or a bad time source steps it (a `step` by an amount at an instant), or it loses
/// its time source and free-runs at its oscillator's error (a `drift` at a rate from an
/// instant). Each kind is a plug-in, so more shapes can follow. A fault adds `shift(at:)` to its
/// server's clock offset (`Fleet.clockOffsets`) at true time t; faults on the same server add up.
/// Every stamp a fleet server takes reads its offset at the stamping instant
/// (`ServingState.offset(_:at:)`), so a fault is seen by exactly the requests stamped after it.
public protocol ServerClockFault: Plugin {
    /// The fleet index of the server whose clock it shifts (0 ..< servers).
    var server: Int { get }
    /// True time the fault begins (ns since the epoch).
    var start: SimTime { get }
    /// What the fault adds to the server's clock offset at true time t, ns (0 before `start`).
    func shift(at t: SimTime) -> Nanoseconds
}

extension ServerClockFault {
    /// Reads `server` (a fleet index; the fleet's own size is checked by the fleet's reader).
    static func readServer(_ node: InputNode) throws -> Int {
        try node.required("server").int(min: 0, max: 999)
    }
}

/// `step`: the server's clock jumps by `by` at true time `at` and stays there.
public struct ServerClockStep: ServerClockFault {
    public var server: Int
    public var at: SimTime
    public var by: Nanoseconds

    public init(server: Int, at: SimTime, by: Nanoseconds) {
        self.server = server
        self.at = at
        self.by = by
    }

    public var start: SimTime { at }
    @inlinable public func shift(at t: SimTime) -> Nanoseconds { t >= at ? by : 0 }

    public static let family = PluginFamily.serverClockFault
    public static let kind = "step"
    public static let schema = SchemaFragment(
        "The server's clock jumps by an amount at an instant and stays there.",
        properties: [
            "server": ["type": "integer", "minimum": 0, "maximum": 999, "description": "The fleet index of the server (0 is the first)."],
            "at": SchemaFragment.ref("duration", "True time since the epoch the step happens: 0 to 30d.", examples: ["30m"]),
            "by": SchemaFragment.ref("signedDuration", "How far the clock jumps: -1d to 1d, not 0.", examples: ["2s"]),
        ], required: ["server", "at", "by"])
    public init(_ node: InputNode, in context: PluginContext) throws {
        let server = try Self.readServer(node)
        let at = SimTime(ns: try node.required("at").duration(in: 0...ScenarioLoader.Limits.runLength))
        let byNode = try node.required("by")
        let by = try byNode.duration(in: -ScenarioLoader.Limits.delay...ScenarioLoader.Limits.delay)
        guard by != 0 else { throw byNode.error("must not be 0: a step of nothing is no fault") }
        self.init(server: server, at: at, by: by)
    }
    public var summary: String {
        "server \(server)'s clock steps by \(Units.formatDuration(by)) at \(Units.formatDuration(at.ns))"
    }
}

/// `drift`: from true time `from` the server's clock runs fast (or slow) by `ratePpm` parts per
/// million, so its offset grows by ⌊(t − from) · rate⌋ (exact integer ns, `Drift.scaled`).
public struct ServerClockDrift: ServerClockFault {
    public var server: Int
    public var from: SimTime
    /// Parts per billion the clock gains (negative: loses).
    public var ratePPB: Int64

    public init(server: Int, from: SimTime, ratePPB: Int64) {
        self.server = server
        self.from = from
        self.ratePPB = ratePPB
    }

    public var start: SimTime { from }
    @inlinable public func shift(at t: SimTime) -> Nanoseconds { t > from ? Drift.scaled(t - from, ppb: ratePPB) : 0 }

    public static let family = PluginFamily.serverClockFault
    public static let kind = "drift"
    public static let schema = SchemaFragment(
        "From an instant, the server's clock gains (or loses) at a rate.",
        properties: [
            "server": ["type": "integer", "minimum": 0, "maximum": 999, "description": "The fleet index of the server (0 is the first)."],
            "from": SchemaFragment.ref("duration", "True time since the epoch the drift begins: 0 to 30d.", examples: ["30m"]),
            "ratePpm": ["type": "number", "minimum": -100000, "maximum": 100000,
                        "description": "Parts per million the clock gains (negative: loses); not 0."],
        ], required: ["server", "from", "ratePpm"])
    public init(_ node: InputNode, in context: PluginContext) throws {
        let server = try Self.readServer(node)
        let from = SimTime(ns: try node.required("from").duration(in: 0...ScenarioLoader.Limits.runLength))
        let rateNode = try node.required("ratePpm")
        let ppm = try rateNode.double()
        guard ppm.isFinite, Swift.abs(ppm) <= ScenarioLoader.Limits.driftPPM else {
            throw rateNode.error("must be between -\(Int(ScenarioLoader.Limits.driftPPM)) and \(Int(ScenarioLoader.Limits.driftPPM)) ppm; got \(InputNode.describeScalar(rateNode.value))")
        }
        let ppb = Int64((ppm * 1_000).rounded())
        guard ppb != 0 else { throw rateNode.error("must not be 0 (at least 0.001 ppm): a drift of nothing is no fault") }
        self.init(server: server, from: from, ratePPB: ppb)
    }
    public var summary: String {
        "server \(server)'s clock drifts \(Format.ppm(ratePPB)) from \(Units.formatDuration(from.ns))"
    }
}

private enum Format {
    static func ppm(_ ppb: Int64) -> String {
        let whole = ppb % 1_000 == 0
        return (whole ? "\(ppb / 1_000)" : "\(Double(ppb) / 1_000)") + " ppm"
    }
}
