import SyncLabKernel

/// A sync whose probes go to a light time endpoint (`client.probeTarget`), then one store fetch.
///
/// The probes are the store fetch's requests in every way the network sees them (the request's
/// bytes, the links' draws, time-outs and retries); what differs is the answer: the endpoint's
/// few hundred bytes, its own service time, and — served by the web server — no worker and no
/// queue. The sync lands when the last probe is answered, as with store probes; the store fetch
/// then leaves at once (on the same connection, kept alive) and only brings the file: a player
/// that has no file yet stays bare until it arrives. A failed store fetch is retried alone
/// (`storeOwed` stays set: the sync it follows holds); a new app process starts from the probes.
///
/// Why after the last probe's answer and not with it: a store request sent beside the last probe
/// would share its connection and link (its bytes queue behind or ahead of the probe's on the
/// downlink), so the probe's round trip, which the estimator reads, would carry the file's
/// transfer again; and the client only knows which probe was last once the others are answered.
extension World {
    /// Whether player c's request goes to the time endpoint: a design that probes it, in the
    /// probe round (not the store fetch that follows).
    @inline(__always)
    func probesEndpoint(_ c: Int) -> Bool { design.probesTimeEndpoint && !clients[c].storeOwed }

    /// The endpoint's service time for player c's probe, from the player's network stream (as
    /// the store's, `serviceDelay`).
    mutating func endpointServiceDelay(_ c: Int) -> Nanoseconds {
        design.timeEndpoint!.serviceTime.sampleDuration(&clients[c].networkRNG)
    }

    /// The probes' sync has landed at t (`responseDone`): the store fetch follows at once, and
    /// the UI's next tick is worked out again with the new anchor (and the file it has, if any).
    mutating func fetchStoreAfterProbes<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        measure.recorder.responseReceived(at: t, roundTrip: t - self[requestOf: c].sentAt)
        measure.recorder.fetchSynced(at: t, error: clients[c].anchorError)
        clients[c].storeOwed = true
        // In flight before the tick is scheduled: a refetch instant of the last load no longer counts.
        sendRequest(c, t)
        clients[c].displayEpoch &+= 1
        scheduleDisplay(c, t, d)
    }

    /// The store fetch after the probes completed at t: the file is in, and the refetch is timed
    /// from this load, as after a store probe's.
    mutating func storeArrived<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        clients[c].storeOwed = false
        clients[c].consecutiveFailures = 0
        let r = self[requestOf: c]
        clients[c].file = r.file
        let now = d.reading(clients[c].device, at: t)
        let load = LoadContext(loadedAt: now, anchor: clients[c].anchor, epochUnix: scenario.epochUnix)
        clients[c].refetchDue = design.refetch.refetchDue(after: load, &clients[c].designRNG)
        measure.recorder.responseReceived(at: t, roundTrip: t - r.sentAt)
        clients[c].displayEpoch &+= 1
        scheduleDisplay(c, t, d)
    }
}
