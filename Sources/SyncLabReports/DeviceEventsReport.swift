import SyncLab
import SyncLabKernel

/// The "Device events" section of `report.md` and the `deviceEvents` object of `summary.json`,
/// present only when the scenario switches on reboots, app kills, wall-clock changes or tampering.
public enum DeviceEventsReport {
    public static func markdown(_ r: RunResult) -> String {
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
        md += "| transition shows more than 1 s early (all players) | \(Format.percent(f["earlyShowShare"] ?? nil, 3)) of \(d.shows) |\n"
        if events.tampering != nil {
            md += "| tamperers' shows more than 1 s early | \(Format.percent(f["tamperEarlyShowShare"] ?? nil, 2)) of \(d.tamperShows) |\n"
            md += "| tamperers' head start (displayed − true) mean / max | \(Format.humanMs(f["tamperHeadStartMs.mean"] ?? nil)) / "
                + "\(Format.humanMs(f["tamperHeadStartMs.max"] ?? nil)) over \(d.tamperSamples) samples |\n"
        }
        return md
    }

    /// `"deviceEvents": {…}` for summary.json, or nil when no event is switched on.
    public static func summaryLine(_ r: RunResult) -> String? {
        guard r.scenario.devices.events.any else { return nil }
        let f = r.figures
        func num(_ key: String, _ decimals: Int) -> String {
            guard let v = f[key] ?? nil, v.isFinite else { return "null" }
            return Format.fixed(v, decimals)
        }
        let d = r.deviceEvents
        return "  \"deviceEvents\": { \"reboots\": \(d.reboots), \"rebootsWhileViewing\": \(d.rebootsWhileViewing), "
            + "\"appKills\": \(d.appKills), \"wallClockChanges\": \(d.wallClockChanges), \"tamperings\": \(d.tamperings), "
            + "\"wallClockSteps\": \(d.wallClockSteps), \"wallClockSlews\": \(d.wallClockSlews), "
            + "\"earlyShowShare\": \(num("earlyShowShare", 6)), \"tamperEarlyShowShare\": \(num("tamperEarlyShowShare", 6)), "
            + "\"tamperHeadStartMs\": { \"mean\": \(num("tamperHeadStartMs.mean", 3)), \"max\": \(num("tamperHeadStartMs.max", 3)) } }"
    }
}
