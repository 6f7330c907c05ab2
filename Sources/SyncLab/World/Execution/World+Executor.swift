import SyncLabKernel

/// The executor's loop (`Executor`): how the world's events are carried out, apart from what
/// each does (`World.handle`). It runs the queue, lets each player catch up before its event,
/// takes a player's response or next tick early where nothing can come in between, and keeps the
/// state of the players coming next loading (prefetch). Model files reach it only through
/// `schedule`.
extension World {
    /// Runs the scenario to its end and returns the results (one world, no shards).
    public mutating func run() -> RunResult {
        if let release = scenario.population.release {
            run(until: release.at)
            applyRelease(at: release.at, online: onlineCount())
        }
        run(until: end)
        return finish()
    }

    /// Handles every event before `limit` (starting the world on first use).
    public mutating func run(until limit: SimTime) {
        run(until: limit, earlyUntil: limit)
    }

    /// `run(until:)` stopping at `limit` only to look (progress), where nothing changes the world
    /// before `hard`: players handled ahead of the world's clock may pass `limit`, not `hard`.
    mutating func run(until limit: SimTime, earlyUntil hard: SimTime) {
        ensureUniqueState()
        if !loop.started {
            loop.started = true
            // Run alone, a world whose players share the fleet runs the fleet's part itself.
            if fleet == nil && FleetCoordinator.isNeeded(for: scenario) {
                let coordinator = FleetCoordinator(scenario: scenario, schedule: server.store.schedule, shardPlayers: [players])
                fleet = FleetLink(coordinator: coordinator, shard: 0, ownsCoordinator: true)
            }
            bootstrap()
        }
        loop.runLimit = min(limit, end)
        loop.earlyHandlingLimit = min(max(hard, limit), end)
        // The clock starts the loop: compiled for its own type (`DeviceClock._runWorld`).
        let clock = scenario.client.clock
        clock._runWorld(&self)
    }

    /// Handles every event before `loop.runLimit`, reading the design's clocks through `d`; then
    /// every viewing player records the pending samples, so whatever reads the results next (or
    /// runs a release) sees them all.
    mutating func runEvents<C: DeviceClock, T: DeviceClock>(_ d: DesignClocks<C, T>) {
        if fleet != nil {
            runCoupledEvents(d)
        } else {
            var loaded = loop.queue.bucketsLoaded
            while handleNext(before: loop.runLimit, loaded: &loaded, d) {}
        }
        catchUpAllSamples(d)
    }

    /// Pops and handles the next event before `limit`, if any, loading the state of the players
    /// coming next (`loaded`: the queue's bucket count last seen). The one step of both loops.
    @inline(__always)
    mutating func handleNext<C: DeviceClock, T: DeviceClock>(before limit: SimTime, loaded: inout UInt64,
                                                              _ d: DesignClocks<C, T>) -> Bool {
        guard let (t, e) = loop.queue.pop(before: limit) else { return false }
        if loop.queue.bucketsLoaded != loaded {
            loaded = loop.queue.bucketsLoaded
            prefetchFromNewBucket()
        } else {
            prefetchUpcoming()
        }
        execute(e, at: t, d)
        return true
    }

    /// Carries out event e at t (the event popped last): before the player's state changes, it
    /// records the sample instants before it (`World+Sampling`) and its device goes through the
    /// standby wakes due by now (`StandbyWakes`); then the model handles the event; then the
    /// events it left to handle early are handled, and in a world run alone a sample instant that
    /// fills the pending list has every viewing player catch up.
    @inline(__always)
    mutating func execute<C: DeviceClock, T: DeviceClock>(_ e: WorldEvent, at t: SimTime, _ d: DesignClocks<C, T>) {
        let c = Int(e.client)
        if e.kind.isPlayerEvent {
            if !server.usesDatabase { catchUpSamples(c, before: t, sequence: loop.queue.poppedSequence, d) }
            catchUpStandby(c, through: t)
        } else if e.kind.isDatabaseEvent {
            catchUpStandby(c / (scenario.positions + 1), through: t)
        }
        handle(e, at: t, d)
        // A shard sharing the fleet catches up where its instants precede every event still to
        // come, answers included (`runCoupledEvents`); a world alone, at any instant.
        if e.kind == .sample && fleet == nil && measure.pendingSamples.count >= executor.pendingSampleLimit {
            catchUpAllSamples(d)
        }
        handleEarlyEvents(d)
    }

    /// Asks for an event of `kind` for `client` at t (none at or past the run's end): the one way
    /// the model asks for an event. A player's response or display tick that the kinds'
    /// declarations (`WorldEvent.Kind.early`) let the executor take early is kept to handle at the
    /// end of the current event instead (`World+EarlyEvents`); it still takes its sequence number.
    /// Inlined: at a call site the kind is a constant, and the choice folds away.
    @inline(__always)
    mutating func schedule(_ kind: WorldEvent.Kind, client: Int, epoch: UInt32 = 0, at t: SimTime) {
        guard t < end else { return }
        switch kind.early {
        case .response where mayHandleResponseEarly(client, at: t):
            executor.pendingResponse = PendingResponse(client: client, at: t, epoch: epoch, sequence: loop.queue.reserveSequence())
            return
        case .tick where mayHandleTickEarly(client, to: t):
            executor.pendingDisplay = PendingDisplay(client: client, at: t, epoch: epoch, sequence: loop.queue.reserveSequence())
            return
        case .response, .tick, .never:
            break
        }
        loop.queue.schedule(WorldEvent(client: Int32(client), kind: kind, epoch: epoch), at: t)
        if loop.queue.farCount > executor.farSweepAt { sweepCancelledFarEvents() }
    }

    /// A sync kept unsettled (`World.keepSync`) is settled when a sample first reads it, or at
    /// once where a test asks (`Executor.settlesSyncsAtOnce`).
    @inline(__always)
    mutating func syncKept(_ c: Int) {
        if executor.settlesSyncsAtOnce { settleSync(c) }
    }

    /// Whether player c's next tick, at clock reading `reading`, need not be worked out while its
    /// fetch is in flight: the design's clock never reads less later and does not reach it before
    /// the run ends, so the tick is never handled (`Executor.skipsTicksAfterTheEnd`).
    @inline(__always)
    mutating func tickComesAfterTheEnd<C: DeviceClock, T: DeviceClock>(_ c: Int, reading: Int64, _ d: DesignClocks<C, T>) -> Bool {
        executor.skipsTicksAfterTheEnd && d.onlyMovesForward && readingAtEnd(c, d) < reading
    }

    /// Player c's clock reading just before the run ends, worked out once per device state (in
    /// the reference fleet, once per player: every fetch asks it while in flight).
    @inline(__always)
    mutating func readingAtEnd<C: DeviceClock, T: DeviceClock>(_ c: Int, _ d: DesignClocks<C, T>) -> Int64 {
        if clients[c].readingAtEnd == .min {
            clients[c].readingAtEnd = d.reading(clients[c].device, at: SimTime(ns: end.ns &- 1)).ns
        }
        return clients[c].readingAtEnd
    }
}
