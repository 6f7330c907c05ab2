import SyncLabKernel

/// An AR(1) on log-delay with a nugget: a share `weight` of each draw's latent normal follows the
/// player's Ornstein–Uhlenbeck process, the rest is fresh, so two delays Δt apart correlate at
/// w·exp(−Δt/τ) on the Gaussian copula, never above w however close they are.
///
/// The Saturator traces (docs/links.md, "Delays correlated in time") show a correlation of
/// log-delay that is weak at once and slow to fade: Verizon LTE's round trips 0.1 s apart
/// correlate at 0.31 and still at 0.22 a second later. One exponential cannot give both: a τ
/// short enough for 0.31 at 0.1 s has forgotten everything by 1 s, a long one starts near 1.
/// Geostatistics meets the same shape in variograms and calls the jump at zero lag the nugget
/// effect: variation on a scale finer than the samples (there, gold nuggets; here, each packet's
/// own scheduling, retransmission and queueing) on top of a field that varies smoothly (the cell
/// and its load). The model is the sum of the two: z = √w·x + √(1 − w)·η with x the AR(1)'s
/// stationary N(0, 1) state (`AR1Delays`) and η a fresh standard normal per draw.
///
/// z is standard normal, so each delay keeps the link's law exactly: the lognormal's
/// median·e^(σz), or the mixture's quantile at Φ(z) through the link direction's
/// `MixtureQuantileTable`. The state is x alone, in single precision, half a word per direction
/// (`LinkMemory`), as `AR1Delays` keeps it; each draw takes two normals from the player's network
/// stream (the AR(1)'s innovation, then the nugget). At w = 1 it is the AR(1)'s process with one
/// more draw per delay.
public struct NuggetAR1Delays: DelayProcess, Equatable {
    public static let family = PluginFamily.delayProcess
    public static let kind = "ar1-nugget"
    public static let schema = SchemaFragment(
        "AR(1) on log-delay with a nugget: a share weight of each draw's latent normal follows the AR(1), the rest is fresh, so delays Δt apart correlate at weight·exp(−Δt/tau); needs lognormal or lognormal-mixture uplink and downlink.",
        properties: [
            "tau": ["type": "string", "examples": ["20s"],
                    "description": "Time constant of the correlated share: exp(−Δt/tau). At least 100ms."],
            "weight": ["type": "number", "minimum": 0, "maximum": 1, "examples": [0.3],
                       "description": "The correlated share w of each draw's latent normal: the correlation as Δt goes to 0 (1 − w is the nugget)."],
        ],
        required: ["tau", "weight"])

    /// Time constant, ns, of the correlated share.
    public var tau: Nanoseconds
    /// The correlated share w of the latent normal's variance, in [0, 1].
    public var weight: Double

    public private(set) var uplinkQuantiles: MixtureQuantileTable? = nil
    public private(set) var downlinkQuantiles: MixtureQuantileTable? = nil

    public init(tau: Nanoseconds, weight: Double) {
        precondition(tau >= AR1Delays.minimumTimeConstant && weight >= 0 && weight <= 1)
        self.tau = tau
        self.weight = weight
    }

    public init(_ node: InputNode, in context: PluginContext) throws {
        let tauNode = try node.required("tau")
        let tau = try tauNode.positiveDuration()
        guard tau >= AR1Delays.minimumTimeConstant, tau <= 30 * 24 * Int64.hour else {
            throw tauNode.error("must be from 100ms to 30d; got \(InputNode.describeScalar(tauNode.value))")
        }
        let weight = try node.required("weight").probability()
        self.init(tau: tau, weight: weight)
    }

    /// This process with a quantile table for each of `link`'s mixture directions.
    public func tabulated(for link: LinkProfile) -> NuggetAR1Delays {
        var p = self
        p.uplinkQuantiles = MixtureQuantileTable.table(for: link.uplink, keeping: uplinkQuantiles)
        p.downlinkQuantiles = MixtureQuantileTable.table(for: link.downlink, keeping: downlinkQuantiles)
        return p
    }

    public func prepared(for link: LinkProfile) -> any DelayProcess { tabulated(for: link) }

    /// The correlation of two latent normals `seconds` apart: w·exp(−Δt/τ).
    public func correlation(afterSeconds seconds: Double) -> Double {
        weight * DeterministicMath.exp(-seconds * 1e9 / Double(tau))
    }

    public var summary: String {
        "AR(1) on log-delay with a nugget, correlated share \(Bounds.number(weight)), time constant \(Units.formatDuration(tau))"
    }
    /// The state forgets as exp(−Δt/τ); the nugget holds nothing.
    public var memory: DelayMemory { .fades(timeConstant: Double(tau), directionsShareState: false) }

    public func check(_ link: LinkProfile, at node: InputNode) throws { try AR1Delays.checkLognormal(link, at: node, kind: Self.kind) }

    public func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, at now: SimTime, player: UInt64,
                      seed: UInt64, _ rng: inout RandomStream) -> Double {
        // The correlated share is the AR(1)'s own state (stationary N(0, 1)), stepped as it steps it.
        let x = AR1Delays(tau: tau).step(sigma: 1, direction, now, &memory, &rng)
        let z = weight.squareRoot() * x + (1 - weight).squareRoot() * AR1Delays.standardNormal.sample(&rng)
        switch link.distribution(direction) {
        case .lognormal(let median, let sigma):
            return median * DeterministicMath.exp(sigma * z)
        case .lognormalMixture(let mixture):
            return AR1Delays.quantile(mixture, at: z, table: direction == .uplink ? uplinkQuantiles : downlinkQuantiles)
        default:
            return link.distribution(direction).sample(&rng)   // refused by `check`
        }
    }
}
