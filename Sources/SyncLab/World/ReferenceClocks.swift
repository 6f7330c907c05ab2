import SyncLabKernel

/// The clocks every run measures the same syncs with, for the error-by-clock rows: the one
/// place they are listed. Each sync is also computed as if the design had read each of these
/// (its "shadow" anchors), and every sample reads each once (`ReferenceReadings`).
enum ReferenceClocks {
    static let all: [any DeviceClock] = [SuspendingDeviceClock(), ContinuousDeviceClock(),
                                         BootTimeUptimeClock(resolution: .second),
                                         BootTimeUptimeClock(resolution: .microsecond), WallClock()]
    static let count = 5

    /// Reading of reference clock k (in `all`'s order), called on the concrete type: a sample
    /// reads all five, and through `any DeviceClock` each was an existential call.
    @inline(__always)
    static func reading(_ k: Int, _ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading {
        switch k {
        case 0: return SuspendingDeviceClock().reading(d, at: t, c)
        case 1: return ContinuousDeviceClock().reading(d, at: t, c)
        case 2: return BootTimeUptimeClock(resolution: .second).reading(d, at: t, c)
        case 3: return BootTimeUptimeClock(resolution: .microsecond).reading(d, at: t, c)
        default: return WallClock().reading(d, at: t, c)
        }
    }

    /// The row label of a clock: its kind, with the uptime clock's resolution.
    static func label(_ clock: any DeviceClock) -> String {
        if let u = clock as? BootTimeUptimeClock { return u.resolution == .second ? "uptime-1s" : "uptime-1us" }
        return clock.name
    }

    static let labels = all.map(label)

    /// Which reference clock reads the same as `clock` (nil: none, as for an app team's own),
    /// so a sample reads the design's clock once for both.
    static func index(of clock: any DeviceClock) -> Int? { labels.firstIndex(of: label(clock)) }
}

/// The reference clocks' readings at one instant, in `ReferenceClocks.all` order.
struct ReferenceReadings {
    private let r0, r1, r2, r3, r4: ClockReading

    @inline(__always)
    init(_ d: DeviceState, at t: SimTime, _ c: ClockContext) {
        r0 = ReferenceClocks.reading(0, d, at: t, c)
        r1 = ReferenceClocks.reading(1, d, at: t, c)
        r2 = ReferenceClocks.reading(2, d, at: t, c)
        r3 = ReferenceClocks.reading(3, d, at: t, c)
        r4 = ReferenceClocks.reading(4, d, at: t, c)
    }

    subscript(k: Int) -> ClockReading {
        @inline(__always) get {
            switch k {
            case 0: r0
            case 1: r1
            case 2: r2
            case 3: r3
            default: r4
            }
        }
    }
}
