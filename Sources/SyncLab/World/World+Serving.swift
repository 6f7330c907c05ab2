import SyncLabKernel

/// The store-file server with the opt-in serving models (ServingModel.swift): a fleet behind a
/// load balancer, each server's own clock, workers with a FIFO queue, outages, and the timestamp
/// taken when the request arrives, when a worker starts it, or when the response leaves.
///
/// The queueing delay lands before a `request-start` stamp (PHP-FPM's: the worker stamps once it
/// has taken the request from the backlog), so the seeds' estimator, which adds upload complete to
/// download complete to the stamp, runs ahead by the wait as by the uplink; after an `arrival`
/// stamp the wait is part of the interval it adds, and it cancels out.
struct ServingState {
    var pools: [WorkerPool]
    /// Each server's clock minus true time (the cron host's `clockOffset` without a fleet).
    let offsets: [Nanoseconds]
    var nextServer = 0
    /// Service times of requests whose player no longer waits for them: they still hold a worker,
    /// and their draws must not come from (and shift) any player's stream.
    var abandonedRNG: RandomStream

    init?(_ scenario: Scenario) {
        let config = scenario.server
        guard config.hasServingModel, config.design == nil else { return nil }
        offsets = config.fleet?.offsets(seed: scenario.seed) ?? [config.clockOffset]
        pools = offsets.map { _ in WorkerPool(workers: config.workers, queueLimit: config.queueLimit) }
        abandonedRNG = RandomStream(seed: scenario.seed, purpose: StreamPurpose("abandoned-service"))
    }
}

extension World {
    /// The server for a request of player c: round-robin in arrival order, or a uniform draw from
    /// a stream keyed by (player, request), so it does not depend on other players.
    mutating func pickServer(_ c: Int) -> Int {
        guard let fleet = scenario.server.fleet, fleet.servers > 1 else { return 0 }
        switch fleet.balancing {
        case .roundRobin:
            let k = server.serving!.nextServer
            server.serving!.nextServer = (k + 1) % fleet.servers
            return k
        case .random:
            let request = (UInt64(players.lowerBound + c) << 32) | UInt64(clients[c].fetchEpoch)
            var rng = RandomStream(seed: scenario.seed, purpose: World.balancerPurpose, entity: request)
            return Int(rng.below(UInt64(fleet.servers)))
        }
    }

    /// A request reaches the fleet at t, which answers with version `file` (the serving-model
    /// counterpart of `serverArrival`).
    mutating func servingArrival(_ c: Int, _ t: SimTime, epoch: UInt32, file: Int) {
        let wanted = epoch == clients[c].fetchEpoch
        let measured = measure.recorder.inWindow(t)
        let link = Int(clients[c].link)
        if let outage = scenario.server.outage(at: t) {
            switch outage.mode {
            case .refused:
                if measured { measure.recorder.serving?.outageRefused += 1 }
                guard wanted else { return }
                let back = linkDelay(.downlink, c, link: link, at: t)
                schedule(.requestFailed, client: c, epoch: epoch, at: t + back)
            case .timeout:
                if measured { measure.recorder.serving?.outageTimedOut += 1 }
                guard wanted else { return }
                schedule(.requestFailed, client: c, epoch: epoch, at: clients[c].requestSentAt + network.links[link].timeout)
            }
            return
        }
        let k = pickServer(c)
        let bytes = server.store.files[file].responseBytes
        // Drawn from the player's stream as on the plain path, so a design without a queue
        // draws exactly the same values.
        let service: Nanoseconds
        if wanted {
            service = serviceDelay(c)
        } else if scenario.server.workers != nil {
            service = server.store.config.serviceTime.sampleDuration(&server.serving!.abandonedRNG)
        } else {
            service = 0   // an unlimited pool: an unwanted request affects nobody
        }
        // Unlimited workers keep no state (and an early answer may come out of arrival order).
        let admission = scenario.server.workers == nil ? .served(start: t, done: t + service, queued: 0)
            : server.serving!.pools[k].admit(at: t, service: service)
        guard case let .served(start, left, queued) = admission else {
            // Queue full: the server answers at once with an error (HTTP 503).
            if measured {
                measure.recorder.serving?.queueFull += 1
                let window = scenario.duration
                measure.recorder.serving?.batch(at: t, wait: nil, duration: window)
            }
            guard wanted else { return }
            let back = linkDelay(.downlink, c, link: link, at: t)
            schedule(.requestFailed, client: c, epoch: epoch, at: t + back)
            return
        }
        measure.recorder.served(serverTime: server.store.serverTime(at: t), bytes: bytes)
        if measured {
            measure.recorder.serving?.admitted += 1
            measure.recorder.serving?.waits.record(start - t)
            let window = scenario.duration
            measure.recorder.serving?.batch(at: t, wait: start - t, duration: window)
            let longest = max(measure.recorder.serving?.maxQueue ?? 0, queued)
            measure.recorder.serving?.maxQueue = longest
            measure.recorder.serving?.perServer[k] += 1
        }
        guard wanted else { return }
        let stampAt = switch scenario.server.timestampAt {
        case .arrival: t
        case .requestStart: start
        case .responseSend: left
        }
        let downlink = linkDelay(.downlink, c, link: link, at: left)
        measure.recorder.audit.downlink(c, downlink, at: left.ns, link: link, measured: measured)
        let bandwidth = linkDraw(.bandwidth, c, link: link)
        let transfer = linkTransfer(.downlink, c, link: link, bytes: bytes, bytesPerSecond: bandwidth, at: left)
        clients[c].requestTimestamp = server.store.timestamp(at: stampAt, clockOffset: server.serving!.offsets[k])
        clients[c].requestFile = Int32(file)
        clients[c].responseLeftAt = left
        if design.readsResponseHeaders {
            clients[c].responseHeadersAt = left + downlink
                + linkTransfer(.downlink, c, link: link, bytes: min(bytes, server.headerBytes), bytesPerSecond: bandwidth, at: left)
        }
        clients[c].requestArrivedAt = t
        clients[c].requestExactStamp = server.store.clock(at: stampAt, offset: server.serving!.offsets[k])
        clients[c].requestServerOffset = server.serving!.offsets[k]
        if measure.recorder.trace != nil { traceServed(c, arrived: t, start: start) }
        let done = left + downlink + transfer
        if network.modelsConnection {
            lateResponse(c, link: link, bytes: bytes, due: done, epoch: epoch)
        } else if done - clients[c].requestSentAt > network.links[link].timeout {
            schedule(.requestFailed, client: c, epoch: epoch, at: clients[c].requestSentAt + network.links[link].timeout)
        } else {
            schedule(.responseDone, client: c, epoch: epoch, at: done)
        }
    }
}
