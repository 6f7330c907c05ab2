import Foundation
import SyncLabKernel

/// Everything a run measured. Reports only read this; budgets are judged on its `figures`.
public struct RunResult: Sendable {
    public let scenario: Scenario
    /// One row per transition inside the window that at least one player showed.
    public let transitions: [TransitionRow]
    /// The same for each nested viewer subset (about 1/10, 1/100, … of the players; see
    /// `ShowSummaries`), from which `viewerScaling` shows how each figure moves with viewers.
    public let subsetTransitions: [[TransitionRow]]
    /// Transitions inside the window that no player had on screen.
    public let transitionsUnviewed: Int
    /// Requests reaching the server in each server second of the window.
    public let requestsPerSecond: [UInt32]
    public let requestsServed: UInt64
    public let bytesServed: UInt64
    public let requestsSent: UInt64
    public let requestsLost: UInt64
    public let requestsFailed: UInt64
    public let responses: UInt64
    public let roundTrip: Histogram
    public let visits: UInt64
    public let releaseOnline: Int
    public let releaseJoined: Int
    /// The client error: what the UI shows minus server time, at random instants of viewing
    /// players (`clientErrorMs` in summary.json and budgets; "UI time error" in older pages).
    public let clientError: ErrorStats
    public let estimateError: ErrorStats
    /// The estimate error the same syncs would give with each reference clock.
    public let errorByClock: [(String, ErrorStats)]
    public let displayByLink: [ErrorStats]
    public let estimateByLink: [ErrorStats]
    /// Index 0: no deep sleep since launch; index k ≥ 1: k−1 minutes since waking (last open).
    public let displayByWake: [ErrorStats]
    public let estimateByWake: [ErrorStats]
    public let samples: UInt64
    public let sampleInstants: UInt64
    public let viewingSum: UInt64
    public let viewingPeak: Int
    public let positionSamples: UInt64
    public let bareSamples: UInt64
    public let staleSamples: UInt64
    public let filesPublished: Int
    public let meanFileBytes: Double
    public let eventsScheduled: UInt64
    /// Worlds the players were split into (1 unless `Simulation.run` had several threads to use).
    /// Never written to a report: every number of shards gives the same results.
    public internal(set) var shards = 1
    /// Where players share the fleet: how often a shard met its horizon and traded with the fleet,
    /// how often it then had to wait for another shard, and how many events of players not
    /// waiting for the fleet it handled instead of waiting. Timing facts, never in a report.
    public internal(set) var fleetExchanges = 0
    public internal(set) var shardWaits = 0
    public internal(set) var eventsWhileWaiting = 0
    /// Of those, sample instants; and player events that then left instants for the player's
    /// later events (`World+Sampling`). For tests: the path that records an instant late ran.
    var samplesWorkedPast: UInt64 = 0
    var samplesLeftForLater: UInt64 = 0
    /// Length of each timeline bucket, and the buckets covering the window in order.
    public let timelineStep: Nanoseconds
    public let timeline: [TimelineBucket]
    /// Every sampled displayed error split by source (see `ErrorSource`).
    public let errorAttribution: AttributionStats
    /// Device events and early shows (figures only when the scenario switches events on).
    public internal(set) var deviceEvents = DeviceEventStats()
    /// The opt-in server models' figures (ServerRecords.swift): nil when the model is off.
    public internal(set) var serving: ServingFigures? = nil
    /// The time endpoint's share of the requests (`client.probeTarget`): nil when the probes
    /// fetch the store, so every request is a store request.
    public internal(set) var endpointLoad: EndpointLoad? = nil
    public internal(set) var database: DatabaseFigures? = nil
    /// How often the truth lay inside the client's claimed ± bound.
    public internal(set) var bounds = BoundCoverage(links: 0)
    /// Per completed fetch in the window: estimate − true server time at the receive instant.
    public internal(set) var fetchSyncError = ErrorStats()
    /// Bytes the merged show summaries held (for stderr and the memory estimate's tests; no report
    /// carries it).
    public internal(set) var showSummaryBytes = 0
    /// Per figure of each active model, what its parameters say against what the run counted
    /// (`ModelAudit`).
    public internal(set) var modelAudit: [AuditRow] = []
    /// How many players the model audit followed: every player up to 25,000, else one in k
    /// (the least k that keeps them at most 25,000) from a start keyed by the seed.
    public internal(set) var auditedPlayers = 0
    /// One player in how many the audit followed (1: every player).
    public internal(set) var auditStride = 1
    /// The audit's counts (without its per-player memory), kept for tests that judge them
    /// against another model.
    internal var auditCounts: AuditCounters? = nil
    /// Every request of the traced players (`Simulation.run`'s `traceRequests`), nil untraced.
    public internal(set) var requestTrace: [TraceRow]? = nil
    /// Per link profile (`scenario.links` order), the network's round trip (ns) of each answered
    /// request sent in the window: the uplink leg from upload complete to the server's arrival plus
    /// the response's downlink delay, without the server's time and the bytes' transfer — what
    /// telemetry of small time requests records (`World.recordLinkRoundTrip`). Nil unless the run
    /// was asked to record them (`Simulation.run`'s `recordsLinkRoundTrips`).
    public internal(set) var linkRoundTrips: [Histogram]? = nil
    /// The run held against an app's telemetry (`holding(against:burstGap:)`), nil without.
    public internal(set) var telemetry: TelemetryComparison? = nil
    /// Samples whose screen showed another whole second than the server's true one.
    public internal(set) var wrongSecondSamples: UInt64 = 0
    /// Rounds whose first probe's answer a player showed before the round ended
    /// (`client.showFirstAnswerWithin`), counted when shown, inside the measured window.
    public internal(set) var firstAnswersShown: UInt64 = 0
    /// Rounds not used because their estimate's ± bound passed `client.maxSyncBound`, inside the
    /// measured window.
    public internal(set) var syncsRejected: UInt64 = 0
    /// Completed fetches whose |estimate − truth| exceeded 250 ms (exact, not bucketed).
    public internal(set) var fetchSyncErrorOver250ms: UInt64 = 0

    /// Mean |fetch sync error| in ns (exact), nil without fetches.
    public var fetchSyncErrorMeanAbs: Double? { fetchSyncError.magnitude.mean }
    /// Share of fetches whose |error| exceeded 250 ms, nil without fetches.
    public var fetchSyncErrorOver250msShare: Double? {
        fetchSyncError.count == 0 ? nil : Double(fetchSyncErrorOver250ms) / Double(fetchSyncError.count)
    }

    /// Transitions at least two players showed: the ones a gap between players is defined for.
    public var gapTransitions: [TransitionRow] { transitions.filter { $0.viewers >= 2 } }

    public var simulatedSeconds: Double { Double(scenario.duration) / 1e9 }
}

/// The headline figures, by the key paths `summary.json` and budgets use, each declared once in
/// `Figure.all` (its unit, meaning and range); nil where the run had nothing to measure.
extension RunResult {
    /// Every figure key a budget on this scenario may name (`Figure.keys(for:)`).
    public static func figureKeys(for scenario: Scenario) -> [String] { Figure.keys(for: scenario) }

    /// The label of the clock table's row measured with `clock` ("uptime-1s" for `uptime`).
    public static func clockRowLabel(_ clock: any DeviceClock) -> String { ReferenceClocks.label(clock) }

    public var figures: [String: Double?] {
        var f: [String: Double?] = [:]
        for (name, e) in errorByClock {
            f[Figure.estimateErrorMsByClockP50.key(for: name)] = e.quantile(0.5).map(RunResult.ms)
            f[Figure.estimateErrorMsByClockP99.key(for: name)] = e.quantile(0.99).map(RunResult.ms)
            f[Figure.estimateErrorMsByClockMax.key(for: name)] = e.quantile(1).map(RunResult.ms)
        }
        for (link, e) in zip(scenario.links, displayByLink) {
            f[Figure.clientErrorMsByLinkP50.key(for: link.name)] = e.quantile(0.5).map(RunResult.ms)
            f[Figure.clientErrorMsByLinkP99.key(for: link.name)] = e.quantile(0.99).map(RunResult.ms)
            f[Figure.clientErrorMsByLinkMax.key(for: link.name)] = e.quantile(1).map(RunResult.ms)
        }
        for (key, value) in RunResult.gapFigures(gapTransitions) { f[key] = value }
        f[Figure.clientErrorMsP50.key] = clientError.quantile(0.5).map(RunResult.ms)
        f[Figure.clientErrorMsP99.key] = clientError.quantile(0.99).map(RunResult.ms)
        f[Figure.clientErrorMsMax.key] = clientError.quantile(1).map(RunResult.ms)
        f[Figure.estimateErrorMsP50.key] = estimateError.quantile(0.5).map(RunResult.ms)
        f[Figure.estimateErrorMsP99.key] = estimateError.quantile(0.99).map(RunResult.ms)
        f[Figure.estimateErrorMsMax.key] = estimateError.quantile(1).map(RunResult.ms)
        let load = RunResult.ranks(ofCounts: requestsPerSecond, [1, 0.99, 0.999])
        let mean = Double(requestsServed) / simulatedSeconds
        f[Figure.requests.key] = Double(requestsServed)
        f[Figure.peakRequestsPerSecond.key] = load[0].map(Double.init)
        f[Figure.p99RequestsPerSecond.key] = load[1].map(Double.init)
        f[Figure.p999RequestsPerSecond.key] = load[2].map(Double.init)
        f[Figure.meanRequestsPerSecond.key] = mean
        f[Figure.peakToMeanRatio.key] = mean > 0 ? load[0].map { Double($0) / mean } : nil
        f[Figure.bareShare.key] = positionSamples == 0 ? nil : Double(bareSamples) / Double(positionSamples)
        f[Figure.staleShare.key] = positionSamples == 0 ? nil : Double(staleSamples) / Double(positionSamples)
        f[Figure.displayedSecondWrongShare.key] = samples == 0 ? nil : Double(wrongSecondSamples) / Double(samples)
        f[Figure.failedRequestShare.key] = requestsSent == 0 ? nil : Double(requestsFailed) / Double(requestsSent)
        f[Figure.requestsPerMonth.key] = requestsPerMonth
        f[Figure.bytesPerMonth.key] = bytesPerMonth
        for cost in costEstimates { f[Figure.costPerMonth.key(for: cost.name)] = cost.monthly }
        for source in ErrorSource.allCases {
            f[Figure.errorSourceMsMean.key(for: source.key)] = errorAttribution.mean(source).map { $0 / 1e6 }
            f[Figure.errorSourceMsSd.key(for: source.key)] = errorAttribution.standardDeviation(source).map { $0 / 1e6 }
        }
        f.merge(wakeRecoveryFigures) { $1 }
        if scenario.devices.events.any { f.merge(deviceEvents.figures) { _, new in new } }
        for (key, value) in serverFigures { f[key] = value }
        addBoundFigures(&f)
        f[Figure.modelAuditAllHold.key] = modelAudit.isEmpty ? nil : (modelAudit.allSatisfy(\.holds) ? 1 : 0)
        if let telemetry { f[Figure.telemetryAgrees.key] = telemetry.agrees ? 1 : 0 }
        return f
    }

    /// The window the seeds' requirement names: every player within 500 ms of every other.
    public static let gapWindow: Nanoseconds = 500 * .millisecond

    /// The cross-player figures of a set of changes (each seen by two or more players), by
    /// the keys of `figures`: the worst pair (`transitionGapMs`, `transitionsWithin500msShare`,
    /// which grow with viewers), the quantile spreads, and the window and pair shares, per
    /// change (their p50, p1 and min over changes) and pooled over every viewer of every change.
    static func gapFigures(_ rows: [TransitionRow]) -> [String: Double?] {
        var f: [String: Double?] = [:]
        let gaps = rows.map(\.gap).sorted()
        let spreads = rows.map(\.spread).sorted()
        let spreads999 = rows.map(\.spread999).sorted()
        f[Figure.transitionGapMsP50.key] = rank(gaps, 0.5).map(ms)
        f[Figure.transitionGapMsP99.key] = rank(gaps, 0.99).map(ms)
        f[Figure.transitionGapMsMax.key] = gaps.last.map(ms)
        f[Figure.transitionSpreadMsP50.key] = rank(spreads, 0.5).map(ms)
        f[Figure.transitionSpreadMsP99.key] = rank(spreads, 0.99).map(ms)
        f[Figure.transitionSpread999MsP50.key] = rank(spreads999, 0.5).map(ms)
        f[Figure.transitionSpread999MsP99.key] = rank(spreads999, 0.99).map(ms)
        f[Figure.transitionsWithin500msShare.key] = gaps.isEmpty ? nil
            : Double(gaps.filter { $0 <= gapWindow }.count) / Double(gaps.count)
        let viewers = Double(rows.reduce(0) { $0 + $1.viewers })
        let pairs = rows.reduce(0.0) { $0 + $1.pairs }
        f[Figure.viewersInBest500msShare.key] = viewers == 0 ? nil : Double(rows.reduce(0) { $0 + $1.inBestWindow }) / viewers
        f[Figure.viewersInCentred500msShare.key] = viewers == 0 ? nil : Double(rows.reduce(0) { $0 + $1.inCentredWindow }) / viewers
        f[Figure.viewerPairsWithin500msShare.key] = pairs == 0 ? nil : rows.reduce(0.0) { $0 + $1.pairsWithin } / pairs
        let best = rows.map(\.bestWindowShare).sorted()
        let centred = rows.map(\.centredWindowShare).sorted()
        let pairShares = rows.compactMap(\.pairShare).sorted()
        for (figures, values) in [((Figure.transitionBest500msShareP50, Figure.transitionBest500msShareP1, Figure.transitionBest500msShareMin), best),
                                  ((Figure.transitionCentred500msShareP50, Figure.transitionCentred500msShareP1, Figure.transitionCentred500msShareMin), centred)] {
            f[figures.0.key] = rank(values, 0.5)
            f[figures.1.key] = rank(values, 0.01)
            f[figures.2.key] = values.first
        }
        f[Figure.transitionPairsWithin500msShareP50.key] = rank(pairShares, 0.5)
        f[Figure.transitionPairsWithin500msShareP1.key] = rank(pairShares, 0.01)
        return f
    }

    /// Nearest-rank quantile of sorted values.
    public static func rank(_ sorted: [Double], _ q: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let i = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, i))]
    }

    /// How the cross-player figures move with the number of viewers: one row per viewer subset
    /// that averages two or more viewers per change (every viewer first, then about 1/10,
    /// 1/100, … of the players), each measured on that subset's own show instants.
    public var viewerScaling: [ViewerScalingRow] {
        var out: [ViewerScalingRow] = []
        for (k, rows) in ([transitions] + subsetTransitions).enumerated() {
            let measured = rows.filter { $0.viewers >= 2 }
            guard !measured.isEmpty else { continue }
            let mean = Double(rows.reduce(0) { $0 + $1.viewers }) / Double(max(1, transitions.count))
            guard mean >= 2 else { continue }
            out.append(ViewerScalingRow(subset: k, changes: measured.count, meanViewers: mean,
                                        figures: RunResult.gapFigures(measured)))
        }
        return out.reversed()
    }

    /// Nearest-rank quantile of sorted values.
    public static func rank(_ sorted: [Int64], _ q: Double) -> Int64? {
        guard !sorted.isEmpty else { return nil }
        let i = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, i))]
    }

    /// Nearest-rank quantiles of counts, the same as `rank` of the sorted counts: found by
    /// tallying how many entries hold each count, as the counts (requests in a second) are small.
    /// Every report reads the figures several times, and sorting a day's 86,400 seconds each time
    /// was most of a report's work. Counts too large to tally are sorted.
    public static func ranks(ofCounts counts: [UInt32], _ qs: [Double]) -> [Int64?] {
        guard let peak = counts.max() else { return qs.map { _ in nil } }
        guard Int(peak) <= Swift.max(4 * counts.count, 1 << 16) else {
            let sorted = counts.map(Int64.init).sorted()
            return qs.map { rank(sorted, $0) }
        }
        var seconds = [Int](repeating: 0, count: Int(peak) + 1)
        for n in counts { seconds[Int(n)] += 1 }
        return qs.map { q in
            // The same index as `rank`: the i-th smallest, counting from 0.
            let i = max(0, min(counts.count - 1, Int((q * Double(counts.count)).rounded(.up)) - 1))
            var below = 0
            for (value, n) in seconds.enumerated() {
                below += n
                if below > i { return Int64(value) }
            }
            return Int64(peak)
        }
    }

    public static func ms(_ ns: Int64) -> Double { Double(ns) / 1e6 }

    /// Each budget with its measured value; a budget whose figure could not be measured fails.
    public var budgetVerdicts: [BudgetVerdict] {
        let f = figures
        // Budgets across seeds (`seedFailureRate`) are judged by `synclab check`, not per run.
        return scenario.budgets.filter { !$0.acrossSeeds }.map { b in
            let value = f[b.metric] ?? nil
            if let reason = unboundedReason(b.metric) { return BudgetVerdict(budget: b, value: value, pass: false, note: reason) }
            return BudgetVerdict(budget: b, value: value, pass: value.map(b.holds) ?? false)
        }
    }
}

/// The cross-player figures measured on one viewer subset (`RunResult.viewerScaling`).
public struct ViewerScalingRow: Sendable {
    /// 0: every viewer; k ≥ 1: the players whose subset key is below 1/10^k of its range.
    public var subset: Int
    /// Changes this subset saw with two or more viewers.
    public var changes: Int
    /// Viewers per change shown by anyone, on average over the run's changes.
    public var meanViewers: Double
    /// `RunResult.gapFigures` of those changes.
    public var figures: [String: Double?]
    /// "all", "1/10", "1/100", …
    public var label: String { subset == 0 ? "all" : "1/1" + String(repeating: "0", count: subset) }
}

public struct BudgetVerdict: Sendable, Equatable {
    public var budget: Budget
    public var value: Double?
    public var pass: Bool
    /// Why the budget fails whatever its value (an estimator that claims no bound), or nil.
    public var note: String?
    public init(budget: Budget, value: Double?, pass: Bool, note: String? = nil) {
        self.budget = budget
        self.value = value
        self.pass = pass
        self.note = note
    }
}

/// Runs one scenario from start to finish.
///
/// The population is split into shards of consecutive players, each its own world with its own
/// copy of the (player-independent) server, run on as many threads as there are shards. The only
/// population-wide step, the release, is a barrier: every shard runs up to it, the online count is
/// summed, and all continue. Every player's draws depend only on its global index, and every merge
/// is a sum or a sorted union, so the results are byte-identical for any number of shards.
///
/// Where players share the fleet (a finite pool, a round-robin balancer), the fleet is a part of
/// its own and the shards run beside it in step (`FleetCoordinator`), each on its own thread. The
/// original plan's database, whose queries players share per position, keeps one world.
public enum Simulation {
    /// Threads to use by default: the machine's active cores.
    public static var defaultThreads: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Shards (and threads) a run of `players` uses: shards of fewer than ~2,000 players are not
    /// worth a thread.
    public static func shardCount(players: Int, threads: Int) -> Int { shardCount(players: players, threads: threads, smallest: 2_000) }

    static func shardCount(players: Int, threads: Int, smallest: Int) -> Int { max(1, min(threads, players / smallest)) }

    /// Shards a run of `scenario` uses: one for the original plan's database (its queries couple
    /// players per position, with no lookahead to run them apart), else as many as the threads.
    public static func shardCount(_ scenario: Scenario, threads: Int) -> Int {
        shardCount(scenario, threads: threads, smallest: 2_000)
    }

    static func shardCount(_ scenario: Scenario, threads: Int, smallest: Int) -> Int {
        scenario.server.design != nil ? 1 : shardCount(players: scenario.population.players, threads: threads, smallest: smallest)
    }

    /// `traceRequests` players (chosen by their viewer-subset key) have every request of the
    /// window in `RunResult.requestTrace`.
    ///
    /// One thread unless told: a library run is most often one of many tests that Swift Testing
    /// already runs in parallel, one per core, and more threads each would only contend. The
    /// command line passes `defaultThreads`; the results are the same for any number.
    public static func run(_ scenario: Scenario, threads: Int = 1, progress: ProgressHandler? = nil,
                           traceRequests: Int = 0) -> RunResult {
        run(scenario, threads: threads, progress: progress, traceRequests: traceRequests, smallestShard: 2_000)
    }

    /// `run`, also recording each link's round trips when `recordsLinkRoundTrips`
    /// (`RunResult.linkRoundTrips`), for holding the run against telemetry; off, the run is the
    /// same and pays nothing for it. (An overload, not a new default: the API stays binary
    /// compatible.)
    public static func run(_ scenario: Scenario, threads: Int = 1, progress: ProgressHandler? = nil,
                           traceRequests: Int = 0, recordsLinkRoundTrips: Bool) -> RunResult {
        run(scenario, threads: threads, progress: progress, traceRequests: traceRequests, recordsLinkRoundTrips: recordsLinkRoundTrips,
            smallestShard: 2_000)
    }

    /// `run` with shards of down to `smallestShard` players, so tests can split small populations
    /// (and, for tests, shards that work ahead of every trade: `FleetCoordinator.worksAheadAlways`;
    /// progress stops at arbitrary instants, sorted, in place of the fixed chunks; and a shorter
    /// bound on a stalled wait).
    static func run(_ scenario: Scenario, threads: Int, progress: ProgressHandler? = nil, traceRequests: Int = 0,
                    recordsLinkRoundTrips: Bool = false, smallestShard: Int, worksAheadAlways: Bool = false, stops: [SimTime]? = nil,
                    stallLimit: FleetCoordinator.StallLimit = .standard) -> RunResult {
        let n = scenario.population.players
        let count = shardCount(scenario, threads: threads, smallest: smallestShard)
        let schedule = World.schedule(for: scenario)
        let traced = RequestTrace.players(traceRequests, of: n)
        // Each shard builds its world (its players' state, queue and recorder) on its own thread.
        let ranges = (0..<count).map { k in (n * k / count)..<(n * (k + 1) / count) }
        let shards = ShardBox.build(count) { k in
            World(scenario: scenario, players: ranges[k], schedule: k == 0 ? schedule : schedule.ownCopy())
        }
        if traceRequests > 0 {
            for shard in shards { shard.world.measure.recorder.trace = RequestTrace(players: traced, in: shard.world.players) }
        }
        if recordsLinkRoundTrips {
            for shard in shards {
                shard.world.measure.recorder.linkRoundTrips = HistogramBank(slots: scenario.links.count, subBits: MetricsRecorder.layout)
            }
        }
        let coordinator = FleetCoordinator.isNeeded(for: scenario)
            ? FleetCoordinator(scenario: scenario, schedule: schedule, shardPlayers: ranges) : nil
        coordinator?.worksAheadAlways = worksAheadAlways
        coordinator?.stallLimit = stallLimit
        if let coordinator {
            for (k, shard) in shards.enumerated() {
                shard.world.fleet = FleetLink(coordinator: coordinator, shard: k, ownsCoordinator: false)
            }
        }
        func each(_ body: @escaping @Sendable (ShardBox) -> Void) {
            if shards.count == 1 { body(shards[0]); return }
            // Shards that wait for each other each need a thread of their own: a pool with fewer
            // threads than shards could run one shard to its wait while the one it waits for queues.
            if coordinator != nil { ShardBox.runOnThreads(shards, body); return }
            DispatchQueue.concurrentPerform(iterations: shards.count) { body(shards[$0]) }
        }
        func runAll(until t: SimTime, earlyUntil hard: SimTime) { each { $0.world.run(until: t, earlyUntil: hard) } }
        let stops = stops ?? progressStops(scenario)
        var reached = SimTime(ns: -scenario.warmup)
        if let release = scenario.population.release {
            advance(from: reached, to: release.at, scenario: scenario, stops: stops, progress: progress, runAll: runAll)
            reached = release.at
            let online = shards.reduce(0) { $0 + $1.world.onlineCount() }
            each { $0.world.applyRelease(at: release.at, online: online, offline: n - online) }
        }
        let end = SimTime(ns: scenario.duration)
        advance(from: reached, to: end, scenario: scenario, stops: stops, progress: progress, runAll: runAll)
        // Each shard's world goes as soon as its records are out: the merge and the rows after
        // it then take memory the players' state and queues have given back, not memory on top.
        let files = shards[0].world.server.store.files
        var recorder = shards[0].finish()
        for shard in shards.dropFirst() { recorder.merge(shard.finish()) }
        if let coordinator { recorder.mergeFleet(coordinator.fleetRecords) }
        var result = recorder.records.finish(eventsScheduled: recorder.events, files: files, threads: threads)
        result.shards = shards.count
        result.fleetExchanges = coordinator?.exchanges ?? 0
        result.shardWaits = coordinator?.waits ?? 0
        result.eventsWhileWaiting = coordinator?.eventsWhileWaiting ?? 0
        result.samplesWorkedPast = recorder.samplesWorkedPast
        result.samplesLeftForLater = recorder.samplesLeftForLater
        return result
    }
}

/// One shard's world, handed to one thread at a time.
final class ShardBox: @unchecked Sendable {
    /// Nil once the shard is finished (`finish`).
    var world: World!
    init(_ world: World) { self.world = world }

    /// What the run's results need of a finished shard: its records and counts.
    struct Finished {
        var records: MetricsRecorder
        var events: UInt64
        var samplesWorkedPast: UInt64
        var samplesLeftForLater: UInt64

        /// Adds another shard's records and counts.
        mutating func merge(_ o: Finished) {
            records.merge(o.records)
            events += o.events
            samplesWorkedPast += o.samplesWorkedPast
            samplesLeftForLater += o.samplesLeftForLater
        }

        mutating func mergeFleet(_ fleet: MetricsRecorder) { records.mergeFleet(fleet) }
    }

    /// The shard's records and counts; its world, with its players' state and its queue, is
    /// let go (the records' tables, which the world shared, stay with them).
    func finish() -> Finished {
        let done = Finished(records: world.completedRecorder(), events: world.loop.queue.scheduledCount,
                            samplesWorkedPast: world.executor.samplesWorkedPast,
                            samplesLeftForLater: world.executor.samplesLeftForLater)
        world = nil
        return done
    }

    /// `count` shards, world k made by `make(k)`, concurrently when there are several.
    static func build(_ count: Int, _ make: @Sendable (Int) -> World) -> [ShardBox] {
        concurrentMap(count, make).map(ShardBox.init)
    }

    /// Runs `body` on every shard, each on a thread of its own, and returns when all are done.
    static func runOnThreads(_ shards: [ShardBox], _ body: @escaping @Sendable (ShardBox) -> Void) {
        let done = DispatchGroup()
        for shard in shards {
            done.enter()
            let thread = Thread {
                body(shard)
                done.leave()
            }
            // The world's loop is deep generic code: a main thread's stack, not a pool thread's.
            thread.stackSize = 8 << 20
            thread.start()
        }
        done.wait()
    }
}

extension RunResult {
    /// The client error's former Swift name.
    @available(*, deprecated, renamed: "clientError")
    public var displayError: ErrorStats { clientError }
}
