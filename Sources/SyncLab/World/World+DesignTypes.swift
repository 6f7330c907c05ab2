import SyncLabKernel

/// Work compiled once for each built-in clock and tick policy (`World.withDesignTypes`).
protocol DesignTypesWork {
    mutating func run<Clock: DeviceClock, Tick: TickPolicy>(_ world: inout World, _ clock: Clock, _ tick: Tick)
}

extension World {
    /// Runs `work` with the design's clock and tick policy as their own concrete types. The
    /// player's run-ahead loop (the event loop, `display`, `responseDone`, `scheduleDisplay`)
    /// reads the clock several times per fetch and asks the tick policy once: compiled for each
    /// built-in pair it inlines them, with no switch over either inside (measured on the
    /// reference fleet: one instruction in fifteen). Plug-ins run the same code through their
    /// protocols.
    mutating func withDesignTypes<Work: DesignTypesWork>(_ work: inout Work) {
        switch design.clock {
        case .continuous?: withDesignTick(&work, ContinuousDeviceClock())
        case .suspending?: withDesignTick(&work, SuspendingDeviceClock())
        case .uptimeSecond?: withDesignTick(&work, BootTimeUptimeClock(resolution: .second))
        case .uptimeMicrosecond?: withDesignTick(&work, BootTimeUptimeClock(resolution: .microsecond))
        case .wall?: withDesignTick(&work, WallClock())
        case nil:
            let plugIn = scenario.client.clock
            withDesignTick(&work, plugIn)
        }
    }

    private mutating func withDesignTick<Work: DesignTypesWork, Clock: DeviceClock>(_ work: inout Work, _ clock: Clock) {
        switch design.tick {
        case .immediate?: work.run(&self, clock, ImmediateTick())
        case let timer?: work.run(&self, clock, timer)
        case nil:
            let plugIn = scenario.client.tick
            work.run(&self, clock, plugIn)
        }
    }
}

/// The event loop of `World.run(until:)`.
struct EventLoopWork: DesignTypesWork {
    mutating func run<Clock: DeviceClock, Tick: TickPolicy>(_ world: inout World, _ clock: Clock, _ tick: Tick) {
        world.runEvents(clock, tick)
    }
}

/// `World.scheduleDisplay(_:_:)` for a caller outside the run-ahead loop.
struct ScheduleDisplayWork: DesignTypesWork {
    let client: Int
    let at: SimTime
    mutating func run<Clock: DeviceClock, Tick: TickPolicy>(_ world: inout World, _ clock: Clock, _ tick: Tick) {
        world.scheduleDisplay(client, at, clock, tick)
    }
}
