import SyncLabKernel

/// A cellular radio's power states: a link profile's `radio`
/// (`{"kind": "rrc", "promotion": "260ms", "tail": "11.6s"}`), absent by default (the radio is
/// always ready, as on Wi-Fi).
///
/// A phone's radio drops to an idle state once no data has moved for its tail timer; the next
/// packet first waits for the promotion back to the connected state. The world keeps the true
/// time of the player's last network activity (`ClientState.lastNetworkAt`), the same clock the
/// keep-alive reads; promotion delays come from a stream of their own keyed to the player and
/// the request.
public protocol RadioState: Plugin {
    /// The promotion delay (ns) a request at `now` pays when the radio was last active at
    /// `lastActive` (`.min`: not since the app started), or 0 when the radio is still up.
    func promotionDelay(lastActive: Int64, at now: Int64, _ rng: inout RandomStream) -> Nanoseconds
}

/// A radio the model audit can hold a run against (docs/metrics.md, "What the models did"):
/// its rule on the true idle gap, and the chance a request that finds it idle pays a promotion
/// longer than zero. A radio that conforms brings its audit rows with it, in its own file; one
/// that does not is left out of the audit.
public protocol AuditedRadio: RadioState {
    /// Whether the radio has gone idle by `now`, last active at `lastActive` (`.min`: never).
    func isIdle(lastActive: Int64, at now: Int64) -> Bool
    /// The chance a request that finds the radio idle waits a promotion longer than zero.
    var idlePromotionChance: Double { get }
}

/// The RRC state machine reduced to its two costs: after `tail` without traffic the radio is
/// idle, and leaving idle takes `promotion`.
///
/// Huang et al. (MobiSys 2012) measured on a US LTE network a promotion from RRC_IDLE of about
/// 260 ms and a tail of about 11.6 s; on 3G the promotion from idle to the dedicated channel
/// takes seconds (docs/links.md). The intermediate states (LTE's DRX cycles, 3G's FACH) are
/// left out: traffic inside the tail pays nothing here.
public struct RRCRadio: AuditedRadio {
    public static let family = PluginFamily.radio
    public static let kind = "rrc"
    public static let schema = SchemaFragment(
        "A cellular radio idle longer than `tail` pays `promotion` before the next request leaves.",
        properties: [
            "promotion": SchemaFragment.ref("delayDistribution", "Promotion delay from idle: at most 1m (LTE about 260ms)."),
            "tail": ["$ref": "#/$defs/positiveDuration", "description": "Inactivity before the radio goes idle: 1ms to 1h (LTE about 11.6s)."],
        ],
        required: ["promotion", "tail"])

    public var promotion: Distribution
    public var tail: Nanoseconds

    public init(promotion: Distribution, tail: Nanoseconds) {
        precondition(tail > 0)
        self.promotion = promotion
        self.tail = tail
    }

    public init(_ node: InputNode, in context: PluginContext) throws {
        let promotion = try node.required("promotion").distribution(.duration, .durations(0, Int64.minute))
        let tail = try node.required("tail").duration(in: Int64.millisecond...Int64.hour)
        self.init(promotion: promotion, tail: tail)
    }

    public var summary: String {
        "radio idle after \(Units.formatDuration(tail)), promotion \(promotion.describe(.duration))"
    }

    /// Whether the radio has gone idle by `now`.
    public func isIdle(lastActive: Int64, at now: Int64) -> Bool {
        lastActive == .min || now - lastActive > tail
    }

    public var idlePromotionChance: Double { ModelAudit.promotionPaidChance(promotion) }

    public func promotionDelay(lastActive: Int64, at now: Int64, _ rng: inout RandomStream) -> Nanoseconds {
        isIdle(lastActive: lastActive, at: now) ? max(0, promotion.sampleDuration(&rng)) : 0
    }
}
