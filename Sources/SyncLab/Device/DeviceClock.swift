import SyncLabKernel

/// A device clock a client can measure intervals or run timers with: a named plug-in.
///
/// Each clock is a pure function of the device state and true time. `earliest(…)` inverts it so
/// the world can schedule "the instant this clock reaches r" as one event instead of polling.
public protocol DeviceClock: Sendable {
    /// The name a scenario uses, e.g. "suspending".
    var name: String { get }
    /// Reading at true time `t`.
    func reading(_ device: DeviceState, at t: SimTime, _ context: ClockContext) -> ClockReading
    /// The earliest true time ≥ `t` at which the reading is ≥ `target`, assuming the device stays
    /// awake and its state does not change from `t` on.
    func earliest(_ device: DeviceState, reaching target: ClockReading, notBefore t: SimTime,
                  _ context: ClockContext) -> SimTime
    /// Whether the clock stands still in deep sleep (for attributing error to standby).
    var pausesInDeepSleep: Bool { get }
    /// What the device's rate errors have added to a reading at `t`, at full resolution: the
    /// reading minus the same device's with a perfect oscillator (`DeviceState.withoutDrift`).
    /// For attributing error to drift; a clock that counts in whole seconds overrides it, since
    /// the difference of two of its readings is 0 or a whole second.
    func driftOffset(_ device: DeviceState, at t: SimTime, _ context: ClockContext) -> Nanoseconds
    /// Resolution of a reading, ns (an interval measured on it is off by less than this).
    var resolution: Nanoseconds { get }
    /// Whether a later instant never reads less on a device without reboots, wall-clock changes
    /// or tampering (lets the world skip ticks it can tell come after the run's end).
    var neverReadsLessLater: Bool { get }
    /// Runs the world's events with this clock as its own type, so the event loop is compiled
    /// for it. A clock does not implement this: the default is the one right answer.
    func _runWorld(_ world: inout World)
}

extension DeviceClock {
    public var pausesInDeepSleep: Bool { false }
    public func driftOffset(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> Nanoseconds {
        reading(d, at: t, c).ns &- reading(d.withoutDrift, at: t, c).ns
    }
    public var resolution: Nanoseconds { 1 }
    public var neverReadsLessLater: Bool { false }
    // In each conformance's witness this default is called with `Self` known, so the loop it
    // starts is specialised for the clock's type: no list of clock types anywhere.
    public func _runWorld(_ world: inout World) { world.runEvents(designClock: self) }
}

/// The pausing clock: Darwin `mach_absolute_time` / `CACurrentMediaTime()` / `CLOCK_UPTIME_RAW` /
/// `ProcessInfo.systemUptime`, Linux `CLOCK_MONOTONIC`, Swift's `SuspendingClock` on both.
/// Nanosecond resolution, drifts, and stops incrementing in deep sleep. (Darwin's
/// `CLOCK_MONOTONIC` is not this clock: it counts through sleep. See docs/clocks.md.)
public struct SuspendingDeviceClock: DeviceClock {
    public init() {}
    public var name: String { "suspending" }
    public var neverReadsLessLater: Bool { true }
    public var pausesInDeepSleep: Bool { true }
    @inline(__always)
    public func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading {
        ClockReading(ns: d.drifted(d.awakeElapsed(at: t)))
    }
    @inline(__always)
    public func earliest(_ d: DeviceState, reaching target: ClockReading, notBefore t: SimTime,
                         _ c: ClockContext) -> SimTime {
        if reading(d, at: t, c) >= target { return t }
        let awake = d.undrifted(reaching: target.ns)
        return SimTime(ns: d.bootTime.ns &+ d.sleptTotal &+ awake)
    }
}

/// Darwin `mach_continuous_time` / `CLOCK_MONOTONIC_RAW`, Linux `CLOCK_BOOTTIME`, Swift's
/// `ContinuousClock` on both: nanosecond resolution, drifts, keeps counting in deep sleep.
public struct ContinuousDeviceClock: DeviceClock {
    public init() {}
    public var name: String { "continuous" }
    public var neverReadsLessLater: Bool { true }
    @inline(__always)
    public func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading {
        ClockReading(ns: d.drifted(t - d.bootTime))
    }
    @inline(__always)
    public func earliest(_ d: DeviceState, reaching target: ClockReading, notBefore t: SimTime,
                         _ c: ClockContext) -> SimTime {
        if reading(d, at: t, c) >= target { return t }
        return SimTime(ns: d.bootTime.ns &+ d.undrifted(reaching: target.ns))
    }
}

/// The seeds' fix: uptime as `time(now) − KERN_BOOTTIME`. Keeps counting in sleep, follows the
/// wall clock (so it has the wall clock's rate, not the oscillator's), and with `time()` it has
/// one-second resolution; `gettimeofday` gives microseconds (Darwin's `CLOCK_MONOTONIC` is this
/// clock at 1 µs: Libc computes it as the time of day minus the boot time). When the wall clock is set, the OS
/// shifts `KERN_BOOTTIME` by the same amount (`DeviceState.kernelBootWallUnix`), so a manual
/// change does not move this uptime; `WallUptimeClock` is the variant that does.
public struct BootTimeUptimeClock: DeviceClock {
    /// Resolution of both the wall reading and the boot time, in nanoseconds (1 s or 1 µs).
    public var resolution: Nanoseconds
    public init(resolution: Nanoseconds = .second) { self.resolution = resolution }
    public var name: String { resolution == .second ? "uptime" : "uptime(\(resolution)ns)" }
    public var neverReadsLessLater: Bool { true }

    @inline(__always)
    public func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading {
        let now = floorDiv(d.wallUnix(at: t, c), resolution)
        let boot = floorDiv(d.kernelBootWallUnix(c), resolution)
        return ClockReading(ns: (now - boot) &* resolution)
    }
    /// The wall clock's drift alone: the boot time does not drift.
    public func driftOffset(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> Nanoseconds {
        d.wallDriftOffset(at: t, c)
    }
    @inline(__always)
    public func earliest(_ d: DeviceState, reaching target: ClockReading, notBefore t: SimTime,
                         _ c: ClockContext) -> SimTime {
        if reading(d, at: t, c) >= target { return t }
        let boot = floorDiv(d.kernelBootWallUnix(c), resolution)
        let ticks = boot &+ ceilDiv(target.ns, resolution)   // first wall tick giving the target
        return d.earliestWall(reaching: ticks &* resolution, notBefore: t, c)
    }
}

/// The wall clock (`NSDate`): never trusted by the seeds because players can move it; microsecond
/// resolution here, an offset per device; it drifts and is corrected only under
/// `devices.wallClockSync` (WallClockSync.swift).
public struct WallClock: DeviceClock {
    public init() {}
    public var name: String { "wall" }
    public var neverReadsLessLater: Bool { true }
    public var resolution: Nanoseconds { .microsecond }
    @inline(__always)
    public func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading {
        ClockReading(ns: floorTo(d.wallUnix(at: t, c), .microsecond))
    }
    public func driftOffset(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> Nanoseconds {
        d.wallDriftOffset(at: t, c)
    }
    @inline(__always)
    public func earliest(_ d: DeviceState, reaching target: ClockReading, notBefore t: SimTime,
                         _ c: ClockContext) -> SimTime {
        if reading(d, at: t, c) >= target { return t }
        let wall = ceilDiv(target.ns, .microsecond) &* .microsecond
        return d.earliestWall(reaching: wall, notBefore: t, c)
    }
}
