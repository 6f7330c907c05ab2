import SyncLabKernel

/// One request of a traced player (`run --trace-requests N`), as requests.csv writes it. Times
/// are ns of true time from the window's start; readings are the design clock's, ns.
public struct TraceRow: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// The response arrived and the client used it.
        case answered
        /// The client noticed a failure (lost, refused, past its time-out).
        case failed
        /// Still on its way when the player sent another request or the run ended.
        case unfinished
    }

    /// What a request asks for.
    public enum Kind: String, Sendable {
        /// The store file (a probe of the round when the probes fetch it).
        case store
        /// The light time endpoint (`client.probeTarget`).
        case timeEndpoint = "time-endpoint"
    }

    public var player: Int
    public var link: Int
    public var kind: Kind = .store
    /// Which probe of its sync's round it is, from 1; nil for the store fetch that follows a time
    /// endpoint's probes (it syncs nothing).
    public var probe: Int? = nil
    /// When the app asked for the request, and the device's reading then.
    public var sent: Int64
    public var sentReading: Int64
    /// Radio promotion and connection set-up paid before it left (ns, 0: none).
    public var promotion: Int64 = 0
    public var setup: Int64 = 0
    /// Added delay of lost segments, request and response (ns).
    public var requestRetransmit: Int64 = 0
    public var responseRetransmit: Int64 = 0
    /// At the server: arrival, queue wait, service start, the stamp it wrote (server time of the
    /// window, ns), and when the response left.
    public var reachedServer: Int64? = nil
    public var waited: Int64? = nil
    public var served: Int64? = nil
    public var stamp: Int64? = nil
    public var responseStart: Int64? = nil
    /// When the response (or the failure) reached the client, and the device's reading then.
    public var end: Int64? = nil
    public var endReading: Int64? = nil
    public var outcome: Outcome = .unfinished
}

/// The rows of the traced players of one world: one open row per player while its request is
/// on its way. Nothing here draws a random number.
struct RequestTrace {
    /// Traced players of this world (local index) → their open row's index in `rows`.
    var open: [Int: Int]
    var rows: [TraceRow] = []
    let first: Int

    init(players traced: [Int], in range: Range<Int>) {
        first = range.lowerBound
        open = Dictionary(uniqueKeysWithValues: traced.filter { range.contains($0) }.map { ($0 - range.lowerBound, -1) })
    }

    @inline(__always) func traces(_ c: Int) -> Bool { open[c] != nil }

    mutating func sent(_ c: Int, link: Int, kind: TraceRow.Kind, probe: Int?, at t: Int64, reading: Int64) {
        open[c] = rows.count
        rows.append(TraceRow(player: first + c, link: link, kind: kind, probe: probe, sent: t, sentReading: reading))
    }

    /// Changes player c's open row, if any.
    mutating func update(_ c: Int, _ change: (inout TraceRow) -> Void) {
        guard let i = open[c], i >= 0 else { return }
        change(&rows[i])
    }

    /// Closes player c's open row with `outcome` at t.
    mutating func close(_ c: Int, _ outcome: TraceRow.Outcome, at t: Int64, reading: Int64) {
        update(c) {
            $0.end = t
            $0.endReading = reading
            $0.outcome = outcome
        }
        if open[c] != nil { open[c] = -1 }
    }

    /// The traced players: the `count` players of `players` whose viewer-subset key
    /// (`ShowSummaries.playerKey`) is smallest, so the trace draws from the same hash as the
    /// viewer subsets and the same players whatever the thread count.
    static func players(_ count: Int, of players: Int) -> [Int] {
        guard count > 0 else { return [] }
        if count >= players { return Array(0..<players) }
        // Keep the `count` smallest keys seen so far (a sorted window; count is at most 10,000).
        var best: [(key: UInt64, player: Int)] = []
        best.reserveCapacity(count + 1)
        for p in 0..<players {
            let key = ShowSummaries.playerKey(p)
            if best.count == count, let last = best.last, key >= last.key { continue }
            var lo = 0, hi = best.count
            while lo < hi { let mid = (lo + hi) / 2; if best[mid].key <= key { lo = mid + 1 } else { hi = mid } }
            best.insert((key, p), at: lo)
            if best.count > count { best.removeLast() }
        }
        return best.map(\.player).sorted()
    }
}

extension World {
    /// The design clock's reading of player c at t, ns (for the trace).
    func traceReading(_ c: Int, at t: SimTime) -> Int64 { design.clocks.reading(clients[c].device, at: t).ns }
}
