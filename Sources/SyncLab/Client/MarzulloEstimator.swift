import SyncLabKernel

/// Marzullo's intersection (1984) over the last `window` probes, as RFC 5905 §11.2.1's select
/// algorithm uses it: the offset most probes' intervals agree on, when a majority of them do.
///
/// Each probe gives an interval of the true offset, its RFC 5905 θ ± its one-exchange
/// half-width (`NTPEstimator.bound`: half the delay, the server's resolution and the clock
/// terms), carried to the newest reading R as `ProbeWindow` does. A sweep over the intervals'
/// ends, sorted, with a start before an end at the same point (closed intervals that touch
/// agree there), finds the largest number c of intervals with a common point and the regions
/// where c of them overlap.
///
/// - Majority: as in RFC 5905, the selection stands only if c > n/2 of the n intervals agree
///   (the truechimers must be a majority). Then the anchor is the midpoint of the selected
///   region, and its ± bound half the region's width, rounded up (the intervals already hold
///   the clock terms), which covers the truth when the truth lies in every agreeing interval.
/// - Tie: when several separate regions each have c intervals in common, the selection spans
///   from the lowest to the highest of them, as RFC 5905's select algorithm reports the
///   interval from the lowest to the highest point where that many agree; its midpoint and
///   half-width follow, so the bound still covers whichever region holds the truth.
/// - No majority: the estimator keeps its previous selection (its anchor and bound, which grow
///   with age as any anchor's do); before any, it takes the newest probe's own NTP offset and
///   claims no bound (`.unbounded`): nothing says which server to believe.
///
/// Every probe votes, whichever server answered; with `perServer` only each server's newest
/// probe in the window does. Memory per client: 1 + 4·window words for the window, then 3 for
/// the previous selection (server time, reading, half-width + 1; 0: none).
public struct MarzulloEstimator: SyncEstimator {
    public static let maximumWindow = 64
    /// Probes whose intervals are intersected.
    public var window: Int
    /// Only each server's newest probe in the window votes.
    public var perServer: Bool

    public init(window: Int = 5, perServer: Bool = false) {
        precondition(window >= 1 && window <= MarzulloEstimator.maximumWindow)
        self.window = window
        self.perServer = perServer
    }

    public var name: String { Self.kind }

    /// One exchange alone: NTP's offset at its T4.
    public func anchor(for s: SyncSample) -> SyncAnchor { NTPEstimator().anchor(for: s) }
    public func halfWidth(for s: SyncSample, _ m: BoundModel) -> SyncBound { .halfWidth(NTPEstimator.bound(s, m)) }

    public var memoryWords: Int { ProbeWindow.words(window) + 3 }
    public var readsEveryProbe: Bool { true }

    /// What the intersection found: the selected region [lower, upper] and how many of the
    /// intervals agree on it.
    public struct Selection: Sendable, Equatable {
        public var lower: Int64
        public var upper: Int64
        /// Intervals with a common point in the selected region (the largest such number).
        public var agreeing: Int
        /// Intervals considered.
        public var of: Int
        /// Whether a strict majority agrees (agreeing > of / 2).
        public var isMajority: Bool { 2 * agreeing > of }
        /// The midpoint, rounded toward −∞, and the half-width, rounded up.
        public var midpoint: Int64 { lower &+ floorDiv(upper &- lower, 2) }
        public var halfWidth: Int64 { (upper &- lower &+ 1) / 2 }
    }

    /// Marzullo's sweep over closed intervals `[lower, upper]` (for tests and tools).
    public static func select(_ intervals: [ClosedRange<Int64>]) -> Selection {
        precondition(!intervals.isEmpty)
        var edges = [Edge]()
        for r in intervals { edges += [Edge(at: r.lowerBound, start: true), Edge(at: r.upperBound, start: false)] }
        return edges.withUnsafeMutableBufferPointer { select($0) }
    }

    /// An interval's end: its point, and whether the interval starts there.
    struct Edge {
        var at: Int64
        var start: Bool
        /// Sweep order: by point, a start before an end at the same point.
        func precedes(_ o: Edge) -> Bool { at < o.at || (at == o.at && start && !o.start) }
    }

    /// The sweep over `edges` (two per interval, sorted here in place).
    static func select(_ edges: UnsafeMutableBufferPointer<Edge>) -> Selection {
        // Insertion sort: at most 128 edges, and no allocation; stable, so equal edges keep order.
        for i in 1..<max(edges.count, 1) {
            let e = edges[i]
            var j = i
            while j > 0 && e.precedes(edges[j - 1]) {
                edges[j] = edges[j - 1]
                j -= 1
            }
            edges[j] = e
        }
        var depth = 0, best = 0
        var lower: Int64 = 0, upper: Int64 = 0
        for (k, e) in edges.enumerated() {
            if e.start {
                depth += 1
                if depth > best {
                    // A new largest agreeing set: its region starts here and ends at the next end.
                    best = depth
                    lower = e.at
                    upper = edges[k + 1].at
                } else if depth == best {
                    // Another region as large: the selection spans to its end (the tie rule).
                    upper = edges[k + 1].at
                }
            } else {
                depth -= 1
            }
        }
        return Selection(lower: lower, upper: upper, agreeing: best, of: edges.count / 2)
    }

    public func estimate(for s: SyncSample, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
        ProbeWindow.one(s) { estimate(probes: $0, best: 0, memory: &memory, m) }
    }

    public func estimate(probes: Span<SyncSample>, best: Int, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
        let kept = ProbeWindow.words(window)
        let (selection, reading) = ProbeWindow.votes(probes, window: window, perServer: perServer, memory: &memory, m) {
            votes, reading in
            let selection = withUnsafeTemporaryAllocation(of: Edge.self, capacity: 2 * votes.count) { edges in
                for (i, v) in votes.enumerated() {
                    edges.initializeElement(at: 2 * i, to: Edge(at: v.offset &- v.halfWidth, start: true))
                    edges.initializeElement(at: 2 * i + 1, to: Edge(at: v.offset &+ v.halfWidth, start: false))
                }
                return Self.select(edges)
            }
            return (selection, reading)
        }
        if selection.isMajority {
            let anchor = SyncAnchor(serverTime: reading.ns &+ selection.midpoint, reading: reading)
            memory[kept] = anchor.serverTime
            memory[kept + 1] = anchor.reading.ns
            memory[kept + 2] = selection.halfWidth &+ 1
            return SyncEstimate(anchor: anchor, bound: .halfWidth(selection.halfWidth), boundGrowthPPB: m.maxDriftPPB)
        }
        if memory[kept + 2] > 0 {
            return SyncEstimate(anchor: SyncAnchor(serverTime: memory[kept], reading: ClockReading(ns: memory[kept + 1])),
                                bound: .halfWidth(memory[kept + 2] &- 1), boundGrowthPPB: m.maxDriftPPB)
        }
        let newest = probes[probes.count - 1]
        return SyncEstimate(anchor: anchor(for: newest), bound: .unbounded, boundGrowthPPB: m.maxDriftPPB)
    }
}

extension MarzulloEstimator: Plugin {
    public static let family = PluginFamily.estimator
    public static let kind = "marzullo"
    public static let schema = SchemaFragment(
        "Marzullo's intersection of the last window probes' intervals (RFC 5905 selection): the midpoint where a majority agrees.",
        properties: [
            "window": ["type": "integer", "minimum": 1, "maximum": .integer(maximumWindow),
                       "description": "Probes whose intervals (offset ± half the delay and clock terms) are intersected, across syncs (default 5)."],
            "perServer": ["type": "boolean",
                          "description": "Only each server's newest probe in the window votes (default false: every probe votes)."],
        ])
    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(window: try node.value("window", default: 5) { try $0.int(min: 1, max: MarzulloEstimator.maximumWindow) },
                  perServer: try node.value("perServer", default: false) { try $0.bool() })
    }
    public var summary: String {
        "midpoint of the largest agreeing set of the last \(window) probes' intervals (Marzullo), kept when no majority agrees"
            + (perServer ? ", each server's newest voting once" : "")
    }
    public var settings: String? { "Marzullo intersection over the last \(window) probes" + (perServer ? " (one vote per server)" : "") }
}
