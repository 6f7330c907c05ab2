import SyncLabKernel

/// The built-in estimators as one closed enum, resolved once per run (as `BuiltInClock`).
///
/// Every sync re-runs the estimator's one-exchange form nine times — the design's sync, its
/// error attribution's three counterfactuals and the five reference clocks — and through
/// `any SyncEstimator` each was an existential copy and a witness-table call. A `switch` over
/// this enum calls the concrete type's own code, so every anchor is the same bits as through the
/// protocol. An estimator an app team adds has no case: `init` returns nil and the world keeps
/// calling it through its protocol.
public enum BuiltInEstimator: SyncEstimator {
    case uploadComplete
    case cristian
    case ntp(NTPEstimator)

    /// The case of a built-in estimator; nil for any other plug-in.
    public init?(_ estimator: any SyncEstimator) {
        switch estimator {
        case is UploadCompleteEstimator: self = .uploadComplete
        case is CristianEstimator: self = .cristian
        case let ntp as NTPEstimator: self = .ntp(ntp)
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .uploadComplete: return UploadCompleteEstimator().name
        case .cristian: return CristianEstimator().name
        case .ntp(let e): return e.name
        }
    }

    @inline(__always)
    public func anchor(for s: SyncSample) -> SyncAnchor {
        switch self {
        case .uploadComplete: return UploadCompleteEstimator().anchor(for: s)
        case .cristian: return CristianEstimator().anchor(for: s)
        case .ntp(let e): return e.anchor(for: s)
        }
    }

    public func halfWidth(for s: SyncSample, _ m: BoundModel) -> Nanoseconds {
        switch self {
        case .uploadComplete: return UploadCompleteEstimator().halfWidth(for: s, m)
        case .cristian: return CristianEstimator().halfWidth(for: s, m)
        case .ntp(let e): return e.halfWidth(for: s, m)
        }
    }

    public var memoryWords: Int {
        switch self {
        case .uploadComplete: return UploadCompleteEstimator().memoryWords
        case .cristian: return CristianEstimator().memoryWords
        case .ntp(let e): return e.memoryWords
        }
    }

    public func estimate(for s: SyncSample, memory: UnsafeMutableBufferPointer<Int64>, _ m: BoundModel) -> SyncEstimate {
        switch self {
        case .uploadComplete: return UploadCompleteEstimator().estimate(for: s, memory: memory, m)
        case .cristian: return CristianEstimator().estimate(for: s, memory: memory, m)
        case .ntp(let e): return e.estimate(for: s, memory: memory, m)
        }
    }
}
