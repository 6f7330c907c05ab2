import SyncLabKernel

/// One simulated device: what its clocks are made of.
///
/// From the seeds: `CACurrentMediaTime()` / `mach_absolute_time()` stops counting a few minutes
/// into standby (deep sleep); the fix read uptime as `time(now) − KERN_BOOTTIME`, which keeps
/// counting but has one-second resolution and follows the wall clock. The state here is what
/// all four device clocks are derived from; it is a compact value (69 bytes, 72 in an array)
/// because millions of them must fit in memory.
///
/// The wall clock is piecewise linear in true time: `wallOffset` holds at `wallAnchor`, from
/// where it runs `wallRatePPB` fast and works off a slew (`wallSlewLeft`, at the context's
/// `wallSlewPPB`). Both are zero unless `devices.wallClockSync` disciplines the clock
/// (WallClockSync.swift), so by default the offset is constant.
public struct DeviceState: Sendable, Equatable {
    /// Wall clock minus true time at `wallAnchor`, in nanoseconds (`wallOffset(at:_:)` at any
    /// other instant). A user may move it.
    public var wallOffset: Nanoseconds
    /// The instant at which `wallOffset` holds; the slew in progress started here.
    public var wallAnchor: SimTime = .zero
    /// Steps of the wall clock since boot (corrections that set it, users moving it): what the
    /// OS has shifted `KERN_BOOTTIME` by. Slews and drift do not shift it.
    public var wallStepsSinceBoot: Nanoseconds = 0
    /// True time at which the device booted (before the run starts).
    public var bootTime: SimTime
    /// Wall-clock time at boot as the kernel recorded it (`KERN_BOOTTIME`), unix nanoseconds.
    public var bootWallUnix: Int64
    /// Deep-sleep time accumulated since boot, up to the current sleep if any.
    public var sleptTotal: Nanoseconds
    /// When the current deep sleep began; meaningful only while `asleep`.
    public var sleepStart: SimTime
    /// `driftPPB`, stored in 32 bits (drift is validated within ±10⁸ ppb) to keep the state small.
    var oscillatorPPB: Int32
    /// The wall clock's frequency error (ppb).
    public var wallRatePPB: Int32 = 0
    /// What of a slew is still to be worked off at `wallAnchor` (signed: added to the offset;
    /// at most `WallClockSync.largestSlewed`). Its rate is the context's `wallSlewPPB`.
    public var wallSlewLeft: Int32 = 0
    public var asleep: Bool

    /// Oscillator error in parts per billion: the monotonic clocks run at (1 + drift) × true rate.
    public var driftPPB: Int64 {
        get { Int64(oscillatorPPB) }
        set { oscillatorPPB = Int32(newValue) }
    }

    public init(driftPPB: Int64, wallOffset: Nanoseconds, bootTime: SimTime, epochUnix: Int64) {
        self.oscillatorPPB = Int32(driftPPB)
        self.wallOffset = wallOffset
        self.bootTime = bootTime
        self.bootWallUnix = epochUnix &+ bootTime.ns &+ wallOffset
        self.wallStepsSinceBoot = 0
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
    public mutating func reboot(at t: SimTime, epochUnix: Int64, wallSlewPPB: Int32 = 0) {
        bootTime = t
        bootWallUnix = epochUnix &+ t.ns &+ wallOffset(at: t, ClockContext(epochUnix: epochUnix, wallSlewPPB: wallSlewPPB))
        wallStepsSinceBoot = 0
        sleptTotal = 0
        sleepStart = .zero
        asleep = false
    }

    /// The wall clock is set by `delta` (a user moving it, a tamperer, or a correction that
    /// steps). Only the wall offset changes: the monotonic clocks count oscillator ticks and do
    /// not notice; `bootWallUnix` keeps the boot time as recorded at boot (see
    /// `kernelBootWallUnix` for the OS's view). A slew in progress goes on.
    public mutating func moveWallClock(by delta: Nanoseconds) {
        wallOffset &+= delta
        wallStepsSinceBoot &+= delta
    }

    /// `KERN_BOOTTIME` as the OS keeps it: XNU's `clock_set_calendar_microtime` shifts the boot
    /// time by every step of the calendar clock, so wall − boot time stays the uptime across a
    /// step; a slew (`adjtime`) and the clock's own drift do not shift it, so the uptime follows
    /// them. With no step since boot it equals `bootWallUnix`.
    @inlinable public func kernelBootWallUnix(_ context: ClockContext) -> Int64 {
        bootWallUnix &+ wallStepsSinceBoot
    }

    /// Wall clock minus true time at `t`: constant unless disciplined, else drift at
    /// `wallRatePPB` since the anchor plus the part of the slew worked off by then. (Before the
    /// anchor, which the world never asks, the drift is extrapolated and no slew applies.)
    @inlinable public func wallOffset(at t: SimTime, _ c: ClockContext) -> Nanoseconds {
        if wallRatePPB == 0 && wallSlewLeft == 0 { return wallOffset }
        let elapsed = t.ns &- wallAnchor.ns
        return wallOffset &+ Drift.scaled(elapsed, ppb: Int64(wallRatePPB)) &+ slewWorkedOff(elapsed, c)
    }

    /// The part of the slew worked off `elapsed` after the anchor (signed like the slew).
    @inlinable func slewWorkedOff(_ elapsed: Nanoseconds, _ c: ClockContext) -> Nanoseconds {
        guard wallSlewLeft != 0, elapsed > 0 else { return 0 }
        let done = Drift.scaled(elapsed, ppb: Int64(c.wallSlewPPB)), left = Int64(wallSlewLeft)
        return left > 0 ? min(done, left) : max(-done, left)
    }

    /// What the wall clock's rate error has added to its offset at `t` since the anchor: the
    /// offset minus a perfect oscillator's (`withoutDrift`), exact to the nanosecond.
    @inlinable public func wallDriftOffset(at t: SimTime, _ c: ClockContext) -> Nanoseconds {
        wallRatePPB == 0 ? 0 : Drift.scaled(t.ns &- wallAnchor.ns, ppb: Int64(wallRatePPB))
    }

    /// Re-anchors the wall clock at `t` (the offset then, the slew's remainder): the state reads
    /// the same before and after, and a new rate or slew can start from here.
    public mutating func anchorWallClock(at t: SimTime, _ c: ClockContext) {
        let worked = slewWorkedOff(t.ns &- wallAnchor.ns, c)
        wallOffset = wallOffset(at: t, c)
        wallSlewLeft = Int32(Int64(wallSlewLeft) &- worked)
        wallAnchor = t
    }

    /// The earliest true time, not before `t`, at which the wall clock reads at least `unix`
    /// (unix nanoseconds). The wall clock never runs backwards between events (its rate,
    /// slew included, stays within ±0.1%), so the first instant is well defined.
    @inlinable public func earliestWall(reaching unix: Int64, notBefore t: SimTime, _ c: ClockContext) -> SimTime {
        let target = unix &- c.epochUnix                         // true time + offset to reach
        if wallRatePPB == 0 && wallSlewLeft == 0 { return SimTime(ns: max(t.ns, target &- wallOffset)) }
        if t.ns &+ wallOffset(at: t, c) >= target { return t }
        // Fixed-point steps from the constant-offset guess: each shrinks the miss by the rate
        // (≤ 10⁻³), so three reach the nanosecond; unit steps absorb the rounding of `scaled`.
        var guess = target &- wallOffset(at: SimTime(ns: target &- wallOffset), c)
        for _ in 0..<2 { guess = target &- wallOffset(at: SimTime(ns: guess), c) }
        guess = max(guess, t.ns)
        while guess &+ wallOffset(at: SimTime(ns: guess), c) < target { guess &+= 1 }
        while guess > t.ns && (guess &- 1) &+ wallOffset(at: SimTime(ns: guess &- 1), c) >= target { guess &-= 1 }
        return SimTime(ns: guess)
    }

    /// Awake time since boot at `t`, before drift.
    @inlinable public func awakeElapsed(at t: SimTime) -> Nanoseconds {
        let sleeping = asleep ? (t - sleepStart) : 0
        return (t - bootTime) &- sleptTotal &- sleeping
    }

    /// Deep sleep accumulated since boot up to `t` (including a sleep in progress).
    @inlinable public func slept(at t: SimTime) -> Nanoseconds { (t - bootTime) &- awakeElapsed(at: t) }

    /// This device with a perfect oscillator (for attributing error to drift): its monotonic
    /// clocks and a disciplined wall clock (from its last correction on) run at true rate.
    public var withoutDrift: DeviceState {
        var d = self
        d.driftPPB = 0
        d.wallRatePPB = 0
        return d
    }

    /// Wall clock at `t`, unix nanoseconds.
    @inlinable public func wallUnix(at t: SimTime, _ context: ClockContext) -> Int64 {
        context.epochUnix &+ t.ns &+ wallOffset(at: t, context)
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
    /// The rate at which a disciplined wall clock slews (`devices.wallClockSync`), ppb: one
    /// figure for every device, so the devices' state need not keep it.
    public var wallSlewPPB: Int32
    public init(epochUnix: Int64, wallSlewPPB: Int32 = 0) {
        self.epochUnix = epochUnix
        self.wallSlewPPB = wallSlewPPB
    }
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
