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
        if usesDatabase { databaseLoadStore(c, t); return }
        guard !clients[c].fetchInFlight else { return }
        if !probe { clients[c].probesDone = 0 }
        clients[c].fetchEpoch &+= 1
        clients[c].fetchInFlight = true
        clients[c].needsFetch = false
        clients[c].requestSentAt = t
        let link = Int(clients[c].link)
        let bandwidth = linkDraw(.bandwidth, c, link: link)
        let upload = LinkProfile.transferTime(bytes: scenario.requestBytes, bytesPerSecond: bandwidth)
        let uplink = linkDelay(.uplink, c, link: link)
        let lost = clients[c].networkRNG.bernoulli(links[link].failure)
        clients[c].uploadCompleteAt = t + upload
        recorder.requestSent(at: t, lost: lost)
        let arrival = t + upload + uplink
        if lost {
            schedule(.requestFailed, client: c, epoch: clients[c].fetchEpoch, at: t + links[link].timeout)
        } else if answersWhenSent {
            // Nothing the server reads depends on other requests (its files are the timeline's;
            // its stamp, clock and outages are functions of time; no queue): answer it now and
            // save an event. One arriving after the end is not answered, as its event would not be.
            if arrival < end {
                serverArrival(c, arrival, epoch: clients[c].fetchEpoch,
                              file: timeline.file(arrivingAt: arrival, sentAt: t))
            }
        } else {
            schedule(.serverArrival, client: c, epoch: clients[c].fetchEpoch, at: arrival)
        }
    }

    /// The request reaches the server at t, which answers with version `file`.
    mutating func serverArrival(_ c: Int, _ t: SimTime, epoch: UInt32, file: Int) {
        if usesServingModel { servingArrival(c, t, epoch: epoch, file: file); return }
        // The server does its work whether or not the client still wants the answer.
        let bytes = server.files[file].responseBytes
        let timestamp = server.timestamp(at: t)
        recorder.served(serverTime: server.serverTime(at: t), bytes: bytes)
        guard epoch == clients[c].fetchEpoch else { return }
        // Drawn from the player's stream, so the server's draws never depend on other players.
        let service = serviceDelay(c)
        let link = Int(clients[c].link)
        let downlink = linkDelay(.downlink, c, link: link)
        let bandwidth = linkDraw(.bandwidth, c, link: link)
        let transfer = LinkProfile.transferTime(bytes: bytes, bytesPerSecond: bandwidth)
        clients[c].requestTimestamp = timestamp
        clients[c].requestFile = Int32(file)
        clients[c].requestArrivedAt = t
        clients[c].requestExactStamp = server.serverTime(at: t)
        clients[c].requestServerOffset = server.clockOffset
        clients[c].responseLeftAt = t + service
        if readsResponseHeaders {
            clients[c].responseHeadersAt = clients[c].responseLeftAt + downlink
                + LinkProfile.transferTime(bytes: min(bytes, headerBytes), bytesPerSecond: bandwidth)
        }
        let done = clients[c].responseLeftAt + downlink + transfer
        if done - clients[c].requestSentAt > links[link].timeout {
            schedule(.requestFailed, client: c, epoch: epoch, at: clients[c].requestSentAt + links[link].timeout)
        } else if mayCompleteInline(c, at: done) {
            // Decided at the end of this event (`World+InlineResponse`).
            pendingResponse = PendingResponse(client: c, at: done, epoch: epoch, sequence: queue.reserveSequence())
        } else {
            schedule(.responseDone, client: c, epoch: epoch, at: done)
        }
    }

    mutating func responseDone(_ c: Int, _ t: SimTime) {
        let device = clients[c].device
        var exchange = currentExchange(c, doneAt: t)
        clients[c].fetchInFlight = false
        if scenario.client.probes > 1 {
            // Best of n: every probe is a real request; the next leaves as soon as one answers.
            guard let best = probeRound(c, exchange) else {
                recorder.responseReceived(at: t, roundTrip: t - clients[c].requestSentAt)
                sendRequest(c, t, probe: true)
                return
            }
            exchange = best
        }
        let s = SyncSample(serverTimestamp: exchange.timestamp, requestSent: clockReading(device, at: exchange.sentAt),
                           uploadComplete: clockReading(device, at: exchange.uploadCompleteAt),
                           downloadComplete: clockReading(device, at: exchange.doneAt), serverTransmit: exchange.transmit)
        clients[c].consecutiveFailures = 0
        clients[c].previousAnchor = clients[c].anchor
        clients[c].previousFile = clients[c].file
        clients[c].previousValid = clients[c].hasSync
        let estimate = syncEstimate(c, s)
        clients[c].anchor = estimate.anchor
        clients[c].syncBound = estimate.bound
        clients[c].syncBoundGrowthPPB = estimate.boundGrowthPPB
        clients[c].anchorSetAt = t
        // (The sample's download reading when the exchange was read at t: the same reading.)
        let now = exchange.doneAt == t ? s.downloadComplete : clockReading(device, at: t)
        // The estimator's one-exchange form, re-run for the attribution and with each reference
        // clock: specialised per built-in estimator (nine anchors per sync).
        switch designEstimator {
        case .uploadComplete: referenceSyncs(c, exchange, s, at: t, reading: now, UploadCompleteEstimator())
        case .cristian: referenceSyncs(c, exchange, s, at: t, reading: now, CristianEstimator())
        case .ntp(let ntp): referenceSyncs(c, exchange, s, at: t, reading: now, ntp)
        case nil: referenceSyncs(c, exchange, s, at: t, reading: now, scenario.client.estimator)
        }
        clients[c].hasSync = true
        // The file is the last response's; the anchor may come from an earlier probe.
        clients[c].file = clients[c].requestFile
        let load = LoadContext(loadedAt: now, anchor: estimate.anchor,
                               epochUnix: scenario.epochUnix)
        if let refetch = designRefetch {
            clients[c].refetchDue = refetch.refetchDue(after: load, &clients[c].designRNG)
        } else {
            clients[c].refetchDue = scenario.client.refetch.refetchDue(after: load, &clients[c].designRNG)
        }
        recorder.responseReceived(at: t, roundTrip: t - clients[c].requestSentAt)
        // The anchor's error at the sync instant: what its attribution just split.
        recorder.fetchSynced(at: t, error: clients[c].anchorError)
        clients[c].displayEpoch &+= 1
        scheduleDisplay(c, t)
    }

    /// What the sync's one-exchange estimate tells beyond the design's anchor: the split of the
    /// anchor's error by source, now, and the same sync measured with each reference clock
    /// (`shadowClocks` order), when something needs it (`settleShadows`). Generic, so readings
    /// the estimator does not use are never computed.
    @inline(__always)
    mutating func referenceSyncs<E: SyncEstimator>(_ c: Int, _ exchange: ProbeExchange, _ s: SyncSample,
                                                    at t: SimTime, reading now: ClockReading, _ estimator: E) {
        attributeAnchor(c, exchange, sample: s, at: t, reading: now, estimator)
        // Only a sample reads the shadows, and a player may sync again before any sample sees
        // these (every refetch of the reference fleet does): keep the exchange in their place.
        clients[c].shadows.exchange = ShadowExchange(exchange)
        clients[c].shadowsPending = true
        if settlesShadowsAtSync { settleShadows(c) }
    }

    /// Measures the pending sync with each reference clock. Called before a sample reads the
    /// shadows and before the device changes (`updateDevice`): a reading of a past instant
    /// depends on the device's later sleeps, reboots and clock changes.
    mutating func settleShadows(_ c: Int) {
        clients[c].shadowsPending = false
        let exchange = clients[c].shadows.exchange
        // At most once per sync: the enum's own dispatch per anchor is cheap enough here.
        if let estimator = designEstimator {
            shadowSyncs(c, exchange, estimator)
        } else {
            shadowSyncs(c, exchange, scenario.client.estimator)
        }
    }

    @inline(__always)
    mutating func shadowSyncs<E: SyncEstimator>(_ c: Int, _ exchange: ShadowExchange, _ estimator: E) {
        let device = clients[c].device
        for k in 0..<World.referenceClockCount {
            let shadow = SyncSample(serverTimestamp: exchange.timestamp,
                                    requestSent: World.referenceReading(k, device, at: exchange.sentAt, context),
                                    uploadComplete: World.referenceReading(k, device, at: exchange.uploadCompleteAt, context),
                                    downloadComplete: World.referenceReading(k, device, at: exchange.doneAt, context),
                                    serverTransmit: exchange.transmit)
            clients[c].shadows[k] = ShadowAnchor(estimator.anchor(for: shadow))
        }
    }

    /// Changes player c's device, after settling a pending shadow sync against the device as it
    /// was (every change of a device goes through here).
    @inline(__always) @discardableResult
    mutating func updateDevice<R>(_ c: Int, _ change: (inout DeviceState) -> R) -> R {
        if clients[c].shadowsPending { settleShadows(c) }
        return change(&clients[c].device)
    }

    mutating func requestFailed(_ c: Int, _ t: SimTime) {
        clients[c].fetchInFlight = false
        clients[c].needsFetch = true
        clients[c].consecutiveFailures += 1
        recorder.requestFailed(at: t)
        clients[c].fetchEpoch &+= 1
        clients[c].probesDone = 0
        let delay = retryDelay(c)
        schedule(.sendRequest, client: c, epoch: clients[c].fetchEpoch, at: t + delay)
    }

    /// Splits the new anchor's error at the sync instant t (the clock then reading `now`) into its
    /// sources, and keeps what the clock part of later samples is measured from.
    mutating func attributeAnchor<E: SyncEstimator>(_ c: Int, _ e: ProbeExchange, sample s: SyncSample, at t: SimTime,
                                                     reading now: ClockReading, _ estimator: E) {
        let device = clients[c].device
        let middle = e.arrivedAt + (e.leftAt - e.arrivedAt) / 2
        // The samples taken with the old anchor have all been recorded (the event began with
        // `catchUpSamples`): its parts go in now, once for all of them.
        recorder.attributeAnchor(clients[c].anchorParts, samples: clients[c].anchorSamples)
        clients[c].anchorSamples = 0
        clients[c].anchorParts = AnchorAttribution.split(
            estimator: estimator, sample: s, reading: now, truth: server.serverTime(at: t),
            actual: clients[c].anchor.serverTime(at: now),
            exactStamp: e.exactStamp, exactTransmit: e.leftAt.ns &+ e.serverOffset,
            midStamp: middle.ns &+ e.serverOffset, referenceMid: server.serverTime(at: middle))
        clients[c].anchorError = clients[c].anchorParts.total
        // A clock without drift reads the same as the device's own when the device has none.
        clients[c].anchorDriftOffset = device.driftPPB == 0 ? 0 : now - clockReading(device.withoutDrift, at: t)
        clients[c].anchorSlept = device.slept(at: t)
    }
}
