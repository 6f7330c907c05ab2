import SyncLabKernel

/// A first-order autoregressive process on log-delay (AR(1)), per player and direction.
///
/// For a lognormal link (median m, σ): log d_k = log m + x_k, with x_k = ρ·x_{k−1} +
/// σ·√(1 − ρ²)·ε_k and ε_k standard normal. The first draw is x_1 = σ·ε_1, so the process starts
/// in its stationary law N(0, σ²) and every delay is distributed exactly as the link's lognormal;
/// only their order in time changes. Lag-1 autocorrelation of log-delay is ρ, lag-k ρ^k; ρ = 0
/// is independent draws, ρ → 1 freezes each player's delay at its first draw.
///
/// For a lognormal mixture (`LognormalMixture`) x_k runs with σ = 1 and the delay is the
/// mixture's quantile at Φ(x_k): each delay keeps the mixture's law and successive delays keep
/// the rank correlation of the AR(1); with a lognormal this is the same as the form above.
///
/// The process advances per draw (see `DelayProcess`): a request's uplink, a response's
/// downlink. x is kept in single precision (half a word per direction): its rounding, a
/// relative 6e-8, moves a delay by far less than a nanosecond at σ ≤ 2.
public struct AR1Delays: DelayProcess, Equatable {
    public static let family = PluginFamily.delayProcess
    public static let kind = "ar1"
    public static let schema = SchemaFragment(
        "AR(1) on log-delay per player and direction, advanced per request; needs lognormal or lognormal-mixture uplink and downlink.",
        properties: [
            "rho": ["type": "number", "minimum": 0, "maximum": 1, "examples": [0.8],
                    "description": "Lag-1 autocorrelation of log-delay between consecutive requests: 0 to 1."],
        ],
        required: ["rho"])

    /// Lag-1 autocorrelation of log-delay, in [0, 1].
    public var rho: Double

    public init(rho: Double) {
        precondition(rho >= 0 && rho <= 1)
        self.rho = rho
    }

    public init(_ node: InputNode, in context: PluginContext) throws {
        let rho = try node.required("rho").double()
        guard rho >= 0 && rho <= 1 else {
            throw node.child("rho")!.error("must be from 0 to 1; got \(InputNode.describeScalar(node.child("rho")!.value))")
        }
        self.init(rho: rho)
    }

    public var summary: String { "AR(1) on log-delay, rho \(Bounds.number(rho)) per request" }

    public func check(_ link: LinkProfile, at node: InputNode) throws {
        for (key, d) in [("uplink", link.uplink), ("downlink", link.downlink)] {
            switch d {
            case .lognormal, .lognormalMixture: continue
            default:
                throw node.error("'\(Self.kind)' needs a lognormal or lognormal-mixture \(key) (its parameters set the process); "
                    + "profile '\(link.name)' has \(LinkProfile.shapeName(d))")
            }
        }
    }

    public func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, player: UInt64, seed: UInt64,
                      _ rng: inout RandomStream) -> Double {
        switch link.distribution(direction) {
        case .lognormal(let median, let sigma):
            return median * DeterministicMath.exp(step(sigma: sigma, direction, &memory, &rng))
        case .lognormalMixture(let mixture):
            // x is standard normal here; the delay is the mixture's quantile at Φ(x), so each
            // delay keeps the mixture's law (a Gaussian copula). Above 0 the upper form, so a
            // far-tail x does not round Φ(x) to 1.
            let x = step(sigma: 1, direction, &memory, &rng)
            return x <= 0 ? mixture.quantile(NormalLaw.cdf(x)) : mixture.upperQuantile(NormalLaw.cdf(-x))
        default:
            return link.distribution(direction).sample(&rng)   // refused by `check`
        }
    }

    /// Advances the direction's x (stationary N(0, σ²)) by one draw and returns it as stored.
    private func step(sigma: Double, _ direction: LinkDirection, _ memory: inout LinkMemory, _ rng: inout RandomStream) -> Double {
        let e = Self.standardNormal.sample(&rng)
        let bits = memory[direction]
        let x = bits == 0 ? sigma * e
            : rho * Double(Float(bitPattern: bits)) + sigma * (1 - rho * rho).squareRoot() * e
        // Zero bits mean "no draw yet": a zero x is kept as −0.
        let stored = Float(x)
        memory[direction] = stored.bitPattern == 0 ? (-0.0 as Float).bitPattern : stored.bitPattern
        return Double(stored)
    }

    static let standardNormal = Distribution.normal(mean: 0, sd: 1)
}
