/// The plug-in kinds a scenario can name, by family: the one place a kind gets in.
///
/// The loader reads plug-ins through it, the JSON Schema is generated from it
/// (`ScenarioSchema.text(for:)`), and reports describe plug-ins by their own `summary`. App
/// teams extend the built-ins and load with the result:
///
///     let registry = try PluginRegistry.builtIn.adding(KronosEstimator.self)
///     let scenario = try ScenarioLoader(plugins: registry).load(path: "r1.json")
public struct PluginRegistry: Sendable {
    /// Every registered kind, in registration order (the order messages and the schema list them).
    public private(set) var kinds: [any Plugin.Type] = []

    /// An empty registry.
    public init() {}

    /// A registry of `types`, refusing a duplicate (family, kind) or a type that does not play
    /// its family's role.
    public init(_ types: [any Plugin.Type]) throws(PluginRegistryError) {
        for type in types { try register(type) }
    }

    /// Every kind this package ships. A new built-in is one line here.
    public static let builtIn: PluginRegistry = {
        do {
            return try PluginRegistry([
                // Clocks (Device/)
                SuspendingDeviceClock.self, ContinuousDeviceClock.self, BootTimeUptimeClock.self, WallClock.self,
                WallUptimeClock.self,
                // Estimators, tick, refetch and retry policies (Client/)
                UploadCompleteEstimator.self, CristianEstimator.self, NTPEstimator.self, MedianEstimator.self, MarzulloEstimator.self,
                TimerTick.self, AlignedTick.self, DisplayLinkTick.self, ImmediateTick.self,
                UniformWindowRefetch.self, AlignedToPublicationRefetch.self,
                FixedIntervalRetry.self, ExponentialBackoffRetry.self,
                // Server designs (Server/)
                StoreFileDesign.self, DatabasePlan.self,
                // Price models (Scenario/CostModel.swift)
                PerRequestPricing.self, FlatRatePricing.self,
                // Device events (Population/DeviceEvents.swift), in the order a scenario lists them
                DeviceEventsConfig.Reboots.self, DeviceEventsConfig.AppKills.self,
                DeviceEventsConfig.WallClockChanges.self, DeviceEventsConfig.Tampering.self,
                DeviceEventsConfig.StandbyWakes.self,   // StandbyWakes.swift
                DeviceEventsConfig.WallClockSync.self,  // WallClockSync.swift
                DeviceEventsConfig.AppLifecycle.self,   // AppLifecycle.swift
                // Delay processes (Network/)
                IndependentDelays.self, AR1Delays.self, GilbertElliottDelays.self, TraceReplayDelays.self,
                NuggetAR1Delays.self,   // NuggetAR1Delays.swift
                // Lost segments, connections and radio state (Network/)
                TCPRetransmitLoss.self, KeepAliveConnection.self, RRCRadio.self,
                // A leap second on the server's clock (Server/LeapSecond.swift)
                SteppedLeapSecond.self, SmearedLeapSecond.self,
                // Faults in a fleet server's clock (Server/ServerClockFault.swift)
                ServerClockStep.self, ServerClockDrift.self,
            ])
        } catch {
            // A clash among our own kinds is a programming error; PluginRegistryTests catch it first.
            fatalError("\(error)")
        }
    }()

    /// This registry with `type` added.
    public func adding(_ type: any Plugin.Type) throws(PluginRegistryError) -> PluginRegistry {
        var copy = self
        try copy.register(type)
        return copy
    }

    /// Adds `type`: its kind must be new in its family, and the type must conform to the
    /// family's role protocol (a clock must be a `DeviceClock`).
    public mutating func register(_ type: any Plugin.Type) throws(PluginRegistryError) {
        let family = type.family
        if let existing = self.type(of: family, kind: type.kind) {
            throw .duplicate(family: family, kind: type.kind, registered: String(reflecting: existing), adding: String(reflecting: type))
        }
        guard family.conforms(type) else { throw .wrongRole(family: family, type: String(reflecting: type)) }
        guard !type.kind.isEmpty else { throw .emptyKind(family: family, type: String(reflecting: type)) }
        kinds.append(type)
    }

    /// The kinds of `family`, in registration order.
    public func kinds(of family: PluginFamily) -> [any Plugin.Type] { kinds.filter { $0.family == family } }

    /// The type registered for `kind` in `family`, or nil.
    public func type(of family: PluginFamily, kind: String) -> (any Plugin.Type)? {
        kinds.first { $0.family == family && $0.kind == kind }
    }

    /// The families that have at least one kind, in `PluginFamily.all` order, then any others.
    public var families: [PluginFamily] {
        var seen = PluginFamily.all.filter { !kinds(of: $0).isEmpty }
        for type in kinds where !seen.contains(type.family) { seen.append(type.family) }
        return seen
    }
}

/// Why a type cannot join a registry.
public enum PluginRegistryError: Error, Equatable, CustomStringConvertible {
    case duplicate(family: PluginFamily, kind: String, registered: String, adding: String)
    case wrongRole(family: PluginFamily, type: String)
    case emptyKind(family: PluginFamily, type: String)

    public var description: String {
        switch self {
        case let .duplicate(family, kind, registered, adding):
            return "the \(family.noun) kind '\(kind)' is registered twice: by \(registered) and by \(adding); "
                + "give one of them another kind name"
        case let .wrongRole(family, type):
            return "\(type) says it is a \(family.noun) but does not conform to \(family.role)"
        case let .emptyKind(family, type):
            return "\(type) has an empty \(family.noun) kind name; scenarios could not name it"
        }
    }
}

// MARK: Reading plug-ins from a scenario

extension PluginRegistry {
    /// Reads a plug-in of a `.choice` family given as `"name"` or `{"kind": "name", …parameters}`.
    ///
    /// An unknown name is an error listing this registry's kinds of the family. Unknown keys
    /// are refused unless the family has shared keys (its owner reads them, then refuses).
    func read(_ family: PluginFamily, from node: InputNode, in context: PluginContext) throws -> any Plugin {
        let kind: String
        var parameters: InputNode? = nil
        if case .object = node.value {
            kind = try node.required("kind").string()
            parameters = node
        } else {
            kind = try node.string()
        }
        guard let type = type(of: family, kind: kind) else {
            let known: [String] = kinds(of: family).map { $0.kind }
            let names = known.map { "'\($0)'" }.joined(separator: ", ")
            let hint = NearMiss.hint(for: kind, among: known)
            let at = parameters.flatMap { $0.child("kind") } ?? node
            throw at.error("unknown \(family.noun) '\(kind)'; expected one of \(names)\(hint)")
        }
        let made = try type.init(parameters ?? InputNode(.object([]), file: node.file, path: node.path), in: context)
        if family.shared == nil { try parameters?.rejectUnknownKeys() }
        return made
    }

    /// Reads every kind of a `.keyed` family that `section` switches on, in registration order.
    func readKeyed(_ family: PluginFamily, in section: InputNode, context: PluginContext) throws -> [any Plugin] {
        try kinds(of: family).compactMap { type in
            try section.optional(type.kind) { node -> any Plugin in
                try node.expectObject()
                let made = try type.init(node, in: context)
                try node.rejectUnknownKeys()
                return made
            }
        }
    }
}
