import SyncLabKernel

/// One fetch of the store file: client → network → server → network → client.
///
/// The request leaves when sent; its last byte leaves the device (the seeds' "upload complete")
/// after the request's bytes at the link's bandwidth; it reaches the server one uplink delay
/// later, where the timestamp is taken as the request starts. The response leaves after the
/// service time and completes after the downlink delay plus the file's bytes at the bandwidth.
extension World {
    mutating func sendRequest(_ c: Int, _ t: SimTime) {
        guard !clients[c].fetchInFlight else { return }
        clients[c].fetchEpoch &+= 1
        clients[c].fetchInFlight = true
        clients[c].needsFetch = false
        clients[c].requestSentAt = t
        let link = scenario.links[Int(clients[c].link)]
        let bandwidth = link.bandwidth.sample(&clients[c].networkRNG)
        let upload = LinkProfile.transferTime(bytes: scenario.requestBytes, bytesPerSecond: bandwidth)
        let uplink = link.uplink.sampleDuration(&clients[c].networkRNG)
        let lost = clients[c].networkRNG.bernoulli(link.failure)
        clients[c].uploadCompleteAt = t + upload
        recorder.requestSent(at: t, lost: lost)
        if lost {
            schedule(.requestFailed, client: c, epoch: clients[c].fetchEpoch, at: t + link.timeout)
        } else {
            schedule(.serverArrival, client: c, epoch: clients[c].fetchEpoch, at: t + upload + uplink)
        }
    }

    mutating func serverArrival(_ c: Int, _ t: SimTime, epoch: UInt32) {
        // The server does its work whether or not the client still wants the answer.
        let file = server.currentFile
        let bytes = server.files[file].responseBytes
        let timestamp = server.timestamp(at: t)
        recorder.served(serverTime: server.serverTime(at: t), bytes: bytes)
        guard epoch == clients[c].fetchEpoch else { return }
        // Drawn from the player's stream, so the server's draws never depend on other players.
        let service = server.config.serviceTime.sampleDuration(&clients[c].networkRNG)
        let link = scenario.links[Int(clients[c].link)]
        let downlink = link.downlink.sampleDuration(&clients[c].networkRNG)
        let bandwidth = link.bandwidth.sample(&clients[c].networkRNG)
        let transfer = LinkProfile.transferTime(bytes: bytes, bytesPerSecond: bandwidth)
        clients[c].requestTimestamp = timestamp
        clients[c].requestFile = Int32(file)
        let done = t + service + downlink + transfer
        if done - clients[c].requestSentAt > link.timeout {
            schedule(.requestFailed, client: c, epoch: epoch, at: clients[c].requestSentAt + link.timeout)
        } else {
            schedule(.responseDone, client: c, epoch: epoch, at: done)
        }
    }

    mutating func responseDone(_ c: Int, _ t: SimTime) {
        let device = clients[c].device
        let stamp = clients[c].requestTimestamp
        let sent = clients[c].requestSentAt, uploaded = clients[c].uploadCompleteAt
        let s = SyncSample(serverTimestamp: stamp, requestSent: clockReading(device, at: sent),
                           uploadComplete: clockReading(device, at: uploaded),
                           downloadComplete: clockReading(device, at: t))
        clients[c].fetchInFlight = false
        clients[c].consecutiveFailures = 0
        clients[c].previousAnchor = clients[c].anchor
        clients[c].previousFile = clients[c].file
        clients[c].previousValid = clients[c].hasSync
        clients[c].anchor = scenario.client.estimator.anchor(for: s)
        clients[c].anchorSetAt = t
        clients[c].hasSync = true
        clients[c].file = clients[c].requestFile
        clients[c].refetchDue = s.downloadComplete + scenario.client.refetch.delayAfterLoad(&clients[c].designRNG)
        // The same sync measured with each reference clock (`shadowClocks` order), called on the
        // concrete types.
        let base = c &* World.referenceClockCount
        for k in 0..<World.referenceClockCount {
            let shadow = SyncSample(serverTimestamp: stamp, requestSent: World.referenceReading(k, device, at: sent, context),
                                    uploadComplete: World.referenceReading(k, device, at: uploaded, context),
                                    downloadComplete: World.referenceReading(k, device, at: t, context))
            shadowAnchors[base + k] = scenario.client.estimator.anchor(for: shadow)
        }
        recorder.responseReceived(at: t, roundTrip: t - clients[c].requestSentAt)
        recorder.fetchSynced(at: t, error: clients[c].anchor.serverTime(at: s.downloadComplete) &- server.serverTime(at: t))
        clients[c].displayEpoch &+= 1
        scheduleDisplay(c, t)
    }

    mutating func requestFailed(_ c: Int, _ t: SimTime) {
        clients[c].fetchInFlight = false
        clients[c].needsFetch = true
        clients[c].consecutiveFailures += 1
        recorder.requestFailed(at: t)
        clients[c].fetchEpoch &+= 1
        let delay = scenario.client.retry.delay(afterFailures: Int(clients[c].consecutiveFailures),
                                                &clients[c].designRNG)
        schedule(.sendRequest, client: c, epoch: clients[c].fetchEpoch, at: t + delay)
    }
}
