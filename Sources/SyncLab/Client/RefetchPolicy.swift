import SyncLabKernel

/// What a client knows when a load completes, for deciding when to refetch.
public struct LoadContext: Sendable, Equatable {
    /// Measuring-clock reading at download complete.
    public var loadedAt: ClockReading
    /// The sync just made: estimated server time at any reading.
    public var anchor: SyncAnchor
    /// Unix nanoseconds of server time zero: the server's cron runs on unix period boundaries.
    public var epochUnix: Int64
    public init(loadedAt: ClockReading, anchor: SyncAnchor, epochUnix: Int64) {
        self.loadedAt = loadedAt
        self.anchor = anchor
        self.epochUnix = epochUnix
    }
    /// Estimated server time at the load.
    public var serverTimeAtLoad: Int64 { anchor.serverTime(at: loadedAt) }
}

/// When a client fetches the store file again after a successful load: a named plug-in.
/// The due instant is a reading of the client's measuring clock, as the seeds' app counted it.
public protocol RefetchPolicy: Sendable {
    var name: String { get }
    /// The measuring-clock reading at which the next fetch falls due, drawing any randomness
    /// from the client's design stream.
    func refetchDue(after load: LoadContext, _ rng: inout RandomStream) -> ClockReading
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
    public func refetchDue(after load: LoadContext, _ rng: inout RandomStream) -> ClockReading {
        load.loadedAt + delayAfterLoad(&rng)
    }
}

/// How long a client waits after a failed fetch before trying again: a named plug-in.
public protocol RetryPolicy: Sendable {
    var name: String { get }
    /// Delay before attempt number `failures + 1`, given `failures` consecutive failures (≥ 1).
    func delay(afterFailures failures: Int, _ rng: inout RandomStream) -> Nanoseconds
    /// Whether `delay(afterFailures:previous:_:)` reads the previous delay (the world then keeps
    /// one word per client for it).
    var usesPreviousDelay: Bool { get }
    /// As `delay(afterFailures:_:)`, given the delay this client waited before the attempt that
    /// just failed (meaningful when failures ≥ 2).
    func delay(afterFailures failures: Int, previous: Nanoseconds, _ rng: inout RandomStream) -> Nanoseconds
}

extension RetryPolicy {
    public var usesPreviousDelay: Bool { false }
    public func delay(afterFailures failures: Int, previous: Nanoseconds, _ rng: inout RandomStream) -> Nanoseconds {
        delay(afterFailures: failures, &rng)
    }
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
