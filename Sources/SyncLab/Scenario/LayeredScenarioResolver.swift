import Foundation

/// An app's scenario folder layered over another resolver, usually the shipped scenarios: a name
/// is looked for among the app's files first, then below, so an app's `app-design.json` may
/// extend its own `constant-latency.json`, which extends the shipped `r1.json`.
///
///     let resolver = ShippedScenarios.layered(under: appFolder, label: "the app's scenarios")
///     let scenario = try loader.load(path: "app-design.json", resolver: resolver)
///
/// Both layers must name files alike (two `DirectoryScenarioResolver`s do): names and identities
/// are the top layer's. An app's file hides a lower file of the same name, so it cannot extend
/// that file (the loader sees a cycle); give it another name.
public struct LayeredScenarioResolver: ScenarioResolver {
    /// The app's files, looked in first.
    public var top: any ScenarioResolver
    /// What the app's files are laid over.
    public var below: any ScenarioResolver

    public init(_ top: any ScenarioResolver, over below: any ScenarioResolver) {
        self.top = top
        self.below = below
    }

    public func name(of reference: String, from referrer: String?) -> String { top.name(of: reference, from: referrer) }
    public func identity(of name: String) -> String { top.identity(of: name) }

    public func contents(of name: String, maximumBytes: Int) throws(ScenarioFileProblem) -> Data {
        let missingOnTop: String
        do {
            return try top.contents(of: name, maximumBytes: maximumBytes)
        } catch .missing(let lookedFor) {
            missingOnTop = lookedFor
        }
        do {
            return try below.contents(of: name, maximumBytes: maximumBytes)
        } catch .missing(let lookedFor) {
            // Found in neither: say both places.
            throw .missing(lookedFor: "\(missingOnTop), nor \(lookedFor)")
        }
    }
}

extension ShippedScenarios {
    /// The app's scenario folder `root` layered over the shipped scenarios: what an app's tests
    /// load their own scenarios through (`label` names the folder in messages).
    public static func layered(under root: URL, label: String = "the app's scenarios") -> LayeredScenarioResolver {
        LayeredScenarioResolver(DirectoryScenarioResolver(root: root, label: label), over: resolver)
    }
}
