import SyncLabKernel

// The measuring clocks of DeviceClock.swift as scenario plug-ins (`client.clock`, a timer tick's
// `clock`): their kind names, parameters and the words reports use for them.

extension SuspendingDeviceClock: Plugin {
    public static let family = PluginFamily.clock
    public static let kind = "suspending"
    public static let schema = SchemaFragment("mach_absolute_time / CACurrentMediaTime: stops while the device is in deep sleep (default).")
    public init(_ node: InputNode, in context: PluginContext) throws { self.init() }
    public var summary: String { "suspending (mach_absolute_time / CACurrentMediaTime: stops in deep sleep)" }
}

extension ContinuousDeviceClock: Plugin {
    public static let family = PluginFamily.clock
    public static let kind = "continuous"
    public static let schema = SchemaFragment("mach_continuous_time / CLOCK_MONOTONIC_RAW (Darwin), CLOCK_BOOTTIME (Linux): keeps counting through sleep.")
    public init(_ node: InputNode, in context: PluginContext) throws { self.init() }
    public var summary: String { "continuous (mach_continuous_time / CLOCK_BOOTTIME: counts through sleep)" }
}

extension BootTimeUptimeClock: Plugin {
    public static let family = PluginFamily.clock
    public static let kind = "uptime"
    public static let schema = SchemaFragment(
        "The seeds' fix, time(now) − KERN_BOOTTIME: counts through sleep at the wall clock's rate; the OS shifts the boot time when the wall clock is set.",
        properties: ["resolution": resolutionSchema])
    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(resolution: try BootTimeUptimeClock.resolution(from: node))
    }
    public var summary: String {
        resolution == .second ? "uptime = time(now) − KERN_BOOTTIME (1 s resolution, follows the wall clock)"
            : "uptime from gettimeofday − boot time (1 µs resolution, follows the wall clock)"
    }

    static let resolutionSchema: JSONValue = ["enum": ["1s", "1us"], "description": "time() (1s, default) or gettimeofday (1us)."]

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

extension WallClock: Plugin {
    public static let family = PluginFamily.clock
    public static let kind = "wall"
    public static let schema = SchemaFragment("The wall clock (NSDate): players can set it.")
    public init(_ node: InputNode, in context: PluginContext) throws { self.init() }
    public var summary: String { "wall clock (NSDate)" }
}
