import SyncLabKernel

/// Things that happen to a phone besides sleep: restarts, the OS killing the app, a user setting
/// the wall clock, and players who move it forward to see future items (the seeds: "the wall
/// clock is never trusted"). All opt-in; each player's events come from its own purpose streams
/// ("reboot", "app-kill", "wall-change", "tampering"), so turning one on changes no other draw.
public struct DeviceEventsConfig: Sendable {
    /// Restarts. The kernel counts from zero again (the suspending and continuous clocks restart,
    /// `KERN_BOOTTIME` is recorded afresh), the app is killed: sync and file are gone, and the
    /// Store cold-starts (fetches) when next on screen. A player viewing the Store at the instant
    /// reopens it `downtime` later.
    public struct Reboots: Sendable {
        /// Time between one player's restarts (true time).
        public var every: Distribution
        /// From a restart that interrupts a Store session to the player reopening it.
        public var downtime: Nanoseconds
        public init(every: Distribution, downtime: Nanoseconds = Int64.minute) {
            self.every = every
            self.downtime = downtime
        }
    }

    /// The OS kills the app in the background (memory pressure). Only a kill during a break in
    /// a visit changes anything: the Store then cold-starts on the player's return. A kill while
    /// the Store is on screen or while the app is not running does nothing.
    public struct AppKills: Sendable {
        public var every: Distribution
        public init(every: Distribution) { self.every = every }
    }

    /// A user sets the wall clock by a signed amount: the wall clock and `uptime-wall` jump;
    /// the suspending and continuous clocks and the OS-adjusted `uptime` do not.
    public struct WallClockChanges: Sendable {
        public var every: Distribution
        /// Signed amount of each change.
        public var jump: Distribution
        public init(every: Distribution, jump: Distribution) {
            self.every = every
            self.jump = jump
        }
    }

    /// A share of players moves the wall clock forward once, by `advance`, at `at` (true time
    /// since the start of the measured window).
    public struct Tampering: Sendable {
        public var share: Double
        public var advance: Distribution
        public var at: Distribution
        public init(share: Double, advance: Distribution, at: Distribution) {
            self.share = share
            self.advance = advance
            self.at = at
        }
    }

    public var reboots: Reboots?
    public var appKills: AppKills?
    public var wallClockChanges: WallClockChanges?
    public var tampering: Tampering?

    public init(reboots: Reboots? = nil, appKills: AppKills? = nil, wallClockChanges: WallClockChanges? = nil,
                tampering: Tampering? = nil) {
        self.reboots = reboots
        self.appKills = appKills
        self.wallClockChanges = wallClockChanges
        self.tampering = tampering
    }

    /// Whether any event is switched on (reports add their device-event figures only then).
    public var any: Bool { reboots != nil || appKills != nil || wallClockChanges != nil || tampering != nil }

    /// Shortest time between two events of one player: an interval drawn shorter is stretched
    /// to this, so an event stream can never stall the clock at one instant.
    public static let minimumInterval: Nanoseconds = .second
}

// MARK: Reading from a scenario

extension DeviceEventsConfig {
    /// Reads `devices.reboots`, `devices.appKills`, `devices.wallClockChanges` and
    /// `devices.tampering` from the `devices` object (each optional).
    static func read(_ devices: InputNode, duration: Nanoseconds) throws -> DeviceEventsConfig {
        var config = DeviceEventsConfig()
        config.reboots = try devices.optional("reboots") { n in
            try n.expectObject()
            let r = Reboots(every: try interval(n.required("every")),
                            downtime: try n.value("downtime", default: Int64.minute) {
                                try $0.duration(in: 0...ScenarioLoader.Limits.delay)
                            })
            try n.rejectUnknownKeys()
            return r
        }
        config.appKills = try devices.optional("appKills") { n in
            try n.expectObject()
            let k = AppKills(every: try interval(n.required("every")))
            try n.rejectUnknownKeys()
            return k
        }
        config.wallClockChanges = try devices.optional("wallClockChanges") { n in
            try n.expectObject()
            let w = WallClockChanges(every: try interval(n.required("every")),
                                     jump: try n.required("jump").signedDistribution(Bounds(most: Double(365 * ScenarioLoader.Limits.day))))
            try n.rejectUnknownKeys()
            return w
        }
        config.tampering = try devices.optional("tampering") { n in
            try n.expectObject()
            let share = try n.required("share").probability()
            let advance = try n.required("advance").distribution(.duration, .durations(Int64.millisecond, 365 * ScenarioLoader.Limits.day))
            let at = try n.value("at", default: Distribution.uniform(min: 0, max: Double(duration))) {
                try $0.distribution(.duration, .durations(0, ScenarioLoader.Limits.runLength))
            }
            try n.rejectUnknownKeys()
            return Tampering(share: share, advance: advance, at: at)
        }
        return config
    }

    /// Time between one player's events: a duration distribution with a finite mean of at least
    /// one minute, so a typo ("5s" for "5d") cannot flood the event queue.
    static func interval(_ n: InputNode) throws -> Distribution {
        let d = try n.distribution(.duration, .durations(0, 365 * ScenarioLoader.Limits.day, finiteMean: true))
        guard d.mean >= Double(Int64.minute) else {
            throw n.error("must have a mean of at least 1m (a per-player event interval); \(d.describe(.duration)) has mean \(Units.formatDuration(Int64(d.mean)))")
        }
        return d
    }
}
