import Testing
@testable import SyncLab
import SyncLabKernel

/// A leap second on the server's clock (`server.leapSecond`, Server/LeapSecond.swift): the closed
/// forms of the shift, the server's clock and its inverse, two runs worked out by hand, and the
/// loader's messages.
@Suite struct LeapSecondTests {
    /// 2012-06-30T23:00:00Z in unix ns: 2012-07-01T00:00:00Z is 1 341 100 800 s, one hour later.
    static let epoch: Int64 = 1_341_097_200 * 1_000_000_000
    static let second = Int64.second

    // MARK: Closed forms

    /// Step at L: the shift is 0 up to L − 1 ns and −1 s from L on.
    @Test func stepShift() {
        let L = Int64.hour
        let step = SteppedLeapSecond(at: SimTime(ns: L)).shift
        #expect(step.offset(at: L - 1) == 0)
        #expect(step.offset(at: L) == -Self.second)
        #expect(step.offset(at: L + 1) == -Self.second)
        #expect(step.offset(at: L + 24 * Int64.hour) == -Self.second)
        #expect(step.offset(at: -Int64.hour) == 0)
        // The clock reads [L − 1 s, L) twice: at true [L − 1 s, L) and again at [L, L + 1 s).
        // Its first instant at a reading u is u before L (a u in the repeated second is reached
        // on its first pass) and u + 1 s from L on (true L + 1 s is when it first reads L).
        #expect(step.firstInstant(reaching: L - Self.second - 1) == L - Self.second - 1)
        #expect(step.firstInstant(reaching: L - Self.second) == L - Self.second)
        #expect(step.firstInstant(reaching: L - 1) == L - 1)
        #expect(step.firstInstant(reaching: L) == L + Self.second)
        #expect(step.firstInstant(reaching: L + 7) == L + Self.second + 7)
    }

    /// Smear of W = 24 h centred on 12 h, so from 0 to 24 h: the shift is −⌊x · 10⁹ / W⌋ ns at
    /// x = t − 0 ns into it, and W = 86 400 · 10⁹ ns, so −⌊x / 86 400⌋.
    @Test func smearShift() {
        let W = 24 * Int64.hour
        let smear = SmearedLeapSecond(at: SimTime(ns: 12 * .hour)).shift
        #expect(smear.start == 0 && smear.window == W)
        #expect(smear.offset(at: -1) == 0)                       // before the window
        #expect(smear.offset(at: 0) == 0)                        // its start
        #expect(smear.offset(at: 86_399) == 0)                   // ⌊86 399 / 86 400⌋ = 0
        #expect(smear.offset(at: 86_400) == -1)                  // one ns lost every 86.4 µs
        #expect(smear.offset(at: 6 * .hour) == -250_000_000)     // 21 600·10⁹ / 86 400 = 2.5·10⁸ exactly
        #expect(smear.offset(at: 12 * .hour) == -500_000_000)    // the centre, the leap: half the second
        #expect(smear.offset(at: 18 * .hour) == -750_000_000)
        #expect(smear.offset(at: W - 1) == -999_999_999)         // ⌊(86 400·10⁹ − 1) / 86 400⌋ = 10⁹ − 1
        #expect(smear.offset(at: W) == -Self.second)             // the end
        #expect(smear.offset(at: 30 * .hour) == -Self.second)    // after it
        // The rate: 1 s / 86 400 s = 11.574 ppm.
        #expect(abs(Double(smear.offset(at: .hour)) / Double(Int64.hour) + 1 / 86_400.0) < 1e-12)
    }

    /// The inverse of the smeared clock f(t) = t + shift(t): f runs 1 ns slow every 86.4 µs, so
    /// a value is read for 2 ns then. At 6 h f = 6 h − 0.25 s; at 6 h − 1 ns, ⌊(21 600·10⁹ − 1) /
    /// 86 400⌋ = 249 999 999, so f is 6 h − 1 − 249 999 999 = the same value: the first instant
    /// that reads it is 6 h − 1 ns (at 6 h − 2 ns f is one less).
    @Test func smearInverse() {
        let smear = SmearedLeapSecond(at: SimTime(ns: 12 * .hour)).shift
        func f(_ t: Int64) -> Int64 { t + smear.offset(at: t) }
        let quarter = 6 * Int64.hour
        #expect(f(quarter) == quarter - 250_000_000)
        #expect(f(quarter - 1) == f(quarter))
        #expect(f(quarter - 2) == f(quarter) - 1)
        #expect(smear.firstInstant(reaching: quarter - 250_000_000) == quarter - 1)
        // Before and at the window's start: u. At its end f(24 h) = 24 h − 1 s, and f(24 h − 1) =
        // 24 h − 1 − 999 999 999 is the same value, first read at 24 h − 1 ns; later values
        // u + 1 s.
        #expect(smear.firstInstant(reaching: -5) == -5)
        #expect(smear.firstInstant(reaching: 0) == 0)
        #expect(smear.firstInstant(reaching: 24 * .hour - Self.second) == 24 * .hour - 1)
        #expect(smear.firstInstant(reaching: 24 * .hour - Self.second + 1) == 24 * .hour + 1)
        #expect(smear.firstInstant(reaching: 24 * .hour) == 24 * .hour + Self.second)
        // Everywhere: f(first) ≥ u > f(first − 1), on a spread of instants (a fixed stride, no draws).
        var t: Int64 = -Int64.minute
        while t < 25 * .hour {
            for u in [f(t), f(t) + 1, f(t) - 1] {
                let first = smear.firstInstant(reaching: u)
                #expect(f(first) >= u && f(first - 1) < u, "u \(u)")
            }
            t += 7_777_777_777_777
        }
        // A short smear (2 s, the least allowed) as well: f stands still every other ns.
        let short = SmearedLeapSecond(at: SimTime(ns: 10 * Self.second), window: 2 * Self.second).shift
        for u in stride(from: 8 * Self.second, through: 12 * Self.second, by: 333_333_333) {
            let first = short.firstInstant(reaching: u)
            #expect(first + short.offset(at: first) >= u && first - 1 + short.offset(at: first - 1) < u, "u \(u)")
        }
    }

    /// The server's clock, its stamp, its cron and the true instant of an item change all read
    /// the same function: with `clockOffset` 250 ms and a step at L = 1 h, the server's clock
    /// without the leap reads L at true T = L − 250 ms, and steps back there.
    @Test func serverReadsOneClock() {
        let L = Int64.hour, ahead = 250 * Int64.millisecond, T = L - ahead
        var config = ServerConfig(cronJitter: .constant(0), timestampResolution: .second, clockOffset: ahead)
        config.leapSecond = SteppedLeapSecond(at: SimTime(ns: L))
        let schedule = StoreSchedule(positions: 1, shelfLife: .constant(60e9), resolution: .second, start: .zero,
                                     end: SimTime(ns: 2 * .hour), epochUnix: Self.epoch, seed: 7)
        let server = StoreServer(config: config, schedule: schedule, epochUnix: Self.epoch, seed: 1)
        #expect(server.serverTime(at: SimTime(ns: T - 1)) == L - 1)
        #expect(server.serverTime(at: SimTime(ns: T)) == L - Self.second)
        #expect(server.serverTime(at: SimTime(ns: T + Self.second)) == L)
        // REQUEST_TIME: 23:59:59 (epoch + 3599 s) just before the step, again at it, and 00:00:00
        // one second later.
        #expect(server.timestamp(at: SimTime(ns: T - 1)) == L - Self.second)
        #expect(server.timestamp(at: SimTime(ns: T)) == L - Self.second)
        #expect(server.timestamp(at: SimTime(ns: T + Self.second)) == L)
        // A fleet server's clock goes through the same function with its own offset: at offset 0
        // it steps at true L, at −100 ns 100 ns later.
        #expect(server.timestamp(at: SimTime(ns: L - 1), clockOffset: 0) == L - Self.second)
        #expect(server.timestamp(at: SimTime(ns: L), clockOffset: 0) == L - Self.second)
        #expect(server.clock(at: SimTime(ns: L), offset: -100) == L - 100)
        #expect(server.clock(at: SimTime(ns: L + 100), offset: -100) == L - Self.second)
        // An item ending at server time L − 0.5 s, inside the repeated second, changes at its first
        // occurrence, true L − 0.5 s − 250 ms; one ending at L changes when the clock first reads
        // L, true T + 1 s.
        #expect(server.trueInstant(reaching: L - Self.second / 2) == SimTime(ns: L - Self.second / 2 - ahead))
        #expect(server.trueInstant(reaching: L) == SimTime(ns: T + Self.second))
        // The epoch is a whole unix minute (1 341 097 200 = 22 351 620 × 60), so the cron's minute
        // boundaries are whole minutes of the clock. The next run after true L − 30 s is at the
        // boundary 00:00:00 (clock L), first read at true T + 1 s.
        var cron = server
        #expect(cron.nextCronRun(after: SimTime(ns: L - 30 * Self.second)) == SimTime(ns: T + Self.second))
        // Without a leap nothing is resolved and the clock is t + offset.
        let plain = StoreServer(config: ServerConfig(clockOffset: ahead), schedule: schedule, epochUnix: Self.epoch, seed: 1)
        #expect(plain.leap == nil)
        #expect(plain.serverTime(at: SimTime(ns: L)) == L + ahead)
        #expect(plain.trueInstant(reaching: L) == SimTime(ns: T))
    }

    // MARK: End to end

    static let uplink: Int64 = 40 * .millisecond

    /// One player on a constant network (40 ms up, 60 ms down, 400 B in 1 ns), a perfect
    /// continuous clock, stamps to the nanosecond (no truncation) and no service time, viewing
    /// from 5 s on for `viewing`, refetching exactly `refetch` after each load.
    static func scenario(leap: any LeapSecondHandling, duration: Nanoseconds, refetch: Nanoseconds,
                         viewing: Nanoseconds) -> Scenario {
        let link = LinkProfile(name: "constant", share: 1, uplink: .constant(Double(uplink)),
                               downlink: .constant(60e6), bandwidth: .constant(400e9), failure: 0, timeout: 30 * .second)
        var server = ServerConfig(timestampResolution: 1)
        server.serviceTime = .constant(0)
        server.workers = nil                  // every request served at once, whatever the default pool
        server.queueLimit = nil
        server.leapSecond = leap
        var population = PopulationConfig(players: 1)
        population.visitGap = .constant(5e9)
        population.sessionsPerVisit = .constant(1)
        population.viewing = .constant(Double(viewing))
        population.breakDuration = .constant(600e9)
        population.lockShare = 1
        population.sleepDelay = .constant(120e9)
        var client = ClientDesign(clock: ContinuousDeviceClock())
        client.refetch = UniformWindowRefetch(minimum: refetch, maximum: refetch)
        return Scenario(name: "leap", epochUnix: epoch, epochText: "2012-06-30T23:00:00Z", duration: duration, warmup: 0,
                        server: server, links: [link],
                        devices: DeviceConfig(driftPPM: .constant(0), wallClockOffset: .constant(0),
                                              uptimeAtStart: .constant(Double(Nanoseconds.hour))),
                        client: client, population: population)
    }

    /// The estimate of `anchor` at true time t minus the server's clock then.
    static func error(_ world: World, _ anchor: SyncAnchor, at t: Int64) -> Int64 {
        let reading = ContinuousDeviceClock().reading(world.clients[0].device, at: SimTime(ns: t), world.context)
        return anchor.serverTime(at: reading) - world.server.store.serverTime(at: SimTime(ns: t))
    }

    /// The seeds' estimate is timestamp + (download − upload complete); the stamp is the server's
    /// clock S at arrival A = U + 40 ms, so at a later t it reads S(A) + t − U, and its error is
    /// S(A) − S(t) + (t − U) = 40 ms + shift(A) − shift(t). Synced before a step at L (shift 0)
    /// and read after it (shift −1 s): 40 ms + 1 s, until the next sync, whose A is after L: 40 ms.
    ///
    /// The player loads at 5 s and refetches 6 min after each load (on its next 1 s tick), so it
    /// syncs near 5 s, 6 min 6 s and 12 min 7 s; the leap is at 10 min, between the second and
    /// the third; the run ends at 15 min, where `previousAnchor` is the second sync's.
    @Test func steppedLeapPutsAnEarlierSyncOneSecondAhead() {
        let L = 10 * Int64.minute
        let s = Self.scenario(leap: SteppedLeapSecond(at: SimTime(ns: L)), duration: 15 * .minute,
                              refetch: 6 * .minute, viewing: 10 * .hour)
        var world = World(scenario: s)
        _ = world.run()
        let c = world.player(0)
        #expect(c.hasSync && c.previousValid)
        let before = c.previousAnchor, after = c.anchor
        let refetchAt = c.anchorSetAt.ns                    // the third sync's download complete
        #expect(before.serverTime < L && refetchAt > L + Self.second && refetchAt < 13 * .minute)
        #expect(Self.error(world, before, at: L - Self.second) == Self.uplink)
        #expect(Self.error(world, before, at: L - 1) == Self.uplink)
        #expect(Self.error(world, before, at: L) == Self.uplink + Self.second)
        #expect(Self.error(world, before, at: refetchAt - 1) == Self.uplink + Self.second)
        #expect(Self.error(world, after, at: refetchAt) == Self.uplink)
        #expect(Self.error(world, after, at: 15 * .minute - 1) == Self.uplink)
    }

    /// Smeared over W = 24 h from 0 to 24 h (centred on 12 h): the error 40 ms + shift(A) −
    /// shift(t) = 40 ms + ⌊(t − 0)/86 400⌋ − ⌊A/86 400⌋ ns; at t = A + k · 6 h, (t)/86 400 =
    /// A/86 400 + k · 2.5·10⁸ with the second term whole, so the error is 40 ms + k · 250 ms:
    /// (t − A) × 1 s / W exactly. One sync at 5 s (the refetch is 20 h away).
    @Test func smearedLeapGrowsTheErrorAtOneSecondPerWindow() {
        let s = Self.scenario(leap: SmearedLeapSecond(at: SimTime(ns: 12 * .hour)), duration: 19 * .hour,
                              refetch: 20 * .hour, viewing: 20 * .hour)
        var world = World(scenario: s)
        _ = world.run()
        let c = world.player(0)
        #expect(c.hasSync && !c.previousValid)
        let A = c.request.arrivedAt.ns
        #expect(A > 5 * Self.second && A < 6 * Self.second)
        for k: Int64 in 1...3 {
            #expect(Self.error(world, c.anchor, at: A + k * 6 * .hour) == Self.uplink + k * 250 * .millisecond)
        }
        // Between those instants the truncation moves it by less than 1 ns either way.
        let mid = Self.error(world, c.anchor, at: A + .hour)
        #expect(abs(mid - (Self.uplink + Self.second / 24)) <= 1)
    }

    /// Phone wall clocks take the leap only through `devices.wallClockSync`, at their next
    /// correction, from a time server that has taken it: the phone corrects every hour with an
    /// exact estimate (drawn error 0), the leap is a step at 90 min. Corrections before it find
    /// the clock right and do nothing; the first after it finds the clock 0 − (−1 s) = 1 s ahead,
    /// above the 128 ms threshold, and steps it back 1 s. The uptime fix (`uptime`, 1 µs) does
    /// not see the step (KERN_BOOTTIME moves with it): booted 1 h before the start, it reads
    /// 4 h at the end of a 3 h run.
    @Test func phoneWallClocksTakeTheLeapAtTheirNextCorrection() {
        var events = DeviceEventsConfig()
        events.wallClockSync = DeviceEventsConfig.WallClockSync(every: .constant(Double(Int64.hour)), error: .drawn(.constant(0)))
        var s = WorldDeviceEventsTests.scenario(clock: BootTimeUptimeClock(resolution: .microsecond), duration: 3 * .hour, events: events)
        s.server.leapSecond = SteppedLeapSecond(at: SimTime(ns: 90 * .minute))
        var world = World(scenario: s)
        let r = world.run()
        let d = world.clients[0].device
        let end = SimTime(ns: 3 * .hour)
        #expect(d.wallOffset(at: end, world.context) == -Self.second)
        #expect(r.deviceEvents.wallClockSteps == 1 && r.deviceEvents.wallClockSlews == 0)
        #expect(BootTimeUptimeClock(resolution: .microsecond).reading(d, at: end, world.context).ns == 4 * .hour)
        // Without corrections the wall clock keeps true time: it never takes the leap.
        var plain = s
        plain.devices.events.wallClockSync = nil
        var still = World(scenario: plain)
        _ = still.run()
        #expect(still.clients[0].device.wallOffset(at: end, still.context) == 0)
    }

    // MARK: Loader

    @Test func loadsBothKinds() throws {
        let step = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"server": {"leapSecond": {"kind": "step", "at": "1h"}}}"#),
                                             file: "ok.json")
        #expect((step.server.leapSecond as? SteppedLeapSecond) == SteppedLeapSecond(at: SimTime(ns: .hour)))
        let smear = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"server": {"leapSecond": {"kind": "smear", "at": "1h"}}}"#),
                                              file: "ok.json")
        #expect((smear.server.leapSecond as? SmearedLeapSecond) == SmearedLeapSecond(at: SimTime(ns: .hour), window: 24 * .hour))
        #expect(smear.server.leapSecond?.summary == "leap second at 1h smeared over 1d centred on it "
                + "(the server clock runs 11.574 ppm slow inside it; phones' monotonic clocks never see it, corrected wall clocks take it at their next correction)")
        #expect(step.server.leapSecond?.summary == "leap second stepped at 1h (the server clock repeats a second; phones' monotonic clocks never see it, corrected wall clocks take it at their next correction)")
        let none = try ScenarioLoader().load(text: try ScenarioFixtures.variant("{}"), file: "ok.json")
        #expect(none.server.leapSecond == nil)
    }

    @Test func badInputNamesTheKeyPath() throws {
        let cases: [(String, String)] = [
            (#"{"kind": "jump", "at": "1h"}"#,
             "bad.json: server.leapSecond.kind: unknown leap-second handling 'jump'; expected one of 'step', 'smear'"),
            (#""step""#, "bad.json: server.leapSecond.at: missing required key"),
            (#"{"kind": "step", "at": "-1h"}"#, "bad.json: server.leapSecond.at: must not be negative; got \"-1h\""),
            (#"{"kind": "step", "at": "1h", "window": "24h"}"#,
             "bad.json: server.leapSecond: unknown key 'window'; allowed keys are 'kind', 'at'"),
            (#"{"kind": "smear", "at": "1h", "window": "0s"}"#, "bad.json: server.leapSecond.window: must be at least 2s; got \"0s\""),
            (#"{"kind": "smear", "at": "1h", "window": "-24h"}"#, "bad.json: server.leapSecond.window: must be at least 2s; got \"-24h\""),
            (#"{"kind": "smear", "at": "1h", "window": "8d"}"#, "bad.json: server.leapSecond.window: must be at most 7d; got \"8d\""),
            (#"{"kind": "smear", "at": "1h", "window": "2.0000000005s"}"#,
             "bad.json: server.leapSecond.window: duration \"2.0000000005s\" is not a whole number of nanoseconds"),
            (#"{"kind": "smear", "at": "1h", "window": "2000000001ns"}"#,
             "bad.json: server.leapSecond.window: must be a whole even number of nanoseconds, so that the window is centred on the leap; got \"2000000001ns\""),
        ]
        for (leap, expected) in cases {
            let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"server": {"leapSecond": "# + leap + "}}"))
            #expect(error?.description == expected)
        }
    }
}
