import SyncLabKernel

// The seeds' retry (RefetchPolicy.swift) as a scenario plug-in: `{"kind": "fixed", "interval": "5s"}`.

extension FixedIntervalRetry: Plugin {
    public static let family = PluginFamily.retry
    public static let kind = "fixed"
    public static let schema = SchemaFragment(
        "The seeds: the same wait after every failure (default).",
        properties: ["interval": SchemaFragment.ref("positiveDuration", "10ms to 1d (default 5s).")])

    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(interval: try node.value("interval", default: 5 * Int64.second) {
            try $0.duration(in: 10 * Int64.millisecond...ScenarioLoader.Limits.delay)
        })
    }

    public var summary: String { "every \(Units.formatDuration(interval)) until data arrives" }
}
