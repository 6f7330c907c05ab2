import SyncLabKernel

/// Uptime as wall time − the boot time *as recorded at boot*: the variant of the seeds' fix that
/// follows every step of the wall clock.
///
/// `BootTimeUptimeClock` reads `KERN_BOOTTIME` as the OS keeps it, and XNU shifts that boot time
/// whenever the calendar clock is set, so a user moving the wall clock does not move that uptime.
/// An app that caches the boot time once (or a platform that does not shift it) computes this
/// clock instead: a manual change of the wall clock by Δ moves it by Δ, like the wall clock,
/// while the suspending and continuous clocks do not notice. A reboot records a new boot time.
/// Resolution 1 s (`time()`) or 1 µs (`gettimeofday`), like the uptime clock.
public struct WallUptimeClock: DeviceClock {
    /// Resolution of both the wall reading and the recorded boot time, in nanoseconds.
    public var resolution: Nanoseconds
    public init(resolution: Nanoseconds = .second) { self.resolution = resolution }
    public var name: String { resolution == .second ? "uptime-wall" : "uptime-wall(\(resolution)ns)" }

    public func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading {
        let now = floorDiv(d.wallUnix(at: t, c), resolution)
        let boot = floorDiv(d.bootWallUnix, resolution)
        return ClockReading(ns: (now - boot) &* resolution)
    }

    public func driftOffset(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> Nanoseconds {
        d.wallDriftOffset(at: t, c)
    }

    public func earliest(_ d: DeviceState, reaching target: ClockReading, notBefore t: SimTime,
                         _ c: ClockContext) -> SimTime {
        if reading(d, at: t, c) >= target { return t }
        let boot = floorDiv(d.bootWallUnix, resolution)
        let ticks = boot &+ ceilDiv(target.ns, resolution)   // first wall tick giving the target
        return d.earliestWall(reaching: ticks &* resolution, notBefore: t, c)
    }
}

extension WallUptimeClock: Plugin {
    public static let family = PluginFamily.clock
    public static let kind = "uptime-wall"
    public static let schema = SchemaFragment(
        "Uptime from the boot time recorded at boot: follows wall-clock changes.",
        properties: ["resolution": BootTimeUptimeClock.resolutionSchema])
    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(resolution: try BootTimeUptimeClock.resolution(from: node))
    }
    public var summary: String {
        "uptime = wall − boot time recorded at boot (\(resolution == .second ? "1 s" : "1 µs") resolution, follows wall-clock changes)"
    }
}
