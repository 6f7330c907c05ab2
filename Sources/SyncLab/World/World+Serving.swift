import SyncLabKernel

/// The store-file server with the opt-in serving models (ServingModel.swift): a fleet behind a
/// load balancer, each server's own clock, workers with a FIFO queue, outages, and the timestamp
/// taken when the request arrives, when a worker starts it, or when the response leaves.
///
/// The queueing delay lands before a `request-start` stamp (PHP-FPM's: the worker stamps once it
/// has taken the request from the backlog), so the seeds' estimator, which adds upload complete to
/// download complete to the stamp, runs ahead by the wait as by the uplink; after an `arrival`
/// stamp the wait is part of the interval it adds, and it cancels out.
///
/// The fleet answers from its own state and the request alone (`FleetRequest`): it never reads a
/// player. A fleet whose state players share (a finite pool, a round-robin counter) is its own
/// part of the run (`FleetCoordinator`); one that keeps no such state answers when the request
/// is sent, in the player's world.
struct ServingState {
    var pools: [WorkerPool]
    /// Each server's clock minus true time before any fault (the cron host's `clockOffset`
    /// without a fleet).
    let offsets: [Nanoseconds]
    /// The fleet's clock faults (`Fleet.faults`; empty: every offset is constant).
    let faults: [any ServerClockFault]
    var nextServer = 0

    init?(_ scenario: Scenario) {
        let config = scenario.server
        guard config.hasServingModel, config.design == nil else { return nil }
        offsets = config.fleet?.offsets(seed: scenario.seed) ?? [config.clockOffset]
        faults = config.fleet?.faults ?? []
        pools = offsets.map { _ in WorkerPool(workers: config.workers, queueLimit: config.queueLimit) }
    }

    /// Server k's clock minus true time at true time t: its offset plus its faults' shifts.
    @inline(__always) func offset(_ k: Int, at t: SimTime) -> Nanoseconds {
        guard !faults.isEmpty else { return offsets[k] }
        var offset = offsets[k]
        for f in faults where f.server == k { offset &+= f.shift(at: t) }
        return offset
    }
}

/// A request on its way to the fleet, with everything the fleet reads of it.
struct FleetRequest {
    /// When it reaches the balancer, and when the player sent it.
    var at: SimTime
    var sentAt: SimTime
    /// The player (global index) and its fetch epoch: the request's name.
    var player: Int
    var epoch: UInt32
    /// The worker time it needs, drawn by the player when sending: the work a request needs does
    /// not depend on whether its player still waits for it.
    var service: Nanoseconds
    /// When the player hears the answer (`SimTime.never`: it gives up first whatever the answer),
    /// and that event's place among the player's own (`EventQueue.reserveSequence`).
    var answerAt: SimTime
    var sequence: UInt64
    /// A probe of the time endpoint (`client.probeTarget`), not a store fetch.
    var endpoint = false
    /// The fleet's order of requests arriving at one instant: by player, then by epoch, so it
    /// never depends on how the players are split into shards.
    var order: UInt64 { UInt64(player) << 32 | UInt64(epoch) }
}

/// What the fleet did with a request.
enum FleetOutcome {
    /// Served by `server`: a worker started it at `start`, the response left at `left`, with
    /// store file `file`.
    case served(server: Int, start: SimTime, left: SimTime, file: Int)
    /// Turned away at once: connection refused in an outage, or HTTP 503 with the queue full.
    case turnedAway
    /// Nothing answers (an outage that times out): the client notices at its time-out.
    case silent
}

/// A fleet's answer waiting in a player's world for its event.
struct FleetAnswer {
    var request: FleetRequest
    var outcome: FleetOutcome
}

extension ServingState {
    /// The fleet's answer to `r`, arriving now: requests arrive here in time order (ties by
    /// `FleetRequest.order`). What the fleet did in the window goes into `recorder`.
    mutating func answer(_ r: FleetRequest, scenario: Scenario, timeline: ServerTimeline,
                         recorder: inout MetricsRecorder) -> FleetOutcome {
        let t = r.at
        let measured = recorder.inWindow(t)
        if let outage = scenario.server.outage(at: t) {
            switch outage.mode {
            case .refused:
                if measured { recorder.serving?.outageRefused += 1 }
                return .turnedAway
            case .timeout:
                if measured { recorder.serving?.outageTimedOut += 1 }
                return .silent
            }
        }
        let k = pickServer(r, scenario: scenario)
        let file = timeline.file(arrivingAt: t, sentAt: r.sentAt)
        let endpoint = r.endpoint ? scenario.client.probeTarget.endpoint : nil
        if let endpoint, !endpoint.takesWorkers {
            // The web server in front of the pool answers at once: no worker, no queue, and none
            // of the pool's figures.
            recorder.servedEndpoint(serverTime: timeline.server.serverTime(at: t), bytes: endpoint.responseBytes)
            return .served(server: k, start: t, left: t + r.service, file: file)
        }
        // Unlimited workers keep no state (and an early answer may come out of arrival order).
        let admission = scenario.server.workers == nil ? .served(start: t, done: t + r.service, queued: 0)
            : pools[k].admit(at: t, service: r.service)
        guard case let .served(start, left, queued) = admission else {
            // Queue full: the server answers at once with an error (HTTP 503).
            if measured {
                recorder.serving?.queueFull += 1
                recorder.serving?.batch(at: t, wait: nil, duration: scenario.duration)
            }
            return .turnedAway
        }
        if let endpoint {
            recorder.servedEndpoint(serverTime: timeline.server.serverTime(at: t), bytes: endpoint.responseBytes)
        } else {
            recorder.served(serverTime: timeline.server.serverTime(at: t), bytes: timeline.server.files[file].responseBytes)
        }
        if measured {
            recorder.serving?.admitted += 1
            recorder.serving?.waits.record(start - t)
            recorder.serving?.batch(at: t, wait: start - t, duration: scenario.duration)
            let longest = max(recorder.serving?.maxQueue ?? 0, queued)
            recorder.serving?.maxQueue = longest
            recorder.serving?.perServer[k] += 1
        }
        return .served(server: k, start: start, left: left, file: file)
    }

    /// The server for request r: round-robin in arrival order, or a uniform draw from a stream
    /// keyed by (player, request), so it does not depend on other players.
    mutating func pickServer(_ r: FleetRequest, scenario: Scenario) -> Int {
        guard let fleet = scenario.server.fleet, fleet.servers > 1 else { return 0 }
        switch fleet.balancing {
        case .roundRobin:
            let k = nextServer
            nextServer = (k + 1) % fleet.servers
            return k
        case .random:
            var rng = RandomStream(seed: scenario.seed, purpose: World.balancerPurpose, entity: r.order)
            return Int(rng.below(UInt64(fleet.servers)))
        }
    }
}

extension World {
    /// Player c's request, sent at `sent`, reaches the fleet at `arrival` (before the end): answered
    /// now when the fleet keeps no shared state, else handed to the fleet's part of the run, whose
    /// answer comes back as an event no sooner than the response could.
    mutating func sendToFleet(_ c: Int, sent: SimTime, arrival: SimTime, link: Int) {
        // `probesEndpoint(c)` read in place: called here, it made the compiler copy the whole
        // world (11 KB and its references' counts) on every request, 5% of a realistic run.
        let endpoint = design.probesTimeEndpoint && !clients[c].storeOwed
        var r = FleetRequest(at: arrival, sentAt: sent, player: players.lowerBound + c, epoch: clients[c].fetchEpoch,
                             service: endpoint ? endpointServiceDelay(c) : serviceDelay(c), answerAt: .never, sequence: 0,
                             endpoint: endpoint)
        if server.answersWhenSent {
            let outcome = server.serving!.answer(r, scenario: scenario, timeline: server.timeline, recorder: &measure.recorder)
            receiveAnswer(c, FleetAnswer(request: r, outcome: outcome))
            return
        }
        // No answer reaches the player before the downlink's lookahead after the arrival; one that
        // could only come after the client's time-out changes nothing the player does.
        let timeoutAt = sent + network.links[link].timeout
        let answerAt = arrival + network.answerLead[link]
        if answerAt <= timeoutAt {
            r.answerAt = answerAt
            r.sequence = loop.queue.reserveSequence()
        } else {
            schedule(.requestFailed, client: c, epoch: r.epoch, at: timeoutAt)
        }
        fleetOutbox.append(r)
    }

    /// Server k's stamp taken at true time t, for the audit of the servers' clocks: what it
    /// carried against the offset the scenario gives the server then.
    mutating func recordStamp(_ k: Int, at t: SimTime, timestamp: Int64) {
        guard measure.recorder.inWindow(t), let fleet = scenario.server.fleet, let offsets = server.serving?.offsets else { return }
        let given = fleet.offset(k, at: t, offsets: offsets)
        let resolution = scenario.server.timestampResolution
        measure.recorder.serving?.clocks[k].record(at: t.ns, carried: timestamp &- t.ns, given: given, resolution: resolution)
    }

    /// The fleet's answer reaches player c's world (`serverReply`): kept until its event.
    mutating func deliverAnswer(_ a: FleetAnswer) {
        let c = a.request.player - players.lowerBound
        // A request the player has given up on changes nothing: its epoch never comes back.
        guard a.request.epoch == clients[c].fetchEpoch, a.request.answerAt < end else { return }
        fleetAnswers[Int32(c)] = a
        loop.queue.schedule(WorldEvent(client: Int32(c), kind: .serverReply, epoch: a.request.epoch),
                            at: a.request.answerAt, sequence: a.request.sequence)
    }

    /// Player c hears what the fleet did with its request (served, turned away, or nothing).
    mutating func receiveAnswer(_ c: Int, _ a: FleetAnswer) {
        let r = a.request
        let link = Int(clients[c].link)
        let timeoutAt = r.sentAt + network.links[link].timeout
        switch a.outcome {
        case .turnedAway:
            let back = linkDelay(.downlink, c, link: link, at: r.at)
            schedule(.requestFailed, client: c, epoch: r.epoch, at: min(r.at + back, timeoutAt))
        case .silent:
            schedule(.requestFailed, client: c, epoch: r.epoch, at: timeoutAt)
        case let .served(k, start, left, file):
            let stampAt = switch scenario.server.timestampAt {
            case .arrival: r.at
            case .requestStart: start
            case .responseSend: left
            }
            let offset = server.serving!.offset(k, at: stampAt)
            let timestamp = server.store.timestamp(at: stampAt, clockOffset: offset)
            self[requestOf: c].stamp(timestamp, exact: server.store.clock(at: stampAt, offset: offset), serverOffset: offset, server: k)
            if measure.recorder.serving?.clocks.isEmpty == false { recordStamp(k, at: stampAt, timestamp: timestamp) }
            respond(c, file: file, arrivedAt: r.at, start: start, leftAt: left)
        }
    }
}
