import SyncLabKernel

/// A two-state channel (Gilbert 1960, Elliott 1963) per player: good or bad, each with its own
/// delay distributions and loss, switching in continuous time.
///
/// The good state draws from the link's own `uplink`, `downlink` and `failure`; the bad state
/// from `bad`'s (any distribution; its failure defaults to the link's). The channel leaves the
/// good state at rate g (`goodToBadPerSecond`) and the bad state at rate b
/// (`badToGoodPerSecond`): a stay lasts an exponential time, mean 1/g good and 1/b bad, and a
/// share π = g / (g + b) of the time is bad. At every draw (a request's uplink, a response's
/// downlink) the state is drawn from where it was at the player's last draw, Δt earlier, by the
/// two-state Markov chain's transition probabilities, with λ = g + b:
///   P(bad | bad Δt ago) = π + (1 − π)·e^(−λΔt),   P(bad | good Δt ago) = π·(1 − e^(−λΔt)).
/// A player's first draw finds the channel in its stationary law: bad with probability π.
///
/// Memory: the uplink half of `LinkMemory.word` holds 0 before the first draw, then 1 (good) or
/// 2 (bad); the uplink half of `drawnAt` the time of the last draw in either direction.
public struct GilbertElliottDelays: DelayProcess, Equatable {
    public static let family = PluginFamily.delayProcess
    public static let kind = "gilbert-elliott"
    public static let schema = SchemaFragment(
        "Two-state (good/bad) channel per player, switching in continuous time; the good state is the link's own distributions.",
        properties: [
            "goodToBadPerSecond": ["type": "number", "exclusiveMinimum": 0, "maximum": 1000, "examples": [0.05],
                                   "description": "Rate of going from good to bad, per second: 1 / the mean good stay in seconds."],
            "badToGoodPerSecond": ["type": "number", "exclusiveMinimum": 0, "maximum": 1000, "examples": [0.5],
                                   "description": "Rate of going from bad to good, per second: 1 / the mean bad stay in seconds."],
            "bad": [
                "type": "object", "additionalProperties": false, "required": ["uplink", "downlink"],
                "description": "The bad state's delays and loss.",
                "properties": [
                    "uplink": SchemaFragment.ref("delayDistribution", "One-way delay in the bad state, at most 1d."),
                    "downlink": SchemaFragment.ref("delayDistribution", "One-way delay in the bad state, at most 1d."),
                    "failure": SchemaFragment.ref("probability", "Chance a request is lost in the bad state (default: the link's)."),
                ],
            ],
        ],
        required: ["goodToBadPerSecond", "badToGoodPerSecond", "bad"])

    /// Rates of leaving the good and the bad state, per second.
    public var goodToBadPerSecond: Double
    public var badToGoodPerSecond: Double
    public var badUplink: Distribution
    public var badDownlink: Distribution
    /// The bad state's loss; nil: the link's.
    public var badFailure: Double?

    public init(goodToBadPerSecond: Double, badToGoodPerSecond: Double, badUplink: Distribution, badDownlink: Distribution,
                badFailure: Double? = nil) {
        precondition(goodToBadPerSecond > 0 && goodToBadPerSecond <= Self.maximumRate
                     && badToGoodPerSecond > 0 && badToGoodPerSecond <= Self.maximumRate)
        self.goodToBadPerSecond = goodToBadPerSecond
        self.badToGoodPerSecond = badToGoodPerSecond
        self.badUplink = badUplink
        self.badDownlink = badDownlink
        self.badFailure = badFailure
    }

    public init(_ node: InputNode, in context: PluginContext) throws {
        func rate(_ key: String) throws -> Double {
            let n = try node.required(key)
            let r = try n.double()
            guard r > 0 else { throw n.error("must be more than 0 (a state never left is not a channel); got \(InputNode.describeScalar(n.value))") }
            guard r <= Self.maximumRate else {
                throw n.error("must be at most \(Int(Self.maximumRate)) per second (stays shorter than the millisecond the draw times are kept to); "
                    + "got \(InputNode.describeScalar(n.value))")
            }
            return r
        }
        let goodToBad = try rate("goodToBadPerSecond")
        let badToGood = try rate("badToGoodPerSecond")
        let bad = try node.required("bad")
        try bad.expectObject()
        let delays = Bounds.durations(0, ScenarioLoader.Limits.delay)
        let up = try bad.required("uplink").distribution(.duration, delays)
        let down = try bad.required("downlink").distribution(.duration, delays)
        let failure = try bad.optional("failure") { try $0.probability() }
        try bad.rejectUnknownKeys()
        self.init(goodToBadPerSecond: goodToBad, badToGoodPerSecond: badToGood, badUplink: up, badDownlink: down, badFailure: failure)
    }

    /// Rates above this are refused: draw times are kept to the millisecond.
    public static let maximumRate = 1000.0

    /// The stationary share of time the channel is bad: g / (g + b).
    public var badShare: Double { goodToBadPerSecond / (goodToBadPerSecond + badToGoodPerSecond) }

    /// The chance the channel is bad `seconds` after it was bad (`wasBad`) or good.
    public func badChance(afterSeconds seconds: Double, wasBad: Bool) -> Double {
        let decay = DeterministicMath.exp(-(goodToBadPerSecond + badToGoodPerSecond) * seconds)
        return wasBad ? badShare + (1 - badShare) * decay : badShare * (1 - decay)
    }

    public var summary: String {
        "Gilbert-Elliott, mean stays \(Bounds.number(1 / goodToBadPerSecond))s good and \(Bounds.number(1 / badToGoodPerSecond))s bad "
            + "(bad \(Bounds.number(badShare * 100))% of the time)"
    }

    /// The state's correlation over Δt is e^(−λΔt), λ = g + b, and one state drives both directions.
    public var memory: DelayMemory {
        .fades(timeConstant: 1e9 / (goodToBadPerSecond + badToGoodPerSecond), directionsShareState: true)
    }

    public func check(_ link: LinkProfile, at node: InputNode) throws {}

    static let good: UInt32 = 1, bad: UInt32 = 2

    /// Either state's distribution may draw: the smaller of their least values.
    public func leastDelay(_ direction: LinkDirection, on link: LinkProfile) -> Double {
        let bad = direction == .uplink ? badUplink : badDownlink
        return min(link.distribution(direction).supportLowerBound, bad.supportLowerBound)
    }

    public func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, at now: SimTime, player: UInt64,
                      seed: UInt64, _ rng: inout RandomStream) -> Double {
        let state = memory[.uplink]
        let elapsed = memory.advance(.uplink, to: now)
        let chance = state == 0 || elapsed == nil ? badShare : badChance(afterSeconds: elapsed!, wasBad: state == Self.bad)
        let isBad = rng.unit() < chance
        memory[.uplink] = isBad ? Self.bad : Self.good
        switch direction {
        case .uplink: return (isBad ? badUplink : link.uplink).sample(&rng)
        case .downlink: return (isBad ? badDownlink : link.downlink).sample(&rng)
        }
    }

    public func failure(on link: LinkProfile, memory: LinkMemory) -> Double {
        memory[.uplink] == Self.bad ? badFailure ?? link.failure : link.failure
    }
}
