import SyncLabKernel

// "Time back within budget after wake": the seeds' pausing clock left players seconds to
// minutes behind after standby until the next refetch. This turns the error-by-minutes-since-wake
// breakdown the recorder keeps into one budgetable number.

extension RunResult {
    /// The error a player may show for the wake-recovery figure: the 500 ms requirement.
    public static let wakeRecoveryThreshold: Nanoseconds = 500 * .millisecond

    /// Budget keys of the wake-recovery figure, of the displayed time and of the clock estimate:
    /// against the 500 ms threshold, and (`.vsNoSleep`) against the p99 of players who have not
    /// slept since launch plus 500 ms — "as good as a player who never slept", which separates a
    /// clock that stops in standby from one that does not even when neither is within 500 ms.
    public static let wakeRecoveryKeys = [Figure.wakeRecoveryMinutesDisplayed, Figure.wakeRecoveryMinutesEstimate,
                                          Figure.wakeRecoveryMinutesDisplayedVsNoSleep, Figure.wakeRecoveryMinutesEstimateVsNoSleep].map(\.key)

    /// Whole minutes after waking from deep sleep from which the p99 |error| stays within
    /// `threshold` in every later minute-since-wake bucket.
    ///
    /// `byWake` is `RunResult.displayByWake` (or `estimateByWake`): index 0 holds samples with no
    /// deep sleep since launch (ignored here), index k ≥ 1 samples k−1 to k minutes after waking,
    /// and the last index everything from its minute on. The figure is 1 + the last minute whose
    /// bucket has samples and a p99 above `threshold` (0 when none has): so 0 means "within budget
    /// from the moment of waking", and `byWake.count − 1` (11 with the recorder's 12 buckets)
    /// means "still above it 10 or more minutes after waking". A bucket without samples does not
    /// count against the figure. Nil when no sample was taken after a wake at all.
    public static func wakeRecoveryMinutes(_ byWake: [ErrorStats], threshold: Nanoseconds = wakeRecoveryThreshold) -> Double? {
        guard byWake.count >= 2, byWake.dropFirst().contains(where: { $0.count > 0 }) else { return nil }
        var recovered = 0
        for k in 1..<byWake.count {
            if let p99 = byWake[k].quantile(0.99), p99 > threshold { recovered = k }   // minute k−1 fails
        }
        return Double(recovered)
    }

    /// `wakeRecoveryMinutes` with the threshold the p99 of `byWake[0]` (no deep sleep since
    /// launch) plus `slack`; nil when that bucket has no samples.
    public static func wakeRecoveryMinutesVsNoSleep(_ byWake: [ErrorStats], slack: Nanoseconds = wakeRecoveryThreshold) -> Double? {
        guard let baseline = byWake.first?.quantile(0.99) else { return nil }
        return wakeRecoveryMinutes(byWake, threshold: baseline + slack)
    }

    /// The wake-recovery figures, by `wakeRecoveryKeys`.
    var wakeRecoveryFigures: [String: Double?] {
        [Figure.wakeRecoveryMinutesDisplayed.key: RunResult.wakeRecoveryMinutes(displayByWake),
         Figure.wakeRecoveryMinutesEstimate.key: RunResult.wakeRecoveryMinutes(estimateByWake),
         Figure.wakeRecoveryMinutesDisplayedVsNoSleep.key: RunResult.wakeRecoveryMinutesVsNoSleep(displayByWake),
         Figure.wakeRecoveryMinutesEstimateVsNoSleep.key: RunResult.wakeRecoveryMinutesVsNoSleep(estimateByWake)]
    }
}

// Figures across seeds: `synclab check --seeds N` runs a scenario with N seeds; a seed fails
// when one of the scenario's per-run budgets fails. These keys are judged there, never on a
// single run.
extension RunResult {
    /// Budget keys judged across seeds: the share of failing seeds, and the upper end of its 95%
    /// Wilson score interval (a conservative gate: "with 95% confidence at most this share fails").
    public static let seedFigureKeys = Figure.all.filter { $0.scope == .acrossSeeds }.map(\.key)
}

extension Budget {
    /// Whether the budget is judged across seeds (`seedFailureRate…`) rather than on one run.
    public var acrossSeeds: Bool { RunResult.seedFigureKeys.contains(metric) }
}
