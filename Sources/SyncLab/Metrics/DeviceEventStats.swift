import SyncLabKernel

/// What device events did in the measured window: how many happened, and how far ahead of true
/// time players showed items (the head start a wall-clock tamperer gains when the design measures
/// with a clock that follows the wall clock). All counts are integers, so merging shards in any
/// order gives the same figures.
public struct DeviceEventStats: Sendable, Equatable {
    public var reboots: UInt64 = 0
    /// Reboots that interrupted a Store session.
    public var rebootsWhileViewing: UInt64 = 0
    /// App kills that found the app in the background (the others change nothing).
    public var appKills: UInt64 = 0
    public var wallClockChanges: UInt64 = 0
    public var tamperings: UInt64 = 0
    /// Corrections of the wall clock from the network (`devices.wallClockSync`) that set it
    /// and that slewed it (those left alone are not counted).
    public var wallClockSteps: UInt64 = 0
    public var wallClockSlews: UInt64 = 0
    /// Transition shows, and those more than `earlyLimit` before the transition's true time.
    public var shows: UInt64 = 0
    public var earlyShows: UInt64 = 0
    /// The same for players who have tampered (shows after their tampering).
    public var tamperShows: UInt64 = 0
    public var tamperEarlyShows: UInt64 = 0
    /// Error samples of tamperers: displayed minus true server time, summed in whole µs (exact).
    public var tamperSamples: UInt64 = 0
    public var tamperHeadStartSumMicros: Int64 = 0
    public var tamperHeadStartMax: Int64 = .min
    /// Breaks that ended (the player back at the Store) with the app lifecycle on, by where the
    /// player was, and those in which iOS terminated the app (a cold start on return).
    public var lockedBreaks: UInt64 = 0
    public var lockedTerminations: UInt64 = 0
    public var otherAppsBreaks: UInt64 = 0
    public var otherAppsTerminations: UInt64 = 0
    /// Breaks drawn longer than the lifecycle's `maxBreak` and drawn again.
    public var breaksRedrawn: UInt64 = 0
    /// Cold starts that found a stored sync (`client.persistSync`): restored, or discarded because
    /// the boot time had moved (a reboot, a set wall clock).
    public var storedSyncsRestored: UInt64 = 0
    public var storedSyncsDiscarded: UInt64 = 0

    public init() {}

    /// A show counts as early when it comes more than this before the transition.
    public static let earlyLimit: Nanoseconds = .second

    mutating func reboot(viewing: Bool, inWindow: Bool) {
        guard inWindow else { return }
        reboots += 1
        if viewing { rebootsWhileViewing += 1 }
    }

    mutating func appKill(at t: SimTime, inWindow: Bool) { if inWindow { appKills += 1 } }

    mutating func breakEnded(locked: Bool, terminated: Bool) {
        if locked {
            lockedBreaks += 1
            if terminated { lockedTerminations += 1 }
        } else {
            otherAppsBreaks += 1
            if terminated { otherAppsTerminations += 1 }
        }
    }

    /// A transition shown `offset` after its true time (negative: early).
    mutating func shown(offset: Int64, tampered: Bool) {
        let early = offset < -DeviceEventStats.earlyLimit
        shows += 1
        if early { earlyShows += 1 }
        if tampered {
            tamperShows += 1
            if early { tamperEarlyShows += 1 }
        }
    }

    /// A sampled tamperer shows server time `headStart` ahead of the truth.
    mutating func tamperSample(headStart: Int64) {
        tamperSamples += 1
        tamperHeadStartSumMicros &+= floorDiv(headStart, .microsecond)
        tamperHeadStartMax = max(tamperHeadStartMax, headStart)
    }

    mutating func merge(_ o: DeviceEventStats) {
        reboots += o.reboots
        rebootsWhileViewing += o.rebootsWhileViewing
        appKills += o.appKills
        wallClockChanges += o.wallClockChanges
        tamperings += o.tamperings
        wallClockSteps += o.wallClockSteps
        wallClockSlews += o.wallClockSlews
        shows += o.shows
        earlyShows += o.earlyShows
        tamperShows += o.tamperShows
        tamperEarlyShows += o.tamperEarlyShows
        tamperSamples += o.tamperSamples
        tamperHeadStartSumMicros &+= o.tamperHeadStartSumMicros
        tamperHeadStartMax = max(tamperHeadStartMax, o.tamperHeadStartMax)
        lockedBreaks += o.lockedBreaks
        lockedTerminations += o.lockedTerminations
        otherAppsBreaks += o.otherAppsBreaks
        otherAppsTerminations += o.otherAppsTerminations
        breaksRedrawn += o.breaksRedrawn
        storedSyncsRestored += o.storedSyncsRestored
        storedSyncsDiscarded += o.storedSyncsDiscarded
    }

    /// The figure keys of device events (present when the scenario switches any on).
    public static let figureKeys = Figure.all.filter { $0.scope == .deviceEvents }.map(\.key)

    /// Figures by key; nil where nothing was measured.
    public var figures: [String: Double?] {
        [
            Figure.deviceEventsReboots.key: Double(reboots),
            Figure.deviceEventsRebootsWhileViewing.key: Double(rebootsWhileViewing),
            Figure.deviceEventsAppKills.key: Double(appKills),
            Figure.deviceEventsWallClockChanges.key: Double(wallClockChanges),
            Figure.deviceEventsTamperings.key: Double(tamperings),
            Figure.deviceEventsWallClockSteps.key: Double(wallClockSteps),
            Figure.deviceEventsWallClockSlews.key: Double(wallClockSlews),
            Figure.earlyShowShare.key: shows == 0 ? nil : Double(earlyShows) / Double(shows),
            Figure.tamperEarlyShowShare.key: tamperShows == 0 ? nil : Double(tamperEarlyShows) / Double(tamperShows),
            Figure.tamperHeadStartMsMean.key: tamperSamples == 0 ? nil : Double(tamperHeadStartSumMicros) / 1e3 / Double(tamperSamples),
            Figure.tamperHeadStartMsMax.key: tamperSamples == 0 ? nil : Double(tamperHeadStartMax) / 1e6,
        ]
    }
}

extension MetricsRecorder {
    /// A sampled tamperer's displayed error (at an instant inside the window).
    mutating func tamperSample(headStart: Int64) {
        deviceEvents.tamperSample(headStart: headStart)
    }
}
