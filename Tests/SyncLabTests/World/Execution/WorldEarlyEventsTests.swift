import Testing
import SyncLabKernel
@testable import SyncLab

/// Responses handled in the event that sent their request, and players run ahead of the world's
/// clock (`World+EarlyEvents`): only when nothing can come in between, so a run is the same
/// with the shortcuts on or off.
@Suite struct WorldEarlyEventsTests {
    static func load(_ file: String, players: Int, duration: Nanoseconds) throws -> Scenario {
        var s = try ScenarioLoader().load(path: ScenarioFiles.path(file))
        s.population.players = players
        s.duration = duration
        if let release = s.population.release, release.at.ns >= duration {
            s.population.release?.at = SimTime(ns: duration / 2)
        }
        return s
    }

    /// Runs `s` with responses handled inline and players run ahead where allowed, and with
    /// every event queued.
    static func both(_ s: Scenario) -> (inline: RunResult, queued: RunResult, handledInline: UInt64, ahead: UInt64,
                                        refetchesQueued: UInt64) {
        var fast = World(scenario: s)
        let inline = fast.run()
        var slow = World(scenario: s)
        slow.executor.handlesResponsesEarly = false
        slow.executor.handlesTicksEarly = false
        slow.executor.skipsTicksAfterTheEnd = false      // every in-flight tick worked out (`World+Display`)
        let queued = slow.run()
        #expect(slow.executor.responsesEarly == 0 && slow.executor.ticksEarly == 0)
        return (inline, queued, fast.executor.responsesEarly, fast.executor.ticksEarly, fast.executor.refetchTicksQueued)
    }

    static func expectSame(_ a: RunResult, _ b: RunResult, _ label: String) {
        // The event count too: a response handled inline keeps the sequence number it reserved.
        let sameFingerprint = DeterminismTests.fingerprint(a) == DeterminismTests.fingerprint(b)
        #expect(sameFingerprint, "\(label)")
        #expect(a.responses == b.responses && a.requestsSent == b.requestsSent && a.requestsFailed == b.requestsFailed, "\(label)")
        #expect(a.clientError == b.clientError && a.estimateError == b.estimateError, "\(label)")
        #expect(a.errorByClock.map(\.1) == b.errorByClock.map(\.1), "\(label)")
        #expect(a.timeline == b.timeline, "\(label)")
        #expect(a.errorAttribution == b.errorAttribution, "\(label)")
        #expect(a.bounds == b.bounds, "\(label)")
        #expect(a.roundTrip == b.roundTrip && a.fetchSyncError == b.fetchSyncError, "\(label)")
    }

    /// The gallery's designs (whole-second and aligned ticks, standby, a release, outages with
    /// retries, the original plan's database) and a lossy link whose slow responses time out.
    @Test func resultsDoNotDependOnTheShortcut() throws {
        var cases: [(String, Scenario)] = []
        // The shipped scenarios' device events are wall-clock corrections, which the shortcuts
        // follow; a player on screen has no standby wakes.
        for file in ["v115-idealised.json", "v115-pausing.json", "fix-aligned-ticks.json", "recommended.json", "outage-backoff.json",
                     "original-plan.json", "multistore-80.json"] {
            cases.append((file, try Self.load(file, players: 400, duration: 2 * .hour)))
        }
        var lossy = try Self.load("v115-idealised.json", players: 400, duration: 2 * .hour)
        for k in lossy.links.indices {
            lossy.links[k].failure = 0.1
            lossy.links[k].timeout = 300 * .millisecond
        }
        cases.append(("lossy", lossy))
        // v1.1.5 on a server that answers at once (the bench's `v115-scaled.json`; behind a worker
        // pool only display ticks run ahead, never the one that refetches), with its hourly
        // wall-clock corrections and with corrections about once a minute, so many fall inside a
        // session: a player runs ahead only to before its next one.
        var scaled = try Self.load("v115-pausing.json", players: 400, duration: 2 * .hour)
        scaled.server.fleet = nil
        scaled.server.workers = nil
        scaled.server.queueLimit = nil
        cases.append(("v115-scaled", scaled))
        var corrected = scaled
        corrected.devices.events.wallClockSync?.every = .exponential(mean: 60e9)
        cases.append(("corrections every minute", corrected))
        // The same corrections where players share the fleet: their ticks run ahead only to before one.
        var sharedCorrected = try Self.load("v115-pausing.json", players: 400, duration: 2 * .hour)
        sharedCorrected.devices.events.wallClockSync?.every = .exponential(mean: 60e9)
        cases.append(("fleet, corrections every minute", sharedCorrected))
        var inlineSomewhere = false
        for (label, s) in cases {
            let (inline, queued, handled, ahead, refetchesQueued) = Self.both(s)
            #expect(queued.responses > 100, "\(label)")
            Self.expectSame(inline, queued, label)
            inlineSomewhere = inlineSomewhere || handled > 0
            if label == "v115-scaled" || label == "corrections every minute" {
                #expect(s.devices.events.wallClockSync != nil && ahead > 0, "\(label)")
            }
            if label == "v115-pausing.json" || label == "fleet, corrections every minute" {
                // Players who share the fleet run their ticks ahead too, but not one that refetches.
                #expect(FleetCoordinator.isNeeded(for: s) && handled == 0 && ahead > 1_000 && refetchesQueued > 10,
                        "\(label): \(ahead) ahead, \(refetchesQueued) queued")
            }
        }
        #expect(inlineSomewhere)
    }

    /// A design that keeps its sync across launches (`client.persistSync`): visits end with the
    /// app terminated and restart with the stored sync in force and no file, which the shortcuts
    /// must not change either. On a server that answers at once, so players run ahead.
    @Test func storedSyncsDoNotDependOnTheShortcut() throws {
        var s = try Self.load("v115-pausing.json", players: 400, duration: 2 * .hour)
        s.server.fleet = nil
        s.server.workers = nil
        s.server.queueLimit = nil
        s.client.persistSync = true
        let (inline, queued, _, ahead, _) = Self.both(s)
        #expect(queued.responses > 100 && ahead > 0)
        Self.expectSame(inline, queued, "persistSync")
        var off = s
        off.client.persistSync = false
        var plain = World(scenario: off)
        #expect(plain.run().clientError.count < inline.clientError.count)
    }

    /// Device events other than the wall clock's corrections are not followed: with reboots on,
    /// every event is queued.
    @Test func otherDeviceEventsSwitchEarlyHandlingOff() throws {
        var s = try Self.load("v115-pausing.json", players: 200, duration: 1 * .hour)
        s.devices.events.reboots = DeviceEventsConfig.Reboots(every: .exponential(mean: 12 * 3_600e9))
        var world = World(scenario: s)
        _ = world.run()
        #expect(!world.executor.handlesResponsesEarly)
        #expect(world.executor.responsesEarly == 0 && world.executor.ticksEarly == 0)
    }

    /// R1: nothing on screen to update, one sample instant a day. A player has at most one
    /// response in flight when the instant fires, and every other response completes inline;
    /// every display tick runs ahead but the first of each player (due when the first response
    /// is queued or before) and one at the sample instant.
    @Test func referenceFleetCompletesAlmostEveryResponseInline() throws {
        let s = try Self.load("r1.json", players: 300, duration: 6 * .hour)
        let (inline, queued, handled, ahead, _) = Self.both(s)
        Self.expectSame(inline, queued, "r1")
        #expect(inline.responses > 300 * 40)
        #expect(handled <= inline.responses)
        #expect(handled >= inline.responses - 300)
        #expect(ahead >= inline.responses - 2 * 300)
    }

    /// Transitions every 50 minutes over 3 hours (the last one past the end): while a fetch is
    /// in flight, the next tick is a transition's, before the end or after it. Skipping those
    /// after it changes nothing, and the transitions before it are all shown.
    @Test func inFlightTicksPastTheEndNeedNoWorkingOut() throws {
        var s = try Self.load("r1.json", players: 300, duration: 3 * .hour)
        s.shelfLife = .constant(50 * 60e9)
        let (inline, queued, _, _, _) = Self.both(s)
        Self.expectSame(inline, queued, "transitions every 50 min")
        #expect(inline.responses > 300 * 15)
        #expect(inline.transitions.filter { $0.viewers == 300 }.count >= 3)
    }

    /// R1 with 200 players for an hour, sessions of 1–3 s and round trips of 1.5 s: many a
    /// viewing session ends while its fetch is in flight.
    static func shortSessions() throws -> Scenario {
        var s = try load("r1.json", players: 200, duration: 1 * .hour)
        s.links[0].uplink = .constant(0.5e9)
        s.links[0].downlink = .constant(1e9)
        s.population.viewing = .uniform(min: 1e9, max: 3e9)
        s.population.breakDuration = .constant(1e9)
        s.population.sessionsPerVisit = .constant(20)
        s.population.visitGap = .uniform(min: 0, max: 10e9)
        return s
    }

    /// Sessions of 1–3 s and round trips of 1.5 s: many a viewing session ends while its fetch
    /// is in flight (the response is then dropped), and samples are a day apart. Handling those
    /// responses at once would keep them; only the ones completing before the session ends may.
    @Test func aSessionEndingBeforeTheResponseKeepsItQueued() throws {
        let (inline, queued, handled, _, _) = Self.both(try Self.shortSessions())
        Self.expectSame(inline, queued, "short sessions")
        #expect(inline.visits > 200 && handled > 200)
        // Requests whose session ended first: their responses were dropped, never handled.
        #expect(inline.requestsSent > inline.responses + 1_000)
    }

    /// With constant delays every round trip takes more than 100 ms. Sample instants fall at a
    /// random phase in each 50 ms interval, so consecutive ones are less than 100 ms apart and
    /// one always comes before the response completes: none completes inline. (Errors are
    /// recorded for a tenth of the players only, to keep the test quick; the instants all fire.)
    @Test func aSampleInstantBeforeTheResponseKeepsItQueued() throws {
        var s = try Self.load("r1.json", players: 200, duration: 20 * .minute)
        s.links[0].uplink = .constant(40e6)
        s.links[0].downlink = .constant(60e6)
        s.sampleEvery = 50 * .millisecond
        s.samplePlayers = 20
        let (inline, queued, handled, _, _) = Self.both(s)
        Self.expectSame(inline, queued, "sampled every 50 ms")
        #expect(inline.responses > 200 * 2)
        #expect(handled == 0)
    }

    /// The clock reading at the end of the run that a player keeps (`World.readingAtEnd`) is the
    /// clock's own, worked out again after every change of the device: a suspending clock's
    /// reading at the end drops when the device sleeps and recovers when it wakes.
    @Test func keptEndReadingFollowsTheDevice() throws {
        let s = try Self.load("v115-pausing.json", players: 20, duration: 2 * .hour)
        var world = World(scenario: s)
        let end = SimTime(ns: s.duration - 1), clocks = world.design.clocks
        for c in 0..<20 {
            func fresh() -> Int64 { clocks.reading(world.clients[c].device, at: end).ns }
            #expect(world.readingAtEnd(c, clocks) == fresh())
            let awake = world.readingAtEnd(c, clocks)
            world.updateDevice(c) { $0.fallAsleep(at: SimTime(ns: 10 * .minute)) }
            #expect(world.readingAtEnd(c, clocks) == fresh())
            let asleep = world.readingAtEnd(c, clocks)
            #expect(asleep < awake, "asleep to the end, the suspending clock reads less")
            world.updateDevice(c) { _ = $0.wake(at: SimTime(ns: 40 * .minute)) }
            #expect(world.readingAtEnd(c, clocks) == fresh())
            #expect(asleep < world.readingAtEnd(c, clocks) && world.readingAtEnd(c, clocks) < awake, "30 minutes of deep sleep")
        }
    }
}
