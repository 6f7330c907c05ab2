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
/// A process's state decays with the time since the player's last draw (`LinkMemory.advance`):
/// probes 100 ms apart see alike delays, refetches minutes apart nearly independent ones, as the
/// Saturator traces show (docs/links.md, "Calibrated from measured links").
public protocol DelayProcess: Plugin {
    /// Throws at `node` (the `correlation` key) when `link`'s distributions do not suit the process.
    func check(_ link: LinkProfile, at node: InputNode) throws
    /// The one-way delay in `direction` of a message entering the link at true time `now` (ns,
    /// not yet rounded), advancing `memory`. `player` is the player's global index and `seed` the
    /// scenario's, for keyed draws.
    func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, at now: SimTime, player: UInt64,
               seed: UInt64, _ rng: inout RandomStream) -> Double
    /// The chance the request just drawn is lost (read after its uplink delay is drawn).
    func failure(on link: LinkProfile, memory: LinkMemory) -> Double
    /// This process ready to draw on `link`, with whatever it precomputes from the link's
    /// distributions (once at load, shared by every player); by default itself.
    func prepared(for link: LinkProfile) -> any DelayProcess
    /// The smallest delay (ns, not yet rounded) the process can draw in `direction` on `link`:
    /// by default the support's lower bound of the link's own distribution.
    func leastDelay(_ direction: LinkDirection, on link: LinkProfile) -> Double
    /// How the process forgets a player's past. The model audit draws the process's own law by
    /// Monte Carlo of `delay`, and this tells it which of a run's draws are draws of that law: a
    /// probe sent when the last answer came back samples a link correlated in time unevenly.
    /// Required, so a new process cannot be judged on a guess.
    var memory: DelayMemory { get }
}

/// How a delay process's draws for one player depend on the player's earlier draws, in time.
public enum DelayMemory: Sendable, Equatable {
    /// Not on time: every draw is of the process's law whenever it is made (fresh draws, or a
    /// replayed sequence stepped per draw).
    case none
    /// The process's state forgets as e^(−Δt / timeConstant) (ns) with the time since the
    /// player's last draw; `directionsShareState` when the uplink and the downlink move one state.
    case fades(timeConstant: Double, directionsShareState: Bool)
    /// Unknown: only each player's first draw is a draw of the law.
    case unknown
}

extension DelayProcess {
    public func prepared(for link: LinkProfile) -> any DelayProcess { self }
    public func leastDelay(_ direction: LinkDirection, on link: LinkProfile) -> Double {
        link.distribution(direction).supportLowerBound
    }
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

/// What a delay process remembers of one player's past: two words in `ClientState`, zero before
/// the player's first request. The first word's halves are the two directions' states, the
/// second's the true time of each direction's last draw, in whole milliseconds plus one (0: no
/// draw yet; 2^32 ms are 49 days, beyond any run). A millisecond is far below any time constant
/// a process is given (at least `minimumTimeConstant`), so rounding the time moves a correlation
/// by at most 1 ms / τ.
public struct LinkMemory: Sendable, Equatable {
    public var word: UInt64 = 0
    public var drawnAt: UInt64 = 0

    public init(word: UInt64 = 0) { self.word = word }

    /// Seconds since `direction` last drew (nil: never; 0 if `now` is not later), recording
    /// `now` as its last draw.
    @inline(__always)
    public mutating func advance(_ direction: LinkDirection, to now: SimTime) -> Double? {
        let ms = UInt32(clamping: max(0, now.ns / 1_000_000) + 1)
        let shift: UInt64 = direction == .uplink ? 0 : 32
        let last = UInt32(truncatingIfNeeded: drawnAt >> shift)
        drawnAt = (drawnAt & ~(0xFFFF_FFFF << shift)) | (UInt64(ms) << shift)
        guard last != 0 else { return nil }
        return ms > last ? Double(ms - last) / 1000 : 0
    }

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
    public var memory: DelayMemory { .none }

    public func check(_ link: LinkProfile, at node: InputNode) throws {}

    public func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, at now: SimTime, player: UInt64,
                      seed: UInt64, _ rng: inout RandomStream) -> Double {
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
