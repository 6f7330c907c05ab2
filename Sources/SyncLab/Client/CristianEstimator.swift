import SyncLabKernel

/// Cristian's algorithm (1989): server time = timestamp + RTT/2 at download complete, where the
/// round trip is request sent → download complete on the measuring clock.
///
/// It assumes the timestamp was taken half-way through the round trip. With whole-second
/// `REQUEST_TIME` it still carries the truncation; what it removes is the seeds' bias of one
/// uplink delay.
///
/// Bound: the stamp instant lies somewhere in the round trip, so the error lies in
/// [−ρs − M/2 − ε, M/2] (M the measured round trip, ε its measurement error):
/// ± (M/2 + ρs + ε(M) + ρc + 1 ns).
public struct CristianEstimator: SyncEstimator {
    public init() {}
    public var name: String { Self.kind }

    public func anchor(for s: SyncSample) -> SyncAnchor {
        SyncAnchor(serverTime: s.serverTimestamp &+ s.roundTrip / 2, reading: s.downloadComplete)
    }

    public func halfWidth(for s: SyncSample, _ m: BoundModel) -> SyncBound {
        let rtt = s.roundTrip
        return .halfWidth(rtt / 2 &+ 1 &+ m.serverResolution &+ m.intervalError(rtt) &+ m.extrapolationBase)
    }
}

extension CristianEstimator: Plugin {
    public static let family = PluginFamily.estimator
    public static let kind = "cristian"
    public static let schema = SchemaFragment("Cristian's algorithm: timestamp + RTT/2.")
    public init(_ node: InputNode, in context: PluginContext) throws { self.init() }
    public var summary: String { "timestamp + half the round trip (Cristian)" }
}
