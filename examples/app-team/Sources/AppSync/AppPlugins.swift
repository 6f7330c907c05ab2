import SyncLab

/// The app's plug-ins, registered with SyncLab's built-ins: the one place that knows the
/// library's registration API. Scenarios then name them by kind ("kronos", "slotted").
public enum AppPlugins {
    public static let registry: PluginRegistry = {
        do {
            return try PluginRegistry.builtIn.adding(KronosEstimator.self).adding(SlottedRefetch.self)
        } catch {
            // A kind name that clashes with a built-in one is a mistake in this file.
            fatalError("\(error)")
        }
    }()

    /// A scenario loader that knows the app's kinds.
    public static var loader: ScenarioLoader { ScenarioLoader(plugins: registry) }
}
