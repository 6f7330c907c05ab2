import SyncLabKernel

/// What one fetch tells a client about server time: the server's timestamp and the client's
/// own clock readings around the exchange. Never the true time.
public struct SyncSample: Sendable, Equatable {
    /// The server's timestamp, in server-time nanoseconds since the scenario epoch.
    public var serverTimestamp: Int64
    /// Reading when the request was sent.
    public var requestSent: ClockReading
    /// Reading when the last request byte left the device (the seeds' "upload complete").
    public var uploadComplete: ClockReading
    /// Reading when the last response byte arrived.
    public var downloadComplete: ClockReading
    /// The server's transmit timestamp (NTP's T3): server time when the response left, at the
    /// server's timestamp resolution, ns since the epoch. Defaults to the request timestamp.
    public var serverTransmit: Int64
    /// Which server answered: its index in the fleet (`server.fleet`), 0 without one. What a
    /// real client reads from the address it connected to or a header naming the server, so an
    /// estimator may group or outvote servers; it says nothing of that server's clock.
    public var server: Int

    public init(serverTimestamp: Int64, requestSent: ClockReading, uploadComplete: ClockReading,
                downloadComplete: ClockReading, serverTransmit: Int64? = nil, server: Int = 0) {
        self.serverTimestamp = serverTimestamp
        self.requestSent = requestSent
        self.uploadComplete = uploadComplete
        self.downloadComplete = downloadComplete
        self.serverTransmit = serverTransmit ?? serverTimestamp
        self.server = server
    }

    /// Round trip as the client's clock saw it.
    public var roundTrip: Nanoseconds { downloadComplete - requestSent }
}

/// A client's belief about server time: at clock reading `reading`, server time was `serverTime`.
///
/// `ratePPB` is an optional frequency correction (see `DriftCorrection`): server time advances
/// (10⁹ + ratePPB) ns per 10⁹ ns of the clock, in exact integer arithmetic; with 0 (no
/// correction) the arithmetic is exactly the plain `serverTime + (r − reading)`.
public struct SyncAnchor: Sendable, Equatable {
    public var serverTime: Int64
    public var reading: ClockReading
    public var ratePPB: Int64
    public init(serverTime: Int64, reading: ClockReading, ratePPB: Int64 = 0) {
        self.serverTime = serverTime
        self.reading = reading
        self.ratePPB = ratePPB
    }
    /// Estimated server time when the clock reads `r` (never incremented, always from the clock).
    @inlinable @inline(__always) public func serverTime(at r: ClockReading) -> Int64 {
        let elapsed = r - reading
        return serverTime &+ elapsed &+ Drift.scaled(elapsed, ppb: ratePPB)
    }
    /// The clock reading at which the estimated server time reaches `s` (the smallest reading
    /// whose estimate is ≥ s).
    @inlinable public func reading(atServerTime s: Int64) -> ClockReading {
        if ratePPB == 0 { return ClockReading(ns: reading.ns &+ (s &- serverTime)) }
        return ClockReading(ns: reading.ns &+ Drift.inverse(reaching: s &- serverTime, ppb: ratePPB))
    }
}

/// How a client turns a fetch into a sync anchor: a named plug-in.
///
/// `anchor(for:)` is the estimate from one exchange. An estimator with memory across syncs (a
/// filter window) says how many 64-bit words per client it needs in `memoryWords` and
/// implements `estimate(for:memory:_:)`; the world keeps those words in one flat array, zeroed at
/// every app start, and lends the client's words as a `MutableSpan`: bounds-checked, and it
/// cannot outlive the call, so an estimator cannot keep or overrun another client's memory.
/// `halfWidth(for:_:)` is the honest ± bound of the one-exchange estimate at its anchor reading
/// (see `SyncUncertainty.swift`), or `.unbounded` when it claims none.
///
/// A sync of `client.probes` > 1 sends that many requests back to back. By default the
/// estimator sees the best of them (the smallest round trip on the measuring clock) through
/// `estimate(for:memory:_:)`. One that filters across the probes of a round (RFC 5905's clock
/// filter, Kronos's per-server minimum, a median) says `readsEveryProbe` and implements
/// `estimate(probes:best:memory:_:)`, which gets them all.
public protocol SyncEstimator: Sendable {
    var name: String { get }
    func anchor(for sample: SyncSample) -> SyncAnchor
    /// ± bound of `anchor(for: sample)` at the anchor's reading, before it ages.
    func halfWidth(for sample: SyncSample, _ model: BoundModel) -> SyncBound
    /// Words of per-client memory the estimator keeps (0: stateless).
    var memoryWords: Int { get }
    /// The estimate with the client's memory (`memoryWords` words, all 0 after an app start
    /// unless the design keeps its sync across launches, `client.persistSync`).
    func estimate(for sample: SyncSample, memory: inout MutableSpan<Int64>, _ model: BoundModel) -> SyncEstimate
    /// Whether `estimate(probes:best:memory:_:)` reads more than the best probe (default false).
    /// When true the world keeps every probe of a round (10 words each per player while the
    /// round is under way) and calls it at the end of every round, of one probe or several.
    var readsEveryProbe: Bool { get }
    /// The estimate from every probe of one sync round, in the order they answered; `best` is
    /// the index of the one with the smallest round trip on the measuring clock (the earlier on a
    /// tie). Memory as in `estimate(for:memory:_:)`. The default passes `probes[best]` to it.
    func estimate(probes: Span<SyncSample>, best: Int, memory: inout MutableSpan<Int64>, _ model: BoundModel) -> SyncEstimate
}

extension SyncEstimator {
    public var memoryWords: Int { 0 }
    /// No bound known: an app team's estimator that does not say is reported as unbounded.
    public func halfWidth(for sample: SyncSample, _ model: BoundModel) -> SyncBound { .unbounded }
    public func estimate(for sample: SyncSample, memory: inout MutableSpan<Int64>, _ model: BoundModel) -> SyncEstimate {
        SyncEstimate(anchor: anchor(for: sample), bound: halfWidth(for: sample, model), boundGrowthPPB: model.maxDriftPPB)
    }
    public var readsEveryProbe: Bool { false }
    public func estimate(probes: Span<SyncSample>, best: Int, memory: inout MutableSpan<Int64>, _ model: BoundModel) -> SyncEstimate {
        estimate(for: probes[best], memory: &memory, model)
    }

    /// `estimate(probes:best:memory:_:)` with the probes and memory in arrays: for an
    /// estimator's own tests.
    public func estimate(probes: [SyncSample], best: Int, memory words: inout [Int64], _ model: BoundModel) -> SyncEstimate {
        words.withUnsafeMutableBufferPointer { buffer in
            var memory = unsafe MutableSpan(_unsafeElements: buffer)
            return estimate(probes: probes.span, best: best, memory: &memory, model)
        }
    }

    /// `estimate(for:memory:_:)` with the memory in an array (at least `memoryWords` long, all 0
    /// to start): for an estimator's own tests; the world lends a span of its flat storage.
    public func estimate(for sample: SyncSample, memory words: inout [Int64], _ model: BoundModel) -> SyncEstimate {
        words.withUnsafeMutableBufferPointer { buffer in
            var memory = unsafe MutableSpan(_unsafeElements: buffer)
            return estimate(for: sample, memory: &memory, model)
        }
    }
}

/// The seeds' estimator (v1.1.5): server time = timestamp + (download complete − upload
/// complete). It assumes the upload-complete instant is the server's request instant, but the
/// request still has one uplink delay to travel, so the estimate runs ahead by that delay, and
/// behind by however much the whole-second timestamp truncated.
public struct UploadCompleteEstimator: SyncEstimator {
    public init() {}
    public var name: String { "upload-complete" }
    public func anchor(for s: SyncSample) -> SyncAnchor {
        SyncAnchor(serverTime: s.serverTimestamp &+ (s.downloadComplete - s.uploadComplete),
                   reading: s.downloadComplete)
    }
    /// The error lies in [−ρs − ε, M] with M = download − upload complete (the uplink is part of
    /// M; the truncation is below ρs): ± max(ρs, M) + clock terms.
    public func halfWidth(for s: SyncSample, _ m: BoundModel) -> SyncBound {
        let measured = s.downloadComplete - s.uploadComplete
        return .halfWidth(max(m.serverResolution, measured) &+ m.intervalError(measured) &+ m.extrapolationBase)
    }
}
