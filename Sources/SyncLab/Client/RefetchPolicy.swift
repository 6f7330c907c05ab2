import SyncLabKernel

/// When a client fetches the store file again after a successful load: a named plug-in.
/// The delay is counted on the client's measuring clock, as the seeds' app did.
public protocol RefetchPolicy: Sendable {
    var name: String { get }
    /// Delay after a load, drawn from the client's design stream.
    func delayAfterLoad(_ rng: inout RandomStream) -> Nanoseconds
}

/// The seeds: "a random time between 6 and 9 minutes" after each load, to spread requests.
public struct UniformWindowRefetch: RefetchPolicy {
    public var minimum: Nanoseconds
    public var maximum: Nanoseconds
    public init(minimum: Nanoseconds = 6 * .minute, maximum: Nanoseconds = 9 * .minute) {
        precondition(0 < minimum && minimum <= maximum)
        self.minimum = minimum
        self.maximum = maximum
    }
    public var name: String { "uniform-after-load" }
    public func delayAfterLoad(_ rng: inout RandomStream) -> Nanoseconds {
        minimum &+ Int64(rng.below(UInt64(maximum - minimum) + 1))
    }
}

/// How long a client waits after a failed fetch before trying again: a named plug-in.
public protocol RetryPolicy: Sendable {
    var name: String { get }
    /// Delay before attempt number `failures + 1`, given `failures` consecutive failures (≥ 1).
    func delay(afterFailures failures: Int, _ rng: inout RandomStream) -> Nanoseconds
}

/// The seeds: "try and reload after 5 seconds until such a time that it gets data".
public struct FixedIntervalRetry: RetryPolicy {
    public var interval: Nanoseconds
    public init(interval: Nanoseconds = 5 * .second) {
        precondition(interval > 0)
        self.interval = interval
    }
    public var name: String { "fixed" }
    public func delay(afterFailures failures: Int, _ rng: inout RandomStream) -> Nanoseconds { interval }
}
