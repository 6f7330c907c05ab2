/// The store-file design (v1.1.5, the default): the cron job compiles every position's upcoming
/// items into one file that players fetch whole. Named so a scenario can select it explicitly;
/// its parameters are the `store.file` and `server` keys.
public struct StoreFileDesign: Sendable {
    public init() {}
}

extension StoreFileDesign: Plugin {
    public static let family = PluginFamily.serverDesign
    public static let kind = "store-file"
    public static let schema = SchemaFragment("The store file (v1.1.5, default): one compiled file of every position's upcoming items.")
    public init(_ node: InputNode, in context: PluginContext) throws { self.init() }
    public var summary: String { "store file (v1.1.5)" }
}
