import SyncLabKernel

/// Optional frequency (drift) correction from successive syncs (`client.driftCorrection`).
///
/// A phone's oscillator runs tens of ppm fast or slow, so an anchor extrapolated over the
/// 6–9 minutes to the next refetch drifts by up to tens of milliseconds, and by far more when a
/// sync fails for a while. Two syncs at least `minInterval` apart on the clock give the rate of
/// server time against the clock: rate = ((S₂ − S₁) − (R₂ − R₁)) / (R₂ − R₁), applied to the
/// anchor (`SyncAnchor.ratePPB`). Whole-second timestamps make a short baseline useless (±1 s
/// over 1 h is ±280 ppm), hence the minimum interval, and a rate is only adopted once it is
/// known better than the drift it corrects.
///
/// Honest bound: if both syncs' bounds held, the true rate lies within
/// u = (B₁ + B₂)/(R₂ − R₁) of the estimate. A rate is adopted when u < the allowed drift
/// (`maxDriftPpm`); the bound then grows at u instead. Until then the reference sync is kept, so
/// the baseline lengthens. A rate beyond ±`maxPPB` is no oscillator (a suspending clock paused
/// in standby, a wall clock moved): it is dropped and the baseline restarts there.
///
/// Memory per client: 5 words (reference server time, reading and bound; rate; its residual).
public struct DriftCorrection: Sendable, Equatable {
    public static let memoryWords = 5
    /// Shortest clock interval between the two syncs a rate is estimated from.
    public var minInterval: Nanoseconds
    /// Largest correction applied, ppb.
    public var maxPPB: Int64

    public init(minInterval: Nanoseconds = .hour, maxPPB: Int64 = 500_000) {
        precondition(minInterval > 0 && maxPPB >= 0 && maxPPB < 1_000_000_000)
        self.minInterval = minInterval
        self.maxPPB = maxPPB
    }

    /// `estimate` with the rate learned so far applied; updates `memory` (5 words, 0 at app start).
    public func apply(_ estimate: SyncEstimate, memory: inout MutableSpan<Int64>, _ m: BoundModel) -> SyncEstimate {
        precondition(memory.count >= Self.memoryWords)
        // A rate is judged by the bounds of the syncs it comes from: an estimate that claims no
        // bound can show no rate better than the drift it would correct, so it passes unchanged.
        guard let b = estimate.bound.nanoseconds else { return estimate }
        let s = estimate.anchor.serverTime, r = estimate.anchor.reading.ns
        // A stored bound is ≥ 1, so 0 means no reference sync yet.
        if memory[2] == 0 {
            (memory[0], memory[1], memory[2]) = (s, r, max(b, 1))
        } else if r &- memory[1] >= minInterval {
            let (rate, residual, raw) = Self.rate(from: (memory[0], memory[1], memory[2]), to: (s, r, b),
                                                  maxPPB: maxPPB, allowedPPB: m.maxDriftPPB)
            if raw != rate {
                // Beyond any oscillator (a suspending clock paused, the wall clock moved): a step,
                // not a rate. Start a new baseline here.
                (memory[0], memory[1], memory[2]) = (s, r, max(b, 1))
            } else if residual < m.maxDriftPPB {
                // Known better than the drift it corrects: apply it, and measure the next from here.
                (memory[3], memory[4]) = (rate, residual)
                (memory[0], memory[1], memory[2]) = (s, r, max(b, 1))
            }
            // Otherwise the baseline is still too short for these syncs' bounds: keep the
            // reference, so the next sync measures over a longer one.
        }
        // memory[4] == 0 means no rate yet (a learned residual is at least 1 ppb).
        guard memory[4] != 0 else { return estimate }
        var corrected = estimate
        corrected.anchor.ratePPB = memory[3]
        corrected.boundGrowthPPB = memory[4]
        return corrected
    }

    /// The clamped rate (ppb) between two syncs (server time, reading, bound), the residual
    /// drift the bound must allow for after applying it (ppb, ≥ 1), and the rate before the clamp.
    public static func rate(from a: (Int64, Int64, Int64), to b: (Int64, Int64, Int64), maxPPB: Int64,
                            allowedPPB: Int64) -> (rate: Int64, residual: Int64, raw: Int64) {
        let dr = b.1 &- a.1
        precondition(dr > 0)
        // Clamp the excess to ±dr first so the 128-bit quotient fits (|rate| ≤ 10⁹ ppb).
        let excess = min(max((b.0 &- a.0) &- dr, -dr), dr)
        let raw = dr.dividingFullWidth(excess.multipliedFullWidth(by: 1_000_000_000)).quotient
        let rate = min(max(raw, -maxPPB), maxPPB)
        // u = ⌈(B₁ + B₂)·10⁹ / dr⌉, saturated at 10⁹ ppb.
        let bounds = min(a.2 &+ b.2, dr)
        let (q, rem) = dr.dividingFullWidth(bounds.multipliedFullWidth(by: 1_000_000_000))
        let u = q &+ (rem > 0 ? 1 : 0)
        let residual = min(u &+ Swift.abs(raw &- rate), allowedPPB &+ Swift.abs(rate))
        return (rate, max(residual, 1), raw)
    }
}
