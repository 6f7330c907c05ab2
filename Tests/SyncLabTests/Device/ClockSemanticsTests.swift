import Testing
@testable import SyncLab
import SyncLabKernel

/// The model side of docs/clocks.md: for each clock kind, whether it counts through deep sleep
/// and whether it moves when the wall clock is set, on one scripted device, readings by hand.
///
/// The device booted 1 h before true time zero, with a perfect oscillator and a correct wall
/// clock; it sleeps from 1 h to 1 h 10 min; at 2 h the user sets the wall clock 1 h forward.
@Suite struct ClockSemanticsTests {
    static let epochUnix: Int64 = 1_700_000_000 * .second
    static let context = ClockContext(epochUnix: epochUnix)
    static let sleep: Int64 = 10 * .minute
    static let jump: Int64 = .hour

    struct Row {
        let clock: any DeviceClock
        let kind: String
        let countsInSleep: Bool
        let followsWallSet: Bool
        /// Reading at 3 h, after the sleep and the wall-clock change.
        let finalReading: Int64
    }

    // Since boot at 3 h: 4 h of true time, 10 min of it asleep; the wall clock reads 1 h ahead.
    static let rows: [Row] = [
        Row(clock: SuspendingDeviceClock(), kind: "suspending", countsInSleep: false, followsWallSet: false,
            finalReading: 4 * .hour - 10 * .minute),
        Row(clock: ContinuousDeviceClock(), kind: "continuous", countsInSleep: true, followsWallSet: false,
            finalReading: 4 * .hour),
        // time(now) − KERN_BOOTTIME: the OS shifts the boot time with the wall clock.
        Row(clock: BootTimeUptimeClock(), kind: "uptime", countsInSleep: true, followsWallSet: false,
            finalReading: 4 * .hour),
        Row(clock: BootTimeUptimeClock(resolution: .microsecond), kind: "uptime", countsInSleep: true, followsWallSet: false,
            finalReading: 4 * .hour),
        // wall − the boot time recorded at boot: the change shows.
        Row(clock: WallUptimeClock(), kind: "uptime-wall", countsInSleep: true, followsWallSet: true,
            finalReading: 5 * .hour),
        Row(clock: WallClock(), kind: "wall", countsInSleep: true, followsWallSet: true,
            finalReading: epochUnix + 4 * .hour),
    ]

    @Test(arguments: 0..<rows.count)
    func sleepAndWallClockChange(row index: Int) {
        let row = Self.rows[index]
        let clock = row.clock
        var device = DeviceState(driftPPB: 0, wallOffset: 0, bootTime: SimTime(ns: -Int64.hour), epochUnix: Self.epochUnix)
        func read(_ t: Int64) -> Int64 { clock.reading(device, at: SimTime(ns: t), Self.context).ns }

        let beforeSleep = read(.hour)
        device.fallAsleep(at: SimTime(ns: .hour))
        device.wake(at: SimTime(ns: .hour + Self.sleep))
        let afterSleep = read(.hour + Self.sleep)
        #expect(afterSleep - beforeSleep == (row.countsInSleep ? Self.sleep : 0))
        #expect(clock.pausesInDeepSleep == !row.countsInSleep)

        let beforeSet = read(2 * .hour)
        device.moveWallClock(by: Self.jump)
        let afterSet = read(2 * .hour)
        #expect(afterSet - beforeSet == (row.followsWallSet ? Self.jump : 0))

        #expect(read(3 * .hour) == row.finalReading)
    }

    /// Every clock kind a scenario can name has a row.
    @Test func everyClockKindHasARow() {
        let kinds = PluginRegistry.builtIn.kinds(of: .clock).map { $0.kind }
        #expect(Set(kinds) == Set(Self.rows.map(\.kind)))
        for row in Self.rows { #expect((row.clock as? any Plugin)?.summary != nil) }
    }
}
