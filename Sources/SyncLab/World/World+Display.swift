import SyncLabKernel

/// The Store's UI: what each viewing player shows, tick by tick.
///
/// Displayed server time at a tick = anchor's server time + (clock now − anchor's reading),
/// recomputed from the clock, never incremented (as the seeds do). A transition T is shown at the
/// first tick whose displayed time has reached T, if the player's file lists the item that begins
/// at T (else that position goes bare). Only ticks that change something observable are events:
/// the next transition (shown, or bare if the file does not list it), or the tick at which the
/// refetch falls due.
extension World {
    mutating func scheduleDisplay(_ c: Int, _ t: SimTime) {
        let s = clients[c]
        guard s.phase == .viewing, s.hasSync else { return }
        var target = t
        if s.shownUpTo != .min {
            var reading = Int64.max
            // Every transition is a tick that matters: a covered one is shown, an uncovered one
            // leaves its position bare. Either way the UI has moved past it.
            let transitions = server.schedule.transitions
            if Int(s.cursor) < transitions.count {
                reading = s.anchor.reading(atServerTime: transitions[Int(s.cursor)].time).ns
            }
            if !s.fetchInFlight { reading = min(reading, s.refetchDue.ns) }
            guard reading != .max else { return }
            target = clockEarliest(s.device, reaching: ClockReading(ns: reading), notBefore: t)
        }
        let tick = firstTick(atOrAfter: target, s.tick, s.device)
        schedule(.display, client: c, epoch: s.displayEpoch, at: tick)
    }

    /// A tick that matters: record the transitions it shows and fetch if the refetch is due.
    mutating func display(_ c: Int, _ t: SimTime) {
        let reading = clockReading(clients[c].device, at: t)
        let shown = clients[c].anchor.serverTime(at: reading)
        let transitions = server.schedule.transitions
        if clients[c].shownUpTo == .min {
            clients[c].shownUpTo = shown
            clients[c].cursor = Int32(server.schedule.firstTransition(after: shown))
        } else if shown > clients[c].shownUpTo {
            // The file is read in place, and only when a transition is reached (most ticks reach
            // none): a copy of it per tick cost two reference counts.
            let file = Int(clients[c].file)
            var i = Int(clients[c].cursor)
            while i < transitions.count && transitions[i].time <= shown {
                let tr = transitions[i]
                if server.files[file].lists(tr.time, position: Int(tr.position)) {
                    let trueTime = tr.time &- server.clockOffset
                    recorder.transitionShown(index: i, offset: t.ns &- trueTime)
                    recorder.deviceShow(index: i, offset: t.ns &- trueTime, tampered: clients[c].tampered)
                }
                i += 1
            }
            clients[c].cursor = Int32(i)
            clients[c].shownUpTo = shown
        }
        if !clients[c].fetchInFlight && reading >= clients[c].refetchDue { sendRequest(c, t) }
        scheduleDisplay(c, t)
    }

    /// Samples every viewing player's error, and what each position shows, at true time t.
    mutating func sample(_ t: SimTime) {
        if usesDatabase { databaseSample(t); return }
        let serverNow = server.serverTime(at: t)
        let positions = scenario.positions
        recorder.beginSample(at: t, viewing: viewing.count)
        // Outside the window nothing is recorded (and nothing else depends on a sample).
        guard recorder.measuring else { return }
        let files = server.files
        // Most players show a time near the truth: their stale search starts from its index.
        let truthIndex = server.schedule.firstTransition(after: serverNow)
        let stride = scenario.sampleStride, first = players.lowerBound
        // Addresses for prefetch hints only (nothing is read or written through them, and the
        // arrays do not change size during a sample).
        let clientBase: UnsafeRawPointer? = UnsafeRawPointer(clients.base)
        let anchorBase = shadowAnchors.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        let viewingCount = viewing.count
        let pausing = scenario.client.clock.pausesInDeepSleep
        let sampledBytes = ClientState.sampledBytes
        for (i, c32) in viewing.enumerated() {
            if i &+ World.sampleLookahead < viewingCount, let clientBase, let anchorBase {
                World.prefetchPlayer(Int(viewing[i &+ World.sampleLookahead]), clients: clientBase, anchors: anchorBase,
                                     bytes: sampledBytes)
            }
            let c = Int(c32)
            // A subset by global index (`metrics.samplePlayers`): the same players for any sharding.
            if stride > 1 && (first &+ c) % stride != 0 { continue }
            let s = clients[c]
            let link = Int(s.link)
            let minutesSinceWake: Int? = s.lastDeepWake == .min ? nil : Int((t.ns - s.lastDeepWake) / .minute)
            guard s.hasSync else {
                recorder.sampleBare(positions: positions)
                continue
            }
            // What the UI shows is the value computed at the last tick, with the sync then in force.
            let lastTick = self.lastTick(atOrBefore: t, s.tick, s.device)
            let current = lastTick >= s.anchorSetAt
            guard current || s.previousValid else {
                recorder.sampleBare(positions: positions)   // data arrived after the last tick
                continue
            }
            let anchor = current ? s.anchor : s.previousAnchor
            let file = Int(current ? s.file : s.previousFile)
            let readingNow = clockReading(s.device, at: t)
            let shown = anchor.serverTime(at: lastTick == t ? readingNow : clockReading(s.device, at: lastTick))
            let estimated = s.anchor.serverTime(at: readingNow)
            let estimate = estimated &- serverNow
            let displayError = shown &- serverNow
            recordBound(c, reading: readingNow, estimateError: estimate)
            let base = c &* World.referenceClockCount
            for k in 0..<World.referenceClockCount {
                let reading = World.referenceReading(k, s.device, at: t, context)
                let error = shadowAnchors[base + k].serverTime(at: reading)
                recorder.shadowSample(clock: k, error: error &- serverNow)
            }
            // Net drift: the clock's own, less what the anchor's rate correction takes back.
            let correction = estimated &- (s.anchor.serverTime &+ (readingNow - s.anchor.reading))
            let drift = (readingNow - clockReading(s.device.withoutDrift, at: t)) &- s.anchorDriftOffset &+ correction
            let pause = pausing ? s.anchorSlept &- s.device.slept(at: t) : 0
            recorder.attribute(anchor: s.anchorParts, estimateError: estimate, drift: drift, pause: pause,
                               displayError: displayError)
            let (bare, stale) = positionStates(file: files[file], shown: shown, truth: serverNow, near: truthIndex)
            recorder.sample(displayError: displayError, estimateError: estimate, link: link, minutesSinceWake: minutesSinceWake, bare: bare, stale: stale,
                            positions: positions)
            if s.tampered { recorder.tamperSample(headStart: displayError) }
        }
    }

    static let referenceClockCount = 5

    /// Reading of reference clock k (in `shadowClocks` order), called on the concrete type.
    @inline(__always)
    static func referenceReading(_ k: Int, _ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading {
        switch k {
        case 0: return SuspendingClock().reading(d, at: t, c)
        case 1: return ContinuousClock().reading(d, at: t, c)
        case 2: return BootTimeUptimeClock(resolution: .second).reading(d, at: t, c)
        case 3: return BootTimeUptimeClock(resolution: .microsecond).reading(d, at: t, c)
        default: return WallClock().reading(d, at: t, c)
        }
    }

    /// Positions bare (the file has nothing for the shown time) and stale (shows another item
    /// than the true one) when the UI shows server time `shown` and the truth is `truth`.
    mutating func positionStates(file: PublishedFile, shown: Int64, truth: Int64) -> (bare: Int, stale: Int) {
        positionStates(file: file, shown: shown, truth: truth, near: server.schedule.firstTransition(after: truth))
    }

    /// The same, with `hint` the index of the first transition after `truth` (or any index near
    /// the answer): the search for the stale interval's first transition starts there.
    mutating func positionStates(file: PublishedFile, shown: Int64, truth: Int64, near hint: Int) -> (bare: Int, stale: Int) {
        let positions = scenario.positions
        var bare = 0
        for p in 0..<positions where !file.lists(shown, position: p) { bare += 1 }
        let lo = min(shown, truth), hi = max(shown, truth)
        guard lo < hi else { return (bare, 0) }
        let transitions = server.schedule.transitions
        var i = server.schedule.firstTransition(after: lo, near: hint)
        markStamp &+= 1
        if markStamp == 0 {   // wrapped: clear old marks once every 2^32 samples
            for p in positionMark.indices { positionMark[p] = 0 }
            markStamp = 1
        }
        var stale = 0
        while i < transitions.count && transitions[i].time <= hi && stale < positions {
            let p = Int(transitions[i].position)
            if positionMark[p] != markStamp && file.lists(shown, position: p) {
                positionMark[p] = markStamp
                stale += 1
            }
            i += 1
        }
        return (bare, stale)
    }
}
