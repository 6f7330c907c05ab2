import Testing
@testable import SyncLab
import SyncLabKernel

/// The resolved built-ins give exactly what the plug-ins give: same readings, same inverses, same
/// ticks, on seeded random devices, instants and targets (sleeping devices included).
@Suite struct BuiltInClockTests {
    static let context = ClockContext(epochUnix: 1_328_724_000_371_000_000)
    static let clocks: [any DeviceClock] = [SuspendingDeviceClock(), ContinuousDeviceClock(), BootTimeUptimeClock(resolution: .second),
                                            BootTimeUptimeClock(resolution: .microsecond), WallClock()]

    static func device(_ rng: inout RandomStream) -> DeviceState {
        var d = DeviceState(driftPPB: Int64(rng.below(200_001)) - 100_000, wallOffset: Int64(rng.below(2_000_000_001)) - 1_000_000_000,
                            bootTime: SimTime(ns: -Int64(rng.below(UInt64(7 * 24 * Int64.hour)))), epochUnix: context.epochUnix)
        if rng.below(2) == 0 {
            d.fallAsleep(at: SimTime(ns: -Int64(rng.below(UInt64(Int64.hour)))))
            d.wake(at: SimTime(ns: 0))
        }
        return d
    }

    /// A clock an app team adds has no case: the world calls it through its protocol.
    struct TeamClock: DeviceClock {
        var name: String { "team" }
        func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading { ClockReading(ns: t.ns) }
        func earliest(_ d: DeviceState, reaching r: ClockReading, notBefore t: SimTime, _ c: ClockContext) -> SimTime {
            SimTime(ns: max(t.ns, r.ns))
        }
    }

    @Test func resolvesEveryBuiltInToItsOwnCase() {
        #expect(BuiltInClock(SuspendingDeviceClock())?.name == "suspending")
        #expect(BuiltInClock(BootTimeUptimeClock(resolution: .second))?.name == BootTimeUptimeClock().name)
        #expect(BuiltInClock(TeamClock()) == nil)
        #expect(BuiltInTick(TimerTick(period: .second, clock: TeamClock())) == nil)
        if case .uptimeMicrosecond = BuiltInClock(BootTimeUptimeClock(resolution: .microsecond)) {} else { Issue.record("1 µs uptime") }
        if case .timer(let period, .uptimeSecond) = BuiltInTick(TimerTick(period: 250 * .millisecond, clock: BootTimeUptimeClock())) {
            #expect(period == 250 * .millisecond)
        } else { Issue.record("timer on uptime") }
        if case .immediate = BuiltInTick(ImmediateTick()) {} else { Issue.record("immediate") }
    }

    /// What error attribution and the ± bound read off a clock is the plug-in's own.
    @Test func propertiesMatchThePlugins() {
        let pairs: [(any DeviceClock, BuiltInClock)] = [
            (SuspendingDeviceClock(), .suspending), (ContinuousDeviceClock(), .continuous),
            (BootTimeUptimeClock(resolution: .second), .uptimeSecond),
            (BootTimeUptimeClock(resolution: .microsecond), .uptimeMicrosecond), (WallClock(), .wall)]
        for (plugin, builtIn) in pairs {
            #expect(BuiltInClock(plugin) == builtIn)
            #expect(builtIn.pausesInDeepSleep == plugin.pausesInDeepSleep)
            #expect(builtIn.resolution == plugin.resolution)
        }
        #expect(BuiltInClock.suspending.pausesInDeepSleep)
        #expect(BuiltInClock.uptimeSecond.resolution == .second)
    }

    @Test func readingsAndInversesMatchThePlugins() {
        var rng = RandomStream(seed: 3, purpose: StreamPurpose("test-builtin-clock"))
        for _ in 0..<400 {
            let d = Self.device(&rng)
            let t = SimTime(ns: Int64(rng.below(UInt64(24 * Int64.hour))))
            for clock in Self.clocks {
                let fast = BuiltInClock(clock)!
                let r = clock.reading(d, at: t, Self.context)
                #expect(fast.reading(d, at: t, Self.context) == r)
                let target = ClockReading(ns: r.ns + Int64(rng.below(UInt64(10 * Int64.minute))))
                #expect(fast.earliest(d, reaching: target, notBefore: t, Self.context)
                        == clock.earliest(d, reaching: target, notBefore: t, Self.context))
            }
        }
    }

    @Test func ticksMatchThePlugins() {
        var rng = RandomStream(seed: 4, purpose: StreamPurpose("test-builtin-tick"))
        var ticks: [any TickPolicy] = [ImmediateTick()]
        for clock in Self.clocks { ticks += [TimerTick(period: .second, clock: clock), TimerTick(period: 333 * .millisecond, clock: clock)] }
        for _ in 0..<200 {
            let d = Self.device(&rng)
            let start = SimTime(ns: Int64(rng.below(UInt64(Int64.hour))))
            let t = start + Int64(rng.below(UInt64(10 * Int64.minute)))
            for tick in ticks {
                let fast = BuiltInTick(tick)!
                let s = tick.session(d, start: start, Self.context)
                #expect(fast.session(d, start: start, Self.context) == s)
                #expect(fast.firstTick(atOrAfter: t, s, d, Self.context) == tick.firstTick(atOrAfter: t, s, d, Self.context))
                #expect(fast.lastTick(atOrBefore: t, s, d, Self.context) == tick.lastTick(atOrBefore: t, s, d, Self.context))
            }
        }
    }

    /// The world's shadow syncs call the reference clocks by index (`ReferenceClocks.reading`): the
    /// same clocks, in the same order, as `ReferenceClocks.all` and their labels.
    @Test func referenceReadingsAreTheShadowClocks() throws {
        #expect(ReferenceClocks.all.count == ReferenceClocks.count)
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("test-reference-readings"))
        for _ in 0..<200 {
            let d = Self.device(&rng)
            let t = SimTime(ns: Int64(rng.below(UInt64(24 * Int64.hour))))
            let references = ReferenceReadings(d, at: t, Self.context)
            for (k, clock) in ReferenceClocks.all.enumerated() {
                #expect(ReferenceClocks.reading(k, d, at: t, Self.context) == clock.reading(d, at: t, Self.context))
                #expect(references[k] == clock.reading(d, at: t, Self.context))
            }
            // Every built-in clock is a reference clock: a sample takes its reading from there.
            for clock in Self.clocks {
                let fast = BuiltInClock(clock)!
                #expect(references[fast.referenceIndex] == clock.reading(d, at: t, Self.context), "\(clock.name)")
            }
        }
    }

    /// A timer's last tick from the clock's reading at t (as a sample has it) is the tick the
    /// plug-in gives.
    @Test func lastTickFromAReadingMatchesThePlugin() {
        var rng = RandomStream(seed: 6, purpose: StreamPurpose("test-last-tick-reading"))
        for _ in 0..<200 {
            let d = Self.device(&rng)
            let start = SimTime(ns: Int64(rng.below(UInt64(Int64.hour))))
            let t = start + Int64(rng.below(UInt64(10 * Int64.minute)))
            for clock in Self.clocks {
                let tick = TimerTick(period: 333 * .millisecond, clock: clock)
                let s = tick.session(d, start: start, Self.context)
                let fast = BuiltInClock(clock)!
                let reading = ReferenceReadings(d, at: t, Self.context)[fast.referenceIndex]
                #expect(TimerTick.lastTick(atOrBefore: t, s, d, Self.context, period: tick.period, clock: fast, reading: reading)
                        == tick.lastTick(atOrBefore: t, s, d, Self.context))
            }
        }
    }
}
