import SyncLabKernel

/// Where each client's design memory lives in `World.memory`: one flat array of Int64
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
        // The best probe so far, or every probe of the round for an estimator that reads them all.
        probeWords = design.probes <= 1 ? 0 : ProbeExchange.words * (design.estimator.readsEveryProbe ? design.probes : 1)
        retryWords = design.retry.usesPreviousDelay ? 1 : 0
    }

    /// Bytes per client.
    var bytesPerClient: Int { 8 * stride }
}

/// How `World.syncEstimate` treats the estimator's memory: a round's estimate, kept when the
/// design admits its bound (`round`, `client.maxSyncBound`); one probe's, on a copy that is
/// dropped (`firstAnswer`, `client.showFirstAnswerWithin`).
enum EstimateMode { case round, firstAnswer }

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
    static let words = 10
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
    /// The fleet's index of the server that answered (`SyncSample.server`).
    var server: Int = 0
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
        let r = self[requestOf: c]
        let read = design.readsResponseHeaders ? r.headersAt : t
        // A stamp depends only on the server's exact clock: a response that leaves at the
        // instant the request was stamped carries the request's stamp (no division to redo).
        let left = r.leftAt
        // A server clock fault may move the offset between the stamp and the response leaving.
        let offset = server.serving.map { $0.faults.isEmpty ? r.serverOffset
            : $0.offset(Int(r.server), at: left) } ?? r.serverOffset
        let transmit = server.store.clock(at: left, offset: offset) == r.exactStamp
            ? r.timestamp : server.store.timestamp(at: left, clockOffset: offset)
        return ProbeExchange(sentAt: r.sentAt, uploadCompleteAt: r.uploadCompleteAt, doneAt: read,
                      timestamp: r.timestamp,
                      transmit: transmit,
                      arrivedAt: r.arrivedAt, leftAt: r.leftAt,
                      exactStamp: r.exactStamp, serverOffset: r.serverOffset,
                      server: Int(r.server))
    }

    /// A round of n probes (`client.probes`): records probe `e`; once all n answered, returns the
    /// round's exchange with the smallest round trip on the measuring clock (the earlier on a
    /// tie) and its index in the round, else nil (the caller sends the next probe). For an
    /// estimator that reads every probe each is kept in its own slot, else only the best so far.
    mutating func probeRound(_ c: Int, _ e: ProbeExchange) -> (best: ProbeExchange, index: Int)? {
        let n = scenario.client.probes
        let done = Int(clients[c].probesDone) + 1
        let clocks = design.clocks, device = clients[c].device
        func roundTrip(_ x: ProbeExchange) -> Nanoseconds {
            clocks.reading(device, at: x.doneAt) - clocks.reading(device, at: x.sentAt)
        }
        let every = design.estimator.readsEveryProbe
        if every {
            storeProbe(c, slot: done - 1, e)
        } else if done > 1 {
            let kept = probe(c, slot: 0)
            if roundTrip(kept) > roundTrip(e) { storeProbe(c, slot: 0, e) }
        } else {
            storeProbe(c, slot: 0, e)
        }
        guard done >= n else {
            clients[c].probesDone = UInt8(done)
            return nil
        }
        clients[c].probesDone = 0
        guard every else { return (probe(c, slot: 0), 0) }
        var best = 0, bestTrip = roundTrip(probe(c, slot: 0))
        for k in 1..<n {
            let trip = roundTrip(probe(c, slot: k))
            if trip < bestTrip { (best, bestTrip) = (k, trip) }
        }
        return (probe(c, slot: best), best)
    }

    /// Probe `slot` of player c's round in progress.
    mutating func probe(_ c: Int, slot: Int) -> ProbeExchange {
        withDesignMemory(c, memory.layout.probeOffset + slot * ProbeExchange.words, ProbeExchange.words) { m in
            ProbeExchange(sentAt: SimTime(ns: m[0]), uploadCompleteAt: SimTime(ns: m[1]), doneAt: SimTime(ns: m[2]),
                          timestamp: m[3], transmit: m[4], arrivedAt: SimTime(ns: m[5]), leftAt: SimTime(ns: m[6]),
                          exactStamp: m[7], serverOffset: m[8], server: Int(m[9]))
        }
    }

    mutating func storeProbe(_ c: Int, slot: Int, _ e: ProbeExchange) {
        withDesignMemory(c, memory.layout.probeOffset + slot * ProbeExchange.words, ProbeExchange.words) { m in
            (m[0], m[1], m[2], m[3], m[4]) = (e.sentAt.ns, e.uploadCompleteAt.ns, e.doneAt.ns, e.timestamp, e.transmit)
            (m[5], m[6], m[7], m[8], m[9]) = (e.arrivedAt.ns, e.leftAt.ns, e.exactStamp, e.serverOffset, Int64(e.server))
        }
    }

    /// The design's estimate for the round that ended at t with sample `s` (its best probe, index
    /// `best`), with the estimator's memory and the drift correction. An estimator that reads
    /// every probe gets the round's samples, read with the design clock as `s` was. The memory
    /// is cleared at the first sync after an app start (it lived in the killed process), unless
    /// the design keeps its sync across launches and one was restored.
    ///
    /// With `client.maxSyncBound` the estimate is worked out on a copy of the memory, kept only
    /// when the design admits its bound: a round not used leaves the estimator as it was. `mode`
    /// `.firstAnswer` takes `s` alone, as if it were a round of one, on a copy that is always
    /// dropped (`showFirstAnswerWithin`): the round's estimate, when it lands, is the one it would
    /// have been without it. The memory is still cleared if the app has started since its last
    /// sync, as the round's end would clear it.
    mutating func syncEstimate<C: DeviceClock, T: DeviceClock>(_ c: Int, _ s: SyncSample, best: Int, at t: SimTime,
                                                               _ d: DesignClocks<C, T>, mode: EstimateMode = .round) -> SyncEstimate {
        let model = design.boundModel
        let layout = memory.layout
        let words = layout.estimatorWords + layout.driftWords
        let estimator = design.estimator
        let drift = scenario.client.driftCorrection
        let n = estimator.readsEveryProbe && mode != .firstAnswer ? scenario.client.probes : 1
        // The round's samples on the stack: no allocation per sync.
        return withUnsafeTemporaryAllocation(of: SyncSample.self, capacity: n) { buffer in
            if n == 1 {
                buffer.initialize(repeating: s)
            } else {
                let device = clients[c].device
                // The best probe's sample is `s`, already read; the others are read here.
                for k in 0..<n {
                    (buffer.baseAddress! + k).initialize(to: k == best ? s : designSync(device, ShadowExchange(probe(c, slot: k)), at: t, d, server: probe(c, slot: k).server).0)
                }
            }
            defer { buffer.deinitialize() }
            let probes = unsafe Span(_unsafeElements: UnsafeBufferPointer(buffer))
            let index = n == 1 ? 0 : best
            guard words > 0 else {
                var none = MutableSpan<Int64>()
                return estimator.estimate(probes: probes, best: index, memory: &none, model)
            }
            let fresh = !clients[c].hasSync
            let limit = design.maxSyncBound
            return withDesignMemory(c, 0, words) { m in
                if fresh { m.update(repeating: 0) }
                if mode == .round && limit < 0 { return Self.estimate(estimator, drift, probes, index, m, layout, model) }
                return withUnsafeTemporaryAllocation(of: Int64.self, capacity: words) { copy in
                    _ = copy.initialize(fromContentsOf: m)
                    let e = Self.estimate(estimator, drift, probes, index, copy, layout, model)
                    if mode == .round && ResolvedDesign.admits(e.bound, limit: limit) { _ = m.update(fromContentsOf: copy) }
                    return e
                }
            }
        }
    }

    /// The estimator's estimate with its memory words `m` (the estimator's, then the drift
    /// correction's), and the drift correction applied.
    private static func estimate(_ estimator: any SyncEstimator, _ drift: DriftCorrection?, _ probes: Span<SyncSample>,
                                 _ best: Int, _ m: UnsafeMutableBufferPointer<Int64>,
                                 _ layout: DesignMemoryLayout, _ model: BoundModel) -> SyncEstimate {
        var own = unsafe MutableSpan(_unsafeElements: m[0..<layout.estimatorWords])
        var e = estimator.estimate(probes: probes, best: best, memory: &own, model)
        if let drift {
            var driftWords = unsafe MutableSpan(_unsafeElements: m[layout.driftOffset..<(layout.estimatorWords + layout.driftWords)])
            e = drift.apply(e, memory: &driftWords, model)
        }
        return e
    }

    /// `syncEstimate(_:_:best:at:_:)` for a round of one probe, `s`.
    mutating func syncEstimate(_ c: Int, _ s: SyncSample) -> SyncEstimate {
        syncEstimate(c, s, best: 0, at: .zero, design.clocks)
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
