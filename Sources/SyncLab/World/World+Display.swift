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
    /// Schedules player c's next display tick after t, on the design's clock and tick policy.
    mutating func scheduleDisplay<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        // Read in place: the state is 448 bytes.
        let s = UnsafePointer(clients.base + c)
        // Every caller has just handled or cancelled the live tick: none is pending until one is
        // scheduled here.
        clients[c].displayDueAt = .max
        guard s.pointee.phase == .viewing, s.pointee.hasSync else { return }
        var target = t
        if s.pointee.shownUpTo != .min {
            var reading = Int64.max
            // Every transition is a tick that matters: a covered one is shown, an uncovered one
            // leaves its position bare. Either way the UI has moved past it.
            let transitions = server.store.schedule.transitions
            if Int(s.pointee.cursor) < transitions.count {
                reading = s.pointee.anchor.reading(atServerTime: transitions[Int(s.pointee.cursor)].time).ns
            }
            if !s.pointee.fetchInFlight { reading = min(reading, s.pointee.refetchDue.ns) }
            guard reading != .max else { return }
            // While a fetch is in flight the next tick is the next transition's. One the clock
            // does not reach before the run ends is never handled: no need to work it out (a clock
            // that only moves forward reaches it after the end if it has not by then).
            if s.pointee.fetchInFlight && tickComesAfterTheEnd(c, reading: reading, d) { return }
            target = d.earliest(s.pointee.device, reaching: ClockReading(ns: reading), notBefore: t)
        }
        let next = d.firstTick(atOrAfter: target, s.pointee.tick, s.pointee.device)
        clients[c].displayDueAt = next.ns
        schedule(.display, client: c, epoch: s.pointee.displayEpoch, at: next)
    }

    /// A tick that matters: record the transitions it shows and fetch if the refetch is due.
    mutating func display<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        display(c, t, d, reading: d.reading(clients[c].device, at: t))
    }

    /// The same, given the design clock's reading at t (the executor reads it to tell whether
    /// the tick refetches, `handleEarlyEvents`).
    mutating func display<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>,
                                                          reading: ClockReading) {
        let shown = clients[c].anchor.serverTime(at: reading)
        let transitions = server.store.schedule.transitions
        if clients[c].shownUpTo == .min {
            clients[c].shownUpTo = shown
            clients[c].cursor = Int32(server.store.schedule.firstTransition(after: shown))
        } else if shown > clients[c].shownUpTo {
            // The file is read in place, and only when a transition is reached (most ticks reach
            // none).
            // No file yet after a cold start with a restored sync: every change passes bare.
            let file = Int(clients[c].file)
            var i = Int(clients[c].cursor)
            while i < transitions.count && transitions[i].time <= shown {
                let tr = transitions[i]
                if file >= 0 && server.store.files[file].lists(tr.time, position: Int(tr.position)) {
                    // The first true instant the server's clock reaches it (LeapSecond.swift).
                    let trueTime = server.store.trueInstant(reaching: tr.time).ns
                    measure.recorder.transitionShown(index: i, offset: t.ns &- trueTime, player: players.lowerBound &+ c,
                                             tampered: clients[c].tampered)
                }
                i += 1
            }
            clients[c].cursor = Int32(i)
            clients[c].shownUpTo = shown
        }
        if refetches(c, reading: reading) { sendRequest(c, t) }
        scheduleDisplay(c, t, d)
    }

    /// Whether player c's tick with the design clock reading `reading` sends the refetch: none
    /// in flight, and the refetch due.
    @inline(__always)
    func refetches(_ c: Int, reading: ClockReading) -> Bool {
        !clients[c].fetchInFlight && reading >= clients[c].refetchDue
    }

    /// Positions bare (the file `server.files[file]` has nothing for the shown time) and stale
    /// (showing another item than the true one) when the UI shows server time `shown` and the
    /// truth is `truth`; `hint` is the index of the first transition after `truth` (or any
    /// index near the answer), where the search for the stale interval's first transition starts.
    /// The file is read in place (a copy would retain and release it).
    mutating func positionStates(file f: Int, shown: Int64, truth: Int64, near hint: Int) -> (bare: Int, stale: Int) {
        let positions = scenario.positions
        guard f >= 0 else { return (positions, 0) }   // a restored sync before its first file
        let listsAll = server.store.files[f].listsAll(shown)
        var bare = 0
        if !listsAll {
            for p in 0..<positions where !server.store.files[f].lists(shown, position: p) { bare += 1 }
        }
        let lo = min(shown, truth), hi = max(shown, truth)
        guard lo < hi else { return (bare, 0) }
        var i = server.store.schedule.firstTransition(after: lo, near: hint)
        let count = server.store.schedule.transitions.count
        var stale = 0
        if positions <= 64 {
            // Distinct positions as bits of one word: no marks to write.
            var seen: UInt64 = 0
            while i < count && server.store.schedule.transitions[i].time <= hi && stale < positions {
                let p = Int(server.store.schedule.transitions[i].position)
                let bit: UInt64 = 1 &<< UInt64(p)
                if seen & bit == 0 && (listsAll || server.store.files[f].lists(shown, position: p)) {
                    seen |= bit
                    stale += 1
                }
                i += 1
            }
            return (bare, stale)
        }
        measure.markStamp &+= 1
        if measure.markStamp == 0 {   // wrapped: clear old marks once every 2^32 samples
            for p in measure.positionMark.indices { measure.positionMark[p] = 0 }
            measure.markStamp = 1
        }
        while i < count && server.store.schedule.transitions[i].time <= hi && stale < positions {
            let p = Int(server.store.schedule.transitions[i].position)
            if measure.positionMark[p] != measure.markStamp && (listsAll || server.store.files[f].lists(shown, position: p)) {
                measure.positionMark[p] = measure.markStamp
                stale += 1
            }
            i += 1
        }
        return (bare, stale)
    }
}
