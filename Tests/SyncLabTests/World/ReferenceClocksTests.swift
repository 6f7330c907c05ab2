import Testing
@testable import SyncLab
import SyncLabKernel

/// The reference clocks every run measures the same syncs with are listed once
/// (`ReferenceClocks`); the fast paths that read them by index read what the clocks read.
@Suite struct ReferenceClocksTests {
    static let context = ClockContext(epochUnix: 1_328_724_000_371_000_000)

    static func device(_ rng: inout RandomStream) -> DeviceState {
        var d = DeviceState(driftPPB: Int64(rng.below(200_001)) - 100_000, wallOffset: Int64(rng.below(2_000_000_001)) - 1_000_000_000,
                            bootTime: SimTime(ns: -Int64(rng.below(UInt64(7 * 24 * Int64.hour)))), epochUnix: context.epochUnix)
        if rng.below(2) == 0 {
            d.fallAsleep(at: SimTime(ns: -Int64(rng.below(UInt64(Int64.hour)))))
            d.wake(at: SimTime(ns: 0))
        }
        return d
    }

    /// A clock an app team adds: it reads true time, and is none of the reference clocks.
    struct TeamClock: DeviceClock {
        var name: String { "team" }
        func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading { ClockReading(ns: t.ns) }
        func earliest(_ d: DeviceState, reaching r: ClockReading, notBefore t: SimTime, _ c: ClockContext) -> SimTime {
            SimTime(ns: max(t.ns, r.ns))
        }
    }

    @Test func labelsAndIndices() {
        #expect(ReferenceClocks.labels == ["suspending", "continuous", "uptime-1s", "uptime-1us", "wall"])
        #expect(ReferenceClocks.index(of: SuspendingDeviceClock()) == 0)
        #expect(ReferenceClocks.index(of: BootTimeUptimeClock(resolution: .microsecond)) == 3)
        #expect(ReferenceClocks.index(of: WallClock()) == 4)
        #expect(ReferenceClocks.index(of: TeamClock()) == nil)
        #expect(ReferenceClocks.index(of: WallUptimeClock()) == nil)
    }

    /// The world's shadow syncs call the reference clocks by index (`ReferenceClocks.reading`):
    /// the same clocks, in the same order, as `ReferenceClocks.all`.
    @Test func referenceReadingsAreTheClocksOwn() {
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
        }
    }

    /// A sample hands the tick clock's reading from the reference readings: the last tick is the
    /// one worked out from the clock itself.
    @Test func lastTickFromAReferenceReadingIsTheClocksOwn() {
        var rng = RandomStream(seed: 6, purpose: StreamPurpose("test-last-tick-reading"))
        for _ in 0..<200 {
            let d = Self.device(&rng)
            let start = SimTime(ns: Int64(rng.below(UInt64(Int64.hour))))
            let t = start + Int64(rng.below(UInt64(10 * Int64.minute)))
            for (k, clock) in ReferenceClocks.all.enumerated() {
                let ticks = TickInstants(TimerTick(period: 333 * .millisecond, clock: clock))
                let s = ticks.session(d, start: start, Self.context)
                let reading = ReferenceReadings(d, at: t, Self.context)[k]
                #expect(ticks.lastTick(atOrBefore: t, s, d, Self.context, reading: reading)
                        == ticks.lastTick(atOrBefore: t, s, d, Self.context))
            }
        }
    }

    /// A reference clock's anchor kept as one offset reads the same server time as the anchor,
    /// also where the arithmetic wraps.
    @Test func shadowAnchorOffsetIsExact() {
        let cases: [(Int64, Int64, Int64)] = [(0, 0, 0), (5, 3, 10), (-7_000_000_000, 123_456_789, 987_654_321),
                                              (.max, .min, 1), (.min, .max, .max), (1 << 62, -(1 << 62), 1 << 62)]
        for (serverTime, reading, r) in cases {
            let anchor = SyncAnchor(serverTime: serverTime, reading: ClockReading(ns: reading))
            #expect(ShadowAnchor(anchor).serverTime(at: ClockReading(ns: r)) == anchor.serverTime(at: ClockReading(ns: r)))
        }
    }
}
