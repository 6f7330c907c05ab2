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

    public init(serverTimestamp: Int64, requestSent: ClockReading, uploadComplete: ClockReading,
                downloadComplete: ClockReading) {
        self.serverTimestamp = serverTimestamp
        self.requestSent = requestSent
        self.uploadComplete = uploadComplete
        self.downloadComplete = downloadComplete
    }

    /// Round trip as the client's clock saw it.
    public var roundTrip: Nanoseconds { downloadComplete - requestSent }
}

/// A client's belief about server time: at clock reading `reading`, server time was `serverTime`.
public struct SyncAnchor: Sendable, Equatable {
    public var serverTime: Int64
    public var reading: ClockReading
    public init(serverTime: Int64, reading: ClockReading) {
        self.serverTime = serverTime
        self.reading = reading
    }
    /// Estimated server time when the clock reads `r` (never incremented, always from the clock).
    @inlinable public func serverTime(at r: ClockReading) -> Int64 { serverTime &+ (r - reading) }
    /// The clock reading at which the estimated server time reaches `s`.
    @inlinable public func reading(atServerTime s: Int64) -> ClockReading {
        ClockReading(ns: reading.ns &+ (s &- serverTime))
    }
}

/// How a client turns a fetch into a sync anchor: a named plug-in.
public protocol SyncEstimator: Sendable {
    var name: String { get }
    func anchor(for sample: SyncSample) -> SyncAnchor
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
}
