import SyncLabKernel

/// One simulated device: what its clocks are made of.
///
/// From the seeds: `CACurrentMediaTime()` / `mach_absolute_time()` stops counting a few minutes
/// into standby (deep sleep); the fix read uptime as `time(now) − KERN_BOOTTIME`, which keeps
/// counting but has one-second resolution and follows the wall clock. The state here is what
/// all four device clocks are derived from; it is a compact value (49 bytes, 56 in an array)
/// because a million of them must fit in memory.
public struct DeviceState: Sendable, Equatable {
    /// Oscillator error in parts per billion: the monotonic clocks run at (1 + drift) × true rate.
    public var driftPPB: Int64
    /// Wall clock minus true time, in nanoseconds (NTP keeps it steady; a user may move it).
    public var wallOffset: Nanoseconds
    /// True time at which the device booted (before the run starts).
    public var bootTime: SimTime
    /// Wall-clock time at boot as the kernel recorded it (`KERN_BOOTTIME`), unix nanoseconds.
    public var bootWallUnix: Int64
    /// Deep-sleep time accumulated since boot, up to the current sleep if any.
    public var sleptTotal: Nanoseconds
    /// When the current deep sleep began; meaningful only while `asleep`.
    public var sleepStart: SimTime
    public var asleep: Bool

    public init(driftPPB: Int64, wallOffset: Nanoseconds, bootTime: SimTime, epochUnix: Int64) {
        self.driftPPB = driftPPB
        self.wallOffset = wallOffset
        self.bootTime = bootTime
        self.bootWallUnix = epochUnix &+ bootTime.ns &+ wallOffset
        self.sleptTotal = 0
        self.sleepStart = .zero
        self.asleep = false
    }

    /// Deep sleep begins: suspending clocks stop.
    public mutating func fallAsleep(at t: SimTime) {
        guard !asleep else { return }
        asleep = true
        sleepStart = t
    }

    /// Wakes; returns how long the deep sleep lasted (0 if it was not asleep).
    @discardableResult
    public mutating func wake(at t: SimTime) -> Nanoseconds {
        guard asleep else { return 0 }
        asleep = false
        let slept = t - sleepStart
        sleptTotal &+= slept
        return slept
    }

    /// The device restarts at `t`: the kernel counts from zero again (boot time `t`, nothing
    /// slept), it is awake, and `KERN_BOOTTIME` is recorded afresh from the wall clock as it
    /// reads now. Drift and wall offset belong to the hardware and settings: they stay.
    public mutating func reboot(at t: SimTime, epochUnix: Int64) {
        bootTime = t
        bootWallUnix = epochUnix &+ t.ns &+ wallOffset
        sleptTotal = 0
        sleepStart = .zero
        asleep = false
    }

    /// The wall clock is set by `delta` (a user moving it, or a tamperer). Only the wall offset
    /// changes: the monotonic clocks count oscillator ticks and do not notice; `bootWallUnix`
    /// keeps the boot time as recorded at boot (see `kernelBootWallUnix` for the OS's view).
    public mutating func moveWallClock(by delta: Nanoseconds) {
        wallOffset &+= delta
    }

    /// `KERN_BOOTTIME` as the OS keeps it: XNU's `clock_set_calendar_microtime` shifts the boot
    /// time by every change of the calendar clock, so wall − boot time stays the uptime. With
    /// no change since boot it equals `bootWallUnix`.
    @inlinable public func kernelBootWallUnix(_ context: ClockContext) -> Int64 {
        context.epochUnix &+ bootTime.ns &+ wallOffset
    }

    /// Awake time since boot at `t`, before drift.
    @inlinable public func awakeElapsed(at t: SimTime) -> Nanoseconds {
        let sleeping = asleep ? (t - sleepStart) : 0
        return (t - bootTime) &- sleptTotal &- sleeping
    }

    /// Deep sleep accumulated since boot up to `t` (including a sleep in progress).
    @inlinable public func slept(at t: SimTime) -> Nanoseconds { (t - bootTime) &- awakeElapsed(at: t) }

    /// This device with a perfect oscillator (for attributing error to drift).
    public var withoutDrift: DeviceState {
        var d = self
        d.driftPPB = 0
        return d
    }

    /// Wall clock at `t`, unix nanoseconds.
    @inlinable public func wallUnix(at t: SimTime, _ context: ClockContext) -> Int64 {
        context.epochUnix &+ t.ns &+ wallOffset
    }

    /// `elapsed` true nanoseconds as counted by this device's oscillator.
    @inlinable public func drifted(_ elapsed: Nanoseconds) -> Nanoseconds {
        elapsed &+ Drift.scaled(elapsed, ppb: driftPPB)
    }

    /// The smallest true elapsed time whose drifted count reaches `target` (inverse of `drifted`).
    @inlinable public func undrifted(reaching target: Nanoseconds) -> Nanoseconds {
        driftPPB == 0 ? target : Drift.inverse(reaching: target, ppb: driftPPB)
    }
}

/// What every clock needs to know about the world: the calendar instant of true time zero.
public struct ClockContext: Sendable, Equatable {
    /// Unix nanoseconds at true time zero.
    public var epochUnix: Int64
    public init(epochUnix: Int64) { self.epochUnix = epochUnix }
}

/// Exact integer drift arithmetic (no floating point, so identical on every machine).
public enum Drift {
    /// floor(elapsed × ppb / 10⁹), exact without 128-bit arithmetic: with elapsed = q·10⁹ + r
    /// (0 ≤ r < 10⁹) it is q·ppb + floor(r·ppb / 10⁹), where neither product can overflow for
    /// |ppb| < 9·10⁹ (drift is validated far below that).
    @inlinable public static func scaled(_ elapsed: Int64, ppb: Int64) -> Int64 {
        if ppb == 0 { return 0 }
        let q = floorDiv(elapsed, 1_000_000_000)
        let r = elapsed &- q &* 1_000_000_000
        return q &* ppb &+ floorDiv(r &* ppb, 1_000_000_000)
    }
}
