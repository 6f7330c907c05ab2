import SyncLabKernel

/// A client-design alternative a scenario can name: it knows its kind and reads its own
/// parameters, so adding one is one new file plus one line in `Plugins.builtIn`.
public protocol ScenarioPlugin {
    /// The name scenarios use in `"kind"` (or as a bare string).
    static var kind: String { get }
    /// Reads the plug-in's parameters from its object (the `kind` key is already read).
    init(from node: InputNode) throws
}

/// The named alternatives a scenario can select, by role. App teams can copy `builtIn`, add
/// their own types, and pass it to `ScenarioLoader`.
// Holds only metatypes, which carry no state: safe to share.
public struct Plugins: @unchecked Sendable {
    public var clocks: [any (DeviceClock & ScenarioPlugin).Type]
    public var estimators: [any (SyncEstimator & ScenarioPlugin).Type]
    public var ticks: [any (TickPolicy & ScenarioPlugin).Type]
    public var refetches: [any (RefetchPolicy & ScenarioPlugin).Type]
    public var retries: [any (RetryPolicy & ScenarioPlugin).Type]
    /// Server designs (`server.design`): the store file (default) or the original plan's database.
    public var serverDesigns: [any ScenarioPlugin.Type] = [StoreFileDesign.self, DatabasePlan.self]

    public static let builtIn = Plugins(
        clocks: [SuspendingDeviceClock.self, ContinuousDeviceClock.self, BootTimeUptimeClock.self, WallClock.self,
                 WallUptimeClock.self],
        estimators: [UploadCompleteEstimator.self, CristianEstimator.self, NTPEstimator.self],
        ticks: [TimerTick.self, AlignedTick.self, DisplayLinkTick.self, ImmediateTick.self],
        refetches: [UniformWindowRefetch.self, AlignedToPublicationRefetch.self],
        retries: [FixedIntervalRetry.self, ExponentialBackoffRetry.self])

    public init(clocks: [any (DeviceClock & ScenarioPlugin).Type], estimators: [any (SyncEstimator & ScenarioPlugin).Type],
                ticks: [any (TickPolicy & ScenarioPlugin).Type], refetches: [any (RefetchPolicy & ScenarioPlugin).Type],
                retries: [any (RetryPolicy & ScenarioPlugin).Type]) {
        self.clocks = clocks
        self.estimators = estimators
        self.ticks = ticks
        self.refetches = refetches
        self.retries = retries
    }
}

extension InputNode {
    /// Reads a plug-in given as `"name"` or `{"kind": "name", …parameters}`.
    func plugin<P>(_ role: String, from types: [any ScenarioPlugin.Type]) throws -> P {
        let kind: String
        var parameters: InputNode? = nil
        if case .object = value {
            kind = try required("kind").string()
            parameters = self
        } else {
            kind = try string()
        }
        guard let type = types.first(where: { $0.kind == kind }) else {
            let names = types.map { "'\($0.kind)'" }.joined(separator: ", ")
            let at = parameters.flatMap { $0.child("kind") } ?? self
            throw at.error("unknown \(role) '\(kind)'; expected one of \(names)")
        }
        let made = try type.init(from: parameters ?? InputNode(.object([]), file: file, path: path))
        try parameters?.rejectUnknownKeys()
        guard let typed = made as? P else { throw error("'\(kind)' is not a \(role)") }
        return typed
    }
}

// MARK: Built-in plug-ins' parameters

extension SuspendingDeviceClock: ScenarioPlugin {
    public static let kind = "suspending"
    public init(from node: InputNode) throws { self.init() }
}
extension ContinuousDeviceClock: ScenarioPlugin {
    public static let kind = "continuous"
    public init(from node: InputNode) throws { self.init() }
}
extension WallClock: ScenarioPlugin {
    public static let kind = "wall"
    public init(from node: InputNode) throws { self.init() }
}
extension BootTimeUptimeClock: ScenarioPlugin {
    public static let kind = "uptime"
    public init(from node: InputNode) throws {
        self.init(resolution: try BootTimeUptimeClock.resolution(from: node))
    }

    /// An uptime clock's `resolution`: 1 s (`time()`) or 1 µs (`gettimeofday`), nothing else.
    static func resolution(from node: InputNode) throws -> Nanoseconds {
        try node.value("resolution", default: Int64.second) { n -> Int64 in
            let r = try n.positiveDuration()
            guard r == .second || r == .microsecond else {
                throw n.error("must be \"1s\" (time()) or \"1us\" (gettimeofday); got \(InputNode.describeScalar(n.value))")
            }
            return r
        }
    }
}
extension UploadCompleteEstimator: ScenarioPlugin {
    public static let kind = "upload-complete"
    public init(from node: InputNode) throws { self.init() }
}
extension TimerTick: ScenarioPlugin {
    public static let kind = "timer"
    public init(from node: InputNode) throws {
        let period = try node.value("period", default: Int64.second) { try $0.duration(in: Int64.millisecond...ScenarioLoader.Limits.delay) }
        let clock: any DeviceClock = try node.value("clock", default: SuspendingDeviceClock()) {
            try $0.plugin("clock", from: Plugins.builtIn.clocks) as any DeviceClock
        }
        self.init(period: period, clock: clock)
    }
}
extension UniformWindowRefetch: ScenarioPlugin {
    public static let kind = "uniform-after-load"
    public init(from node: InputNode) throws {
        let loNode = try node.required("min")
        let lo = try loNode.duration(in: Int64.second...ScenarioLoader.Limits.delay)
        let hiNode = try node.required("max")
        let hi = try hiNode.duration(in: Int64.second...ScenarioLoader.Limits.delay)
        guard lo <= hi else {
            throw hiNode.error("must be at least min (\(InputNode.describeScalar(loNode.value))); got \(InputNode.describeScalar(hiNode.value))")
        }
        self.init(minimum: lo, maximum: hi)
    }
}
extension FixedIntervalRetry: ScenarioPlugin {
    public static let kind = "fixed"
    public init(from node: InputNode) throws {
        self.init(interval: try node.value("interval", default: 5 * Int64.second) {
            try $0.duration(in: 10 * Int64.millisecond...ScenarioLoader.Limits.delay)
        })
    }
}
