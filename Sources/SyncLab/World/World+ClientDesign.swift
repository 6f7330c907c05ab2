import SyncLabKernel

/// Where each client's design memory lives in `World.designMemory`: one flat array of Int64
/// words, `stride` per client, sized only for what the design uses (0 bytes for the seeds'
/// design). A million clients with an 8-sample NTP filter and drift correction take
/// (33 + 5) × 8 B = 304 MB here, and nothing per client on the heap.
struct DesignMemoryLayout: Equatable {
    /// The estimator's words (its filter window), then the drift correction's, the best probe
    /// of a round, and the previous retry delay.
    var estimatorWords = 0, driftWords = 0, probeWords = 0, retryWords = 0
    var driftOffset: Int { estimatorWords }
    var probeOffset: Int { estimatorWords + driftWords }
    var retryOffset: Int { estimatorWords + driftWords + probeWords }
    var stride: Int { estimatorWords + driftWords + probeWords + retryWords }

    static let none = DesignMemoryLayout()

    init() {}

    init(_ design: ClientDesign) {
        estimatorWords = design.estimator.memoryWords
        driftWords = design.driftCorrection == nil ? 0 : DriftCorrection.memoryWords
        probeWords = design.probes > 1 ? ProbeExchange.words : 0
        retryWords = design.retry.usesPreviousDelay ? 1 : 0
    }

    /// Bytes per client.
    var bytesPerClient: Int { 8 * stride }
}

/// One request's exchange as the world saw it: true instants and the server's stamps, so the
/// same exchange can be read with any device clock (the design's and the reference clocks).
/// The client design's per-player words, one block of `layout.stride` per player, zeroed at
/// every app start.
struct DesignMemory {
    let layout: DesignMemoryLayout
    var words: [Int64]

    init(_ design: ClientDesign, players: Int) {
        layout = DesignMemoryLayout(design)
        words = [Int64](repeating: 0, count: players * layout.stride)
    }
}

struct ProbeExchange: Equatable {
    static let words = 9
    var sentAt: SimTime
    var uploadCompleteAt: SimTime
    var doneAt: SimTime
    var timestamp: Int64
    var transmit: Int64
    /// The server side, for attributing error (`ErrorSource`): when the request arrived and its
    /// response left (true time), the stamping server's exact clock when it stamped, its offset.
    var arrivedAt: SimTime
    var leftAt: SimTime
    var exactStamp: Int64
    var serverOffset: Int64

}

extension Scenario {
    /// What the client may assume for its ± bound: the server's documented timestamp
    /// resolution, its measuring clock's resolution and the drift it allows for.
    public var boundModel: BoundModel {
        BoundModel(serverResolution: server.timestampResolution, clockResolution: client.clock.resolution,
                   maxDriftPPB: Int64((client.maxDriftPPM * 1_000).rounded()))
    }

    /// Bytes per player of the client design's side memory (filter window, drift, probes, retry).
    public var designMemoryBytesPerPlayer: Int { DesignMemoryLayout(client).bytesPerClient }
}

extension World {
    /// Sizes the design memory for the scenario's client design (called once from `init`).
    @inline(__always)
    mutating func withDesignMemory<R>(_ c: Int, _ offset: Int, _ count: Int,
                                      _ body: (UnsafeMutableBufferPointer<Int64>) -> R) -> R {
        let start = c &* memory.layout.stride &+ offset
        return memory.words.withUnsafeMutableBufferPointer { all in
            body(UnsafeMutableBufferPointer(rebasing: all[start..<(start + count)]))
        }
    }

    /// The exchange of the request that just completed at t.
    @inline(__always) func currentExchange(_ c: Int, doneAt t: SimTime) -> ProbeExchange {
        let read = design.readsResponseHeaders ? clients[c].responseHeadersAt : t
        // A stamp depends only on the server's exact clock: a response that leaves at the
        // instant the request was stamped carries the request's stamp (no division to redo).
        let left = clients[c].responseLeftAt, offset = clients[c].requestServerOffset
        let transmit = server.store.clock(at: left, offset: offset) == clients[c].requestExactStamp
            ? clients[c].requestTimestamp : server.store.timestamp(at: left, clockOffset: offset)
        return ProbeExchange(sentAt: clients[c].requestSentAt, uploadCompleteAt: clients[c].uploadCompleteAt, doneAt: read,
                      timestamp: clients[c].requestTimestamp,
                      transmit: transmit,
                      arrivedAt: clients[c].requestArrivedAt, leftAt: clients[c].responseLeftAt,
                      exactStamp: clients[c].requestExactStamp, serverOffset: clients[c].requestServerOffset)
    }

    /// Best-of-n probes: records probe `e`; returns the round's exchange with the smallest round
    /// trip on the measuring clock (the earlier on a tie) once all `client.probes` answered, else
    /// nil (the caller sends the next probe).
    mutating func probeRound(_ c: Int, _ e: ProbeExchange) -> ProbeExchange? {
        let n = scenario.client.probes
        let done = Int(clients[c].probesDone) + 1
        let clocks = design.clocks, device = clients[c].device
        func roundTrip(_ x: ProbeExchange) -> Nanoseconds {
            clocks.reading(device, at: x.doneAt) - clocks.reading(device, at: x.sentAt)
        }
        var best = e
        if done > 1 {
            let kept = withDesignMemory(c, memory.layout.probeOffset, ProbeExchange.words) { m in
                ProbeExchange(sentAt: SimTime(ns: m[0]), uploadCompleteAt: SimTime(ns: m[1]), doneAt: SimTime(ns: m[2]),
                              timestamp: m[3], transmit: m[4], arrivedAt: SimTime(ns: m[5]), leftAt: SimTime(ns: m[6]),
                              exactStamp: m[7], serverOffset: m[8])
            }
            if roundTrip(kept) <= roundTrip(e) { best = kept }
        }
        if done >= n {
            clients[c].probesDone = 0
            return best
        }
        clients[c].probesDone = UInt8(done)
        withDesignMemory(c, memory.layout.probeOffset, ProbeExchange.words) { m in
            (m[0], m[1], m[2], m[3], m[4]) = (best.sentAt.ns, best.uploadCompleteAt.ns, best.doneAt.ns, best.timestamp, best.transmit)
            (m[5], m[6], m[7], m[8]) = (best.arrivedAt.ns, best.leftAt.ns, best.exactStamp, best.serverOffset)
        }
        return nil
    }

    /// The design's estimate for sample `s`, with its filter memory and drift correction. The
    /// memory is cleared at the first sync after an app start (it lived in the killed process).
    mutating func syncEstimate(_ c: Int, _ s: SyncSample) -> SyncEstimate {
        let model = design.boundModel
        let layout = memory.layout
        let words = layout.estimatorWords + layout.driftWords
        guard words > 0 else {
            var none = MutableSpan<Int64>()
            return design.estimator.estimate(for: s, memory: &none, model)
        }
        let fresh = !clients[c].hasSync
        let client = scenario.client
        return withDesignMemory(c, 0, words) { m in
            if fresh { m.update(repeating: 0) }
            var own = unsafe MutableSpan(_unsafeElements: m[0..<layout.estimatorWords])
            var e = client.estimator.estimate(for: s, memory: &own, model)
            if let drift = client.driftCorrection {
                var driftWords = unsafe MutableSpan(_unsafeElements: m[layout.driftOffset..<words])
                e = drift.apply(e, memory: &driftWords, model)
            }
            return e
        }
    }

    /// Retry delay after the failures so far, with the previous delay kept when the policy uses it.
    mutating func retryDelay(_ c: Int) -> Nanoseconds {
        let retry = scenario.client.retry
        let failures = Int(clients[c].consecutiveFailures)
        guard memory.layout.retryWords > 0 else { return retry.delay(afterFailures: failures, &clients[c].designRNG) }
        let index = c &* memory.layout.stride &+ memory.layout.retryOffset
        let delay = retry.delay(afterFailures: failures, previous: memory.words[index], &clients[c].designRNG)
        memory.words[index] = delay
        return delay
    }

    /// Records whether the estimate error at a sample lies inside the client's ± bound.
    @inline(__always)
    mutating func recordBound(_ s: UnsafePointer<ClientState>, reading: ClockReading, estimateError: Int64) {
        let bound = s.pointee.syncBound.grown(growthPPB: s.pointee.syncBoundGrowthPPB, age: reading - s.pointee.anchor.reading)
        measure.recorder.boundSample(bound, estimateError: estimateError, link: Int(s.pointee.link))
    }
}
