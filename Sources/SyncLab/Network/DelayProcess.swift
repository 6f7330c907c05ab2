import SyncLabKernel

/// How a link's one-way delays follow one another for one player: a link profile's
/// `correlation` (`{"kind": "ar1", "rho": 0.8}`), by default `independent`.
///
/// Real delays on a phone's link are correlated in time (docs/links.md, "Delays correlated in
/// time"): a player on a bad cell stays on it for a while, so back-to-back probes see alike
/// delays and best-of-n gains less than independent draws promise. A process keeps what it
/// remembers of a player's past in one word of the player's state (`LinkMemory`) and draws from
/// the player's network stream, so a player's delays depend only on its own past, whatever the
/// thread count or the partition of players into worlds.
///
/// Processes advance per draw: the uplink once per request sent, the downlink once per response.
/// Counting requests rather than elapsed time keeps the state at one word; a player's probes are
/// back to back, and its refetches minutes apart, so the per-request ρ is the correlation of
/// consecutive delays as a client sees them.
public protocol DelayProcess: Plugin {
    /// Throws at `node` (the `correlation` key) when `link`'s distributions do not suit the process.
    func check(_ link: LinkProfile, at node: InputNode) throws
    /// The next one-way delay in `direction` (ns, not yet rounded), advancing `memory`.
    /// `player` is the player's global index and `seed` the scenario's, for keyed draws.
    func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, player: UInt64, seed: UInt64,
               _ rng: inout RandomStream) -> Double
    /// The chance the request just drawn is lost (read after its uplink delay is drawn).
    func failure(on link: LinkProfile, memory: LinkMemory) -> Double
}

extension DelayProcess {
    public func failure(on link: LinkProfile, memory: LinkMemory) -> Double { link.failure }
}

/// One direction of a link.
public enum LinkDirection: Sendable {
    case uplink, downlink
}

extension LinkProfile {
    /// The link's delay distribution in `direction`.
    @inline(__always)
    public func distribution(_ direction: LinkDirection) -> Distribution {
        direction == .uplink ? uplink : downlink
    }
}

/// What a delay process remembers of one player's past: one word in `ClientState`, zero before
/// the player's first request. Its halves are the two directions' memories.
public struct LinkMemory: Sendable, Equatable {
    public var word: UInt64 = 0

    public init(word: UInt64 = 0) { self.word = word }

    /// The half of the word for `direction` (uplink: low, downlink: high).
    @inline(__always)
    public subscript(direction: LinkDirection) -> UInt32 {
        get { direction == .uplink ? UInt32(truncatingIfNeeded: word) : UInt32(truncatingIfNeeded: word >> 32) }
        set {
            word = direction == .uplink ? (word & 0xFFFF_FFFF_0000_0000) | UInt64(newValue)
                : (word & 0xFFFF_FFFF) | (UInt64(newValue) << 32)
        }
    }
}

/// Every delay drawn afresh from the link's distributions: today's draws, bit for bit (the world
/// does not even call it; `LinkSamplers.correlated` is false).
public struct IndependentDelays: DelayProcess, Equatable {
    public static let family = PluginFamily.delayProcess
    public static let kind = "independent"
    public static let schema = SchemaFragment("Each delay drawn afresh from the link's distributions (the default).")

    public init() {}
    public init(_ node: InputNode, in context: PluginContext) throws {}

    public var summary: String { "independent" }

    public func check(_ link: LinkProfile, at node: InputNode) throws {}

    public func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, player: UInt64, seed: UInt64,
                      _ rng: inout RandomStream) -> Double {
        link.distribution(direction).sample(&rng)
    }
}

extension LinkProfile {
    /// A distribution's shape, for messages: "a lognormal", "a latency trace".
    static func shapeName(_ d: Distribution) -> String {
        switch d {
        case .constant: "a constant"
        case .uniform: "a uniform"
        case .normal: "a normal"
        case .lognormal: "a lognormal"
        case .exponential: "an exponential"
        case .pareto: "a Pareto"
        case .empirical: "a latency trace"
        case .geometric: "a geometric"
        case .lognormalMixture: "a lognormal mixture"
        }
    }
}
