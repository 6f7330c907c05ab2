import SyncLabKernel

/// The original plan (`DatabasePlan`) in the world: players ask the API for the whole Store when
/// it comes on screen and for one position each time that position's item runs out; the API
/// queries a database of bounded capacity.
///
/// A player shows an item from the moment its answer arrives until the countdown the API gave
/// ("the whole seconds left") runs out on the player's clock, at a UI tick; then the position is
/// bare until the next answer. Every viewer of a position asks in the same second when its item
/// ends — the bursts the seeds saw — and an answer given during an item's overlap shows the next
/// item before its start — the leak.
///
/// Events for one (player, position) carry a slot, player × (positions + 1) + position, where
/// position `positions` is the whole-Store load; requests carry the player's fetch epoch and
/// countdowns its display epoch, so leaving the Store cancels both.
struct DatabaseState {
    let plan: DatabasePlan
    let positions: Int
    /// Per position, when each item's row starts answering queries (server time).
    let rows: [[Int64]]
    /// Per position and item (≥ 1), the index of the item's start in the schedule's transitions.
    let transitionIndex: [[Int32]]
    var pool: WorkerPool
    /// Query times of requests whose player has gone (their draws must not come from, and shift, any player's stream).
    var abandonedRNG: RandomStream
    // Per slot.
    var item: [Int32]
    var expiry: [Int64]
    var showing: [Bool]
    var inFlight: [Bool]
    var witnessed: [Bool]
    var failures: [Int32]
    var sentAt: [Int64]
    var queryAt: [Int64]
    /// Per slot, the number of its request in flight among its player's; per player, how many
    /// it has sent: a request's own draws are keyed to the pair (`World.databaseRequestKey`).
    var requestNumber: [UInt32]
    var requestsSent: [UInt32]

    init(plan: DatabasePlan, scenario: Scenario, schedule: StoreSchedule, players: Int) {
        self.plan = plan
        positions = scenario.positions
        rows = plan.rowStarts(schedule, resolution: scenario.scheduleResolution, seed: scenario.seed)
        var index = schedule.bounds.map { [Int32](repeating: -1, count: $0.count) }
        for (i, tr) in schedule.transitions.enumerated() { index[Int(tr.position)][Int(tr.item)] = Int32(i) }
        transitionIndex = index
        pool = WorkerPool(workers: plan.connections, queueLimit: plan.queueLimit)
        abandonedRNG = RandomStream(seed: scenario.seed, purpose: StreamPurpose("abandoned-query"))
        let slots = players * (positions + 1)
        precondition(slots < Int(Int32.max), "too many players × positions for the original plan's slots")
        item = [Int32](repeating: -1, count: slots)
        expiry = [Int64](repeating: .max, count: slots)
        showing = [Bool](repeating: false, count: slots)
        inFlight = showing
        witnessed = showing
        failures = [Int32](repeating: 0, count: slots)
        sentAt = [Int64](repeating: 0, count: slots)
        queryAt = sentAt
        requestNumber = [UInt32](repeating: 0, count: slots)
        requestsSent = [UInt32](repeating: 0, count: players)
    }

    /// Each item's overlap (row start before its start), for the report.
    func overlaps(_ schedule: StoreSchedule) -> [Int64] {
        var all: [Int64] = []
        for p in 0..<positions {
            for k in rows[p].indices.dropFirst() { all.append(schedule.bounds[p][k] - rows[p][k]) }
        }
        return all
    }
}

extension World {
    var storeSlot: Int { scenario.positions }

    /// The key of the request in flight in `slot` of player c: the player's global index and the
    /// request's number among the player's (a player has many API calls in flight at once, each
    /// with draws of its own; a store fetch's key, `requestKey`, would give them all one).
    func databaseRequestKey(_ c: Int, slot: Int) -> UInt64 {
        (UInt64(players.lowerBound + c) << 32) | UInt64(server.database!.requestNumber[slot])
    }

    /// The Store comes on screen: everything is reloaded (bare until the answer arrives).
    mutating func databaseLoadStore(_ c: Int, _ t: SimTime) {
        let base = c * (scenario.positions + 1)
        for s in base...(base + scenario.positions) {
            server.database!.showing[s] = false
            server.database!.inFlight[s] = false
            server.database!.item[s] = -1
            server.database!.failures[s] = 0
            server.database!.expiry[s] = .max
        }
        databaseSend(c, storeSlot, t)
    }

    /// Player c asks the API for position p (or the whole Store, p = positions).
    mutating func databaseSend(_ c: Int, _ p: Int, _ t: SimTime) {
        let slot = c * (scenario.positions + 1) + p
        guard !server.database!.inFlight[slot] else { return }
        server.database!.inFlight[slot] = true
        server.database!.sentAt[slot] = t.ns
        server.database!.witnessed[slot] = p < scenario.positions && server.database!.item[slot] >= 0
        server.database!.requestNumber[slot] = server.database!.requestsSent[c]
        server.database!.requestsSent[c] &+= 1
        let link = Int(clients[c].link)
        let (arrival, lost, _, _) = requestLeaves(c, t, link: link, key: databaseRequestKey(c, slot: slot))
        let epoch = clients[c].fetchEpoch
        // As a store fetch: a request still on its way when the time-out runs out never arrives.
        if lost || arrival - t > network.links[link].timeout {
            schedule(.databaseFailed, client: slot, epoch: epoch, at: t + network.links[link].timeout)
        } else {
            schedule(.databaseArrival, client: slot, epoch: epoch, at: arrival)
        }
    }

    /// A request reaches the API at t, which queries the database.
    mutating func databaseArrival(_ slot: Int, _ t: SimTime, epoch: UInt32) {
        let positions = scenario.positions
        let c = slot / (positions + 1), p = slot % (positions + 1)
        let wanted = epoch == clients[c].fetchEpoch
        let measured = measure.recorder.inWindow(t)
        let link = Int(clients[c].link)
        if let outage = scenario.server.outage(at: t) {
            if measured {
                if outage.mode == .refused { measure.recorder.database?.outageRefused += 1 } else { measure.recorder.database?.outageTimedOut += 1 }
            }
            guard wanted else { return }
            let at = outage.mode == .refused ? t + linkDelay(.downlink, c, link: link, at: t)
                : SimTime(ns: server.database!.sentAt[slot]) + network.links[link].timeout
            schedule(.databaseFailed, client: slot, epoch: epoch, at: at)
            return
        }
        let bytes = server.store.config.file.responseBytes(items: p == positions ? positions : 1)
        measure.recorder.served(serverTime: server.store.serverTime(at: t), bytes: bytes)
        if measured {
            if p == positions { measure.recorder.database?.storeLoads += 1 } else { measure.recorder.database?.positionRequests += 1 }
        }
        let plan = server.database!.plan
        let query = wanted ? plan.queryTime.sampleDuration(&clients[c].networkRNG)
            : plan.queryTime.sampleDuration(&server.database!.abandonedRNG)
        let admission = server.database!.pool.admit(at: t, service: query, patience: plan.timeout)
        let answered: SimTime
        switch admission {
        case .queueFull, .gaveUp:
            if measured {
                if case .queueFull = admission { measure.recorder.database?.queueFull += 1 } else { measure.recorder.database?.gaveUp += 1 }
            }
            guard wanted else { return }
            // The API answers with an error once it gives up.
            var at = t
            if case let .gaveUp(giveUp) = admission { at = giveUp }
            schedule(.databaseFailed, client: slot, epoch: epoch, at: at + linkDelay(.downlink, c, link: link, at: at))
            return
        case let .served(start, done, queued):
            if measured {
                measure.recorder.database?.queries.record(start - t)
                let longest = max(measure.recorder.database?.maxQueue ?? 0, queued)
                measure.recorder.database?.maxQueue = longest
            }
            guard wanted else { return }
            server.database!.queryAt[slot] = server.store.serverTime(at: start)   // the query reads NOW() when it runs
            answered = done
        }
        let reply = responseCrosses(c, link: link, bytes: bytes, arrivedAt: t, leftAt: answered, key: databaseRequestKey(c, slot: slot)).done
        let sent = SimTime(ns: server.database!.sentAt[slot])
        if let failAt = timedOut(sentAt: sent, done: reply, link: link) {
            schedule(.databaseFailed, client: slot, epoch: epoch, at: failAt)
        } else {
            schedule(.databaseReply, client: slot, epoch: epoch, at: reply)
        }
    }

    /// The answer arrives: the position (or every position) shows its item and counts down.
    mutating func databaseReply(_ slot: Int, _ t: SimTime) {
        let positions = scenario.positions
        let c = slot / (positions + 1), p = slot % (positions + 1)
        server.database!.inFlight[slot] = false
        server.database!.failures[slot] = 0
        measure.recorder.responseReceived(at: t, roundTrip: t.ns - server.database!.sentAt[slot])
        let s = server.database!.queryAt[slot]
        // PHP's time(): the API counts the seconds left from whole server seconds.
        let now = floorTo(scenario.epochUnix &+ s, server.store.config.timestampResolution) &- scenario.epochUnix
        let reading = design.clocks.reading(clients[c].device, at: t)
        let measured = measure.recorder.inWindow(t)
        let base = c * (positions + 1)
        for q in (p == positions ? 0..<positions : p..<(p + 1)) {
            let k = DatabasePlan.answer(server.database!.rows[q], at: s)
            let chain = server.store.schedule.bounds[q]
            let qslot = base + q
            let previous = Int(server.database!.item[qslot])
            server.database!.item[qslot] = Int32(k)
            server.database!.showing[qslot] = true
            let trueStart = server.store.trueInstant(reaching: chain[k]).ns
            let index = k >= 1 ? Int(server.database!.transitionIndex[q][k]) : -1
            if measured {
                measure.recorder.database?.shows += 1
                if trueStart > t.ns {
                    measure.recorder.database?.earlyShows.record(trueStart - t.ns)
                    if index >= 0 { measure.recorder.database!.earlyMax[index] = max(measure.recorder.database!.earlyMax[index], trueStart - t.ns) }
                }
            }
            // A change the player saw happen: its item ran out and this answer brought a newer one.
            if p < positions && server.database!.witnessed[slot] && k > previous && index >= 0 {
                measure.recorder.transitionShown(index: index, offset: t.ns &- trueStart, player: players.lowerBound &+ c)
            }
            let remaining = chain[min(k + 1, chain.count - 1)] &- now
            server.database!.expiry[qslot] = reading.ns &+ remaining
            scheduleCountdown(c, qslot, t)
        }
    }

    /// The UI tick at which the countdown of a slot has run out.
    mutating func scheduleCountdown(_ c: Int, _ slot: Int, _ t: SimTime) {
        let s = clients[c]
        let target = design.clocks.earliest(s.device, reaching: ClockReading(ns: server.database!.expiry[slot]), notBefore: t)
        let tick = design.clocks.firstTick(atOrAfter: target, s.tick, s.device)
        schedule(.databaseCountdown, client: slot, epoch: s.displayEpoch, at: tick)
    }

    /// A countdown may have run out: the item fades and the position asks for its next one.
    mutating func databaseCountdown(_ slot: Int, _ t: SimTime, epoch: UInt32) {
        let c = slot / (scenario.positions + 1), p = slot % (scenario.positions + 1)
        guard epoch == clients[c].displayEpoch, clients[c].phase == .viewing, server.database!.showing[slot] else { return }
        let reading = design.clocks.reading(clients[c].device, at: t)
        guard reading.ns >= server.database!.expiry[slot] else { return }   // re-armed later by a newer answer
        server.database!.showing[slot] = false
        databaseSend(c, p, t)
    }

    /// No answer, or an error: the retry policy decides when to ask again.
    mutating func databaseFailed(_ slot: Int, _ t: SimTime) {
        let c = slot / (scenario.positions + 1)
        server.database!.inFlight[slot] = false
        server.database!.failures[slot] += 1
        measure.recorder.requestFailed(at: t)
        let delay = scenario.client.retry.delay(afterFailures: Int(server.database!.failures[slot]), &clients[c].designRNG)
        schedule(.databaseRetry, client: slot, epoch: clients[c].fetchEpoch, at: t + delay)
    }

    mutating func databaseRetry(_ slot: Int, _ t: SimTime, epoch: UInt32) {
        let c = slot / (scenario.positions + 1), p = slot % (scenario.positions + 1)
        guard epoch == clients[c].fetchEpoch, clients[c].phase == .viewing else { return }
        databaseSend(c, p, t)
    }

    /// What each viewing player's positions show at true time t: bare, another item than the
    /// true one (stale), or an item before its start (early, a subset of stale); and the error
    /// of its countdown (the original plan has no clock sync: the countdown is its server time).
    mutating func databaseSample(_ t: SimTime) {
        let positions = scenario.positions
        let serverNow = server.store.serverTime(at: t)
        measure.recorder.beginSample(at: t, viewing: viewers.count)
        guard measure.recorder.measuring else { return }
        let minute = Int(t.ns / .minute)
        for c32 in viewers.players {
            let c = Int(c32)
            let base = c * (positions + 1)
            var bare = 0, stale = 0, early = 0
            var error: Int64? = nil
            for q in 0..<positions {
                guard server.database!.showing[base + q] else { bare += 1; continue }
                let truth = server.store.schedule.item(at: serverNow, position: q)
                let k = Int(server.database!.item[base + q])
                if k != truth { stale += 1 }
                if k > truth { early += 1 }
                if error == nil {
                    // The countdown's error, on the first position showing: the server time the
                    // player's countdown implies (the item's end minus the time it shows as left)
                    // minus the server time now. Negative: the player runs behind.
                    let chain = server.store.schedule.bounds[q]
                    let left = server.database!.expiry[base + q] &- design.clocks.reading(clients[c].device, at: t).ns
                    error = (chain[min(k + 1, chain.count - 1)] &- left) &- serverNow
                }
            }
            if let error {
                let wake = clients[c].lastDeepWake
                measure.recorder.sample(displayError: error, estimateError: error, link: Int(clients[c].link),
                                minutesSinceWake: wake == .min ? nil : Int((t.ns - wake) / .minute),
                                bare: bare, stale: stale, positions: positions, timelineBucket: measure.recorder.currentBucket,
                                serverNow: serverNow)
            } else {
                measure.recorder.samplePositions(bare: bare, stale: stale, positions: positions)
            }
            if minute < measure.recorder.database?.bareByMinute.count ?? 0 {
                measure.recorder.database?.bareByMinute[minute] += UInt64(bare)
                measure.recorder.database?.positionsByMinute[minute] += UInt64(positions)
                measure.recorder.database?.earlySamples += UInt64(early)
            }
        }
    }
}
