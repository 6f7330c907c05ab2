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
    var loop: WorldLoop
    var server: ServerSide
    let network: NetworkSide
    /// Each player's state (device, sync, fetch, screen), by index in `players`.
    var clients: StateTable<ClientState>
    var viewers: ViewerList
    /// The client design's per-player memory (filter window, drift, probes, retry).
    var memory: DesignMemory
    let design: ResolvedDesign
    var measure: Measurement
    /// Ways of reaching the same results faster, each flipped off by an equivalence test.
    var executor: Executor
    /// Requests for the shared fleet sent in the current event, the fleet's answers waiting for
    /// their events (by player), and the fleet's part of the run (`FleetCoordinator`; nil when
    /// the fleet keeps no state players share).
    var fleetOutbox: [FleetRequest] = []
    var fleetAnswers: [Int32: FleetAnswer] = [:]
    var fleet: FleetLink?
    /// The requests out now, a slot each (`ClientState.requestSlot`).
    var requests = RequestsInFlight()

    /// The run's window of true time: the warm-up's start and the end.
    var start: SimTime { loop.start }
    var end: SimTime { loop.end }

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
        let players = players ?? 0..<scenario.population.players
        self.players = players
        context = ClockContext(epochUnix: scenario.epochUnix, wallSlewPPB: scenario.devices.events.wallClockSync?.slewPPB ?? 0)
        let start = SimTime(ns: -scenario.warmup), end = SimTime(ns: scenario.duration)
        let n = players.count
        // Events name a player in `WorldEvent`'s client field (the loader refuses more players).
        precondition(n < WorldEvent.clientLimit, "\(n) players: a world holds fewer than \(WorldEvent.clientLimit)")
        loop = WorldLoop(queue: EventQueue(capacity: n * 3 + 64, start: start), start: start, end: end)
        let schedule = schedule ?? World.schedule(for: scenario)
        server = ServerSide(scenario, schedule: schedule, start: start, end: end, players: n)
        network = NetworkSide(scenario.links)
        design = ResolvedDesign(scenario, context: context)
        let shares = scenario.links.map(\.share)
        let first = players.lowerBound
        // Made in the table's own block: through an array first, a million players' state was
        // written twice (and its pages faulted in twice).
        clients = StateTable(count: n) { k in
            let i = first + k
            var rng = RandomStream(seed: scenario.seed, purpose: World.devicePurpose, entity: UInt64(i))
            let drift = scenario.devices.driftPPM.sample(&rng)
            let wallOffset = Int64(scenario.devices.wallClockOffset.sample(&rng).rounded())
            let uptime = scenario.devices.uptimeAtStart.sampleDuration(&rng)
            let link = World.pick(shares, rng.unit())
            var device = DeviceState(driftPPB: Int64((drift * 1000).rounded()), wallOffset: wallOffset,
                                     bootTime: start - uptime, epochUnix: scenario.epochUnix)
            // A disciplined wall clock is counted by the same oscillator between corrections.
            if scenario.devices.events.wallClockSync != nil { device.wallRatePPB = Int32(device.driftPPB) }
            return ClientState(device: device, link: UInt8(link), seed: scenario.seed, index: UInt64(i))
        }
        viewers = ViewerList(count: n)
        memory = DesignMemory(scenario.client, players: n)
        measure = Measurement(scenario, schedule: schedule, players: players, server: server)
        executor = Executor(scenario, players: n)
    }

    /// The per-player streams' purposes, hashed once (see `ClientState`'s).
    static let devicePurpose = StreamPurpose("device")
    static let releasePurpose = StreamPurpose("release")
    static let balancerPurpose = StreamPurpose("balancer")

    /// Index of the bucket `u` in [0, 1) falls in, given shares summing to 1.
    static func pick(_ shares: [Double], _ u: Double) -> Int {
        var acc = 0.0
        for (i, s) in shares.enumerated() {
            acc += s
            if u < acc { return i }
        }
        return shares.count - 1
    }

    /// A copied world shares its state tables and the recorder's: the copy being run takes its
    /// own first.
    mutating func ensureUniqueState() {
        if !clients.isUnique() { clients = clients.copy() }
        if !requests.isUnique() { requests = requests.copy() }
        measure.recorder.ensureUniqueTables()
        if let link = fleet, link.ownsCoordinator, !isKnownUniquelyReferenced(&fleet!.coordinator) {
            fleet!.coordinator = link.coordinator.copy()
        }
    }

    /// The results so far, with this world's counts.
    public func finish() -> RunResult {
        var completed = completedRecorder()
        if let link = fleet, link.ownsCoordinator {
            // Into copies of the tables the world shares with its recorder: finish may be asked again.
            completed.ensureUniqueTables()
            completed.mergeFleet(link.coordinator.fleetRecords)
        }
        return completed.finish(eventsScheduled: loop.queue.scheduledCount, files: server.store.files)
    }

    /// The recorder with what is still kept per player added: the split of each player's
    /// current anchor, for the samples taken with it (added otherwise only at the next sync).
    func completedRecorder() -> MetricsRecorder {
        var completed = measure.recorder
        for c in clients.indices where clients[c].anchorSamples > 0 {
            completed.attributeAnchor(clients[c].split.parts, samples: clients[c].anchorSamples)
        }
        return completed
    }

    mutating func scheduleNextSample() {
        let every = scenario.sampleEvery
        let phase = Int64(measure.samplingRNG.below(UInt64(every)))
        measure.nextSampleAt = SimTime(ns: measure.sampleIndex &* every &+ phase)
        schedule(.sample, client: -1, at: measure.nextSampleAt)
        measure.sampleIndex += 1
    }

    mutating func bootstrap() {
        // The server has been running: it published once at the start (`ServerTimeline`).
        schedule(.cron, client: -1, at: server.timeline.firstCron)
        scheduleNextSample()
        let start = self.start
        for c in clients.indices {
            beginDeepSleep(c, start)
            let gap = scenario.population.visitGap.sampleDuration(&clients[c].behaviourRNG)
            schedule(.visitStart, client: c, epoch: clients[c].behaviourEpoch, at: start + gap)
            if scenario.devices.events.any { scheduleFirstDeviceEvents(c) }
        }
    }

    /// What event e does at t: the model's part of an event, with nothing of how it is carried
    /// out (`World+Executor` calls it, after the player has caught up to t).
    mutating func handle<C: DeviceClock, T: DeviceClock>(_ e: WorldEvent, at t: SimTime, _ d: DesignClocks<C, T>) {
        let c = Int(e.client)
        switch e.kind {
        case .visitStart: if e.epoch == clients[c].behaviourEpoch { visitStart(c, t, d) }
        case .viewStart: if e.epoch == clients[c].behaviourEpoch { viewStart(c, t, d) }
        case .viewEnd: if e.epoch == clients[c].behaviourEpoch { viewEnd(c, t) }
        case .deepSleep: if e.epoch == clients[c].powerEpoch { beginDeepSleep(c, t) }
        case .sendRequest:
            if e.epoch == clients[c].fetchEpoch && clients[c].phase == .viewing { sendRequest(c, t) }
        case .serverReply:
            if let a = fleetAnswers[e.client], a.request.epoch == e.epoch {
                fleetAnswers[e.client] = nil
                if e.epoch == clients[c].fetchEpoch { receiveAnswer(c, a) }
            }
        case .responseDone: if e.epoch == clients[c].fetchEpoch { responseDone(c, t, d) }
        case .requestFailed: if e.epoch == clients[c].fetchEpoch { requestFailed(c, t) }
        case .display:
            if e.epoch == clients[c].displayEpoch && clients[c].phase == .viewing { display(c, t, d) }
        case .cron:
            // The jobs' instants are the timeline's; their events keep the order of the queue.
            let run = server.timeline.cronRuns[server.cronRunsDone]
            precondition(run.at == t, "cron run out of step with the timeline")
            server.cronRunsDone += 1
            schedule(.publish, client: -1, at: run.publishAt)
            schedule(.cron, client: -1, at: run.next)
        case .publish:
            server.liveFile += 1
        case .sample:
            sample(t)
            scheduleNextSample()
        case .reboot, .appKill, .wallClockChange, .tamper:
            deviceEvent(e.kind, c, ordinal: e.epoch, t, d)
        case .wallClockSync: correctWallClock(c, ordinal: e.epoch, t, d)
        case .wallClockWander: wanderWallClock(c, ordinal: e.epoch, t, d)
        case .databaseArrival: databaseArrival(c, t, epoch: e.epoch)
        case .databaseReply:
            if e.epoch == clients[c / (scenario.positions + 1)].fetchEpoch { databaseReply(c, t) }
        case .databaseFailed:
            if e.epoch == clients[c / (scenario.positions + 1)].fetchEpoch { databaseFailed(c, t) }
        case .databaseCountdown: databaseCountdown(c, t, epoch: e.epoch)
        case .databaseRetry: databaseRetry(c, t, epoch: e.epoch)
        }
    }
}
