import SyncLabKernel

/// Refetch right after the server publishes a new file, plus a random offset.
///
/// The server's compile job publishes a fresh file `lag` after each cron period boundary
/// (boundaries of unix server time). A client that refetches just after a publication gets the
/// longest look-ahead for its request; the random `offset` spreads the players who load together
/// (a release) over the following seconds instead of all hitting the same second. The due
/// instant is found in estimated server time: the first publication instant (boundary + lag)
/// at least `after` past the load, plus an offset uniform over the whole nanoseconds of
/// [0, `window`] (one draw from the design stream), turned into a reading of the measuring
/// clock through the sync anchor.
public struct AlignedToPublicationRefetch: RefetchPolicy, Equatable {
    /// The server's publication period (its generation cron, 1 min in the seeds).
    public var period: Nanoseconds
    /// Expected time from a period boundary to the file being published.
    public var lag: Nanoseconds
    /// Shortest time after a load before refetching.
    public var after: Nanoseconds
    /// The random offset after the publication instant is uniform on [0, window].
    public var window: Nanoseconds

    public init(period: Nanoseconds = .minute, lag: Nanoseconds = 10 * .second, after: Nanoseconds = 6 * .minute,
                window: Nanoseconds = 30 * .second) {
        precondition(period > 0 && lag >= 0 && after >= 0 && window >= 0)
        self.period = period
        self.lag = lag
        self.after = after
        self.window = window
    }

    public var name: String { Self.kind }

    /// The first publication instant (server time, ns since the epoch) at or after `s`.
    public func publication(atOrAfter s: Int64, epochUnix: Int64) -> Int64 {
        ceilDiv(epochUnix &+ s &- lag, period) &* period &- epochUnix &+ lag
    }

    public func refetchDue(after load: LoadContext, _ rng: inout RandomStream) -> ClockReading {
        let publication = publication(atOrAfter: load.serverTimeAtLoad &+ after, epochUnix: load.epochUnix)
        let due = publication &+ Int64(rng.below(UInt64(window) + 1))
        return max(load.loadedAt, load.anchor.reading(atServerTime: due))
    }
}

extension AlignedToPublicationRefetch: Plugin {
    public static let family = PluginFamily.refetch
    public static let kind = "aligned-to-publication"
    public static let schema = SchemaFragment(
        "Right after the server publishes a new file, plus a random offset.",
        properties: [
            "period": SchemaFragment.ref("positiveDuration", "The server's publication period: 1s to 1d (default 1m)."),
            "lag": SchemaFragment.ref("duration", "Expected time from a period boundary to the publication: 0 to 1d (default 10s)."),
            "after": SchemaFragment.ref("duration", "Shortest time after a load before refetching: 0 to 1d (default 6m)."),
            "window": SchemaFragment.ref("duration", "The random offset after the publication is uniform on [0, window]: 0 to 1d (default 30s)."),
        ])

    public init(_ node: InputNode, in context: PluginContext) throws {
        let limit = ScenarioLoader.Limits.delay
        self.init(period: try node.value("period", default: Int64.minute) { try $0.duration(in: Int64.second...limit) },
                  lag: try node.value("lag", default: 10 * Int64.second) { try $0.duration(in: 0...limit) },
                  after: try node.value("after", default: 6 * Int64.minute) { try $0.duration(in: 0...limit) },
                  window: try node.value("window", default: 30 * Int64.second) { try $0.duration(in: 0...limit) })
    }

    public var summary: String {
        "at the first publication (\(Units.formatDuration(lag)) after a \(Units.formatDuration(period)) boundary) "
            + "at least \(Units.formatDuration(after)) after each load, plus uniform 0–\(Units.formatDuration(window))"
    }
}
