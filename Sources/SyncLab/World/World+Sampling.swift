import SyncLabKernel

/// A sample instant inside the measuring window, kept until every viewing player has recorded it.
struct SampleInstant {
    /// True time of the instant, and the server's clock then.
    var t: SimTime
    var serverNow: Int64
    /// Index of the first transition after `serverNow` (where the stale search starts).
    var truthIndex: Int32
    /// The timeline bucket the instant falls in.
    var bucket: Int32
    /// The sample event's scheduling sequence number: with `t`, its place among the queue's events.
    var sequence: UInt64

    /// Whether the instant comes after an event at `time` with sequence number `sequence` in the
    /// queue's order (time, then sequence).
    @inline(__always)
    func comesAfter(_ time: SimTime, sequence other: UInt64) -> Bool {
        t > time || (t == time && sequence > other)
    }
}

/// Sampling every viewing player's error at every sample instant, recorded lazily.
///
/// A sample reads only the player's own state, and every figure it feeds is a sum over (player,
/// instant) pairs, so when each pair is recorded does not matter, only with what state. A sample
/// event therefore records nothing per player: it appends its instant to `pendingSamples`. Each
/// player records the instants it has not yet recorded just before anything happens to it (every
/// event of the player starts with `catchUpSamples`), with the state those instants saw — all of
/// the player's earlier events, none of the later ones, exactly as a sweep at the instant would.
/// This turns a sweep over a million players' state per instant, bound by cache misses, into a
/// few instants per player at a time while its state is in cache. When `pendingSampleLimit`
/// instants are pending, and whenever the loop stops, every viewing player catches up (a limit
/// of 1 is the sweep at each instant).
///
/// A player records only the instants that come before its event in the queue's order (time,
/// then scheduling sequence). In a world run alone every fired instant does. A shard that works
/// ahead while it waits for the fleet (`FleetCoordinator`) may handle a sample instant before an
/// answer due earlier to one of its players has come: that player records the instant later, at
/// the first of its events past it, with the state the instant saw. The instant's own event reads
/// nothing of any player but the viewing count, which only the player's behaviour and device
/// events change (a session's start and end, a restart), never an answer or anything an answer
/// leads to (a response, a failure, a retry, a tick); and the shard works ahead on no event of a
/// player past that player's first due answer, so every such event before the instant has been
/// handled. Every viewing player catches up at once only where every pending instant comes
/// before every event still to be handled: the queue's next and the first answer still due.
///
/// The same argument lets a part that stays fixed between syncs be added once: the anchor's four
/// attribution parts are added at the next sync (or when the results are read), times the
/// samples taken with it (`ClientState.anchorSamples`).
extension World {
    /// How far ahead in the viewing list a full catch-up prefetches player state.
    static let sampleLookahead = 16

    /// Measuring instants fired so far (pending or recorded by all).
    var samplesFired: UInt32 { measure.pendingBase &+ UInt32(truncatingIfNeeded: measure.pendingSamples.count) }

    /// A sample instant (the event popped last, with its sequence number): counts the viewing
    /// players and leaves the per-player samples pending.
    mutating func sample(_ t: SimTime) {
        if server.usesDatabase { databaseSample(t); return }
        measure.recorder.beginSample(at: t, viewing: viewers.count)
        // Outside the window nothing is recorded (and nothing else depends on a sample).
        guard measure.recorder.measuring else { return }
        let serverNow = server.store.serverTime(at: t)
        measure.pendingSamples.append(SampleInstant(t: t, serverNow: serverNow,
                                            truthIndex: Int32(server.store.schedule.firstTransition(after: serverNow)),
                                            bucket: Int32(measure.recorder.currentBucket),
                                            sequence: loop.queue.poppedSequence))
    }

    /// Records, for player `c`, the instants fired since it last caught up that come before its
    /// event at t with scheduling sequence `sequence`, if it is viewing. Called before any event
    /// of the player changes its state.
    @inline(__always)
    mutating func catchUpSamples<C: DeviceClock, T: DeviceClock>(_ c: Int, before t: SimTime, sequence: UInt64,
                                                                  _ d: DesignClocks<C, T>) {
        let from = clients[c].sampledThrough, fired = samplesFired
        guard from != fired else { return }
        let to = samplesFired(before: t, sequence: sequence)
        if to != fired { executor.samplesLeftForLater &+= 1 }
        catchUpSamples(c, from: from, to: to, d)
    }

    /// The instants fired that come before an event at t with sequence `sequence`: all of them
    /// but those a shard handled while working ahead (the last, if any, are the ones after it).
    @inline(__always)
    func samplesFired(before t: SimTime, sequence: UInt64) -> UInt32 {
        var k = measure.pendingSamples.count
        while k > 0 && measure.pendingSamples[k &- 1].comesAfter(t, sequence: sequence) { k &-= 1 }
        return measure.pendingBase &+ UInt32(truncatingIfNeeded: k)
    }

    /// Player `c` records the fired instants `from..<to` (counted since the run began), if it is viewing.
    @inline(__always)
    mutating func catchUpSamples<C: DeviceClock, T: DeviceClock>(_ c: Int, from: UInt32, to: UInt32, _ d: DesignClocks<C, T>) {
        guard to != from else { return }
        clients[c].sampledThrough = to
        // A player not viewing has nothing to record: it starts counting when it comes on screen.
        guard clients[c].phase == .viewing else { return }
        // A subset by global index (`metrics.samplePlayers`): the same players for any sharding.
        if measure.sampleStride > 1 && (players.lowerBound &+ c) % measure.sampleStride != 0 { return }
        recordSamples(c, pending: Int(from &- measure.pendingBase)..<Int(to &- measure.pendingBase), d)
    }

    /// Whether every pending instant comes before every event still to be handled, the answers
    /// still with the fleet included (the first due at `firstDue`): then every viewing player may
    /// record them all.
    func pendingSamplesPrecede(firstDue: Int64) -> Bool {
        guard let last = measure.pendingSamples.last else { return true }
        return last.t.ns < min(loop.queue.nextTime?.ns ?? .max, firstDue)
    }

    /// Every viewing player records its pending instants, and the pending list is emptied. Only
    /// where they come before every event still to be handled (`pendingSamplesPrecede`).
    mutating func catchUpAllSamples<C: DeviceClock, T: DeviceClock>(_ d: DesignClocks<C, T>) {
        guard !measure.pendingSamples.isEmpty else { return }
        let clientBase = UnsafeRawPointer(clients.base)
        let count = viewers.count
        let sampledBytes = ClientState.sampledBytes
        for i in 0..<count {
            // Addresses for prefetch hints only (nothing is read or written through them, and
            // the tables do not change size while players catch up).
            if i &+ World.sampleLookahead < count {
                World.prefetchPlayer(viewers[i &+ World.sampleLookahead], clients: clientBase, bytes: sampledBytes)
            }
            let c = viewers[i]
            catchUpSamples(c, from: clients[c].sampledThrough, to: samplesFired, d)
        }
        measure.pendingBase = samplesFired
        measure.pendingSamples.removeAll(keepingCapacity: true)
    }

    /// Records player `c`'s error at the pending instants `range`, with its state now.
    mutating func recordSamples<C: DeviceClock, T: DeviceClock>(_ c: Int, pending range: Range<Int>, _ d: DesignClocks<C, T>) {
        // Read in place: the state is 448 bytes.
        let s = UnsafePointer(clients.base + c)
        let positions = scenario.positions
        guard s.pointee.hasSync else {
            for _ in range { measure.recorder.sampleBare(positions: positions) }
            return
        }
        if s.pointee.syncPending { settleSync(c) }
        let link = Int(s.pointee.link)
        var attributed: UInt32 = 0
        defer { clients[c].anchorSamples &+= attributed }
        for i in range {
            let instant = measure.pendingSamples[i]
            let t = instant.t, serverNow = instant.serverNow, bucket = Int(instant.bucket)
            let references = ReferenceReadings(s.pointee.device, at: t, context)
            // What the UI shows is the value computed at the last tick, with the sync then in force.
            let lastTick = d.lastTick(atOrBefore: t, s.pointee.tick, s.pointee.device, references)
            let current = lastTick >= s.pointee.anchorSetAt
            guard current || s.pointee.previousValid else {
                measure.recorder.sampleBare(positions: positions)   // data arrived after the last tick
                continue
            }
            let anchor = current ? s.pointee.anchor : s.pointee.previousAnchor
            let file = Int(current ? s.pointee.file : s.pointee.previousFile)
            let readingNow = d.reading(s.pointee.device, at: t, references)
            let shown = anchor.serverTime(at: lastTick == t ? readingNow : d.reading(s.pointee.device, at: lastTick))
            let estimated = s.pointee.anchor.serverTime(at: readingNow)
            let estimate = estimated &- serverNow
            let displayError = shown &- serverNow
            recordBound(s, reading: readingNow, estimateError: estimate)
            for k in 0..<ReferenceClocks.count {
                let error = s.pointee.shadows[k].serverTime(at: references[k])
                measure.recorder.shadowSample(clock: k, error: error &- serverNow, timelineBucket: bucket)
            }
            // Net drift: the clock's own, less what the anchor's rate correction takes back.
            let correction = estimated &- (s.pointee.anchor.serverTime &+ (readingNow - s.pointee.anchor.reading))
            let drift = d.driftOffset(s.pointee.device, at: t) &- s.pointee.anchorDriftOffset &+ correction
            let pause = design.clockPausesInDeepSleep ? s.pointee.anchorSlept &- s.pointee.device.slept(at: t) : 0
            measure.recorder.attribute(anchorTotal: s.pointee.anchorError, estimateError: estimate, drift: drift, pause: pause,
                               displayError: displayError)
            attributed &+= 1
            let (bare, stale) = positionStates(file: file, shown: shown, truth: serverNow,
                                               near: Int(instant.truthIndex))
            let minutesSinceWake: Int? = s.pointee.lastDeepWake == .min ? nil : Int((t.ns - s.pointee.lastDeepWake) / .minute)
            measure.recorder.sample(displayError: displayError, estimateError: estimate, link: link,
                            minutesSinceWake: minutesSinceWake, bare: bare, stale: stale, positions: positions,
                            timelineBucket: bucket, serverNow: serverNow)
            if s.pointee.tampered { measure.recorder.tamperSample(headStart: displayError) }
        }
    }
}
