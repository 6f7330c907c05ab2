import SyncLabKernel

/// Exponential backoff with a cap, and jitter so clients that failed together (an outage) do
/// not retry together (Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015).
///
/// - `full`: delay = U(0, min(cap, base·2^(failures−1))), uniform over whole nanoseconds.
/// - `decorrelated`: delay = min(cap, U(base, 3·previous)), previous = base before the first
///   retry of a run of failures; needs the previous delay per client (one word).
/// - `none`: delay = min(cap, base·2^(failures−1)).
public struct ExponentialBackoffRetry: RetryPolicy, Equatable {
    public enum Jitter: String, Sendable, CaseIterable, Equatable { case full, decorrelated, none }
    public var base: Nanoseconds
    public var cap: Nanoseconds
    public var jitter: Jitter

    public init(base: Nanoseconds = .second, cap: Nanoseconds = 5 * .minute, jitter: Jitter = .full) {
        precondition(base > 0 && cap >= base)
        self.base = base
        self.cap = cap
        self.jitter = jitter
    }

    public var name: String { Self.kind }

    /// min(cap, base·2^(failures−1)) without overflow.
    public func ceiling(afterFailures failures: Int) -> Nanoseconds {
        let doublings = max(0, failures - 1)
        guard doublings < 62, base <= cap >> Int64(doublings) else { return cap }
        return min(cap, base << Int64(doublings))
    }

    public var usesPreviousDelay: Bool { jitter == .decorrelated }

    public func delay(afterFailures failures: Int, _ rng: inout RandomStream) -> Nanoseconds {
        delay(afterFailures: failures, previous: base, &rng)
    }

    public func delay(afterFailures failures: Int, previous: Nanoseconds, _ rng: inout RandomStream) -> Nanoseconds {
        switch jitter {
        case .none:
            return ceiling(afterFailures: failures)
        case .full:
            return Int64(rng.below(UInt64(ceiling(afterFailures: failures)) + 1))
        case .decorrelated:
            let last = failures <= 1 ? base : min(max(previous, base), cap)
            let high = 3 &* last   // ≥ base; last ≤ cap ≤ 1 d, so no overflow
            return min(cap, base &+ Int64(rng.below(UInt64(high &- base) + 1)))
        }
    }
}

extension ExponentialBackoffRetry: Plugin {
    public static let family = PluginFamily.retry
    public static let kind = "exponential"
    public static let schema = SchemaFragment(
        "Exponential backoff with a cap and jitter, so clients that failed together do not retry together.",
        properties: [
            "base": SchemaFragment.ref("positiveDuration", "10ms to 1d (default 1s)."),
            "cap": SchemaFragment.ref("positiveDuration", "base to 1d (default 5m)."),
            "jitter": ["enum": ["full", "decorrelated", "none"],
                       "description": "full: U(0, min(cap, base·2^(n−1))); decorrelated: min(cap, U(base, 3·previous)); none (default full)."],
        ])
    public init(_ node: InputNode, in context: PluginContext) throws {
        let limit = ScenarioLoader.Limits.delay
        let base = try node.value("base", default: Int64.second) { try $0.duration(in: 10 * Int64.millisecond...limit) }
        let cap = try node.value("cap", default: max(5 * Int64.minute, base)) { n -> Int64 in
            let cap = try n.duration(in: 10 * Int64.millisecond...limit)
            guard cap >= base else {
                throw n.error("must be at least base (\(Units.formatDuration(base))); got \(InputNode.describeScalar(n.value))")
            }
            return cap
        }
        let jitter = try node.value("jitter", default: Jitter.full) { n -> Jitter in
            let text = try n.string()
            guard let j = Jitter(rawValue: text) else {
                throw n.error("expected one of \"full\", \"decorrelated\", \"none\"; got \(InputNode.describeScalar(n.value))")
            }
            return j
        }
        self.init(base: base, cap: cap, jitter: jitter)
    }
    public var summary: String {
        "exponential backoff from \(Units.formatDuration(base)) capped at \(Units.formatDuration(cap)), \(jitter.rawValue) jitter"
    }
}
