import SyncLabKernel

/// A two-state channel (Gilbert 1960, Elliott 1963) per player: good or bad, each with its own
/// delay distributions and loss.
///
/// The good state draws from the link's own `uplink`, `downlink` and `failure`; the bad state
/// from `bad`'s (any distribution; its failure defaults to the link's). The state changes once
/// per request, before its uplink is drawn: good → bad with probability `goodToBad` (p_gb),
/// bad → good with `badToGood` (p_bg); the response's downlink is drawn in the request's state.
/// A player's first request finds the channel in its stationary law: bad with probability
/// p_gb / (p_gb + p_bg). A stay in a state lasts a geometric number of requests, mean 1/p_bg
/// in the bad state and 1/p_gb in the good.
///
/// Memory: the uplink half of `LinkMemory` holds 0 before the first request, then 1 (good) or
/// 2 (bad).
public struct GilbertElliottDelays: DelayProcess, Equatable {
    public static let family = PluginFamily.delayProcess
    public static let kind = "gilbert-elliott"
    public static let schema = SchemaFragment(
        "Two-state (good/bad) channel per player, switching per request; the good state is the link's own distributions.",
        properties: [
            "goodToBad": ["type": "number", "exclusiveMinimum": 0, "maximum": 1, "examples": [0.05],
                          "description": "Chance per request of going from good to bad: more than 0, at most 1."],
            "badToGood": ["type": "number", "exclusiveMinimum": 0, "maximum": 1, "examples": [0.3],
                          "description": "Chance per request of going from bad to good: more than 0, at most 1."],
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
        required: ["goodToBad", "badToGood", "bad"])

    public var goodToBad: Double
    public var badToGood: Double
    public var badUplink: Distribution
    public var badDownlink: Distribution
    /// The bad state's loss; nil: the link's.
    public var badFailure: Double?

    public init(goodToBad: Double, badToGood: Double, badUplink: Distribution, badDownlink: Distribution, badFailure: Double? = nil) {
        precondition(goodToBad > 0 && goodToBad <= 1 && badToGood > 0 && badToGood <= 1)
        self.goodToBad = goodToBad
        self.badToGood = badToGood
        self.badUplink = badUplink
        self.badDownlink = badDownlink
        self.badFailure = badFailure
    }

    public init(_ node: InputNode, in context: PluginContext) throws {
        func chance(_ key: String) throws -> Double {
            let n = try node.required(key)
            let p = try n.probability()
            guard p > 0 else { throw n.error("must be more than 0 (a state never left is not a channel); got 0") }
            return p
        }
        let goodToBad = try chance("goodToBad")
        let badToGood = try chance("badToGood")
        let bad = try node.required("bad")
        try bad.expectObject()
        let delays = Bounds.durations(0, ScenarioLoader.Limits.delay)
        let up = try bad.required("uplink").distribution(.duration, delays)
        let down = try bad.required("downlink").distribution(.duration, delays)
        let failure = try bad.optional("failure") { try $0.probability() }
        try bad.rejectUnknownKeys()
        self.init(goodToBad: goodToBad, badToGood: badToGood, badUplink: up, badDownlink: down, badFailure: failure)
    }

    /// The stationary share of requests that find the channel bad: p_gb / (p_gb + p_bg).
    public var badShare: Double { goodToBad / (goodToBad + badToGood) }

    public var summary: String {
        "Gilbert-Elliott, good to bad \(Bounds.number(goodToBad)), bad to good \(Bounds.number(badToGood)) per request "
            + "(bad \(Bounds.number(badShare * 100))% of requests)"
    }

    public func check(_ link: LinkProfile, at node: InputNode) throws {}

    static let good: UInt32 = 1, bad: UInt32 = 2

    public func delay(_ direction: LinkDirection, on link: LinkProfile, memory: inout LinkMemory, player: UInt64, seed: UInt64,
                      _ rng: inout RandomStream) -> Double {
        if direction == .uplink {
            let state = memory[.uplink]
            let isBad: Bool
            switch state {
            case Self.good: isBad = rng.unit() < goodToBad
            case Self.bad: isBad = !(rng.unit() < badToGood)
            default: isBad = rng.unit() < badShare
            }
            memory[.uplink] = isBad ? Self.bad : Self.good
        }
        let isBad = memory[.uplink] == Self.bad
        switch direction {
        case .uplink: return (isBad ? badUplink : link.uplink).sample(&rng)
        case .downlink: return (isBad ? badDownlink : link.downlink).sample(&rng)
        }
    }

    public func failure(on link: LinkProfile, memory: LinkMemory) -> Double {
        memory[.uplink] == Self.bad ? badFailure ?? link.failure : link.failure
    }
}
