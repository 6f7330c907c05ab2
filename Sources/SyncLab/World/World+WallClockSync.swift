import SyncLabKernel

/// The world's side of `devices.wallClockSync` (WallClockSync.swift): corrections of the wall
/// clock from the network, and the random walk of its frequency.
///
/// Draws: correction n of player i takes its estimate's error and then the interval to the
/// next correction from `RandomStream(seed, "wall-sync", i + n·2³²)`; wander step n from
/// `(seed, "wall-wander", i + n·2³²)`. The first correction comes a uniform share of one
/// interval after the start (each phone last corrected at its own time before the run), drawn
/// from `(seed, "wall-sync-phase", i)`. No other stream moves.
extension World {
    static let wallSyncPurpose = StreamPurpose("wall-sync")
    static let wallSyncPhasePurpose = StreamPurpose("wall-sync-phase")
    static let wallWanderPurpose = StreamPurpose("wall-wander")

    mutating func scheduleFirstWallClockEvents(_ c: Int) {
        guard let sync = scenario.devices.events.wallClockSync else { return }
        var rng = RandomStream(seed: scenario.seed, purpose: World.wallSyncPhasePurpose, entity: UInt64(players.lowerBound + c))
        let interval = max(sync.every.sampleDuration(&rng), DeviceEventsConfig.minimumInterval)
        scheduleWallClockSync(c, ordinal: 0, at: start + Int64(rng.below(UInt64(interval))))
        if let wander = sync.wander { schedule(.wallClockWander, client: c, epoch: 0, at: start + wander.step) }
    }

    /// The phone asks a time server, estimates its offset and removes it: a step or a slew.
    mutating func correctWallClock<C: DeviceClock, T: DeviceClock>(_ c: Int, ordinal: UInt32, _ t: SimTime, _ d: DesignClocks<C, T>) {
        guard let sync = scenario.devices.events.wallClockSync else { return }
        var rng = deviceEventStream(World.wallSyncPurpose, c, ordinal)
        let error = sync.measurementError(&rng, link: network.boxes[Int(clients[c].link)].profile)
        let interval = max(sync.every.sampleDuration(&rng), DeviceEventsConfig.minimumInterval)
        let inWindow = measure.recorder.inWindow(t)
        let context = self.context
        // The time server's clock takes a leap second as the API server's does (LeapSecond.swift):
        // after a stepped leap a phone that has not taken it is 1 s ahead of the time it is told.
        let leap = server.store.leap?.offset(at: t.ns) ?? 0
        let correction = sync.correction(offset: clients[c].device.wallOffset(at: t, context) &- leap, error: error)
        var stepped = false
        if case .step = correction { stepped = true }
        measure.emit(.wallClockCorrected(player: c, link: Int(clients[c].link), ordinal: ordinal, at: t.ns, stepped: stepped))
        switch correction {
        case .step(let delta):
            updateDevice(c) {
                $0.anchorWallClock(at: t, context)
                $0.wallSlewLeft = 0                                     // a step ends any slew
            }
            moveWallClock(c, t, by: delta, d)
            if inWindow { measure.recorder.deviceEvents.wallClockSteps += 1 }
        case .slew(let amount):
            // Like `adjtime`, a new slew replaces what is left of the previous one.
            updateDevice(c) {
                $0.anchorWallClock(at: t, context)
                $0.wallSlewLeft = Int32(amount)                         // |amount| ≤ stepAbove ≤ 2 s
            }
            redrawWallTicks(c, t, d)
            if inWindow { measure.recorder.deviceEvents.wallClockSlews += 1 }
        case .none:
            break
        }
        scheduleWallClockSync(c, ordinal: ordinal &+ 1, at: t + interval)
    }

    /// Correction `ordinal` of player c is due at `t`; the player keeps the instant, so it runs
    /// ahead of the world only to before it (`World+EarlyEvents`).
    mutating func scheduleWallClockSync(_ c: Int, ordinal: UInt32, at t: SimTime) {
        clients[c].wallClockSyncDue = t.ns
        schedule(.wallClockSync, client: c, epoch: ordinal, at: t)
    }

    /// One step of the frequency's random walk.
    mutating func wanderWallClock<C: DeviceClock, T: DeviceClock>(_ c: Int, ordinal: UInt32, _ t: SimTime, _ d: DesignClocks<C, T>) {
        guard let wander = scenario.devices.events.wallClockSync?.wander else { return }
        var rng = deviceEventStream(World.wallWanderPurpose, c, ordinal)
        let context = self.context
        updateDevice(c) { wander.step(&$0, at: t, context, &rng) }
        redrawWallTicks(c, t, d)
        schedule(.wallClockWander, client: c, epoch: ordinal &+ 1, at: t + wander.step)
    }

    /// The wall clock's rate changed: a Store on screen works out its next tick again, since
    /// instants scheduled from a wall-based clock have moved (as after a step).
    mutating func redrawWallTicks<C: DeviceClock, T: DeviceClock>(_ c: Int, _ t: SimTime, _ d: DesignClocks<C, T>) {
        guard clients[c].phase == .viewing else { return }
        clients[c].displayEpoch &+= 1
        scheduleDisplay(c, t, d)
    }
}
