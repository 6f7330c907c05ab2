import SyncLabKernel

/// One fetch of the store file: client → network → server → network → client.
///
/// The request leaves when sent; its last byte leaves the device (the seeds' "upload complete")
/// after the request's bytes at the link's bandwidth; it reaches the server one uplink delay
/// later, where the timestamp is taken as the request starts. The response leaves after the
/// service time and completes after the downlink delay plus the file's bytes at the bandwidth.
extension World {
    /// Sends a request; `probe` marks the next probe of a best-of-n round (any other send starts
    /// a new round).
    mutating func sendRequest(_ c: Int, _ t: SimTime, probe: Bool = false) {
        if server.usesDatabase { databaseLoadStore(c, t); return }
        guard !clients[c].fetchInFlight else { return }
        if !probe { clients[c].probesDone = 0 }
        clients[c].fetchEpoch &+= 1
        clients[c].fetchInFlight = true
        clients[c].needsFetch = false
        let link = Int(clients[c].link)
        if measure.recorder.trace != nil { traceSent(c, t, link: link) }
        let (arrival, lost, sentAt, uploadCompleteAt) = requestLeaves(c, t, link: link, key: requestKey(c))
        takeRequestSlot(c, for: RequestInFlight(player: Int32(c), sentAt: sentAt, uploadCompleteAt: uploadCompleteAt))
        // A request still on its way when the client's time-out runs out never reaches the
        // server: the client gives up and closes the connection. (Its failure must not be
        // scheduled from the server's side, at an instant already past.)
        if lost || arrival - sentAt > network.links[link].timeout {
            schedule(.requestFailed, client: c, epoch: clients[c].fetchEpoch, at: sentAt + network.links[link].timeout)
        } else if arrival >= end {
            // Arriving after the end: never answered, as its event would not be.
        } else if server.usesServingModel {
            sendToFleet(c, sent: t, arrival: arrival, link: link)
        } else {
            // Nothing the server reads depends on other requests (its files are the timeline's;
            // its stamp and clock are functions of time; no queue): answer it now and save an event.
            serverArrival(c, arrival, file: server.timeline.file(arrivingAt: arrival, sentAt: t))
        }
    }

    /// The way every request leaves a player, the store fetch's and the original plan's API
    /// calls alike: its bytes at the link's bandwidth (a request without a body leaves whole at
    /// once and draws none), the uplink delay, the link's loss; the radio's promotion and a new
    /// connection's set-up come first and lost segments make it late on the way
    /// (World+Connection, which moves the send to when the client reads its send clock).
    /// Returns when it reaches the server, whether the link lost it, when the client read its
    /// send clock and when the request's last byte left. `key` keys the request's own draws
    /// (connection set-up, lost segments).
    @inline(__always)
    mutating func requestLeaves(_ c: Int, _ t: SimTime, link: Int, key: UInt64)
        -> (arrival: SimTime, lost: Bool, sentAt: SimTime, uploadCompleteAt: SimTime) {
        let upload = scenario.requestBytes == 0 ? 0
            : linkTransfer(.uplink, c, link: link, bytes: scenario.requestBytes,
                           bytesPerSecond: linkDraw(.bandwidth, c, link: link), at: t)
        let uplink = linkDelay(.uplink, c, link: link, at: t)
        if measure.watchesDraws(of: c) { measure.emit(.uplinkDrawn(player: c, link: link, delay: uplink, at: t.ns)) }
        let lost = clients[c].networkRNG.bernoulli(failureChance(c, link: link))
        measure.recorder.requestSent(at: t, lost: lost)
        let arrival = t + upload + uplink
        guard network.modelsConnection else { return (arrival, lost, t, t + upload) }
        let late = prepareRequest(c, t, link: link, arrival: arrival, key: key)
        return (late.arrival, lost, late.sentAt, t + upload + late.setup)
    }

    /// The way every answer reaches a player: it leaves the server at `left` with `bytes` and
    /// crosses the downlink (its delay, then its bytes at the link's bandwidth; its headers
    /// first, if the design reads them; late by its lost segments). Its request reached the
    /// server at `arrivedAt`; `key` is the request's (`requestLeaves`). Returns the downlink
    /// delay, when the answer is in and when its headers were (for a design that reads them).
    @inline(__always)
    mutating func responseCrosses(_ c: Int, link: Int, bytes: Int, arrivedAt: SimTime, leftAt left: SimTime, key: UInt64)
        -> (downlink: Nanoseconds, done: SimTime, headersAt: SimTime) {
        let downlink = linkDelay(.downlink, c, link: link, at: left)
        if measure.watchesDraws(of: c) {
            measure.emit(.downlinkDrawn(player: c, link: link, delay: downlink, at: left.ns, requestArrivedAt: arrivedAt.ns))
        }
        let bandwidth = linkDraw(.bandwidth, c, link: link)
        let transfer = linkTransfer(.downlink, c, link: link, bytes: bytes, bytesPerSecond: bandwidth, at: left)
        var headersAt = SimTime.zero
        if design.readsResponseHeaders {
            headersAt = left + downlink
                + linkTransfer(.downlink, c, link: link, bytes: min(bytes, server.headerBytes), bytesPerSecond: bandwidth, at: left)
        }
        let done = left + downlink + transfer
        guard network.modelsConnection else { return (downlink, done, headersAt) }
        let late = lateResponse(c, link: link, bytes: bytes, due: done, key: key)
        return (downlink, late.done, design.readsResponseHeaders ? headersAt + late.headersLate : headersAt)
    }

    /// The request reaches the server at t, which answers with version `file` (no serving model).
    mutating func serverArrival(_ c: Int, _ t: SimTime, file: Int) {
        let service: Nanoseconds
        if probesEndpoint(c) {
            measure.recorder.servedEndpoint(serverTime: server.store.serverTime(at: t), bytes: design.endpointBytes)
            service = endpointServiceDelay(c)
        } else {
            measure.recorder.served(serverTime: server.store.serverTime(at: t), bytes: server.store.files[file].responseBytes)
            // Drawn from the player's stream, so the server's draws never depend on other players.
            service = serviceDelay(c)
        }
        self[requestOf: c].stamp(server.store.timestamp(at: t), exact: server.store.serverTime(at: t),
                                 serverOffset: server.store.clockOffset, server: 0)
        respond(c, file: file, arrivedAt: t, start: t, leftAt: t + service)
    }

    /// The response tail every served request shares (plain server and serving models): the
    /// response leaves the server at `left` with store file `file` (or the time endpoint's
    /// bytes, for its probe) and crosses the downlink; it completes, or the client's time-out
    /// comes first. The caller has set the stamp.
    mutating func respond(_ c: Int, file: Int, arrivedAt: SimTime, start: SimTime, leftAt left: SimTime) {
        let link = Int(clients[c].link)
        self[requestOf: c].answer(file: file, arrivedAt: arrivedAt, leftAt: left)
        if measure.recorder.trace != nil { traceServed(c, arrived: arrivedAt, start: start) }
        let bytes = probesEndpoint(c) ? design.endpointBytes : server.store.files[file].responseBytes
        let (downlink, done, headersAt) = responseCrosses(c, link: link, bytes: bytes, arrivedAt: arrivedAt, leftAt: left,
                                                          key: requestKey(c))
        if design.readsResponseHeaders { self[requestOf: c].headersAt = headersAt }
        let epoch = clients[c].fetchEpoch
        let failAt = timedOut(sentAt: self[requestOf: c].sentAt, done: done, link: link)
        if measure.observesRoundTrips && failAt == nil {
            recordLinkRoundTrip(c, link: link, arrivedAt: arrivedAt, downlink: downlink)
        }
        if let failAt {
            schedule(.requestFailed, client: c, epoch: epoch, at: failAt)
        } else {
            schedule(.responseDone, client: c, epoch: epoch, at: done)
        }
    }

    /// When the client gives up on a request sent at `sentAt` whose answer would complete at
    /// `done`, or nil when the answer comes first (every request path asks this).
    @inline(__always)
    func timedOut(sentAt: SimTime, done: SimTime, link: Int) -> SimTime? {
        let timeout = network.links[link].timeout
        return done - sentAt > timeout ? sentAt + timeout : nil
    }

    mutating func responseDone<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        clients[c].fetchInFlight = false
        // Read to the end of the handling; kept when it sends the next request (a probe, the store fetch).
        defer { if !clients[c].fetchInFlight { giveBackRequestSlot(c) } }
        if measure.recorder.trace != nil { traceClose(c, .answered, at: t) }
        // The store fetch that follows a time endpoint's probes: the file, no sync.
        if design.probesTimeEndpoint && clients[c].storeOwed { storeArrived(c, t, d); return }
        var exchange = currentExchange(c, doneAt: t)
        var bestProbe = 0
        if scenario.client.probes > 1 {
            // n probes: every probe is a real request; the next leaves as soon as one answers.
            guard let round = probeRound(c, exchange) else {
                measure.recorder.responseReceived(at: t, roundTrip: t - self[requestOf: c].sentAt)
                // Sending overwrites the answer's file (a plain server answers at once).
                let file = self[requestOf: c].file
                let first = design.showFirstAnswerWithin >= 0 && showsAnswer(c, exchange, at: t, d)
                sendRequest(c, t, probe: true)
                if first { showFirstAnswer(c, exchange, file: file, at: t, d) }
                return
            }
            (exchange, bestProbe) = round
        }
        guard let now = landSync(c, exchange, best: bestProbe, at: t, d) else { syncRejected(c, t); return }
        clients[c].consecutiveFailures = 0
        if scenario.client.persistSync {
            // Written to the app's storage at every sync, with the boot time it was taken under.
            clients[c].syncStored = true
            clients[c].storedBootWall = clients[c].device.kernelBootWallUnix(context)
        }
        // The probes went to the time endpoint: the store file follows them.
        if design.probesTimeEndpoint { fetchStoreAfterProbes(c, t, d); return }
        // The file is the last response's; the anchor may come from an earlier probe.
        let r = self[requestOf: c]
        clients[c].file = r.file
        let load = LoadContext(loadedAt: now, anchor: clients[c].anchor, epochUnix: scenario.epochUnix)
        clients[c].refetchDue = design.refetch.refetchDue(after: load, &clients[c].designRNG)
        measure.recorder.responseReceived(at: t, roundTrip: t - r.sentAt)
        measure.recorder.fetchSynced(at: t, error: clients[c].anchorError)
        clients[c].displayEpoch &+= 1
        scheduleDisplay(c, t, d)
    }

    /// Lands a sync on `exchange` (probe `best` of its round) completed at t: the design's
    /// estimate becomes the anchor, the one before it stays for what the UI showed until its
    /// next tick, and the exchange is kept for the samples. Returns the design clock's reading
    /// at t, or nil when the estimate's ± bound passes `client.maxSyncBound` (nothing changed).
    /// `provisional`: an answer shown before its round ends (`showFirstAnswerWithin`, which
    /// checked its bound), estimated without keeping it in the estimator's memory.
    @inline(__always)
    mutating func landSync<C: DeviceClock, T: DeviceClock>(_ c: Int, _ exchange: ProbeExchange, best: Int, at t: SimTime,
                                                           _ d: DesignClocks<C, T>, provisional: Bool = false) -> ClockReading? {
        let kept = ShadowExchange(exchange)
        let (s, now) = designSync(clients[c].device, kept, at: t, d, server: exchange.server)
        // The estimator keeps a round's estimate only when the design admits its bound.
        let estimate = design.isStateless ? nil
            : syncEstimate(c, s, best: best, at: t, d, mode: provisional ? .firstAnswer : .round)
        if design.maxSyncBound >= 0 && !provisional
            && !design.admits(estimate?.bound ?? design.estimator.halfWidth(for: s, design.boundModel)) { return nil }
        clients[c].previousAnchor = clients[c].anchor
        clients[c].previousFile = clients[c].file
        clients[c].previousValid = clients[c].hasSync
        if let estimate {
            clients[c].anchor = estimate.anchor
            clients[c].syncBound = estimate.bound
            clients[c].syncBoundGrowthPPB = estimate.boundGrowthPPB
        } else {
            // Its bound depends on this sample alone: worked out when the sync settles.
            clients[c].anchor = design.estimator.anchor(for: s)
            clients[c].syncBoundGrowthPPB = design.boundModel.maxDriftPPB
        }
        clients[c].anchorSetAt = t
        // The anchor's error at the sync instant, which its split (`AnchorAttribution`) adds up to.
        clients[c].anchorError = clients[c].anchor.serverTime(at: now) &- server.store.serverTime(at: t)
        keepSync(c, exchange, kept)
        clients[c].hasSync = true
        return now
    }

    /// Keeps the sync's exchange in place of what only a sample reads of it (`settleSync`). A
    /// player may sync again before any sample sees this one: the reference fleet's players sync
    /// every few minutes and are sampled once a day.
    @inline(__always)
    mutating func keepSync(_ c: Int, _ exchange: ProbeExchange, _ kept: ShadowExchange) {
        // The samples taken with the last anchor have all been recorded (the event began with
        // `catchUpSamples`), and settled it: its parts go in now, once for all of them.
        if clients[c].anchorSamples > 0 {
            measure.recorder.attributeAnchor(clients[c].split.parts, samples: clients[c].anchorSamples)
            clients[c].anchorSamples = 0
        }
        clients[c].shadows.exchange = kept
        clients[c].syncServer = UInt16(exchange.server)
        clients[c].split.serverSide = ExchangeServerSide(arrivedAt: exchange.arrivedAt, leftAt: exchange.leftAt,
                                                         exactStamp: exchange.exactStamp,
                                                         serverOffset: exchange.serverOffset)
        clients[c].syncPending = true
        syncKept(c)
    }

    /// Works out what only samples read of the kept sync: for a stateless estimator its ± bound,
    /// the split of its anchor's error by source, the clock's drift offset and sleep at the sync,
    /// and the same sync measured with each reference clock (`ReferenceClocks` order). Called
    /// before a sample reads them and before the device changes (`updateDevice`): a reading of a
    /// past instant depends on the device's later sleeps, reboots and clock changes.
    mutating func settleSync(_ c: Int) {
        clients[c].syncPending = false
        // At most once per sampled sync: the existentials' calls are cheap enough here.
        settleSync(c, design.estimator)
    }

    @inline(__always)
    mutating func settleSync<E: SyncEstimator>(_ c: Int, _ estimator: E) {
        let device = clients[c].device
        let t = clients[c].anchorSetAt
        let e = clients[c].shadows.exchange, side = clients[c].split.serverSide
        // As at the sync: the device has not changed since.
        let answered = Int(clients[c].syncServer)
        let (s, now) = designSync(device, e, at: t, design.clocks, server: answered)
        if design.isStateless { clients[c].syncBound = estimator.halfWidth(for: s, design.boundModel) }
        let middle = side.arrivedAt + (side.leftAt - side.arrivedAt) / 2
        clients[c].split.parts = AnchorAttribution.split(
            estimator: estimator, sample: s, reading: now, truth: server.store.serverTime(at: t),
            actual: clients[c].anchor.serverTime(at: now),
            exactStamp: side.exactStamp, exactTransmit: server.store.clock(at: side.leftAt, offset: side.serverOffset),
            midStamp: server.store.clock(at: middle, offset: side.serverOffset), referenceMid: server.store.serverTime(at: middle))
        // A clock without drift reads the same as the device's own when the device has none.
        clients[c].anchorDriftOffset = device.driftPPB == 0 && device.wallRatePPB == 0 ? 0 : design.clocks.driftOffset(device, at: t)
        clients[c].anchorSlept = device.slept(at: t)
        for k in 0..<ReferenceClocks.count {
            let shadow = SyncSample(serverTimestamp: e.timestamp,
                                    requestSent: ReferenceClocks.reading(k, device, at: e.sentAt, context),
                                    uploadComplete: ReferenceClocks.reading(k, device, at: e.uploadCompleteAt, context),
                                    downloadComplete: ReferenceClocks.reading(k, device, at: e.doneAt, context),
                                    serverTransmit: e.transmit, server: answered)
            clients[c].shadows[k] = ShadowAnchor(estimator.anchor(for: shadow))
        }
    }

    /// The design clock's sample of an exchange completed by t, and its reading at t (the
    /// download's reading when the exchange was read at t).
    @inline(__always)
    func designSync<C: DeviceClock, T: DeviceClock>(_ device: DeviceState, _ e: ShadowExchange, at t: SimTime,
                                                      _ d: DesignClocks<C, T>, server: Int) -> (SyncSample, ClockReading) {
        let s = SyncSample(serverTimestamp: e.timestamp, requestSent: d.reading(device, at: e.sentAt),
                           uploadComplete: d.reading(device, at: e.uploadCompleteAt),
                           downloadComplete: d.reading(device, at: e.doneAt), serverTransmit: e.transmit, server: server)
        return (s, e.doneAt == t ? s.downloadComplete : d.reading(device, at: t))
    }

    /// Changes player c's device, after settling a kept sync against the device as it was (every
    /// change of a device goes through here). Its clock's reading at the end of the run may
    /// change with it: worked out again when next asked.
    @inline(__always) @discardableResult
    mutating func updateDevice<R>(_ c: Int, _ change: (inout DeviceState) -> R) -> R {
        if clients[c].syncPending { settleSync(c) }
        clients[c].readingAtEnd = .min
        return change(&clients[c].device)
    }

    /// The round answered at t gave an estimate whose ± bound passes `client.maxSyncBound`: it
    /// brings nothing (not its time, nor its file), and the retry policy sends the next round as
    /// after a failure, the backoff growing with each round in a row that fails or is not used.
    mutating func syncRejected(_ c: Int, _ t: SimTime) {
        measure.recorder.responseReceived(at: t, roundTrip: t - self[requestOf: c].sentAt)
        measure.recorder.syncRejected(at: t)
        clients[c].needsFetch = true
        clients[c].consecutiveFailures += 1
        clients[c].fetchEpoch &+= 1
        let delay = retryDelay(c)
        schedule(.sendRequest, client: c, epoch: clients[c].fetchEpoch, at: t + delay)
    }

    mutating func requestFailed(_ c: Int, _ t: SimTime) {
        clients[c].fetchInFlight = false
        giveBackRequestSlot(c)
        if measure.recorder.trace != nil { traceClose(c, .failed, at: t) }
        // The client gives up on the connection; the radio was busy until now.
        clients[c].connectionOpen = false
        clients[c].lastNetworkAt = t.ns
        measure.emit(.networkBusy(player: c, until: t.ns))
        clients[c].needsFetch = true
        clients[c].consecutiveFailures += 1
        measure.recorder.requestFailed(at: t)
        clients[c].fetchEpoch &+= 1
        clients[c].probesDone = 0
        let delay = retryDelay(c)
        schedule(.sendRequest, client: c, epoch: clients[c].fetchEpoch, at: t + delay)
    }
}
