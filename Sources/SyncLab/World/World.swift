import SyncLabKernel

/// Wires the models into one discrete-event loop and records what the metrics need.
///
/// The world knows the seeds' system (a store server, a network, devices, players running a
/// client design) but no report formats; the kernel below it knows none of this. Every
/// alternative — clock, estimator, tick, refetch, retry — is reached through its protocol, so a
/// new one never edits this file.
public final class World {
    public let scenario: Scenario
    let context: ClockContext
    let start: SimTime
    let end: SimTime
    var queue: EventQueue<WorldEvent>
    var server: StoreServer
    var clients: [ClientState]
    /// Clients with the Store on screen, for sampling (order is deterministic: swap-remove).
    var viewing: [Int32] = []
    var viewingSlot: [Int32]
    /// The same sync computed with each reference clock, for the error-by-clock breakdown.
    let shadowClocks: [any DeviceClock]
    var shadowAnchors: [SyncAnchor]
    var recorder: MetricsRecorder
    /// Each sample instant falls at a random phase inside its interval, so sampling never locks
    /// to the whole seconds that truncation and ticks are aligned to.
    var samplingRNG: RandomStream
    var sampleIndex: Int64 = 0

    public init(scenario: Scenario) {
        self.scenario = scenario
        context = ClockContext(epochUnix: scenario.epochUnix)
        start = SimTime(ns: -scenario.warmup)
        end = SimTime(ns: scenario.duration)
        let schedule = StoreSchedule(positions: scenario.positions, shelfLife: scenario.shelfLife,
                                     resolution: scenario.scheduleResolution, start: start,
                                     end: end + scenario.server.horizon + 10 * .minute,
                                     epochUnix: scenario.epochUnix, seed: scenario.seed)
        server = StoreServer(config: scenario.server, schedule: schedule, epochUnix: scenario.epochUnix,
                             seed: scenario.seed)
        shadowClocks = [SuspendingClock(), ContinuousClock(), BootTimeUptimeClock(resolution: .second),
                        BootTimeUptimeClock(resolution: .microsecond), WallClock()]
        let n = scenario.population.players
        queue = EventQueue(capacity: n * 3 + 64)
        samplingRNG = RandomStream(seed: scenario.seed, purpose: StreamPurpose("sampling"))
        clients = []
        clients.reserveCapacity(n)
        let shares = scenario.links.map(\.share)
        for i in 0..<n {
            var rng = RandomStream(seed: scenario.seed, purpose: StreamPurpose("device"), entity: UInt64(i))
            let drift = scenario.devices.driftPPM.sample(&rng)
            let wallOffset = Int64(scenario.devices.wallClockOffset.sample(&rng).rounded())
            let uptime = scenario.devices.uptimeAtStart.sampleDuration(&rng)
            let link = World.pick(shares, rng.unit())
            let device = DeviceState(driftPPB: Int64((drift * 1000).rounded()), wallOffset: wallOffset,
                                     bootTime: start - uptime, epochUnix: scenario.epochUnix)
            clients.append(ClientState(device: device, link: UInt8(link), seed: scenario.seed, index: UInt64(i)))
        }
        viewingSlot = [Int32](repeating: -1, count: n)
        shadowAnchors = [SyncAnchor](repeating: SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0)),
                                     count: n * shadowClocks.count)
        recorder = MetricsRecorder(scenario: scenario, schedule: schedule,
                                   shadowClockNames: shadowClocks.map(World.shadowLabel))
    }

    /// The reference clocks every run measures the same syncs with, by label.
    public static var shadowClockLabels: [String] {
        [SuspendingClock(), ContinuousClock(), BootTimeUptimeClock(resolution: .second),
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

    /// Runs the scenario to its end and returns the results.
    public func run() -> RunResult {
        bootstrap()
        while let (t, e) = queue.pop() {
            if t >= end { break }
            handle(e, at: t)
        }
        return recorder.finish(eventsScheduled: queue.scheduledCount, files: server.files)
    }

    func schedule(_ kind: WorldEvent.Kind, client: Int, epoch: UInt32 = 0, at t: SimTime) {
        guard t < end else { return }
        queue.schedule(WorldEvent(client: Int32(client), kind: kind, epoch: epoch), at: t)
    }

    func scheduleNextSample() {
        let every = scenario.sampleEvery
        let phase = Int64(samplingRNG.below(UInt64(every)))
        schedule(.sample, client: -1, at: SimTime(ns: sampleIndex &* every &+ phase))
        sampleIndex += 1
    }

    func bootstrap() {
        // The server has been running: generate and publish once at the start.
        server.generate(at: start)
        server.publish(at: start)
        schedule(.cron, client: -1, at: server.nextCronRun(after: start))
        scheduleNextSample()
        if let release = scenario.population.release {
            schedule(.release, client: -1, at: release.at)
        }
        for c in clients.indices {
            clients[c].device.fallAsleep(at: start)
            let gap = scenario.population.visitGap.sampleDuration(&clients[c].behaviourRNG)
            schedule(.visitStart, client: c, epoch: clients[c].behaviourEpoch, at: start + gap)
        }
    }

    func handle(_ e: WorldEvent, at t: SimTime) {
        let c = Int(e.client)
        switch e.kind {
        case .visitStart: if e.epoch == clients[c].behaviourEpoch { visitStart(c, t) }
        case .viewStart: if e.epoch == clients[c].behaviourEpoch { viewStart(c, t) }
        case .viewEnd: if e.epoch == clients[c].behaviourEpoch { viewEnd(c, t) }
        case .deepSleep: if e.epoch == clients[c].powerEpoch { clients[c].device.fallAsleep(at: t) }
        case .sendRequest:
            if e.epoch == clients[c].fetchEpoch && clients[c].phase == .viewing { sendRequest(c, t) }
        case .serverArrival: serverArrival(c, t, epoch: e.epoch)
        case .responseDone: if e.epoch == clients[c].fetchEpoch { responseDone(c, t) }
        case .requestFailed: if e.epoch == clients[c].fetchEpoch { requestFailed(c, t) }
        case .display:
            if e.epoch == clients[c].displayEpoch && clients[c].phase == .viewing { display(c, t) }
        case .cron:
            server.generate(at: t)
            schedule(.publish, client: -1, at: t + server.publishDelay())
            schedule(.cron, client: -1, at: server.nextCronRun(after: t))
        case .publish:
            server.publish(at: t)
        case .sample:
            sample(t)
            scheduleNextSample()
        case .release:
            release(t)
        }
    }
}
