import SyncLabKernel

/// Player behaviour and the device's power states (see `PopulationConfig`).
extension World {
    /// The app cold-starts: no data, no sync; the Store comes on screen and loads.
    mutating func visitStart<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        let slept = updateDevice(c) { $0.wake(at: t) }
        measure.emit(.standbyEnded(player: c, at: t.ns, slept: slept))
        clients[c].hasSync = false
        clients[c].previousValid = false
        clients[c].file = -1
        clients[c].needsFetch = true
        clients[c].storeOwed = false
        clients[c].consecutiveFailures = 0
        clients[c].lastDeepWake = .min
        clients[c].sessionsLeft = Int32(scenario.population.sessions(&clients[c].behaviourRNG))
        measure.recorder.visits(at: t)
        beginViewing(c, t, d)
    }

    /// The player comes back from a break to the Store, with the app still in memory (unless
    /// `devices.lifecycle` finds that iOS terminated it meanwhile: then the Store cold-starts).
    mutating func viewStart<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        let slept = updateDevice(c) { $0.wake(at: t) }
        measure.emit(.standbyEnded(player: c, at: t.ns, slept: slept))
        // Back from deep sleep, or inside a standby wake (the device slept before it): either
        // way not a player who has not slept since launch.
        if slept > 0 || clients[c].standbyWakeIndex > 0 { clients[c].lastDeepWake = t.ns }
        if let lifecycle = scenario.devices.events.lifecycle { endBreak(c, t, lifecycle) }
        beginViewing(c, t, d)
    }

    mutating func beginViewing<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        clients[c].phase = .viewing
        clients[c].screenOn = true
        clients[c].newPowerState()                   // a pending deep sleep no longer applies
        clients[c].displayEpoch &+= 1
        clients[c].tick = d.session(clients[c].device, start: t)
        clients[c].shownUpTo = .min                  // the first tick (now) refreshes the UI
        viewers.add(c)
        // A cold start (the app was terminated) may find its last sync in storage.
        if !clients[c].hasSync && clients[c].syncStored { restoreStoredSync(c, at: t) }
        let length = scenario.population.viewing.sampleDuration(&clients[c].behaviourRNG)
        let viewEnd = t + max(length, .second)
        clients[c].viewEndAt = viewEnd.ns
        schedule(.viewEnd, client: c, epoch: clients[c].behaviourEpoch, at: viewEnd)
        let due = clients[c].hasSync &&
            d.reading(clients[c].device, at: t) >= clients[c].refetchDue
        if clients[c].needsFetch || !clients[c].hasSync || due { sendRequest(c, t) }
        scheduleDisplay(c, t, d)
    }

    /// The Store leaves the screen: timers are invalidated and a request in flight is dropped.
    mutating func viewEnd(_ c: Int, _ t: SimTime) {
        leaveStoreScreen(c)
        if clients[c].fetchInFlight {
            clients[c].fetchInFlight = false
            clients[c].needsFetch = true
            giveBackRequestSlot(c)
        }
        clients[c].fetchEpoch &+= 1
        clients[c].sessionsLeft -= 1
        // The population's laws are read where they are drawn: a copy of them held across the
        // calls below was copied again (its distributions retained) at every session's end.
        if clients[c].sessionsLeft > 0 {
            clients[c].phase = .away
            if clients[c].behaviourRNG.bernoulli(scenario.population.lockShare) { screenOff(c, t) }
            let pause = boundedBreak(c, t, drawn: scenario.population.breakDuration.sampleDuration(&clients[c].behaviourRNG))
            measure.emit(.breakBegan(at: t.ns, length: max(pause, .second), locked: !clients[c].screenOn))
            schedule(.viewStart, client: c, epoch: clients[c].behaviourEpoch, at: t + max(pause, .second))
        } else {
            // The visit ends; the app is terminated and the phone locked.
            clients[c].phase = .offline
            clients[c].hasSync = false
            clients[c].previousValid = false
            clients[c].file = -1
            screenOff(c, t)
            let gap = scenario.population.visitGap.sampleDuration(&clients[c].behaviourRNG)
            schedule(.visitStart, client: c, epoch: clients[c].behaviourEpoch, at: t + max(gap, .second))
        }
    }

    /// The screen turns off; deep sleep follows after the device's sleep delay unless it wakes.
    mutating func screenOff(_ c: Int, _ t: SimTime) {
        clients[c].screenOn = false
        clients[c].newPowerState()
        let delay = scenario.population.sleepDelay.sampleDuration(&clients[c].behaviourRNG)
        schedule(.deepSleep, client: c, epoch: clients[c].powerEpoch, at: t + delay)
    }

    /// Players of this world online (in a visit) now.
    public func onlineCount() -> Int {
        var online = 0
        for c in clients.indices where clients[c].phase != .offline { online += 1 }
        return online
    }

    /// A release: enough offline players come online within the window to multiply the players
    /// online by the release multiplier (bounded by how many are offline). `online` and `offline`
    /// are population-wide counts, so every shard decides with the same probability.
    public mutating func applyRelease(at t: SimTime, online: Int, offline: Int? = nil) {
        ensureUniqueState()
        guard let release = scenario.population.release else { return }
        let offline = offline ?? (scenario.population.players - online)
        var joined = 0
        if offline > 0 {
            let wanted = (release.multiplier - 1) * Double(max(online, 1))
            let p = min(1, wanted / Double(offline))
            for c in clients.indices where clients[c].phase == .offline {
                // A stream of its own, so the release does not shift the player's other draws.
                var rng = RandomStream(seed: scenario.seed, purpose: World.releasePurpose,
                                       entity: UInt64(players.lowerBound + c))
                guard rng.bernoulli(p) else { continue }
                joined += 1
                clients[c].behaviourEpoch &+= 1
                let delay = Int64(rng.below(UInt64(max(release.window, 1))))
                schedule(.visitStart, client: c, epoch: clients[c].behaviourEpoch, at: t + delay)
            }
        }
        measure.recorder.release(at: t, online: online, joined: joined)
    }
}
