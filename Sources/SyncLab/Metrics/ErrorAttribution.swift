import SyncLabKernel

/// Where a client's displayed error comes from.
///
/// The displayed error D = shown − server time is split by counterfactuals, each source being
/// the change in error when that one imperfection is taken away, in this order:
///
/// - at the sync (the anchor's error at the instant of the response, with the estimator re-run
///   on idealised samples): the server's timestamp resolution (the stamp without truncation),
///   its placement (the stamp taken in the middle of the server's residence instead of where it
///   was taken), the stamping server's clock offset from the reference, and what is left — the
///   path and the estimator (asymmetric delays, the one-way delay an estimator ignores, and how
///   coarsely the measuring clock read the exchange itself);
/// - since the sync (the measuring clock's elapsed time against true elapsed time): drift,
///   deep-sleep pause, and resolution (plus any step of a wall-based clock);
/// - on screen: the UI tick (the value shown was computed at the last tick, not now).
///
/// The parts telescope, so they add up to D exactly, in integer nanoseconds.
public enum ErrorSource: Int, CaseIterable, Sendable {
    case timestampResolution, timestampPlacement, serverOffset, pathAndEstimator
    case clockDrift, standbyPause, clockResolution, uiTick

    /// Label used in summary.json keys, CSV columns and budget keys.
    public var key: String {
        switch self {
        case .timestampResolution: "timestampResolution"
        case .timestampPlacement: "timestampPlacement"
        case .serverOffset: "serverOffset"
        case .pathAndEstimator: "pathAndEstimator"
        case .clockDrift: "clockDrift"
        case .standbyPause: "standbyPause"
        case .clockResolution: "clockResolution"
        case .uiTick: "uiTick"
        }
    }

    /// What the source is, in the report's words.
    public var meaning: String {
        switch self {
        case .timestampResolution: "server timestamp truncated to its resolution"
        case .timestampPlacement: "server timestamp taken at request start (or send), not mid-residence"
        case .serverOffset: "stamping server's clock minus the reference server clock"
        case .pathAndEstimator: "network asymmetry, delays the estimator assumes away, the clock's rounding of the exchange"
        case .clockDrift: "measuring clock's rate error times the time since the sync"
        case .standbyPause: "time the measuring clock stood still in deep sleep since the sync"
        case .clockResolution: "measuring clock's resolution (and any step of a wall-based clock)"
        case .uiTick: "value on screen computed at the last UI tick, not now"
        }
    }
}

/// The anchor's own error at the sync instant, split into its sources (ns of server time).
/// Stored per client with its anchor; 32 bytes.
public struct AnchorAttribution: Sendable, Equatable {
    public var timestampResolution: Int64 = 0
    public var timestampPlacement: Int64 = 0
    public var serverOffset: Int64 = 0
    public var pathAndEstimator: Int64 = 0
    public init() {}

    /// The anchor's total error at the sync instant.
    public var total: Int64 { timestampResolution &+ timestampPlacement &+ serverOffset &+ pathAndEstimator }

    /// Splits the error of an anchor at `reading` (the clock's reading at the sync instant, when
    /// the reference server time was `truth`; the anchor gave `actual` there) by re-running the
    /// estimator's one-exchange form on `sample` with the server's stamps replaced step by step:
    /// `exactStamp`/`exactTransmit` — the stamping server's untruncated clock when it stamped the
    /// request and when the response left; `midStamp` — that server's clock in the middle of the
    /// request's residence (both stamps); `referenceMid` — the reference server clock then.
    /// What remains — the path, and whatever the estimator's memory (a filter window, a drift
    /// correction) made of it — is `pathAndEstimator`.
    public static func split(estimator: some SyncEstimator, sample: SyncSample, reading: ClockReading, truth: Int64,
                             actual: Int64, exactStamp: Int64, exactTransmit: Int64, midStamp: Int64,
                             referenceMid: Int64) -> AnchorAttribution {
        func estimate(_ stamp: Int64, _ transmit: Int64) -> Int64 {
            var s = sample
            s.serverTimestamp = stamp
            s.serverTransmit = transmit
            return estimator.anchor(for: s).serverTime(at: reading)
        }
        let observed = estimator.anchor(for: sample).serverTime(at: reading)
        let exact = estimate(exactStamp, exactTransmit)
        let mid = estimate(midStamp, midStamp)
        let reference = estimate(referenceMid, referenceMid)
        var a = AnchorAttribution()
        a.timestampResolution = observed &- exact
        a.timestampPlacement = exact &- mid
        a.serverOffset = mid &- reference
        a.pathAndEstimator = (actual &- truth) &- (observed &- reference)
        return a
    }
}

/// One sample's error split into every source (indexed by `ErrorSource.rawValue`).
public struct ErrorParts: Sendable, Equatable {
    public var parts: [Int64]
    /// The displayed error these parts add up to.
    public var total: Int64 { parts.reduce(0, &+) }

    /// - anchor: the anchor's split at the sync;
    /// - estimateError: the estimate now minus server time now (anchor error + clock error);
    /// - drift: the clock's drift over the elapsed time since the sync;
    /// - pause: the clock's lost deep-sleep time since the sync (≤ 0);
    /// - displayError: what is on screen minus server time now.
    public init(anchor a: AnchorAttribution, estimateError: Int64, drift: Int64, pause: Int64, displayError: Int64) {
        let clockError = estimateError &- a.total
        parts = [a.timestampResolution, a.timestampPlacement, a.serverOffset, a.pathAndEstimator,
                 drift, pause, clockError &- drift &- pause, displayError &- estimateError]
    }
}

/// A sum of signed 64-bit values in 128 bits: exact, so any order of addition (any sharding)
/// gives the same total.
public struct WideSum: Sendable, Equatable {
    public private(set) var high: Int64 = 0
    public private(set) var low: UInt64 = 0
    public init() {}

    public mutating func add(_ x: Int64) {
        let (sum, carry) = low.addingReportingOverflow(UInt64(bitPattern: x))
        low = sum
        high &+= (x < 0 ? -1 : 0) &+ (carry ? 1 : 0)
    }

    /// Adds x · n, exactly (the product in 128 bits).
    public mutating func add(_ x: Int64, times n: UInt64) {
        let product = x.multipliedFullWidth(by: Int64(bitPattern: n))
        let (sum, carry) = low.addingReportingOverflow(product.low)
        low = sum
        high &+= product.high &+ (carry ? 1 : 0)
    }

    public mutating func add(_ other: WideSum) {
        let (sum, carry) = low.addingReportingOverflow(other.low)
        low = sum
        high &+= other.high &+ (carry ? 1 : 0)
    }

    public var value: Double { Double(high) * 18_446_744_073_709_551_616.0 + Double(low) }
}

/// Per source: the exact signed sum (ns), the sum of squares (µs², exact) and the exact range.
/// (No histograms: eight more per sample would be a seventh of a run.) Kept inline, one 48-byte
/// record per source in a fixed tuple, so a sample pays no copy-on-write or bounds checks. (Not
/// `InlineArray`: it needs a 2025 OS on Apple platforms, and an app team's test
/// target may deploy to older ones.)
public struct AttributionStats: Sendable, Equatable {
    struct Part: Sendable, Equatable {
        var sum = WideSum(), squares = WideSum()
        var minimum = Int64.max, maximum = Int64.min
    }

    public private(set) var count: UInt64 = 0
    private var parts = (Part(), Part(), Part(), Part(), Part(), Part(), Part(), Part())
    /// Sum of the totals, kept apart so a test can check the parts add up over a whole run.
    public private(set) var totalSum = WideSum()

    public init() {
        precondition(ErrorSource.allCases.count == 8, "one record per error source")
    }

    /// Source i's record (a homogeneous tuple is laid out as an array of its element).
    private func part(_ i: Int) -> Part {
        precondition(i >= 0 && i < 8)
        return withUnsafePointer(to: parts) { $0.withMemoryRebound(to: Part.self, capacity: 8) { $0[i] } }
    }

    @inline(__always) private mutating func updatePart(_ i: Int, _ body: (inout Part) -> Void) {
        precondition(i >= 0 && i < 8)
        withUnsafeMutablePointer(to: &parts) { $0.withMemoryRebound(to: Part.self, capacity: 8) { body(&$0[i]) } }
    }

    public var sums: [WideSum] { (0..<8).map { part($0).sum } }
    public var squares: [WideSum] { (0..<8).map { part($0).squares } }
    /// Smallest and largest part seen per source (ns).
    public var minimum: [Int64] { (0..<8).map { part($0).minimum } }
    public var maximum: [Int64] { (0..<8).map { part($0).maximum } }

    public static func == (a: AttributionStats, b: AttributionStats) -> Bool {
        a.count == b.count && a.totalSum == b.totalSum && (0..<8).allSatisfy { a.part($0) == b.part($0) }
    }

    public mutating func record(_ p: ErrorParts) {
        count += 1
        for (i, x) in p.parts.enumerated() { add(i, x) }
        totalSum.add(p.total)
    }

    /// The hot path's record: one sample's count, total and the four parts since the sync, as
    /// `record(ErrorParts(anchor:…))` records them without building the array; the anchor's four
    /// parts are added with `addAnchor` (they are the same for every sample of one sync, so the
    /// world adds them once per sync, times its samples).
    @inline(__always)
    mutating func recordSinceSync(anchorTotal: Int64, estimateError: Int64, drift: Int64, pause: Int64,
                                  displayError: Int64) {
        count += 1
        let clockError = estimateError &- anchorTotal
        add(4, drift)
        add(5, pause)
        add(6, clockError &- drift &- pause)
        add(7, displayError &- estimateError)
        totalSum.add(displayError)
    }

    /// Adds an anchor's four parts for `n` samples, as n records of them would (sums are exact,
    /// so the order and grouping do not change a figure).
    mutating func addAnchor(_ a: AnchorAttribution, samples n: UInt64) {
        guard n > 0 else { return }
        add(0, a.timestampResolution, times: n)
        add(1, a.timestampPlacement, times: n)
        add(2, a.serverOffset, times: n)
        add(3, a.pathAndEstimator, times: n)
    }

    @inline(__always) mutating func add(_ i: Int, _ x: Int64) {
        let micros = min(abs(x / 1_000), 3_000_000_000)   // squares of up to ~35 days fit 64 bits
        updatePart(i) { p in
            p.sum.add(x)
            p.squares.add(micros &* micros)
            if x < p.minimum { p.minimum = x }
            if x > p.maximum { p.maximum = x }
        }
    }

    /// n records of x.
    private mutating func add(_ i: Int, _ x: Int64, times n: UInt64) {
        let micros = min(abs(x / 1_000), 3_000_000_000)
        updatePart(i) { p in
            p.sum.add(x, times: n)
            p.squares.add(micros &* micros, times: n)
            if x < p.minimum { p.minimum = x }
            if x > p.maximum { p.maximum = x }
        }
    }

    public mutating func merge(_ o: AttributionStats) {
        count += o.count
        for i in 0..<8 {
            let q = o.part(i)
            updatePart(i) { p in
                p.sum.add(q.sum)
                p.squares.add(q.squares)
                p.minimum = Swift.min(p.minimum, q.minimum)
                p.maximum = Swift.max(p.maximum, q.maximum)
            }
        }
        totalSum.add(o.totalSum)
    }

    /// Mean of a source in ns (signed: positive runs ahead).
    public func mean(_ s: ErrorSource) -> Double? { count == 0 ? nil : part(s.rawValue).sum.value / Double(count) }
    /// The largest |part| of a source in ns.
    public func largest(_ s: ErrorSource) -> Int64? {
        let p = part(s.rawValue)
        return count == 0 ? nil : Swift.max(p.maximum, p.minimum == .min ? .max : -p.minimum)
    }

    /// Root mean square of a source in ns: its typical size, bias included.
    public func rms(_ s: ErrorSource) -> Double? {
        count == 0 ? nil : (part(s.rawValue).squares.value / Double(count)).squareRoot() * 1_000
    }
    /// Standard deviation in ns: how much the source spreads players apart.
    public func standardDeviation(_ s: ErrorSource) -> Double? {
        guard let r = rms(s), let m = mean(s) else { return nil }
        return max(0, r * r - m * m).squareRoot()
    }
    /// The source that spreads players most (largest standard deviation), which is what widens
    /// the transition gap; ties go to the earlier source.
    public var dominant: ErrorSource? {
        guard count > 0 else { return nil }
        return ErrorSource.allCases.max { (standardDeviation($0) ?? 0) < (standardDeviation($1) ?? 0) }
    }
}
