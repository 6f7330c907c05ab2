import Testing
@testable import SyncLab
import SyncLabKernel

/// The world calls the built-in estimators through `BuiltInEstimator`: every answer must be the
/// same bits as through the protocol, over many random exchanges.
@Suite struct BuiltInEstimatorTests {
    static func samples(_ n: Int) -> [SyncSample] {
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("built-in-estimator"))
        return (0..<n).map { _ in
            let sent = Int64(rng.below(1 << 40))
            let upload = sent + Int64(rng.below(50_000_000))
            let done = upload + Int64(rng.below(3_000_000_000))
            let stamp = Int64(rng.below(1 << 45)) - (1 << 44)
            return SyncSample(serverTimestamp: stamp, requestSent: ClockReading(ns: sent),
                              uploadComplete: ClockReading(ns: upload), downloadComplete: ClockReading(ns: done),
                              serverTransmit: stamp + Int64(rng.below(20_000_000)))
        }
    }

    @Test(arguments: [0, 1, 2])
    func sameAnswersAsThroughTheProtocol(which: Int) {
        let plugin: any SyncEstimator = [UploadCompleteEstimator(), CristianEstimator(), NTPEstimator(window: 3)][which]
        let builtIn = BuiltInEstimator(plugin)!
        let model = BoundModel(serverResolution: .second, clockResolution: 1, maxDriftPPB: 50_000)
        #expect(builtIn.name == plugin.name && builtIn.memoryWords == plugin.memoryWords)
        var a = [Int64](repeating: 0, count: plugin.memoryWords), b = a
        for s in Self.samples(500) {
            #expect(builtIn.anchor(for: s) == plugin.anchor(for: s))
            #expect(builtIn.halfWidth(for: s, model) == plugin.halfWidth(for: s, model))
            let x = a.withUnsafeMutableBufferPointer { builtIn.estimate(for: s, memory: $0, model) }
            let y = b.withUnsafeMutableBufferPointer { plugin.estimate(for: s, memory: $0, model) }
            #expect(x == y)
        }
        #expect(a == b)   // the filter memory evolved the same way
    }

    @Test func anAppTeamsEstimatorHasNoCase() {
        struct Own: SyncEstimator {
            var name: String { "own" }
            func anchor(for s: SyncSample) -> SyncAnchor { SyncAnchor(serverTime: s.serverTimestamp, reading: s.downloadComplete) }
        }
        #expect(BuiltInEstimator(Own()) == nil)
    }

    /// A reference clock's anchor kept as one offset reads the same server time as the anchor,
    /// also where the arithmetic wraps.
    @Test func shadowAnchorOffsetIsExact() {
        let cases: [(Int64, Int64, Int64)] = [(0, 0, 0), (5, 3, 10), (-7_000_000_000, 123_456_789, 987_654_321),
                                              (.max, .min, 1), (.min, .max, .max), (1 << 62, -(1 << 62), 1 << 62)]
        for (serverTime, reading, r) in cases {
            let anchor = SyncAnchor(serverTime: serverTime, reading: ClockReading(ns: reading))
            #expect(ShadowAnchor(anchor).serverTime(at: ClockReading(ns: r)) == anchor.serverTime(at: ClockReading(ns: r)))
        }
    }
}
