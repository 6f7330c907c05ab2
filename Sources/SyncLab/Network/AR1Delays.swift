import SyncLabKernel

/// A first-order autoregressive process on log-delay (AR(1)) in continuous time, per player and
/// direction: an Ornstein–Uhlenbeck process sampled at the player's draws.
///
/// For a lognormal link (median m, σ): log d = log m + x, and between two draws Δt apart
/// x' = a·x + σ·√(1 − a²)·ε with a = exp(−Δt/τ) and ε standard normal. The first draw is
/// x = σ·ε, so the process starts in its stationary law N(0, σ²) and every delay is distributed
/// exactly as the link's lognormal; only their order in time changes. The correlation of two
/// log-delays Δt apart is exp(−Δt/τ): 1/e at τ, 1/e² at 2τ. Probes 100 ms apart on a τ = 2 s
/// link correlate at 0.95; refetches 7 minutes apart at e^−210, independent.
///
/// For a lognormal mixture (`LognormalMixture`) x runs with σ = 1 and the delay is the
/// mixture's quantile at Φ(x): each delay keeps the mixture's law and two delays keep the rank
/// correlation of the process; with a lognormal this is the same as the form above. The quantile
/// is read from a table built once per link direction at load (`MixtureQuantileTable`,
/// `tabulated(for:)`); a process not tabulated for its link's mixture inverts the CDF exactly.
///
/// x is kept in single precision (half a word per direction): its rounding, a relative 6e-8,
/// moves a delay by far less than a nanosecond at σ ≤ 2.
public struct AR1Delays: DelayProcess, Equatable {
    public static let family = PluginFamily.delayProcess
    public static let kind = "ar1"
    public static let schema = SchemaFragment(
        "AR(1) on log-delay per player and direction, decaying with the time between draws; needs lognormal or lognormal-mixture uplink and downlink.",
        properties: [
            "tau": ["type": "string", "examples": ["2s"],
                    "description": "Time constant: two log-delays Δt apart correlate at exp(−Δt/tau). At least 100ms."],
        ],
        required: ["tau"])

    /// Time constant, ns: the lag at which the correlation of log-delay falls to 1/e.
    public var tau: Nanoseconds

    /// The shortest time constant accepted: the draw times are kept to the millisecond.
    public static let minimumTimeConstant: Nanoseconds = 100 * .millisecond

    /// The quantile tables of the link this process was tabulated for, per direction; each is
    /// used only while the link's mixture in that direction is the one it was built from.
    public private(set) var uplinkQuantiles: MixtureQuantileTable? = nil
    public private(set) var downlinkQuantiles: MixtureQuantileTable? = nil

    public init(tau: Nanoseconds) {
        precondition(tau >= Self.minimumTimeConstant)
        self.tau = tau
    }

    /// This process with a quantile table for each of `link`'s mixture directions (a table
    /// already built for the same mixture, here or anywhere in the process, is kept, not rebuilt).
    public func tabulated(for link: LinkProfile) -> AR1Delays {
        var p = self
        p.uplinkQuantiles = MixtureQuantileTable.table(for: link.uplink, keeping: uplinkQuantiles)
        p.downlinkQuantiles = MixtureQuantileTable.table(for: link.downlink, keeping: downlinkQuantiles)
        return p
    }

    public func prepared(for link: LinkProfile) -> any DelayProcess { tabulated(for: link) }

    public init(_ node: InputNode, in context: PluginContext) throws {
        let tauNode = try node.required("tau")
        let tau = try tauNode.positiveDuration()
        guard tau >= Self.minimumTimeConstant, tau <= 30 * 24 * Int64.hour else {
            throw tauNode.error("must be from 100ms to 30d; got \(InputNode.describeScalar(tauNode.value))")
        }
        self.init(tau: tau)
    }

    /// The correlation of two log-delays `seconds` apart: exp(−Δt/τ).
    public func correlation(afterSeconds seconds: Double) -> Double {
        DeterministicMath.exp(-seconds * 1e9 / Double(tau))
    }

    public var summary: String { "AR(1) on log-delay, time constant \(Units.formatDuration(tau))" }
    /// The AR(1)'s correlation over Δt is exp(−Δt/τ); each direction has a state of its own.
    public var memory: DelayMemory { .fades(timeConstant: Double(tau), directionsShareState: false) }

    public func check(_ link: LinkProfile, at node: InputNode) throws { try Self.checkLognormal(link, at: node, kind: Self.kind) }

    /// Throws unless both of `link`'s directions are lognormal or lognormal mixtures: a process
    /// on the Gaussian copula (`kind`, this one or `NuggetAR1Delays`) sets their parameters.
    static func checkLognormal(_ link: LinkProfile, at node: InputNode, kind: String) throws {
        for (key, d) in [("uplink", link.uplink), ("downlink", link.downlink)] {
            switch d {
            case .lognormal, .lognormalMixture: continue
            default:
                throw node.error("'\(kind)' needs a lognormal or lognormal-mixture \(key) (its parameters set the process); "
                    + "profile '\(link.name)' has \(LinkProfile.shapeName(d))")
            }
        }
    }

    public func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, at now: SimTime, player: UInt64,
                      seed: UInt64, _ rng: inout RandomStream) -> Double {
        switch link.distribution(direction) {
        case .lognormal(let median, let sigma):
            return median * DeterministicMath.exp(step(sigma: sigma, direction, now, &memory, &rng))
        case .lognormalMixture(let mixture):
            // x is standard normal here; the delay is the mixture's quantile at Φ(x), so each
            // delay keeps the mixture's law (a Gaussian copula).
            let x = step(sigma: 1, direction, now, &memory, &rng)
            return Self.quantile(mixture, at: x, table: direction == .uplink ? uplinkQuantiles : downlinkQuantiles)
        default:
            return link.distribution(direction).sample(&rng)   // refused by `check`
        }
    }

    /// `mixture`'s quantile at Φ(z): from `table` when it was built for this mixture, else exactly.
    @inline(__always)
    static func quantile(_ mixture: LognormalMixture, at z: Double, table: MixtureQuantileTable?) -> Double {
        if let table, table.mixture == mixture { return table.quantile(at: z) }
        return MixtureQuantileTable.exactQuantile(mixture, at: z)
    }

    /// Advances the direction's x (stationary N(0, σ²)) to `now` and returns it as stored.
    func step(sigma: Double, _ direction: LinkDirection, _ now: SimTime, _ memory: inout LinkMemory,
                      _ rng: inout RandomStream) -> Double {
        let e = Self.standardNormal.sample(&rng)
        let bits = memory[direction]
        let elapsed = memory.advance(direction, to: now)
        let x: Double
        if bits == 0 || elapsed == nil {
            x = sigma * e
        } else {
            let a = correlation(afterSeconds: elapsed!)
            x = a * Double(Float(bitPattern: bits)) + sigma * (1 - a * a).squareRoot() * e
        }
        // Zero bits mean "no draw yet": a zero x is kept as −0.
        let stored = Float(x)
        memory[direction] = stored.bitPattern == 0 ? (-0.0 as Float).bitPattern : stored.bitPattern
        return Double(stored)
    }

    static let standardNormal = Distribution.normal(mean: 0, sd: 1)
}
