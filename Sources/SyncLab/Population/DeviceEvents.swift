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
    /// Brief wakes in deep sleep and standby on charge (StandbyWakes.swift). Not counted in
    /// `any`: it changes how a device sleeps, not the device-event figures a report adds.
    public var standbyWakes: StandbyWakes?
    /// Drift and network corrections of the wall clock (WallClockSync.swift).
    public var wallClockSync: WallClockSync?
    /// Background, suspension and termination across a break, and its bound (AppLifecycle.swift).
    /// Not counted in `any`: it acts only when a player returns, never mid-request.
    public var lifecycle: AppLifecycle?

    public init(reboots: Reboots? = nil, appKills: AppKills? = nil, wallClockChanges: WallClockChanges? = nil,
                tampering: Tampering? = nil) {
        self.reboots = reboots
        self.appKills = appKills
        self.wallClockChanges = wallClockChanges
        self.tampering = tampering
    }

    /// Whether any event is switched on (reports add their device-event figures only then).
    public var any: Bool {
        reboots != nil || appKills != nil || wallClockChanges != nil || tampering != nil || wallClockSync != nil
    }

    /// Shortest time between two events of one player: an interval drawn shorter is stretched
    /// to this, so an event stream can never stall the clock at one instant.
    public static let minimumInterval: Nanoseconds = .second
}

// MARK: Reading from a scenario

/// A kind of device event a scenario switches on under `devices` (`devices.reboots`, …): a
/// plug-in of the keyed family `.deviceEvent`, stored in the scenario's `DeviceEventsConfig`.
public protocol DeviceEvent: Plugin {
    /// Sets this event's slot of `config`.
    func switchOn(in config: inout DeviceEventsConfig)
}

extension DeviceEventsConfig {
    /// Reads every device event the `devices` object switches on, through `context.registry`.
    static func read(_ devices: InputNode, in context: PluginContext) throws -> DeviceEventsConfig {
        var config = DeviceEventsConfig()
        for case let event as any DeviceEvent in try context.registry.readKeyed(.deviceEvent, in: devices, context: context) {
            event.switchOn(in: &config)
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

extension DeviceEventsConfig.Reboots: DeviceEvent {
    public static let family = PluginFamily.deviceEvent
    public static let kind = "reboots"
    public static let schema = SchemaFragment(
        "Restarts: the kernel's clocks restart, the app is killed (cold start on the next view); a Store session in progress reopens after downtime.",
        properties: ["every": SchemaFragment.ref("eventInterval"),
                     "downtime": SchemaFragment.ref("duration", "From a restart during a Store session to the player reopening it, 0 to 1d (default 1m).")],
        required: ["every"])
    public init(_ n: InputNode, in context: PluginContext) throws {
        self.init(every: try DeviceEventsConfig.interval(n.required("every")),
                  downtime: try n.value("downtime", default: Int64.minute) { try $0.duration(in: 0...ScenarioLoader.Limits.delay) })
    }
    public var summary: String {
        "reboots every \(every.describe(.duration)) per player; a Store session reopens \(Units.formatDuration(downtime)) later"
    }
    public func switchOn(in config: inout DeviceEventsConfig) { config.reboots = self }
}

extension DeviceEventsConfig.AppKills: DeviceEvent {
    public static let family = PluginFamily.deviceEvent
    public static let kind = "appKills"
    public static let schema = SchemaFragment(
        "The OS kills the app; only a kill during a break (app in the background) costs a cold start.",
        properties: ["every": SchemaFragment.ref("eventInterval")], required: ["every"])
    public init(_ n: InputNode, in context: PluginContext) throws {
        self.init(every: try DeviceEventsConfig.interval(n.required("every")))
    }
    public var summary: String { "the OS kills the app every \(every.describe(.duration)) per player" }
    public func switchOn(in config: inout DeviceEventsConfig) { config.appKills = self }
}

extension DeviceEventsConfig.WallClockChanges: DeviceEvent {
    public static let family = PluginFamily.deviceEvent
    public static let kind = "wallClockChanges"
    public static let schema = SchemaFragment(
        "A user sets the wall clock by a signed amount: the wall clock and uptime-wall follow, the other clocks do not.",
        properties: ["every": SchemaFragment.ref("eventInterval"),
                     "jump": SchemaFragment.ref("offsetDistribution", "Signed amount of each change, at most 365d.")],
        required: ["every", "jump"])
    public init(_ n: InputNode, in context: PluginContext) throws {
        self.init(every: try DeviceEventsConfig.interval(n.required("every")),
                  jump: try n.required("jump").signedDistribution(Bounds(most: Double(365 * ScenarioLoader.Limits.day))))
    }
    public var summary: String {
        "players set the wall clock every \(every.describe(.duration)) by \(jump.describe(.duration))"
    }
    public func switchOn(in config: inout DeviceEventsConfig) { config.wallClockChanges = self }
}

extension DeviceEventsConfig.Tampering: DeviceEvent {
    public static let family = PluginFamily.deviceEvent
    public static let kind = "tampering"
    public static let schema = SchemaFragment(
        "A share of players moves the wall clock forward once, by advance, at true time at (since the start of the measured window).",
        properties: ["share": SchemaFragment.ref("probability"),
                     "advance": SchemaFragment.ref("durationDistribution", "At least 1ms."),
                     "at": SchemaFragment.ref("durationDistribution", "Default: uniform over the measured window.")],
        required: ["share", "advance"])
    public init(_ n: InputNode, in context: PluginContext) throws {
        let share = try n.required("share").probability()
        let advance = try n.required("advance").distribution(.duration, .durations(Int64.millisecond, 365 * ScenarioLoader.Limits.day))
        let at = try n.value("at", default: Distribution.uniform(min: 0, max: Double(context.runDuration))) {
            try $0.distribution(.duration, .durations(0, ScenarioLoader.Limits.runLength))
        }
        self.init(share: share, advance: advance, at: at)
    }
    public var summary: String {
        "\(Bounds.number(share * 100))% of players move the wall clock forward by \(advance.describe(.duration)) at \(at.describe(.duration))"
    }
    public func switchOn(in config: inout DeviceEventsConfig) { config.tampering = self }
}
