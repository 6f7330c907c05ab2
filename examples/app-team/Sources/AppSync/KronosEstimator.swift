import SyncLab

/// The estimator of a Kronos-style NTP client, as an app team would port it to SyncLab.
///
/// Kronos asks several servers of an NTP pool, sends each a few queries, keeps each server's
/// exchange with the lowest round-trip delay, and takes the median of those servers' clock
/// offsets. SyncLab's client talks to one server (the store file's), so the "servers" here are
/// the last `servers` syncs, and a sync's several exchanges are its probes: with
/// `client.probes` = 4 (Kronos's samples per server) the world sends four back-to-back requests
/// and hands the estimator the one with the smallest round trip. Each sync's offset is NTP's
/// θ = ((T2 − T1) + (T3 − T4)) / 2 (`NTPEstimator.offset`), and the estimate is the median θ
/// of the kept syncs, applied at this sync's download-complete reading.
///
/// What this honestly differs from Kronos in: the kept offsets are of one server at different
/// times, not of different servers at once, so a clock that paused in standby since an older sync
/// leaves that sync's offset stale (the median outvotes one stale offset, not a majority); and,
/// like Kronos, it claims no ± bound, which SyncLab reports as "no bound".
///
/// Memory per client: 1 + `servers` words (syncs so far; the offsets, a ring).
public struct KronosEstimator: SyncEstimator, Equatable {
    public static let maximumServers = 16
    /// Syncs whose offsets the median is taken over (Kronos: at most 5 servers).
    public var servers: Int

    public init(servers: Int = 5) {
        precondition((1...Self.maximumServers).contains(servers))
        self.servers = servers
    }

    public var name: String { Self.kind }

    /// One exchange alone: its own offset at its own reading.
    public func anchor(for s: SyncSample) -> SyncAnchor {
        SyncAnchor(serverTime: s.downloadComplete.ns &+ NTPEstimator.offset(s), reading: s.downloadComplete)
    }

    public var memoryWords: Int { 1 + servers }

    public func estimate(for s: SyncSample, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
        let count = memory[0]
        memory[1 + Int(count % Int64(servers))] = NTPEstimator.offset(s)
        memory[0] = count &+ 1
        let kept = Int(min(count &+ 1, Int64(servers)))
        let median = Self.median(of: memory, from: 1, count: kept)
        return SyncEstimate(anchor: SyncAnchor(serverTime: s.downloadComplete.ns &+ median, reading: s.downloadComplete),
                            bound: .unbounded, boundGrowthPPB: m.maxDriftPPB)
    }

    /// The median of `count` words from `start` (the mean of the middle two, rounded toward −∞,
    /// for an even count), without sorting or allocating: the estimator runs at every sync, and
    /// `count` ≤ 16 makes the O(count²) rank search cheap.
    static func median(of words: borrowing MutableSpan<Int64>, from start: Int, count: Int) -> Int64 {
        func ranked(_ rank: Int) -> Int64 {
            for i in start..<(start + count) {
                var below = 0, atMost = 0
                for j in start..<(start + count) {
                    if words[j] < words[i] { below += 1 }
                    if words[j] <= words[i] { atMost += 1 }
                }
                if below <= rank && rank < atMost { return words[i] }
            }
            preconditionFailure("no value of rank \(rank) among \(count)")
        }
        let upper = ranked(count / 2)
        guard count % 2 == 0 else { return upper }
        let lower = ranked(count / 2 - 1)
        return lower &+ floorDiv(upper &- lower, 2)
    }
}

extension KronosEstimator: Plugin {
    public static let family = PluginFamily.estimator
    public static let kind = "kronos"
    public static let schema = SchemaFragment(
        "Kronos-style: median NTP offset of the last syncs, each the best of its probes (an app team's estimator).",
        properties: ["servers": ["type": "integer", "minimum": 1, "maximum": .integer(maximumServers),
                                 "description": "Syncs the median is taken over (default 5)."]])

    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(servers: try node.value("servers", default: 5) { try $0.int(min: 1, max: KronosEstimator.maximumServers) })
    }

    public var summary: String { "median NTP offset of the last \(servers) syncs (Kronos-style, no ± bound)" }
}
