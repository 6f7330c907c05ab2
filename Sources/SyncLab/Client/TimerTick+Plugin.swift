import SyncLabKernel

// The seeds' repeating timer (TickPolicy.swift) as a scenario plug-in: `"tick": "timer"` or
// `{"kind": "timer", "period": "1s", "clock": "suspending"}`.

extension TimerTick: Plugin {
    public static let family = PluginFamily.tick
    public static let kind = "timer"
    public static let schema = SchemaFragment(
        "A repeating timer (NSTimer), its phase set when the Store comes on screen (default).",
        properties: ["period": SchemaFragment.ref("positiveDuration", "1ms to 1d (default 1s)."),
                     "clock": SchemaFragment.ref(.clock)])

    public init(_ node: InputNode, in context: PluginContext) throws {
        let period = try node.value("period", default: Int64.second) { try $0.duration(in: Int64.millisecond...ScenarioLoader.Limits.delay) }
        // The timer's own clock comes from the registry the scenario is loaded with.
        let clock: any DeviceClock = try node.value("clock", default: SuspendingDeviceClock()) {
            try context.read(.clock, from: $0, as: (any DeviceClock).self)
        }
        self.init(period: period, clock: clock)
    }

    public var summary: String {
        "timer every \(Units.formatDuration(period)) on the \(clock.name) clock, phase set when the Store comes on screen"
    }
}
