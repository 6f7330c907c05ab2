import Testing
@testable import SyncLab
import SyncLabKernel

/// `client.syncAt`: reading the clock when the response headers arrive takes the file's transfer
/// time out of the path NTP has to assume symmetric. Derived by hand with constant delays.
@Suite struct SyncReadingTests {
    /// Uplink 40 ms, downlink 60 ms, no service time, 100 kB/s both ways, exact (1 ns) stamps, a
    /// perfect continuous clock. The request's 400 bytes take 4 ms to leave, so the way up takes
    /// 44 ms; the way down takes 60 ms plus X, the transfer of what the client waits for. NTP's
    /// offset is off by half the difference: (44 − 60 − X)/2 ms = −8 ms − X/2.
    @Test(arguments: [SyncReadingInstant.downloadComplete, .responseHeaders])
    func ntpErrorIsHalfTheAsymmetryOfWhatIsWaitedFor(_ instant: SyncReadingInstant) {
        var s = WorldExactTests.scenario(clock: ContinuousDeviceClock(), duration: 20 * .minute)
        s.links[0].bandwidth = .constant(100_000)
        s.server.timestampResolution = 1
        s.client.estimator = NTPEstimator(window: 1)   // the last exchange: its file is the one held
        s.client.syncReading = instant
        var world = World(scenario: s)
        _ = world.run()
        let c = world.clients[0]
        #expect(c.hasSync)
        let bytes = world.server.store.files[Int(c.file)].responseBytes
        let waited = instant == .responseHeaders ? s.server.file.headerBytes : bytes
        let transfer = LinkProfile.transferTime(bytes: waited, bytesPerSecond: 100_000)
        let r = c.anchor.reading
        let error = c.anchor.serverTime(at: r) - (r.ns + c.device.bootTime.ns)
        #expect(error == (44 * .millisecond - 60 * .millisecond - transfer) / 2)
        if instant == .responseHeaders { #expect(error == -9_500_000) }   // 300 header bytes: 3 ms
    }
}
