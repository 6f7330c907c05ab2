import Testing
@testable import SyncLab
import SyncLabKernel

/// Device events through the whole world, with constant latencies and scripted behaviour so
/// every instant is derived by hand (see `WorldExactTests.scenario`: visit at 5 s, no drift,
/// no wall offset, 40 ms up, 60 ms down, no service time).
@Suite struct WorldDeviceEventsTests {
    static func scenario(clock: any DeviceClock, duration: Nanoseconds, sessions: Double = 1,
                         viewing: Nanoseconds = 10 * .hour, pause: Nanoseconds = 10 * .minute,
                         events: DeviceEventsConfig) -> Scenario {
        var s = WorldExactTests.scenario(clock: clock, duration: duration, sessions: sessions, viewing: viewing, pause: pause)
        s.devices.events = events
        return s
    }

    /// A reboot every 20 min hits the player at 20 min while the Store is on screen: the app is
    /// killed, the kernel restarts, and the player reopens the Store 1 min later with a cold
    /// start: a fresh fetch whose continuous-clock readings count from the reboot.
    @Test func rebootWhileViewingColdStartsAfterTheDowntime() {
        let events = DeviceEventsConfig(reboots: .init(every: .constant(Double(20 * Int64.minute)), downtime: .minute))
        let s = Self.scenario(clock: ContinuousDeviceClock(), duration: 25 * .minute, events: events)
        var world = World(scenario: s)
        let r = world.run()
        let c = world.player(0)
        #expect(c.device.bootTime == SimTime(ns: 20 * .minute))
        #expect(c.phase == .viewing)
        #expect(c.hasSync)
        #expect(c.request.sentAt == SimTime(ns: 21 * .minute))
        // The continuous clock counts from the reboot: its reading at download complete is the
        // true time since 20 min (no drift), which is 1 min + 40 ms up + 60 ms down + the bytes'
        // nanoseconds at 400 GB/s.
        #expect(c.anchor.reading.ns == c.anchorSetAt.ns - 20 * .minute)
        let roundTrip = c.anchorSetAt.ns - 21 * .minute
        #expect(roundTrip > 100 * .millisecond && roundTrip < 100 * .millisecond + .microsecond)
        #expect(r.deviceEvents.reboots == 1 && r.deviceEvents.rebootsWhileViewing == 1)
        #expect(r.visits == 1)   // the reopening is not a new visit
    }

    /// The OS kills the app every 3 min; the player views 5 s → 65 s, then locks the phone for
    /// 10 min. The kill at 180 s finds the app in the background with a sync: on return at
    /// 665 s the Store fetches at once. Without kills, the suspending clock (asleep 185 s →
    /// 665 s) has counted only about 3 min since the load, so no refetch is due yet.
    @Test(arguments: [true, false])
    func appKillInABreakCostsAFetchOnReturn(kills: Bool) {
        let events = DeviceEventsConfig(appKills: kills ? .init(every: .constant(Double(3 * Int64.minute))) : nil)
        let s = Self.scenario(clock: SuspendingDeviceClock(), duration: 700 * .second, sessions: 2, viewing: 60 * .second,
                              pause: 10 * .minute, events: events)
        var world = World(scenario: s)
        let r = world.run()
        let c = world.player(0)
        #expect(c.phase == .viewing)
        #expect(c.request.sentAt == SimTime(ns: kills ? 665 * .second : 5 * .second))
        #expect(r.requestsSent == (kills ? 2 : 1))
        // Kills at 180, 360, 540 s: only the first found a sync to lose.
        #expect(r.deviceEvents.appKills == (kills ? 1 : 0))
    }

    /// Kronos's stored sync across a kill (`client.persistSync`). The player views 5 s → 65 s on a
    /// continuous clock running 50 ppm fast, locks the phone; the OS kills the app at 180 s; the
    /// player is back at 665 s, a cold start. With persistence the stored anchor is in force at
    /// once, and the first tick (665 s, the session's start) shows the stored sync's error plus
    /// the clock's drift since the sync. By hand: the seeds' estimate is stamp + M(1 + 50 ppm),
    /// M = download − upload complete (100 ms and the file's bytes at 400 GB/s) as the fast clock
    /// reads it; at download complete d its error is (stamp − upload complete) + M/20,000. From d to 665 s
    /// the clock counts (665 s − d)·(1 + 50 ppm), so the error grows by 1/20,000 of that: 33.0 ms
    /// over 659.9 s. Each reading floors once: ± 2 ns. Off, the cold start has no sync and shows
    /// nothing until its fetch lands at 665.1 s.
    @Test(arguments: [true, false])
    func storedSyncIsInForceAtAColdStart(persist: Bool) {
        let events = DeviceEventsConfig(appKills: .init(every: .constant(Double(3 * Int64.minute))))
        var s = Self.scenario(clock: ContinuousDeviceClock(), duration: 700 * .second, sessions: 2, viewing: 60 * .second,
                              pause: 10 * .minute, events: events)
        s.devices.driftPPM = .constant(50)
        s.client.persistSync = persist
        var world = World(scenario: s)
        let back = 665 * Int64.second
        world.run(until: SimTime(ns: 100 * .second))                        // the first sync, before the kill
        let first = world.player(0)
        world.run(until: SimTime(ns: back + 50 * .millisecond))
        let c = world.player(0)
        #expect(c.phase == .viewing && c.fetchInFlight)
        #expect(c.request.sentAt == SimTime(ns: back))                      // a cold start fetches at once
        #expect(world.measure.recorder.deviceEvents.appKills == 1)
        #expect(c.hasSync == persist)
        #expect(world.measure.recorder.deviceEvents.storedSyncsRestored == (persist ? 1 : 0))
        #expect(world.measure.recorder.deviceEvents.storedSyncsDiscarded == 0)
        guard persist else {
            #expect(c.shownUpTo == .min)
            return
        }
        #expect(c.anchor == first.anchor && c.anchorSetAt == first.anchorSetAt)
        let synced = first.anchorSetAt.ns                                   // download complete of the 5 s fetch
        let m = synced - first.request.uploadCompleteAt.ns                          // 100 ms and the file's bytes
        #expect(m >= 100 * .millisecond && m < 100 * .millisecond + .microsecond)
        let storedError = (first.request.timestamp - first.request.uploadCompleteAt.ns) + m / 20_000
        let drift = (back - synced) / 20_000                                 // 50 ppm = 1/20,000
        let firstShownError = c.shownUpTo - back
        #expect(abs(firstShownError - (storedError + drift)) <= 2, "\(firstShownError) vs \(storedError) + \(drift)")
        #expect(drift > 32 * .millisecond && drift < 34 * .millisecond)
    }

    /// Kronos's check at launch: the stored sync is dropped when the boot time the OS reports
    /// moved, which a step of the wall clock does (XNU shifts `KERN_BOOTTIME` by it) and a reboot
    /// does (a new boot). Kills at 180 s as above; a +2 s step at 300 s, or a reboot at 300 s
    /// (while the app is dead): at 665 s the cold start has no sync, as without persistence.
    @Test(arguments: [false, true])
    func storedSyncIsDroppedAfterAWallStepOrAReboot(reboot: Bool) {
        var events = DeviceEventsConfig(appKills: .init(every: .constant(Double(3 * Int64.minute))))
        if reboot {
            events.reboots = .init(every: .constant(Double(5 * Int64.minute)), downtime: .minute)
        } else {
            events.wallClockChanges = .init(every: .constant(Double(5 * Int64.minute)), jump: .constant(Double(2 * Int64.second)))
        }
        var s = Self.scenario(clock: ContinuousDeviceClock(), duration: 700 * .second, sessions: 2, viewing: 60 * .second,
                              pause: 10 * .minute, events: events)
        s.client.persistSync = true
        var world = World(scenario: s)
        world.run(until: SimTime(ns: 665 * .second + 50 * .millisecond))
        let c = world.player(0)
        #expect(c.phase == .viewing && c.fetchInFlight)
        #expect(!c.hasSync && !c.syncStored)
        #expect(world.measure.recorder.deviceEvents.storedSyncsRestored == 0 && world.measure.recorder.deviceEvents.storedSyncsDiscarded == 1)
        #expect(c.shownUpTo == .min)
    }

    /// End to end with drawn terminations (the lifecycle's hazard, reboots, kills) on the uptime
    /// clock: with persistence, cold starts that find a valid stored sync show its time at once,
    /// so more samples carry an error (and fewer have no sync); every figure stays independent
    /// of the thread count (4,000 players on 2 threads: two shards of 2,000).
    @Test func persistenceEndToEndIsThreadCountIndependent() throws {
        var s = try DeterminismTests.shipped("v115-uptime.json")
        s.population.players = 4_000
        s.duration = 30 * .minute
        s.population.release = nil
        s.devices.events.appKills = .init(every: .exponential(mean: 6e11))
        s.devices.events.reboots = .init(every: .exponential(mean: 3.6e12))
        var off = s
        off.client.persistSync = false
        s.client.persistSync = true
        let one = Simulation.run(s, threads: 1), two = Simulation.run(s, threads: 2)
        #expect(two.shards == 2, "the test means to split the players")
        #expect(DeterminismTests.fingerprint(one).dropLast() == DeterminismTests.fingerprint(two).dropLast())
        let plain = Simulation.run(off, threads: 1)
        #expect(one.deviceEvents.appKills > 0)
        #expect(one.clientError.count > plain.clientError.count)
        #expect(one.requestsSent == plain.requestsSent)   // a cold start fetches either way
        #expect(one.deviceEvents.storedSyncsRestored > 0 && one.deviceEvents.storedSyncsDiscarded > 0)
        #expect(plain.deviceEvents.storedSyncsRestored == 0 && plain.deviceEvents.storedSyncsDiscarded == 0)
    }

    /// The wall clock is moved +1 h at 3 min, in a 4 min break (view 5 s → 65 s, back at 305 s).
    /// A design measuring with `uptime-wall` sees 1 h pass and refetches on return; the
    /// OS-adjusted `uptime` sees about 5 min, under the 6–9 min refetch window: no fetch.
    @Test(arguments: [true, false])
    func wallClockStepReachesOnlyClocksThatFollowIt(followsWall: Bool) {
        let events = DeviceEventsConfig(wallClockChanges: .init(every: .constant(Double(3 * Int64.minute)),
                                                                jump: .constant(Double(Int64.hour))))
        let clock: any DeviceClock = followsWall ? WallUptimeClock() : BootTimeUptimeClock()
        let s = Self.scenario(clock: clock, duration: 330 * .second, sessions: 2, viewing: 60 * .second,
                              pause: 4 * .minute, events: events)
        var world = World(scenario: s)
        let r = world.run()
        let c = world.player(0)
        #expect(c.device.wallOffset == .hour)
        #expect(r.deviceEvents.wallClockChanges == 1)
        #expect(c.request.sentAt == SimTime(ns: followsWall ? 305 * .second : 5 * .second))
    }

    /// Every player tampers (+3 min at 60 s). Measuring with the wall clock, the estimate jumps
    /// ahead by exactly 3 min and the player shows items minutes early until its refetch; with
    /// the continuous clock nothing changes and no show is early.
    @Test(arguments: [true, false])
    func tamperingGivesAWallClockDesignAHeadStart(wall: Bool) {
        let events = DeviceEventsConfig(tampering: .init(share: 1, advance: .constant(Double(3 * Int64.minute)),
                                                         at: .constant(Double(60 * Int64.second))))
        let clock: any DeviceClock = wall ? WallClock() : ContinuousDeviceClock()
        let s = Self.scenario(clock: clock, duration: 150 * .second, events: events)
        var world = World(scenario: s)
        let r = world.run()
        let c = world.player(0)
        #expect(c.tampered)
        #expect(r.deviceEvents.tamperings == 1)
        // With the wall clock the estimate carries the 3 min step, exactly (the step is whole µs):
        // the same device without the step estimates 3 min less, which is the sync's own error
        // (uplink − truncation) up to the wall clock's µs floors.
        let syncError = c.request.timestamp - c.request.uploadCompleteAt.ns
        let now = SimTime(ns: 150 * .second - 1)
        var untampered = c.device
        untampered.moveWallClock(by: -3 * .minute)
        let estimate = c.anchor.serverTime(at: clock.reading(c.device, at: now, world.context)) - now.ns
        let honest = c.anchor.serverTime(at: clock.reading(untampered, at: now, world.context)) - now.ns
        #expect(estimate - honest == (wall ? 3 * .minute : 0))
        #expect(abs(honest - syncError) < 2 * .microsecond)
        #expect(c.request.sentAt == SimTime(ns: 5 * .second))   // no refetch within 150 s either way
        if wall {
            #expect(r.deviceEvents.tamperEarlyShows > 0)
            #expect(r.deviceEvents.tamperEarlyShows == r.deviceEvents.earlyShows)
            // Every sample after the step shows 3 min ahead, give or take the sync error and a tick.
            let mean = r.figures["tamperHeadStartMs.mean"]!!
            #expect(mean > 178_000 && mean < 181_000)
        } else {
            #expect(r.deviceEvents.earlyShows == 0)
            #expect(r.figures["tamperEarlyShowShare"]! == 0)
        }
    }

    /// `uptime-wall` as the tick clock: a 1 s timer on a clock that follows the wall clock. Tick k
    /// is the first instant the clock reads base + k·1 s under the device's current state, so
    /// after a step of the wall clock (back or forward 5 min, at 10 and 20 min) the timer goes on
    /// ticking each second at a new phase: the Store neither freezes nor races, and with the
    /// continuous clock measuring, every show stays within a tick of its transition.
    @Test(arguments: [true, false])
    func wallFollowingTimerKeepsTickingAcrossWallSteps(back: Bool) {
        let jump = (back ? -5 : 5) * Int64.minute
        let events = DeviceEventsConfig(wallClockChanges: .init(every: .constant(Double(10 * Int64.minute)),
                                                                jump: .constant(Double(jump))))
        var s = Self.scenario(clock: ContinuousDeviceClock(), duration: 30 * .minute, events: events)
        s.client.tick = TimerTick(period: .second, clock: WallUptimeClock())
        var plain = s
        plain.devices.events = DeviceEventsConfig()
        var world = World(scenario: s)
        let r = world.run()
        var reference = World(scenario: plain)
        let q = reference.run()
        #expect(r.deviceEvents.wallClockChanges == 2)
        #expect(r.transitions.map(\.time) == q.transitions.map(\.time))   // the same changes shown
        // Shown after the change by the estimate's error (−1 s … +0.1 s) plus under one tick.
        for row in r.transitions {
            #expect(row.earliest > -2 * .second && row.latest < 2 * .second, "\(row)")
        }
        #expect(r.deviceEvents.earlyShows == 0)
    }

    /// The events draw from their own streams: switching them on changes no other player's
    /// draws, and the results stay identical for any number of threads.
    @Test func eventsAreThreadCountIndependent() throws {
        var s = try DeterminismTests.shipped("v115-pausing.json")
        s.population.players = 4_400
        s.duration = 20 * .minute
        s.population.release = nil
        s.devices.events = DeviceEventsConfig(
            reboots: .init(every: .exponential(mean: 3.6e12)), appKills: .init(every: .exponential(mean: 1.8e12)),
            wallClockChanges: .init(every: .exponential(mean: 3.6e12), jump: .uniform(min: -3.6e12, max: 3.6e12)),
            tampering: .init(share: 0.2, advance: .constant(6e11), at: .uniform(min: 0, max: 1.2e12)))
        s.client.clock = WallClock()
        let one = Simulation.run(s, threads: 1)
        let three = Simulation.run(s, threads: 3)
        #expect(DeterminismTests.fingerprint(one).dropLast() == DeterminismTests.fingerprint(three).dropLast())
        #expect(one.deviceEvents == three.deviceEvents)
        #expect(one.deviceEvents.reboots > 0 && one.deviceEvents.tamperings > 0 && one.deviceEvents.wallClockChanges > 0)
    }

    /// The phone corrects its wall clock every hour from one exchange over its own link (40 ms
    /// up, 60 ms down): the estimate is off by half the asymmetry, (60 − 40)/2 = +10 ms, so the
    /// first correction slews a clock that was right to 10 ms behind (done in 20 s at 500 ppm),
    /// and the next two estimate 0 and leave it alone. With a drawn error of 200 ms (above the
    /// 128 ms threshold) the first correction steps instead: 200 ms behind, and the uptime fix
    /// (`uptime`, 1 µs) does not notice the step while the wall clock does.
    @Test(arguments: [false, true])
    func wallClockCorrectionsFromTheLinkSlewOrStep(step: Bool) {
        let sync = DeviceEventsConfig.WallClockSync(every: .constant(Double(Int64.hour)),
                                                    error: step ? .drawn(.constant(Double(200 * Int64.millisecond))) : .link)
        var events = DeviceEventsConfig()
        events.wallClockSync = sync
        let s = Self.scenario(clock: BootTimeUptimeClock(resolution: .microsecond), duration: 3 * .hour, events: events)
        var world = World(scenario: s)
        let r = world.run()
        let d = world.clients[0].device
        let end = SimTime(ns: 3 * .hour)
        #expect(d.wallOffset(at: end, world.context) == (step ? -200 : -10) * .millisecond)
        #expect(r.deviceEvents.wallClockSteps == (step ? 1 : 0))
        #expect(r.deviceEvents.wallClockSlews == (step ? 0 : 1))
        // Uptime from KERN_BOOTTIME: booted 1 h before the start, so it reads 4 h at the end,
        // minus the slew (a slew reaches it, a step does not).
        let uptime = BootTimeUptimeClock(resolution: .microsecond).reading(d, at: end, world.context).ns
        #expect(uptime == 4 * .hour - (step ? 0 : 10 * .millisecond))
    }
}
