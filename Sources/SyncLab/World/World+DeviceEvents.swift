import SyncLabKernel

/// Device events (`devices.reboots`, `appKills`, `wallClockChanges`, `tampering`): what each
/// does to the device's clocks and to the app's state.
///
/// Every draw comes from a stream keyed by the event's purpose and (player, ordinal): event n of
/// player i draws the interval before it and then its own values from
/// `RandomStream(seed, purpose, entity: i + n·2³²)`, so no state is kept per player and turning
/// events on changes none of the player's other draws.
extension World {
    static let rebootPurpose = StreamPurpose("reboot")
    static let appKillPurpose = StreamPurpose("app-kill")
    static let wallChangePurpose = StreamPurpose("wall-change")
    static let tamperingPurpose = StreamPurpose("tampering")

    /// The stream of event `ordinal` of player `c` (this world's index) for `purpose`.
    func deviceEventStream(_ purpose: StreamPurpose, _ c: Int, _ ordinal: UInt32) -> RandomStream {
        RandomStream(seed: scenario.seed, purpose: purpose,
                     entity: UInt64(players.lowerBound + c) | UInt64(ordinal) << 32)
    }

    /// Schedules event `ordinal` of a recurring kind: one interval after `after`.
    mutating func scheduleDeviceEvent(_ kind: WorldEvent.Kind, _ c: Int, ordinal: UInt32, after t: SimTime) {
        let every: Distribution
        let purpose: StreamPurpose
        let events = scenario.devices.events
        switch kind {
        case .reboot: guard let r = events.reboots else { return }; every = r.every; purpose = World.rebootPurpose
        case .appKill: guard let k = events.appKills else { return }; every = k.every; purpose = World.appKillPurpose
        case .wallClockChange:
            guard let w = events.wallClockChanges else { return }
            every = w.every
            purpose = World.wallChangePurpose
        default: return
        }
        var rng = deviceEventStream(purpose, c, ordinal)
        let interval = max(every.sampleDuration(&rng), DeviceEventsConfig.minimumInterval)
        schedule(kind, client: c, epoch: ordinal, at: t + interval)
    }

    mutating func scheduleFirstDeviceEvents(_ c: Int) {
        scheduleDeviceEvent(.reboot, c, ordinal: 0, after: start)
        scheduleDeviceEvent(.appKill, c, ordinal: 0, after: start)
        scheduleDeviceEvent(.wallClockChange, c, ordinal: 0, after: start)
        scheduleFirstWallClockEvents(c)
        if let tampering = scenario.devices.events.tampering {
            var rng = deviceEventStream(World.tamperingPurpose, c, 0)
            if rng.bernoulli(tampering.share) {
                _ = tampering.advance.sampleDuration(&rng)
                let at = tampering.at.sampleDuration(&rng)
                schedule(.tamper, client: c, epoch: 0, at: SimTime(ns: at))
            }
        }
    }

    mutating func deviceEvent<C: DeviceClock, T: DeviceClock>(_ kind: WorldEvent.Kind, _ c: Int, ordinal: UInt32, _ t: SimTime, _ d: DesignClocks<C, T>) {
        let events = scenario.devices.events
        switch kind {
        case .reboot:
            guard let r = events.reboots else { return }
            var rng = deviceEventStream(World.rebootPurpose, c, ordinal)
            _ = r.every.sampleDuration(&rng)                      // the interval before this one
            let sleepDelay = scenario.population.sleepDelay.sampleDuration(&rng)
            reboot(c, t, downtime: r.downtime, sleepDelay: sleepDelay)
            scheduleDeviceEvent(.reboot, c, ordinal: ordinal &+ 1, after: t)
        case .appKill:
            if clients[c].phase == .away {
                // Counted when the app had a sync to lose (a second kill finds nothing running).
                let lost = clients[c].hasSync
                killApp(c)
                if lost { measure.recorder.deviceEvents.appKill(at: t, inWindow: measure.recorder.inWindow(t)) }
            }
            scheduleDeviceEvent(.appKill, c, ordinal: ordinal &+ 1, after: t)
        case .wallClockChange:
            guard let w = events.wallClockChanges else { return }
            var rng = deviceEventStream(World.wallChangePurpose, c, ordinal)
            _ = w.every.sampleDuration(&rng)
            let jump = Int64(w.jump.sample(&rng).rounded())
            moveWallClock(c, t, by: jump, d)
            if measure.recorder.inWindow(t) { measure.recorder.deviceEvents.wallClockChanges += 1 }
            scheduleDeviceEvent(.wallClockChange, c, ordinal: ordinal &+ 1, after: t)
        case .tamper:
            guard let tampering = events.tampering else { return }
            var rng = deviceEventStream(World.tamperingPurpose, c, 0)
            _ = rng.bernoulli(tampering.share)
            let advance = tampering.advance.sampleDuration(&rng)
            clients[c].tampered = true
            moveWallClock(c, t, by: advance, d)
            if measure.recorder.inWindow(t) { measure.recorder.deviceEvents.tamperings += 1 }
        default:
            return
        }
    }

    /// The app's process ends: sync, file and any request in flight are gone, so the Store
    /// cold-starts (fetches) the next time it is on screen. A sync the design stores
    /// (`client.persistSync`) stays in the state, for the cold start to restore.
    mutating func killApp(_ c: Int) {
        clients[c].hasSync = false
        clients[c].previousValid = false
        clients[c].file = -1
        clients[c].needsFetch = true
        clients[c].storeOwed = false
        clients[c].consecutiveFailures = 0
        clients[c].lastDeepWake = .min
        clients[c].fetchInFlight = false
        giveBackRequestSlot(c)
        clients[c].fetchEpoch &+= 1
        clients[c].refetchDue = ClockReading(ns: .max)
        clients[c].connectionOpen = false
    }

    /// A cold start with a sync in the app's storage (`client.persistSync`): Kronos's check at
    /// launch. The stored anchor is a reading of the design's measuring clock, and such a reading
    /// means the same thing only within one boot, so the sync is restored when the boot instant
    /// the OS reports now, `KERN_BOOTTIME`, rounds to the same second as when it was stored; a
    /// reboot records a new one, and the OS shifts it by every step of the wall clock, so a set
    /// clock (a user, a tamperer, a network step) discards the sync too, while drift and slews
    /// keep it. Restored, the sync is in force at once: the anchor, its bound and the estimator's
    /// memory as they were, the clock's readings since as the clock counted them (a suspending
    /// clock lost its deep sleep). The Store has no data yet (its file was not stored) and
    /// fetches as any cold start does.
    mutating func restoreStoredSync(_ c: Int, at t: SimTime) {
        let now = clients[c].device.kernelBootWallUnix(context), then = clients[c].storedBootWall
        let restored = floorDiv(now &+ .second / 2, .second) == floorDiv(then &+ .second / 2, .second)
        if measure.recorder.inWindow(t) {
            if restored { measure.recorder.deviceEvents.storedSyncsRestored += 1 } else { measure.recorder.deviceEvents.storedSyncsDiscarded += 1 }
        }
        guard restored else {
            clients[c].syncStored = false
            return
        }
        clients[c].hasSync = true
    }

    /// A restart at `t`: the app is killed, the kernel's clocks start again from zero. A Store
    /// session in progress ends and the player reopens the Store `downtime` later (a cold start);
    /// otherwise the phone sits with its screen off and sleeps after `sleepDelay`.
    mutating func reboot(_ c: Int, _ t: SimTime, downtime: Nanoseconds, sleepDelay: Nanoseconds) {
        let wasViewing = clients[c].phase == .viewing
        measure.recorder.deviceEvents.reboot(viewing: wasViewing, inWindow: measure.recorder.inWindow(t))
        if wasViewing {
            leaveStoreScreen(c)
            clients[c].phase = .away
            clients[c].behaviourEpoch &+= 1                  // the session's end no longer applies
            schedule(.viewStart, client: c, epoch: clients[c].behaviourEpoch, at: t + max(downtime, .second))
        }
        if clients[c].phase != .offline { killApp(c) }
        // A stored sync stays stored: its readings are of clocks that start again, and the next
        // cold start finds the new boot time and discards it (`restoreStoredSync`).
        let context = self.context
        updateDevice(c) { $0.reboot(at: t, epochUnix: context.epochUnix, wallSlewPPB: context.wallSlewPPB) }
        clients[c].screenOn = false
        clients[c].newPowerState()
        schedule(.deepSleep, client: c, epoch: clients[c].powerEpoch, at: t + sleepDelay)
    }

    /// The wall clock moves by `delta`; a Store on screen recomputes when its next tick matters,
    /// since every instant scheduled from a wall-based clock has moved.
    mutating func moveWallClock<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, by delta: Nanoseconds, _ d: DesignClocks<C, T>) {
        updateDevice(c) { $0.moveWallClock(by: delta) }
        if clients[c].phase == .viewing {
            clients[c].displayEpoch &+= 1
            scheduleDisplay(c, t, d)
        }
    }

    /// Takes the Store off the screen list and cancels its ticks (like `viewEnd`, without a break).
    mutating func leaveStoreScreen(_ c: Int) {
        viewers.remove(c)
        clients[c].displayEpoch &+= 1
    }
}
