import SyncLabKernel

/// A request's costs besides its delays, for links that model them (`NetworkSide.modelsConnection`):
/// the radio's promotion and a new connection's round trips before it leaves, and the segments
/// TCP sends again on the way (`RadioState`, `ConnectionSetup`, `PacketLoss`). Out of line, so
/// the plain path pays one test per request.
///
/// Every draw here comes from a stream keyed to the player and the request (its `fetchEpoch`),
/// one per purpose: switching a model on moves none of the player's network draws.
extension World {
    static let connectionPurpose = StreamPurpose("connection-setup")
    static let requestLossPurpose = StreamPurpose("request-segment-loss")
    static let responseLossPurpose = StreamPurpose("response-segment-loss")

    /// The key of player c's current store fetch, as the balancer's draws use it: the connection
    /// and lost-segment draws of a request are keyed to it (the original plan's API calls, many
    /// at once per player, have keys of their own: `databaseRequestKey`).
    @inline(__always)
    func requestKey(_ c: Int) -> UInt64 { (UInt64(players.lowerBound + c) << 32) | UInt64(clients[c].fetchEpoch) }

    /// Moves player c's request asked for at t, due at the server at `arrival` without these
    /// models, after the radio's promotion and a new connection's DNS, TCP and TLS round trips,
    /// and returns when it arrives, lost request segments included, when the client reads its
    /// send clock (the connection's readiness when the scenario says so) and the set-up's length,
    /// which upload complete follows (the last byte leaves the connected socket).
    @inline(never)
    mutating func prepareRequest(_ c: Int, _ t: SimTime, link: Int, arrival: SimTime, key: UInt64)
        -> (arrival: SimTime, sentAt: SimTime, setup: Nanoseconds) {
        let (ready, sendReadAt) = prepareConnection(c, t, link: link, key: key)
        let setup = ready - t
        let late = segmentRecovery(c, link: link, bytes: scenario.requestBytes, response: false, key: key).all
        if measure.recorder.trace != nil {
            traceUpdate(c) {
                $0.setup = setup - $0.promotion
                $0.requestRetransmit = late
            }
        }
        return (arrival + setup + late, sendReadAt, setup)
    }

    /// When player c's response of `bytes`, due at `due` without losses, completes: late by its
    /// lost segments, and its headers by its first segment's. The caller (`respond`) fails it at
    /// the time-out or queues it. The player's last network activity is the response's arrival
    /// (the radio is busy until the data is in, whether or not the app still waits).
    @inline(never)
    mutating func lateResponse(_ c: Int, link: Int, bytes: Int, due: SimTime, key: UInt64)
        -> (done: SimTime, headersLate: Nanoseconds) {
        let late = segmentRecovery(c, link: link, bytes: bytes, response: true, key: key)
        let done = due + late.all
        if measure.recorder.trace != nil { traceUpdate(c) { $0.responseRetransmit = late.all } }
        clients[c].lastNetworkAt = done.ns
        measure.emit(.networkBusy(player: c, until: done.ns))
        return (done, late.first)
    }

    /// The radio's promotion and a new connection's set-up: when the request may leave and when
    /// the client reads its send clock.
    mutating func prepareConnection(_ c: Int, _ t: SimTime, link: Int, key: UInt64) -> (ready: SimTime, sendReadAt: SimTime) {
        let box = network.boxes[link]
        var rng = RandomStream(seed: scenario.seed, purpose: World.connectionPurpose, entity: key)
        let last = clients[c].lastNetworkAt
        var now = t.ns
        if let radio = box.profile.radio {
            let promotion = radio.promotionDelay(lastActive: last, at: t.ns, &rng)
            now += promotion
            if measure.recorder.trace != nil { traceUpdate(c) { $0.promotion = promotion } }
            measure.emit(.radioAsked(player: c, link: link, at: t.ns, promoted: promotion > 0))
        }
        guard let connection = box.profile.connection else { return (SimTime(ns: now), t) }
        let wasOpen = clients[c].connectionOpen
        let cold = !(wasOpen && connection.isOpen(lastUsed: last, at: t.ns))
        let lookup = cold && connection.needsLookup(resolvedAt: last, at: t.ns)
        if cold {
            if lookup { now += Self.roundTrip(box.profile, &rng) }
            for _ in 0..<connection.handshakeRoundTrips { now += Self.roundTrip(box.profile, &rng) }
        }
        measure.emit(.connectionAsked(player: c, link: link, at: t.ns, wasOpen: wasOpen, cold: cold, lookedUp: lookup))
        clients[c].connectionOpen = true
        let ready = SimTime(ns: now)
        return (ready, connection.readsSendWhenConnected ? ready : t)
    }

    /// One round trip of the link: an uplink and a downlink drawn afresh, each held at its floor.
    static func roundTrip(_ profile: LinkProfile, _ rng: inout RandomStream) -> Nanoseconds {
        profile.floored(Distribution.duration(profile.uplink.sample(&rng)), .uplink)
            + profile.floored(Distribution.duration(profile.downlink.sample(&rng)), .downlink)
    }

    /// How late lost segments make player c's request (`response` false) or response of `bytes`.
    mutating func segmentRecovery(_ c: Int, link: Int, bytes: Int, response: Bool, key: UInt64) -> SegmentRecovery {
        let box = network.boxes[link]
        guard let loss = box.profile.loss else { return SegmentRecovery() }
        var rng = RandomStream(seed: scenario.seed, purpose: response ? World.responseLossPurpose : World.requestLossPurpose,
                               entity: key)
        let segments = loss.segments(bytes: bytes)
        let recovery = loss.recoveryDelay(segments: segments, roundTrip: box.profile.meanRoundTrip, &rng)
        measure.emit(.messageCrossed(link: link, segments: segments, added: recovery.all))
        return recovery
    }
}
