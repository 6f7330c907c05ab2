/// A role a plug-in plays in a scenario: which key selects it, which protocol it must conform to
/// and where its kinds go in the JSON Schema.
public struct PluginFamily: Sendable, Hashable, CustomStringConvertible {
    /// How a scenario picks the family's kinds.
    public enum Form: Sendable, Hashable {
        /// One kind is chosen by `"kind"`, or by a bare name when it needs no parameter. The
        /// schema lists the kinds under `$defs/<name>`.
        case choice
        /// Any of the kinds may be switched on, each as an optional object under its own key of
        /// the top-level object `section` ("devices"). The schema lists them there.
        case keyed(section: String)
    }

    /// The family's name, also its definition's name in the schema: "clock", "costModel".
    public let name: String
    /// How messages name one of its kinds: "tick policy".
    public let noun: String
    /// The protocol every kind conforms to, for messages.
    public let role: String
    public let form: Form
    /// What the schema says about the family as a whole.
    public let about: String
    /// Keys every kind takes besides its own, read by the family's owner (a price model's name
    /// and egress), which then refuses unknown keys itself; nil when the kind's object is its own.
    public let shared: SchemaFragment?
    let conforms: @Sendable (any Plugin.Type) -> Bool

    init(name: String, noun: String, role: String, form: Form = .choice, about: String, shared: SchemaFragment? = nil,
         conforms: @escaping @Sendable (any Plugin.Type) -> Bool) {
        self.name = name
        self.noun = noun
        self.role = role
        self.form = form
        self.about = about
        self.shared = shared
        self.conforms = conforms
    }

    public var description: String { name }
    public static func == (a: PluginFamily, b: PluginFamily) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

extension PluginFamily {
    public static let clock = PluginFamily(
        name: "clock", noun: "clock", role: "DeviceClock",
        about: "The clock the client measures intervals and computes displayed time with.") { $0 is any DeviceClock.Type }
    public static let estimator = PluginFamily(
        name: "estimator", noun: "estimator", role: "SyncEstimator",
        about: "How the client turns one exchange with the server into an estimate of server time.") { $0 is any SyncEstimator.Type }
    public static let tick = PluginFamily(
        name: "tick", noun: "tick policy", role: "TickPolicy",
        about: "When the UI recomputes what it shows.") { $0 is any TickPolicy.Type }
    public static let refetch = PluginFamily(
        name: "refetch", noun: "refetch policy", role: "RefetchPolicy",
        about: "When the client fetches the Store again after a load.") { $0 is any RefetchPolicy.Type }
    public static let retry = PluginFamily(
        name: "retry", noun: "retry policy", role: "RetryPolicy",
        about: "How long the client waits before retrying a failed request.") { $0 is any RetryPolicy.Type }
    /// Server designs have no protocol of their own: the world knows each one it simulates.
    public static let serverDesign = PluginFamily(
        name: "serverDesign", noun: "server design", role: "Plugin",
        about: "The server design: the store file (v1.1.5, default) or the original plan's database per position.") { _ in true }
    public static let costModel = PluginFamily(
        name: "costModel", noun: "cost model", role: "CostPricing",
        about: "A price model the report bills a month of the run's traffic under.",
        shared: CostModel.sharedSchema) { $0 is any CostPricing.Type }
    public static let deviceEvent = PluginFamily(
        name: "deviceEvent", noun: "device event", role: "DeviceEvent", form: .keyed(section: "devices"),
        about: "Things that happen to a phone besides sleep.") { $0 is any DeviceEvent.Type }

    public static let delayProcess = PluginFamily(
        name: "delayProcess", noun: "delay process", role: "DelayProcess",
        about: "How a link's one-way delays follow one another for one player (a link profile's correlation).") { $0 is any DelayProcess.Type }

    public static let packetLoss = PluginFamily(
        name: "packetLoss", noun: "packet loss model", role: "PacketLoss",
        about: "How a link loses segments and how TCP recovers them (a link profile's loss).") { $0 is any PacketLoss.Type }
    public static let connection = PluginFamily(
        name: "connection", noun: "connection model", role: "ConnectionSetup",
        about: "When a connection closes and what a new one costs (a link profile's connection).") { $0 is any ConnectionSetup.Type }
    public static let radio = PluginFamily(
        name: "radio", noun: "radio model", role: "RadioState",
        about: "A cellular radio's idle state and its promotion delay (a link profile's radio).") { $0 is any RadioState.Type }
    public static let leapSecond = PluginFamily(
        name: "leapSecond", noun: "leap-second handling", role: "LeapSecondHandling",
        about: "A positive leap second on the server's clock (server.leapSecond): stepped back 1 s, or smeared over a window.") { $0 is any LeapSecondHandling.Type }
    public static let serverClockFault = PluginFamily(
        name: "serverClockFault", noun: "server clock fault", role: "ServerClockFault",
        about: "A fault in one fleet server's clock in time (server.fleet.faults): a step, or a drift from an instant.") { $0 is any ServerClockFault.Type }

    /// Every family, in the order the schema and `synclab list --kinds` show them.
    public static let all: [PluginFamily] = [.clock, .estimator, .tick, .refetch, .retry, .serverDesign, .costModel, .deviceEvent,
                                             .delayProcess, .packetLoss, .connection, .radio, .leapSecond,
                                             .serverClockFault]
}
