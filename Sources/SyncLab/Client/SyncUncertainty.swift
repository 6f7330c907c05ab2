import SyncLabKernel

/// Honest uncertainty: what a client may claim about its own estimate.
///
/// Every estimator gives a ± bound around its estimate of server time, from what the client
/// knows (its own readings, the server's documented timestamp resolution, its clock's
/// resolution and the drift it allows for), never from true time. The report then shows how
/// often the truth falls inside, so a team knows whether a "±100 ms" it shows players is true.
///
/// Common terms (ns): ρs = server timestamp resolution, ρc = measuring-clock resolution,
/// d = allowed drift (ppb). An interval L measured on the clock is off by less than
/// ρc + ⌈d·L⌉ (`intervalError`); extrapolating from the anchor to now adds ρc + ⌈d·age⌉
/// (`extrapolationBase` at sync time, the age part as the bound grows). One more nanosecond
/// covers integer halving. The per-estimator half-widths are documented with each estimator.
public struct BoundModel: Sendable, Equatable {
    /// Server timestamp resolution (1 s for `REQUEST_TIME`).
    public var serverResolution: Nanoseconds
    /// Resolution of the measuring clock (1 ns, 1 µs or 1 s).
    public var clockResolution: Nanoseconds
    /// The largest oscillator drift the client allows for, ppb.
    public var maxDriftPPB: Int64

    public init(serverResolution: Nanoseconds, clockResolution: Nanoseconds, maxDriftPPB: Int64) {
        self.serverResolution = serverResolution
        self.clockResolution = clockResolution
        self.maxDriftPPB = maxDriftPPB
    }

    /// How far an interval of `measured` ns on the clock may be from the true interval.
    @inlinable public func intervalError(_ measured: Nanoseconds) -> Nanoseconds {
        clockResolution &+ Drift.scaledUp(Swift.abs(measured), ppb: maxDriftPPB)
    }

    /// The age-independent part of extrapolating from the anchor reading (one clock resolution),
    /// plus the nanosecond of integer halving.
    @inlinable public var extrapolationBase: Nanoseconds { clockResolution &+ 1 }
}

/// An estimator's ± bound on its estimate of server time, or no bound at all.
///
/// "No bound" is its own value, not a huge number: an estimator that claims nothing (the
/// protocol's default) is reported as unbounded, and a budget on bound coverage fails for it,
/// rather than counting as 100% inside a ±73-year bound. Eight bytes (a half-width ≥ 0, or −1
/// for none), so a client's state is as small as with a plain integer.
public struct SyncBound: Sendable, Hashable, CustomStringConvertible {
    @usableFromInline let storage: Int64
    @inlinable init(storage: Int64) { self.storage = storage }

    /// No bound claimed.
    public static let unbounded = SyncBound(storage: -1)

    /// ± `ns` nanoseconds around the estimate (`ns` ≥ 0).
    @inlinable public static func halfWidth(_ ns: Nanoseconds) -> SyncBound {
        precondition(ns >= 0, "a ± bound is at least 0 ns; got \(ns)")
        return SyncBound(storage: ns)
    }

    /// The half-width in ns, or nil when unbounded.
    @inlinable public var nanoseconds: Nanoseconds? { storage >= 0 ? storage : nil }
    @inlinable public var isBounded: Bool { storage >= 0 }

    /// Whether an estimate error of `error` ns lies inside the bound; never for no bound, which
    /// claims nothing that could hold.
    @inlinable public func contains(_ error: Int64) -> Bool {
        storage >= 0 && error.magnitude <= UInt64(storage)
    }

    /// The bound grown over `age` clock nanoseconds at `growthPPB`, rounded up and saturating
    /// (`SyncEstimate.bound(_:growthPPB:age:)`); no bound stays no bound.
    @inlinable public func grown(growthPPB: Int64, age: Nanoseconds) -> SyncBound {
        storage < 0 ? self : SyncBound(storage: SyncEstimate.bound(storage, growthPPB: growthPPB, age: age))
    }

    public var description: String { nanoseconds.map { "±\($0) ns" } ?? "unbounded" }
}

/// An estimator's result: the anchor and its ± bound, which grows with the anchor's age.
public struct SyncEstimate: Sendable, Equatable {
    public var anchor: SyncAnchor
    /// ± bound at the anchor's reading, or `.unbounded`.
    public var bound: SyncBound
    /// Growth of the bound per clock nanosecond since the anchor's reading, ppb (the allowed
    /// drift, or the residual after a frequency correction).
    public var boundGrowthPPB: Int64

    public init(anchor: SyncAnchor, bound: SyncBound, boundGrowthPPB: Int64) {
        self.anchor = anchor
        self.bound = bound
        self.boundGrowthPPB = boundGrowthPPB
    }

    /// The ± bound when the clock reads `r`.
    @inlinable public func bound(at r: ClockReading) -> SyncBound {
        bound.grown(growthPPB: boundGrowthPPB, age: r - anchor.reading)
    }

    /// `bound` grown over `age` clock nanoseconds at `growthPPB`, rounded up; saturating.
    @inlinable public static func bound(_ bound: Nanoseconds, growthPPB: Int64, age: Nanoseconds) -> Nanoseconds {
        let grown = Drift.scaledUp(Swift.abs(age), ppb: growthPPB)
        let (sum, overflow) = bound.addingReportingOverflow(grown)
        return overflow ? .max : sum
    }
}

extension Drift {
    /// ⌈elapsed × ppb / 10⁹⌉ for elapsed ≥ 0 and ppb ≥ 0, exact (see `scaled`).
    @inlinable public static func scaledUp(_ elapsed: Int64, ppb: Int64) -> Int64 {
        -scaled(-elapsed, ppb: ppb)
    }

    /// The smallest e with e + scaled(e, ppb) ≥ target, for |ppb| < 10⁹: the inverse of a drift
    /// or of a rate correction, exact. For an integer e, e + ⌊e·ppb / 10⁹⌋ = ⌊e·rate / 10⁹⌋
    /// (rate = 10⁹ + ppb > 0), which reaches the integer target exactly when e·rate ≥ target·10⁹;
    /// so e = ⌈target·10⁹ / rate⌉, one 128-bit division (the quotient is at most 2·|target| for
    /// |ppb| ≤ 5·10⁸, so it fits for any time the world reaches).
    @inlinable public static func inverse(reaching target: Int64, ppb: Int64) -> Int64 {
        let rate = 1_000_000_000 &+ ppb
        let (quotient, remainder) = rate.dividingFullWidth(target.multipliedFullWidth(by: 1_000_000_000))
        // The division truncates toward zero: a positive remainder means the ceiling is one more.
        return remainder > 0 ? quotient &+ 1 : quotient
    }
}
