import SyncLab
import SyncLabKernel

/// The "Device events" section of `report.md` and the `deviceEvents` object of `summary.json`,
/// present only when the scenario switches on reboots, app kills, wall-clock changes or tampering;
/// and the "App lifecycle" section when it switches on `devices.lifecycle`.
public enum DeviceEventsReport {
    public static func markdown(_ r: RunResult) -> String {
        lifecycleMarkdown(r) + storedSyncMarkdown(r) + eventsMarkdown(r)
    }

    /// What the stored sync did at cold starts, present when the design keeps it (`client.persistSync`).
    static func storedSyncMarkdown(_ r: RunResult) -> String {
        guard r.scenario.client.persistSync else { return "" }
        let d = r.deviceEvents
        return "\n## Stored sync\n\n- The design keeps its last sync across app launches: \(d.storedSyncsRestored) cold starts in the "
            + "window restored it, \(d.storedSyncsDiscarded) discarded it because the device had rebooted or its wall clock had been set.\n"
    }

    /// "App lifecycle": how many breaks ended in a cold start, present when `devices.lifecycle` is on.
    static func lifecycleMarkdown(_ r: RunResult) -> String {
        guard let lifecycle = r.scenario.devices.events.lifecycle else { return "" }
        let d = r.deviceEvents
        func share(_ part: UInt64, _ whole: UInt64) -> String {
            whole == 0 ? "none of 0" : "\(part) of \(whole) (\(Format.percent(Double(part) / Double(whole), 1)))"
        }
        var md = "\n## App lifecycle\n\n"
        md += "- After the Store leaves the screen the app runs \(Units.formatDuration(lifecycle.grace)) in the background, then is suspended; "
            + "iOS terminates it after a median \(Units.formatDuration(lifecycle.lockedMedian)) suspended with the phone locked, "
            + "\(Units.formatDuration(lifecycle.otherAppsMedian)) with the player in other apps (Weibull shape \(Format.fixed(lifecycle.shape, 2))"
            + (lifecycle.horizon.map { ", always by \(Units.formatDuration($0))" } ?? "") + "). A terminated app cold-starts and syncs afresh.\n"
        md += "- Breaks ended in the window, app terminated: locked \(share(d.lockedTerminations, d.lockedBreaks)); "
            + "in other apps \(share(d.otherAppsTerminations, d.otherAppsBreaks)).\n"
        if let limit = lifecycle.maxBreak {
            md += "- Breaks are at most \(Units.formatDuration(limit)): \(d.breaksRedrawn) drawn longer were drawn again.\n"
        }
        return md
    }

    static func eventsMarkdown(_ r: RunResult) -> String {
        let events = r.scenario.devices.events
        guard events.any else { return "" }
        let f = r.figures
        let d = r.deviceEvents
        var md = "\n## Device events\n\n"
        if let reboot = events.reboots {
            md += "- Reboots every \(Describe.distribution(reboot.every, .duration)) per player: \(d.reboots) in the window, "
                + "\(d.rebootsWhileViewing) with the Store on screen (reopened \(Units.formatDuration(reboot.downtime)) later); "
                + "each kills the app, so the Store cold-starts (fetches) on its next view.\n"
        }
        if let kills = events.appKills {
            md += "- The OS kills the app every \(Describe.distribution(kills.every, .duration)) per player; "
                + "\(d.appKills) kills found it in the background and cost a cold start.\n"
        }
        if let changes = events.wallClockChanges {
            md += "- Players set the wall clock every \(Describe.distribution(changes.every, .duration)) by "
                + "\(Describe.distribution(changes.jump, .duration)): \(d.wallClockChanges) changes in the window.\n"
        }
        if let sync = events.wallClockSync {
            md += "- The wall clock is corrected from the network: \(sync.summary). In the window "
                + "\(d.wallClockSteps) corrections set it (the uptime fix does not follow those) and \(d.wallClockSlews) slewed it.\n"
        }
        if let t = events.tampering {
            md += "- \(Format.percent(t.share, 1)) of players move the wall clock forward by \(Describe.distribution(t.advance, .duration)) "
                + "at \(Describe.distribution(t.at, .duration)): \(d.tamperings) in the window.\n"
        }
        md += "\n| figure | value |\n|---|---|\n"
        md += "| transition shows more than 1 s early (all players) | \(Format.percent(f[Figure.earlyShowShare.key] ?? nil, 3)) of \(d.shows) |\n"
        if events.tampering != nil {
            md += "| tamperers' shows more than 1 s early | \(Format.percent(f[Figure.tamperEarlyShowShare.key] ?? nil, 2)) of \(d.tamperShows) |\n"
            md += "| tamperers' head start (displayed − true) mean / max | \(Format.humanMs(f[Figure.tamperHeadStartMsMean.key] ?? nil)) / "
                + "\(Format.humanMs(f[Figure.tamperHeadStartMsMax.key] ?? nil)) over \(d.tamperSamples) samples |\n"
        }
        return md
    }

    /// `"deviceEvents": {…}` for summary.json, or nil when no event is switched on.
    public static func summaryLine(_ r: RunResult) -> String? {
        guard r.scenario.devices.events.any else { return nil }
        let f = r.figures
        // Its figures in `Figure.all`'s order, which is summary.json's.
        let figures = Figure.all.filter { $0.scope == .deviceEvents }
        return "  " + SummaryJSON.members(figures) { SummaryJSON.value(of: $0, in: f) }.joined(separator: ", ")
    }
}
