import SyncLabKernel

// The seeds' refetch window (RefetchPolicy.swift) as a scenario plug-in:
// `{"kind": "uniform-after-load", "min": "6m", "max": "9m"}`.

extension UniformWindowRefetch: Plugin {
    public static let family = PluginFamily.refetch
    public static let kind = "uniform-after-load"
    public static let schema = SchemaFragment(
        "The seeds: a random time between min and max after each load (default 6m to 9m).",
        properties: ["min": SchemaFragment.ref("positiveDuration", "1s to 1d."),
                     "max": SchemaFragment.ref("positiveDuration", "min to 1d.")],
        required: ["min", "max"])

    public init(_ node: InputNode, in context: PluginContext) throws {
        let loNode = try node.required("min")
        let lo = try loNode.duration(in: Int64.second...ScenarioLoader.Limits.delay)
        let hiNode = try node.required("max")
        let hi = try hiNode.duration(in: Int64.second...ScenarioLoader.Limits.delay)
        guard lo <= hi else {
            throw hiNode.error("must be at least min (\(InputNode.describeScalar(loNode.value))); got \(InputNode.describeScalar(hiNode.value))")
        }
        self.init(minimum: lo, maximum: hi)
    }

    public var summary: String { "uniform \(Units.formatDuration(minimum))–\(Units.formatDuration(maximum)) after each load" }
}
