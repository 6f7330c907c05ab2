import SyncLabKernel

/// Wires the models into one discrete-event loop and records what the metrics need.
///
/// The world knows the seeds' system (a store server, a network, devices, players running a
/// client design) but no report formats; the kernel below it knows none of this. Every
/// alternative — clock, estimator, tick, refetch, retry — is reached through its protocol, so a
/// new one never edits this file.
public struct World {
    public let scenario: Scenario
    /// The players this world simulates, by global index (a shard of the population, or all).
    public let players: Range<Int>
    let context: ClockContext
    let start: SimTime
    let end: SimTime
    var queue: EventQueue<WorldEvent>
    /// The server with every file of the run (`ServerTimeline`), the version it serves now, and
    /// the generation runs done so far.
    let server: StoreServer
    let timeline: ServerTimeline
    var liveFile = 0
    var cronRunsDone = 0
    var clients: StateTable<ClientState>
    /// The scenario's link profiles, read in place (`scenario.links` by index).
    let links: StateTable<LinkProfile>
    /// Their draws as plain data (`World+LinkDraws`).
    let linkSamplers: StateTable<LinkSamplers>
    /// Clients with the Store on screen, for sampling (order is deterministic: swap-remove).
    var viewing: [Int32] = []
    var viewingSlot: [Int32]
    /// The same sync computed with each reference clock, for the error-by-clock breakdown.
    let shadowClocks: [any DeviceClock]
    var recorder: MetricsRecorder
    /// Scratch marks for counting distinct stale positions without allocating.
    var positionMark: [UInt32]
    var markStamp: UInt32 = 0
    /// Each sample instant falls at a random phase inside its interval, so sampling never locks
    /// to the whole seconds that truncation and ticks are aligned to.
    var samplingRNG: RandomStream
    var sampleIndex: Int64 = 0
    /// Measuring instants not yet recorded by every viewing player, and how many came before
    /// the first of them (see `World+Sampling`).
    var pendingSamples: [SampleInstant] = []
    var pendingBase: UInt32 = 0
    /// Instants kept pending at most (16 B each) before every viewing player catches up (a
    /// setting only so tests can show the results do not depend on it).
    var pendingSampleLimit = 4_096
    /// Settle every sync at once (its bound, error split and reference clocks) instead of when
    /// something needs it (a setting only so tests can show the results do not depend on it).
    var settlesSyncsAtOnce = false
    /// Handle a response in the event that sent its request when nothing can come in between
    /// (`World+InlineResponse`; a setting only so tests can show the results do not depend on it).
    var completesResponsesInline: Bool
    var pendingResponse: PendingResponse? = nil
    /// Handle a player's next display tick at once when nothing can come in between, and so run
    /// the player ahead of the others (`World+InlineResponse`; a setting for the tests, like the one above).
    var runsPlayersAhead = true
    /// Cancelled events are swept from the queue's heap once it holds more than this many events
    /// (`World+CancelledEvents`; settable so tests can show the results do not depend on it).
    var farSweepAt: Int
    var pendingDisplay: PendingDisplay? = nil
    /// Responses and display ticks handled that way (each still takes a sequence number, so it
    /// counts as a scheduled event), the instant the current `run(until:)` stops at, and the
    /// next sample instant's.
    var responsesInline: UInt64 = 0
    var displaysAhead: UInt64 = 0
    var runLimit = SimTime.zero
    var nextSampleAt = SimTime.zero
    var started = false
    /// The opt-in server models: the store file's serving models, or the original plan.
    var serving: ServingState? = nil
    var database: DatabaseState? = nil
    /// `server.answersEachRequestAlone`, read once: a request is answered when sent, with the file
    /// the timeline says it finds on arrival, without an arrival event.
    let answersWhenSent: Bool
    /// Whether the original plan's database, or the serving models, answer requests (read per
    /// request: testing the optional state itself copied it).
    let usesDatabase: Bool
    let usesServingModel: Bool
    /// The server's service time and header size, read once: reaching them through
    /// `server.config` copied the whole configuration per request.
    let serviceTime: Distribution
    let serviceSampler: Sampler
    let headerBytes: Int
    /// Whether the design syncs on the response's headers (`client.syncReading`): only then is
    /// their arrival worked out.
    let readsResponseHeaders: Bool
    /// The client design's per-client memory (filter window, drift, probes, retry): see
    /// `DesignMemoryLayout`; empty for designs that keep none.
    var designLayout = DesignMemoryLayout.none
    var designMemory: [Int64] = []
    /// The design's clock, tick policy and estimator resolved to the built-in types (see `World+BuiltIns`);
    /// nil for a plug-in the world calls through its protocol.
    let designClock: BuiltInClock?
    let designTick: BuiltInTick?
    let designEstimator: BuiltInEstimator?
    /// The design's estimator when it is built in, keeps no memory and has no drift correction:
    /// its estimate is the one-exchange anchor and bound, so the bound can wait for a sample.
    let statelessEstimator: BuiltInEstimator?
    /// The seeds' refetch policy on its concrete type (nil for any other plug-in).
    let designRefetch: UniformWindowRefetch?
    /// What the design's ± bounds assume (resolved once: it reads the clock's resolution).
    let boundModel: BoundModel
    /// Whether the design's clock stands still in deep sleep, and every how many players one is
    /// sampled (`scenario.sampleStride`): read per sampled player, resolved once.
    let clockPausesInDeepSleep: Bool
    /// Whether the design's clock never reads less later than earlier: a built-in clock on
    /// devices without reboots, wall-clock changes or tampering (`World+Display`).
    var clocksOnlyMoveForward: Bool
    let sampleStride: Int

    /// The item schedule a scenario's run uses (the same for every shard).
    public static func schedule(for scenario: Scenario) -> StoreSchedule {
        if let plan = scenario.server.design {
            return plan.schedule(positions: scenario.positions, shelfLife: scenario.shelfLife,
                                 resolution: scenario.scheduleResolution, start: SimTime(ns: -scenario.warmup),
                                 end: SimTime(ns: scenario.duration) + scenario.server.horizon + 10 * .minute,
                                 epochUnix: scenario.epochUnix, seed: scenario.seed)
        }
        return StoreSchedule(positions: scenario.positions, shelfLife: scenario.shelfLife,
                      resolution: scenario.scheduleResolution, start: SimTime(ns: -scenario.warmup),
                      end: SimTime(ns: scenario.duration) + scenario.server.horizon + 10 * .minute,
                      epochUnix: scenario.epochUnix, seed: scenario.seed)
    }

    /// A world of the players `players` (default: everyone). Each player's draws depend only on
    /// its global index, so any partition of the population into worlds simulates the same players.
    public init(scenario: Scenario, players: Range<Int>? = nil, schedule: StoreSchedule? = nil) {
        self.scenario = scenario
        self.players = players ?? 0..<scenario.population.players
        context = ClockContext(epochUnix: scenario.epochUnix)
        designClock = BuiltInClock(scenario.client.clock)
        designTick = BuiltInTick(scenario.client.tick)
        designEstimator = BuiltInEstimator(scenario.client.estimator)
        statelessEstimator = scenario.client.estimator.memoryWords == 0 && scenario.client.driftCorrection == nil
            ? designEstimator : nil
        designRefetch = scenario.client.refetch as? UniformWindowRefetch
        boundModel = scenario.boundModel
        clockPausesInDeepSleep = scenario.client.clock.pausesInDeepSleep
        sampleStride = scenario.sampleStride
        answersWhenSent = scenario.server.answersEachRequestAlone
        serviceTime = scenario.server.serviceTime
        serviceSampler = Sampler(scenario.server.serviceTime)
        headerBytes = scenario.server.file.headerBytes
        readsResponseHeaders = scenario.client.syncReading == .responseHeaders
        start = SimTime(ns: -scenario.warmup)
        end = SimTime(ns: scenario.duration)
        clocksOnlyMoveForward = designClock != nil && !scenario.devices.events.any
        let schedule = schedule ?? World.schedule(for: scenario)
        timeline = ServerTimeline(server: StoreServer(config: scenario.server, schedule: schedule,
                                                      epochUnix: scenario.epochUnix, seed: scenario.seed),
                                  start: start, end: end)
        server = timeline.server
        shadowClocks = [SuspendingDeviceClock(), ContinuousDeviceClock(), BootTimeUptimeClock(resolution: .second),
                        BootTimeUptimeClock(resolution: .microsecond), WallClock()]
        let n = self.players.count
        queue = EventQueue(capacity: n * 3 + 64, start: start)
        samplingRNG = RandomStream(seed: scenario.seed, purpose: StreamPurpose("sampling"))
        let shares = scenario.links.map(\.share)
        let first = self.players.lowerBound, start = self.start
        // Made in the table's own block: through an array first, a million players' state was
        // written twice (and its pages faulted in twice).
        self.clients = StateTable(count: n) { k in
            let i = first + k
            var rng = RandomStream(seed: scenario.seed, purpose: World.devicePurpose, entity: UInt64(i))
            let drift = scenario.devices.driftPPM.sample(&rng)
            let wallOffset = Int64(scenario.devices.wallClockOffset.sample(&rng).rounded())
            let uptime = scenario.devices.uptimeAtStart.sampleDuration(&rng)
            let link = World.pick(shares, rng.unit())
            let device = DeviceState(driftPPB: Int64((drift * 1000).rounded()), wallOffset: wallOffset,
                                     bootTime: start - uptime, epochUnix: scenario.epochUnix)
            return ClientState(device: device, link: UInt8(link), seed: scenario.seed, index: UInt64(i))
        }
        links = StateTable(scenario.links)
        linkSamplers = StateTable(scenario.links.map(LinkSamplers.init))
        viewingSlot = [Int32](repeating: -1, count: n)
        positionMark = [UInt32](repeating: 0, count: scenario.positions)
        recorder = MetricsRecorder(scenario: scenario, schedule: schedule, players: self.players,
                                   shadowClockNames: shadowClocks.map(World.shadowLabel))
        serving = ServingState(scenario)
        if let serving {
            recorder.serving = ServingRecord(perServer: [UInt64](repeating: 0, count: serving.offsets.count),
                                             offsets: scenario.server.fleet == nil ? [] : serving.offsets)
        }
        if let plan = scenario.server.design {
            let state = DatabaseState(plan: plan, scenario: scenario, schedule: schedule, players: n)
            database = state
            var record = DatabaseRecord(transitions: schedule.transitions.count, minutes: Int(ceilDiv(scenario.duration, .minute)))
            record.overlaps = state.overlaps(schedule)
            recorder.database = record
        }
        usesServingModel = serving != nil
        usesDatabase = database != nil
        // A probe round sends again from its responses, and device events are not followed.
        completesResponsesInline = scenario.client.probes <= 1 && !scenario.devices.events.any
        // A few pending far events per player are the norm (a visit, a sleep, a session's end).
        farSweepAt = 4 * self.players.count + 65_536
        setUpDesignMemory()
    }

    /// The per-player streams' purposes, hashed once (see `ClientState`'s).
    static let devicePurpose = StreamPurpose("device")
    static let releasePurpose = StreamPurpose("release")
    static let balancerPurpose = StreamPurpose("balancer")

    /// The reference clocks every run measures the same syncs with, by label.
    public static var shadowClockLabels: [String] {
        [SuspendingDeviceClock(), ContinuousDeviceClock(), BootTimeUptimeClock(resolution: .second),
         BootTimeUptimeClock(resolution: .microsecond), WallClock()].map(shadowLabel)
    }

    static func shadowLabel(_ clock: any DeviceClock) -> String {
        if let u = clock as? BootTimeUptimeClock { return u.resolution == .second ? "uptime-1s" : "uptime-1us" }
        return clock.name
    }

    /// Index of the bucket `u` in [0, 1) falls in, given shares summing to 1.
    static func pick(_ shares: [Double], _ u: Double) -> Int {
        var acc = 0.0
        for (i, s) in shares.enumerated() {
            acc += s
            if u < acc { return i }
        }
        return shares.count - 1
    }

    /// Runs the scenario to its end and returns the results (one world, no shards).
    public mutating func run() -> RunResult {
        if let release = scenario.population.release {
            run(until: release.at)
            applyRelease(at: release.at, online: onlineCount())
        }
        run(until: end)
        return finish()
    }

    /// Handles every event before `limit` (starting the world on first use).
    public mutating func run(until limit: SimTime) {
        ensureUniqueState()
        if !started {
            started = true
            bootstrap()
        }
        runLimit = min(limit, end)
        var loop = EventLoopWork()
        withDesignTypes(&loop)
        // Whatever reads the results next (or runs a release) sees every sample recorded.
        catchUpAllSamples()
    }

    /// Handles every event before `runLimit`, with the design's clock and tick policy as their
    /// own types (`withDesignTypes`).
    mutating func runEvents<Clock: DeviceClock, Tick: TickPolicy>(_ clock: Clock, _ tick: Tick) {
        var loaded = queue.bucketsLoaded
        while let (t, e) = queue.pop(before: runLimit) {
            if queue.bucketsLoaded != loaded {
                loaded = queue.bucketsLoaded
                prefetchAhead()
            } else {
                prefetchUpcoming()
            }
            handle(e, at: t, clock, tick)
        }
    }

    /// A copied world shares its state tables and the recorder's: the copy being run takes its
    /// own first.
    mutating func ensureUniqueState() {
        if !isKnownUniquelyReferenced(&clients) { clients = clients.copy() }
        recorder.ensureUniqueTables()
    }

    /// The results so far, with this world's counts.
    public func finish() -> RunResult {
        completedRecorder().finish(eventsScheduled: queue.scheduledCount, files: server.files)
    }

    /// The recorder with what is still kept per player added: the split of each player's
    /// current anchor, for the samples taken with it (added otherwise only at the next sync).
    func completedRecorder() -> MetricsRecorder {
        var completed = recorder
        for c in clients.indices where clients[c].anchorSamples > 0 {
            completed.attributeAnchor(clients[c].split.parts, samples: clients[c].anchorSamples)
        }
        return completed
    }

    mutating func schedule(_ kind: WorldEvent.Kind, client: Int, epoch: UInt32 = 0, at t: SimTime) {
        guard t < end else { return }
        queue.schedule(WorldEvent(client: Int32(client), kind: kind, epoch: epoch), at: t)
        if queue.farCount > farSweepAt { sweepCancelledFarEvents() }
    }

    mutating func scheduleNextSample() {
        let every = scenario.sampleEvery
        let phase = Int64(samplingRNG.below(UInt64(every)))
        nextSampleAt = SimTime(ns: sampleIndex &* every &+ phase)
        schedule(.sample, client: -1, at: nextSampleAt)
        sampleIndex += 1
    }

    mutating func bootstrap() {
        // The server has been running: it published once at the start (`ServerTimeline`).
        schedule(.cron, client: -1, at: timeline.firstCron)
        scheduleNextSample()
        let start = self.start
        for c in clients.indices {
            updateDevice(c) { $0.fallAsleep(at: start) }
            let gap = scenario.population.visitGap.sampleDuration(&clients[c].behaviourRNG)
            schedule(.visitStart, client: c, epoch: clients[c].behaviourEpoch, at: start + gap)
            if scenario.devices.events.any { scheduleFirstDeviceEvents(c) }
        }
    }

    mutating func handle<Clock: DeviceClock, Tick: TickPolicy>(_ e: WorldEvent, at t: SimTime, _ clock: Clock, _ tick: Tick) {
        let c = Int(e.client)
        // Before the player's state changes, it records the sample instants that saw it.
        if e.kind.isPlayerEvent && !usesDatabase { catchUpSamples(c) }
        switch e.kind {
        case .visitStart: if e.epoch == clients[c].behaviourEpoch { visitStart(c, t) }
        case .viewStart: if e.epoch == clients[c].behaviourEpoch { viewStart(c, t) }
        case .viewEnd: if e.epoch == clients[c].behaviourEpoch { viewEnd(c, t) }
        case .deepSleep: if e.epoch == clients[c].powerEpoch { updateDevice(c) { $0.fallAsleep(at: t) } }
        case .sendRequest:
            if e.epoch == clients[c].fetchEpoch && clients[c].phase == .viewing { sendRequest(c, t) }
        case .serverArrival: serverArrival(c, t, epoch: e.epoch, file: liveFile)
        case .responseDone: if e.epoch == clients[c].fetchEpoch { responseDone(c, t, clock, tick) }
        case .requestFailed: if e.epoch == clients[c].fetchEpoch { requestFailed(c, t) }
        case .display:
            if e.epoch == clients[c].displayEpoch && clients[c].phase == .viewing { display(c, t, clock, tick) }
        case .cron:
            // The jobs' instants are the timeline's; their events keep the order of the queue.
            let run = timeline.cronRuns[cronRunsDone]
            assert(run.at == t, "cron run out of step with the timeline")
            cronRunsDone += 1
            schedule(.publish, client: -1, at: run.publishAt)
            schedule(.cron, client: -1, at: run.next)
        case .publish:
            liveFile += 1
        case .sample:
            sample(t)
            scheduleNextSample()
        case .reboot, .appKill, .wallClockChange, .tamper:
            deviceEvent(e.kind, c, ordinal: e.epoch, t)
        case .databaseArrival: databaseArrival(c, t, epoch: e.epoch)
        case .databaseReply:
            if e.epoch == clients[c / (scenario.positions + 1)].fetchEpoch { databaseReply(c, t) }
        case .databaseFailed:
            if e.epoch == clients[c / (scenario.positions + 1)].fetchEpoch { databaseFailed(c, t) }
        case .databaseCountdown: databaseCountdown(c, t, epoch: e.epoch)
        case .databaseRetry: databaseRetry(c, t, epoch: e.epoch)
        }
        finishPlayerAhead(clock, tick)
    }
}
