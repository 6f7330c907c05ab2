import SyncLabKernel

/// Collects what the design's metrics need while the world runs, only inside the measured
/// window [0, duration); `finish` turns it into a `RunResult`. It reads nothing but what the
/// world hands it, and knows no report format.
struct MetricsRecorder {
    let scenario: Scenario
    let schedule: StoreSchedule
    let shadowClockNames: [String]
    let firstSecond: Int64
    /// Requests per server second, counted in place (a table, like the banks below, so a count
    /// pays no copy-on-write check).
    private(set) var requestsPerSecond: StateTable<UInt32>
    var bytesServed: UInt64 = 0
    var requestsServed: UInt64 = 0
    /// The time endpoint's requests, also counted above (`client.probeTarget`; nil when the
    /// probes fetch the store).
    var endpoint: EndpointRecord? = nil
    var requestsSent: UInt64 = 0
    var requestsLost: UInt64 = 0
    var requestsFailed: UInt64 = 0
    var responses: UInt64 = 0
    /// Per response, its round trip; per completed fetch, the fresh estimate minus true server
    /// time at the receive instant. In banks (slot 0), recorded once per fetch without
    /// copy-on-write or bounds checks.
    private(set) var roundTrip = HistogramBank(slots: 1, subBits: MetricsRecorder.layout)
    private(set) var fetchSyncError = ErrorBank(slots: 1, subBits: MetricsRecorder.layout)
    /// The banks' layouts (`Histogram.subBits`: 2^-10 relative resolution, and 2^-5 over time),
    /// passed to every record as constants (`HistogramBank.record(_:_:layout:)`).
    static let layout = 10
    static let timelineLayout = 5
    var fetchSyncErrorOver250ms: UInt64 = 0
    var firstAnswersShown: UInt64 = 0
    var syncsRejected: UInt64 = 0
    var visits: UInt64 = 0
    var releaseOnline = 0
    var releaseJoined = 0
    /// Show offsets per transition index, summarised (only transitions inside the window are kept).
    var shown: ShowSummaries

    /// Sampled errors, one slot per breakdown row (see `Slots`).
    private(set) var errors: ErrorBank
    let slots: Slots
    static let wakeBuckets = 12
    var samples: UInt64 = 0
    var sampleInstants: UInt64 = 0
    var viewingSum: UInt64 = 0
    /// Players viewing at each sample instant (summed across shards; the peak is taken at the end).
    var viewingAt: [UInt32] = []
    var positionSamples: UInt64 = 0
    var bareSamples: UInt64 = 0
    var staleSamples: UInt64 = 0
    /// Samples whose screen showed another whole second than the server's (the countdowns show
    /// whole seconds, so this is what a player sees; `clientErrorMs` is the value before the cut).
    var wrongSecondSamples: UInt64 = 0
    var measuring = false
    /// Error over time: one bucket per `timelineStep` of the window, displayed error and the
    /// estimate with each reference clock (coarse histograms: these feed charts).
    let timelineStep: Nanoseconds
    let timelineBuckets: Int
    private(set) var timeline: ErrorBank
    var timelineInstants: [UInt64]
    var timelineViewing: [UInt64]
    var currentBucket = 0
    /// The displayed error of every sample split by source.
    var attribution = AttributionStats()
    /// Device events and early shows (`devices.*`).
    var deviceEvents = DeviceEventStats()
    /// The opt-in server models' records (ServerRecords.swift); nil when the model is off.
    var serving: ServingRecord? = nil
    var database: DatabaseRecord? = nil
    /// Whether the estimate error lies inside the client's ± bound (`BoundCoverage`).
    private(set) var bounds: BoundBank
    /// What the models did, for the model audit (`ModelAudit`).
    var audit: AuditCounters
    /// Every request of the traced players (`run --trace-requests`), nil when none are traced.
    var trace: RequestTrace? = nil
    /// Per link profile, the network's round trip of each answered request sent in the window
    /// (`World.recordLinkRoundTrip`); nil unless the run was asked to record them
    /// (`Simulation.run`'s `recordsLinkRoundTrips`), so a plain run pays one nil test per response.
    var linkRoundTrips: HistogramBank? = nil

    /// Where each breakdown lives in the error bank. Every sample has one link, so the overall
    /// displayed and estimate errors are the merge of the per-link rows (`finish`): two
    /// histogram records fewer per sample, the same figures.
    struct Slots {
        let clocks: Int, links: Int
        var shadow: Int { 0 }
        var displayByLink: Int { clocks }
        var estimateByLink: Int { clocks + links }
        var displayByWake: Int { clocks + 2 * links }
        var estimateByWake: Int { clocks + 2 * links + MetricsRecorder.wakeBuckets }
        var count: Int { clocks + 2 * links + 2 * MetricsRecorder.wakeBuckets }
        /// Timeline: per bucket, the display error then one per clock.
        var perBucket: Int { 1 + clocks }
    }

    init(scenario: Scenario, schedule: StoreSchedule, players: Range<Int>, shadowClockNames: [String]) {
        self.scenario = scenario
        self.schedule = schedule
        self.shadowClockNames = shadowClockNames
        firstSecond = floorDiv(scenario.epochUnix, .second)
        let seconds = Int(floorDiv(scenario.epochUnix + scenario.duration - 1, .second) - firstSecond) + 1
        requestsPerSecond = StateTable([UInt32](repeating: 0, count: max(seconds, 1)))
        if scenario.client.probeTarget.endpoint != nil { endpoint = EndpointRecord(seconds: max(seconds, 1)) }
        shown = ShowSummaries(transitions: schedule.transitions.count, players: players)
        slots = Slots(clocks: shadowClockNames.count, links: scenario.links.count)
        errors = ErrorBank(slots: slots.count, subBits: MetricsRecorder.layout)
        // About 300 buckets at most, in whole minutes.
        let step = max(1, ceilDiv(scenario.duration, 300 * .minute)) * .minute
        timelineStep = step
        timelineBuckets = Int(ceilDiv(scenario.duration, step))
        timeline = ErrorBank(slots: timelineBuckets * slots.perBucket, subBits: MetricsRecorder.timelineLayout)
        timelineInstants = [UInt64](repeating: 0, count: timelineBuckets)
        timelineViewing = timelineInstants
        bounds = BoundBank(links: scenario.links.count)
        audit = AuditCounters(scenario: scenario, players: players)
    }

    func inWindow(_ t: SimTime) -> Bool { t.ns >= 0 && t.ns < scenario.duration }

    mutating func visits(at t: SimTime) { if inWindow(t) { visits += 1 } }

    mutating func release(at t: SimTime, online: Int, joined: Int) {
        releaseOnline = online
        releaseJoined = joined
    }

    /// Gives this recorder tables of its own where a copy shares them (the tables are references,
    /// so a copied world would otherwise count in both): called before a world runs.
    mutating func ensureUniqueTables() {
        shown.ensureUniqueStore()
        if !requestsPerSecond.isUnique() { requestsPerSecond = requestsPerSecond.copy() }
        if !isKnownUniquelyReferenced(&roundTrip) { roundTrip = roundTrip.copy() }
        if !isKnownUniquelyReferenced(&fetchSyncError) { fetchSyncError = fetchSyncError.copy() }
        if !isKnownUniquelyReferenced(&errors) { errors = errors.copy() }
        if !isKnownUniquelyReferenced(&timeline) { timeline = timeline.copy() }
        if !isKnownUniquelyReferenced(&bounds) { bounds = bounds.copy() }
        if linkRoundTrips != nil && !isKnownUniquelyReferenced(&linkRoundTrips) { linkRoundTrips = linkRoundTrips?.copy() }
        audit.ensureUniqueTables()
    }

    /// Adds another shard's records (same scenario, other players). Population-wide facts (sample
    /// instants, the release's online count) are the same in every shard and are not added.
    /// It adds into this recorder's tables, which a recorder taken from a world
    /// (`World.completedRecorder`) shares with it: merge once the world is done.
    mutating func merge(_ o: MetricsRecorder) {
        for i in requestsPerSecond.indices { requestsPerSecond[i] &+= o.requestsPerSecond[i] }
        bytesServed += o.bytesServed
        requestsServed += o.requestsServed
        if let other = o.endpoint { endpoint?.merge(other) }
        requestsSent += o.requestsSent
        requestsLost += o.requestsLost
        requestsFailed += o.requestsFailed
        responses += o.responses
        roundTrip.merge(o.roundTrip)
        fetchSyncError.merge(o.fetchSyncError)
        fetchSyncErrorOver250ms += o.fetchSyncErrorOver250ms
        firstAnswersShown += o.firstAnswersShown
        syncsRejected += o.syncsRejected
        visits += o.visits
        releaseJoined += o.releaseJoined
        shown.merge(o.shown)
        errors.merge(o.errors)
        timeline.merge(o.timeline)
        samples += o.samples
        viewingSum += o.viewingSum
        for i in viewingAt.indices { viewingAt[i] &+= o.viewingAt[i] }
        for i in timelineViewing.indices { timelineViewing[i] &+= o.timelineViewing[i] }
        positionSamples += o.positionSamples
        bareSamples += o.bareSamples
        staleSamples += o.staleSamples
        wrongSecondSamples += o.wrongSecondSamples
        attribution.merge(o.attribution)
        deviceEvents.merge(o.deviceEvents)
        if let other = o.serving { serving?.merge(other) }
        if let other = o.database { database?.merge(other) }
        bounds.merge(o.bounds)
        audit.merge(o.audit)
        if let other = o.trace { trace?.rows += other.rows }
        if let other = o.linkRoundTrips { linkRoundTrips?.merge(other) }
    }

    /// Adds what a fleet recorded (`FleetCoordinator`): the requests it served, by second, and its
    /// serving record. It records nothing else.
    mutating func mergeFleet(_ o: MetricsRecorder) {
        for i in requestsPerSecond.indices { requestsPerSecond[i] &+= o.requestsPerSecond[i] }
        bytesServed += o.bytesServed
        requestsServed += o.requestsServed
        if let other = o.endpoint { endpoint?.merge(other) }
        if let other = o.serving { serving?.merge(other) }
    }

    /// What each position of a viewing player shows, without a clock error (the original plan).
    mutating func samplePositions(bare: Int, stale: Int, positions: Int) {
        guard measuring else { return }
        positionSamples += UInt64(positions)
        bareSamples += UInt64(bare)
        staleSamples += UInt64(stale)
    }

    mutating func requestSent(at t: SimTime, lost: Bool) {
        guard inWindow(t) else { return }
        requestsSent += 1
        if lost { requestsLost += 1 }
    }

    /// A request reaches the server: counted in the server second it arrives in.
    @inline(__always) mutating func served(serverTime: Int64, bytes: Int) {
        guard serverTime >= 0 && serverTime < scenario.duration else { return }
        let second = Int(floorDiv(scenario.epochUnix + serverTime, .second) - firstSecond)
        precondition(second >= 0 && second < requestsPerSecond.count)
        requestsPerSecond[second] &+= 1
        requestsServed += 1
        bytesServed += UInt64(bytes)
    }

    /// A time endpoint's request reaches the server: counted with every request, and apart.
    mutating func servedEndpoint(serverTime: Int64, bytes: Int) {
        guard serverTime >= 0 && serverTime < scenario.duration else { return }
        served(serverTime: serverTime, bytes: bytes)
        let second = Int(floorDiv(scenario.epochUnix + serverTime, .second) - firstSecond)
        endpoint?.perSecond[second] &+= 1
        endpoint?.requests += 1
        endpoint?.bytes += UInt64(bytes)
    }

    @inline(__always) mutating func responseReceived(at t: SimTime, roundTrip rtt: Nanoseconds) {
        guard inWindow(t) else { return }
        responses += 1
        roundTrip.record(0, rtt, layout: MetricsRecorder.layout)
    }

    /// A fetch completed at t and its estimate is `error` off the server's true time then.
    @inline(__always) mutating func fetchSynced(at t: SimTime, error: Int64) {
        guard inWindow(t) else { return }
        fetchSyncError.record(0, error, layout: MetricsRecorder.layout)
        // Without a branch: in the reference fleet 70% of fetches are over, a poor bet to predict.
        fetchSyncErrorOver250ms &+= error.magnitude > UInt64(250 * Nanoseconds.millisecond) ? 1 : 0
    }

    mutating func firstAnswerShown(at t: SimTime) { if inWindow(t) { firstAnswersShown += 1 } }
    mutating func syncRejected(at t: SimTime) { if inWindow(t) { syncsRejected += 1 } }

    mutating func requestFailed(at t: SimTime) { if inWindow(t) { requestsFailed += 1 } }

    /// The model's events go to its observers: the audit, and the link round trips when a run
    /// records them (an answered request counts by the instant it was sent).
    @inline(__always)
    mutating func observe(_ event: ModelEvent) {
        if case let .roundTripAnswered(link, rtt, sent) = event {
            if linkRoundTrips != nil && inWindow(SimTime(ns: sent)) { linkRoundTrips!.record(link, rtt, layout: MetricsRecorder.layout) }
            return
        }
        audit.observe(event)
    }

    /// Player `player` (global index) showed transition `index` `offset` after its true time
    /// (for the gap figures).
    mutating func transitionShown(index: Int, offset: Int64, player: Int) {
        let time = schedule.transitions[index].time
        guard time >= 0 && time < scenario.duration else { return }
        shown.append(offset, to: index, player: player)
    }

    /// The same for a player with a synced clock, also counted for the early-show figures.
    mutating func transitionShown(index: Int, offset: Int64, player: Int, tampered: Bool) {
        let time = schedule.transitions[index].time
        guard time >= 0 && time < scenario.duration else { return }
        shown.append(offset, to: index, player: player)
        deviceEvents.shown(offset: offset, tampered: tampered)
    }

    mutating func beginSample(at t: SimTime, viewing: Int) {
        measuring = inWindow(t)
        guard measuring else { return }
        sampleInstants += 1
        currentBucket = min(timelineBuckets - 1, Int(t.ns / timelineStep))
        timelineInstants[currentBucket] += 1
        timelineViewing[currentBucket] += UInt64(viewing)
        viewingSum += UInt64(viewing)
        viewingAt.append(UInt32(viewing))
    }

    // The per-player sample records below are made only for instants inside the window (the
    // sampling code checks), so they do not test `measuring`: players record their samples
    // after the instant (see `World+Sampling`), when the flag may describe a later one.

    mutating func sampleBare(positions: Int) {
        positionSamples += UInt64(positions)
        bareSamples += UInt64(positions)
    }

    @inline(__always)
    mutating func shadowSample(clock k: Int, error: Int64, timelineBucket: Int) {
        errors.record(slots.shadow + k, error, layout: MetricsRecorder.layout)
        timeline.record(timelineBucket * slots.perBucket + 1 + k, error, layout: MetricsRecorder.timelineLayout)
    }

    @inline(__always)
    mutating func sample(displayError shownError: Int64, estimateError estimate: Int64, link: Int,
                         minutesSinceWake: Int?, bare: Int, stale: Int, positions: Int, timelineBucket: Int,
                         serverNow: Int64) {
        samples += 1
        // The screen shows whole seconds of the server's calendar: is it another one than the truth's?
        let epoch = scenario.epochUnix
        wrongSecondSamples &+= floorDiv(epoch &+ serverNow &+ shownError, .second) != floorDiv(epoch &+ serverNow, .second) ? 1 : 0
        errors.record(slots.displayByLink + link, shownError, layout: MetricsRecorder.layout)
        errors.record(slots.estimateByLink + link, estimate, layout: MetricsRecorder.layout)
        let bucket = minutesSinceWake.map { min($0 + 1, MetricsRecorder.wakeBuckets - 1) } ?? 0
        errors.record(slots.displayByWake + bucket, shownError, layout: MetricsRecorder.layout)
        errors.record(slots.estimateByWake + bucket, estimate, layout: MetricsRecorder.layout)
        timeline.record(timelineBucket * slots.perBucket, shownError, layout: MetricsRecorder.timelineLayout)
        positionSamples += UInt64(positions)
        bareSamples += UInt64(bare)
        staleSamples += UInt64(stale)
    }

    /// A sample's error split: the parts since the sync (the anchor's own parts are added per
    /// sync with `attributeAnchor`).
    @inline(__always)
    mutating func attribute(anchorTotal: Int64, estimateError: Int64, drift: Int64, pause: Int64,
                            displayError: Int64) {
        attribution.recordSinceSync(anchorTotal: anchorTotal, estimateError: estimateError, drift: drift,
                                    pause: pause, displayError: displayError)
    }

    /// The anchor's split, for the `samples` samples taken with it.
    mutating func attributeAnchor(_ anchor: AnchorAttribution, samples: UInt32) {
        attribution.addAnchor(anchor, samples: UInt64(samples))
    }

    /// The run's results; the rows after the run (the transitions', the model audit's) on up to
    /// `threads` threads, the same for any number.
    func finish(eventsScheduled: UInt64, files: [PublishedFile], threads: Int = 1) -> RunResult {
        let (rows, subsets, unviewed) = shown.rows(schedule.transitions, duration: scenario.duration,
                                                   window: RunResult.gapWindow, threads: threads)
        let published = files.filter { $0.publishedAt.ns >= 0 && $0.publishedAt.ns < scenario.duration }
        let meanBytes = published.isEmpty ? files.last.map { Double($0.responseBytes) } ?? 0
            : Double(published.map(\.responseBytes).reduce(0, +)) / Double(published.count)
        let links = scenario.links.count, wakes = MetricsRecorder.wakeBuckets
        let timelineRows = (0..<timelineBuckets).map { b in
            TimelineBucket(start: Int64(b) * timelineStep, display: timeline.stats(b * slots.perBucket),
                           estimateByClock: (0..<slots.clocks).map { timeline.stats(b * slots.perBucket + 1 + $0) },
                           sampleInstants: timelineInstants[b], viewingSum: timelineViewing[b])
        }
        var result = RunResult(
            scenario: scenario, transitions: rows, subsetTransitions: subsets, transitionsUnviewed: unviewed,
            requestsPerSecond: Array(requestsPerSecond), requestsServed: requestsServed, bytesServed: bytesServed,
            requestsSent: requestsSent, requestsLost: requestsLost, requestsFailed: requestsFailed,
            responses: responses, roundTrip: roundTrip.histogram(0), visits: visits,
            releaseOnline: releaseOnline, releaseJoined: releaseJoined,
            clientError: errors.stats(merging: slots.displayByLink..<slots.displayByLink + links),
            estimateError: errors.stats(merging: slots.estimateByLink..<slots.estimateByLink + links),
            errorByClock: shadowClockNames.indices.map { (shadowClockNames[$0], errors.stats(slots.shadow + $0)) },
            displayByLink: (0..<links).map { errors.stats(slots.displayByLink + $0) },
            estimateByLink: (0..<links).map { errors.stats(slots.estimateByLink + $0) },
            displayByWake: (0..<wakes).map { errors.stats(slots.displayByWake + $0) },
            estimateByWake: (0..<wakes).map { errors.stats(slots.estimateByWake + $0) },
            samples: samples, sampleInstants: sampleInstants, viewingSum: viewingSum, viewingPeak: Int(viewingAt.max() ?? 0),
            positionSamples: positionSamples, bareSamples: bareSamples, staleSamples: staleSamples,
            filesPublished: published.count, meanFileBytes: meanBytes, eventsScheduled: eventsScheduled,
            timelineStep: timelineStep, timeline: timelineRows, errorAttribution: attribution,
            deviceEvents: deviceEvents)
        result.serving = serving?.figures(scenario)
        result.endpointLoad = endpoint.map { EndpointLoad(requestsPerSecond: $0.perSecond, requests: $0.requests, bytes: $0.bytes) }
        result.database = database?.figures(scenario, schedule: schedule)
        result.bounds = bounds.coverage
        result.fetchSyncError = fetchSyncError.stats(0)
        result.fetchSyncErrorOver250ms = fetchSyncErrorOver250ms
        result.firstAnswersShown = firstAnswersShown
        result.syncsRejected = syncsRejected
        result.showSummaryBytes = shown.bytes
        result.wrongSecondSamples = wrongSecondSamples
        result.modelAudit = ModelAudit.rows(scenario, audit, serving: serving, threads: threads)
        result.auditedPlayers = audit.audited(of: scenario.population.players)
        result.auditStride = audit.stride
        var counts = audit
        counts.forgetPlayers()
        result.auditCounts = counts
        // Each player's requests in one shard, in the order sent: sorted, the same for any shards.
        result.requestTrace = trace.map { $0.rows.sorted { ($0.player, $0.sent) < ($1.player, $1.sent) } }
        result.linkRoundTrips = linkRoundTrips.map { bank in (0..<bank.slots).map(bank.histogram) }
        return result
    }
}

/// Errors sampled in one stretch of the window, for charts of error over time.
public struct TimelineBucket: Sendable, Equatable {
    /// Start of the stretch, true time since the epoch.
    public var start: Int64
    public var display: ErrorStats
    /// The estimate with each reference clock, in `RunResult.errorByClock` order.
    public var estimateByClock: [ErrorStats]
    public var sampleInstants: UInt64 = 0
    public var viewingSum: UInt64 = 0
}
