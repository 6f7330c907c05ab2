// The seeds' estimator (SyncEstimator.swift) as a scenario plug-in: `"estimator": "upload-complete"`.

extension UploadCompleteEstimator: Plugin {
    public static let family = PluginFamily.estimator
    public static let kind = "upload-complete"
    public static let schema = SchemaFragment("The seeds (v1.1.5): timestamp + (download complete − upload complete) (default).")
    public init(_ node: InputNode, in context: PluginContext) throws { self.init() }
    public var summary: String { "timestamp + (download complete − upload complete), as v1.1.5 shipped" }
}
