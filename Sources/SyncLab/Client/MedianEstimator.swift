import SyncLabKernel

/// The median of the offsets the last `window` probes measured: one server whose clock is
/// wrong is outvoted as long as fewer than half the votes are its.
///
/// Each probe's offset is RFC 5905's θ from its four timestamps (`NTPEstimator.offset`), kept in
/// a window of the last `window` probes since the app started, across sync rounds
/// (`ProbeWindow`). Every probe votes, whichever server answered it; with `perServer` only each
/// server's newest probe in the window votes, so a server that answered more of the probes
/// (random balancing) does not count more. An odd count takes the middle offset; an even count
/// the mean of the two middle ones, rounded toward −∞. The anchor is server time R + median at
/// the newest probe's reading R.
///
/// Bound: if fewer than half the votes are falsetickers (their server's clock is off by more
/// than their bound), the k-th smallest vote lies between the (k − f)-th and k-th smallest of the
/// truechimers', so both middle votes, and their mean, lie inside the truechimers' range, and
/// the error is at most the largest half-width in the window (each carried to R). Without that
/// majority nothing bounds it; the bound assumes it, as NTP's selection does.
///
/// Memory per client: 1 + 4·window words.
public struct MedianEstimator: SyncEstimator {
    public static let maximumWindow = 64
    /// Probes the median is taken over.
    public var window: Int
    /// Only each server's newest probe in the window votes.
    public var perServer: Bool

    public init(window: Int = 5, perServer: Bool = false) {
        precondition(window >= 1 && window <= MedianEstimator.maximumWindow)
        self.window = window
        self.perServer = perServer
    }

    public var name: String { Self.kind }

    /// One exchange alone: NTP's offset at its T4.
    public func anchor(for s: SyncSample) -> SyncAnchor { NTPEstimator().anchor(for: s) }
    public func halfWidth(for s: SyncSample, _ m: BoundModel) -> SyncBound { .halfWidth(NTPEstimator.bound(s, m)) }

    public var memoryWords: Int { ProbeWindow.words(window) }
    public var readsEveryProbe: Bool { true }

    public func estimate(for s: SyncSample, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
        ProbeWindow.one(s) { estimate(probes: $0, best: 0, memory: &memory, m) }
    }

    public func estimate(probes: Span<SyncSample>, best: Int, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
        ProbeWindow.votes(probes, window: window, perServer: perServer, memory: &memory, m) { votes, reading in
            let (median, bound) = Self.median(votes)
            return SyncEstimate(anchor: SyncAnchor(serverTime: reading.ns &+ median, reading: reading),
                                bound: .halfWidth(bound), boundGrowthPPB: m.maxDriftPPB)
        }
    }

    /// The median offset of `votes` (sorted in place by offset; an even count: the mean of the
    /// middle two, rounded toward −∞) and the largest half-width among them.
    static func median(_ votes: UnsafeMutableBufferPointer<ProbeWindow.Vote>) -> (offset: Int64, bound: Int64) {
        precondition(!votes.isEmpty)
        // Insertion sort: at most 64 votes, and no allocation.
        for i in 1..<max(votes.count, 1) {
            let v = votes[i]
            var j = i
            while j > 0 && votes[j - 1].offset > v.offset {
                votes[j] = votes[j - 1]
                j -= 1
            }
            votes[j] = v
        }
        let n = votes.count
        let offset = n % 2 == 1 ? votes[n / 2].offset
            : floorDiv(votes[n / 2 - 1].offset, 2) &+ floorDiv(votes[n / 2].offset, 2)
                &+ (votes[n / 2 - 1].offset & 1 == 1 && votes[n / 2].offset & 1 == 1 ? 1 : 0)
        var bound: Int64 = 0
        for v in votes { bound = max(bound, v.halfWidth) }
        return (offset, bound)
    }

    /// The median of `offsets` as the estimator takes it: for its own tests.
    public static func median(of offsets: [Int64]) -> Int64 {
        var votes = offsets.map { ProbeWindow.Vote(offset: $0, halfWidth: 0, server: 0) }
        return votes.withUnsafeMutableBufferPointer { median($0).offset }
    }
}

extension MedianEstimator: Plugin {
    public static let family = PluginFamily.estimator
    public static let kind = "median"
    public static let schema = SchemaFragment(
        "Median of the RFC 5905 offsets of the last window probes (outvotes a minority of wrong servers).",
        properties: [
            "window": ["type": "integer", "minimum": 1, "maximum": .integer(maximumWindow),
                       "description": "Probes the median is taken over, across syncs (default 5). An even count takes the mean of the middle two."],
            "perServer": ["type": "boolean",
                          "description": "Only each server's newest probe in the window votes (default false: every probe votes)."],
        ])
    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(window: try node.value("window", default: 5) { try $0.int(min: 1, max: MedianEstimator.maximumWindow) },
                  perServer: try node.value("perServer", default: false) { try $0.bool() })
    }
    public var summary: String {
        "median of the RFC 5905 offsets of the last \(window) probes" + (perServer ? ", each server's newest voting once" : "")
    }
    public var settings: String? { "median over the last \(window) probes" + (perServer ? " (one vote per server)" : "") }
}
