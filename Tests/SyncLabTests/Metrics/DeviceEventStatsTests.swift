import Testing
@testable import SyncLab
import SyncLabKernel

/// The device-event figures from hand-made counts.
@Suite struct DeviceEventStatsTests {
    @Test func earlyShowsAndHeadStart() {
        var a = DeviceEventStats()
        a.shown(offset: -2 * .second, tampered: true)         // early
        a.shown(offset: -.second, tampered: true)              // exactly 1 s: not "more than"
        a.shown(offset: 300 * .millisecond, tampered: false)
        a.tamperSample(headStart: 300 * .second)
        a.tamperSample(headStart: -500 * .millisecond + 1)     // floors to −500 µs… in whole µs
        var b = DeviceEventStats()
        b.shown(offset: -5 * .minute, tampered: false)
        b.reboot(viewing: true, inWindow: true)
        b.reboot(viewing: false, inWindow: false)
        b.tamperSample(headStart: 60 * .second)
        a.merge(b)
        #expect(a.shows == 4 && a.earlyShows == 2)
        #expect(a.tamperShows == 2 && a.tamperEarlyShows == 1)
        #expect(a.reboots == 1 && a.rebootsWhileViewing == 1)
        let f = a.figures
        #expect(f["earlyShowShare"]! == 0.5)
        #expect(f["tamperEarlyShowShare"]! == 0.5)
        // (300 000 000 − 500 000 + 60 000 000) µs / 3 samples, in ms: 119 833.333…
        #expect(abs(f["tamperHeadStartMs.mean"]!! - 359_500_000.0 / 3 / 1e3) < 1e-6)
        #expect(f["tamperHeadStartMs.max"]! == 300_000)
        // Nothing measured: nil, not zero.
        #expect(DeviceEventStats().figures["tamperHeadStartMs.mean"]! == nil)
        #expect(DeviceEventStats().figures["earlyShowShare"]! == nil)
        #expect(Set(DeviceEventStats().figures.keys) == Set(DeviceEventStats.figureKeys))
    }
}
