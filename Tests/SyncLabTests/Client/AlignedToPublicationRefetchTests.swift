import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct AlignedToPublicationRefetchTests {
    /// Unix 2012-02-08T18:00:00.371Z: minute boundaries of unix time fall at server time
    /// 59.629 s + k min, so publications (10 s later) at 9.629 s + k min.
    static let epochUnix: Int64 = 1_328_724_000_371_000_000

    @Test func publicationInstantsAreUnixMinuteBoundariesPlusTheLag() {
        let p = AlignedToPublicationRefetch()
        #expect(p.name == "aligned-to-publication")
        #expect(p.publication(atOrAfter: 0, epochUnix: Self.epochUnix) == 9_629 * .millisecond)
        #expect(p.publication(atOrAfter: 9_629 * .millisecond, epochUnix: Self.epochUnix) == 9_629 * .millisecond)
        #expect(p.publication(atOrAfter: 9_629 * .millisecond + 1, epochUnix: Self.epochUnix) == 69_629 * .millisecond)
        #expect(p.publication(atOrAfter: 460 * .second, epochUnix: Self.epochUnix) == 489_629 * .millisecond)
    }

    /// Load at estimated server time 100 s (reading 1000 s): 6 min later is 460 s; the first
    /// publication at or after it is 489.629 s, which the anchor puts
    /// at reading 1000 s + 389.629 s (window 0: the one draw is always 0).
    @Test func dueByHand() {
        let p = AlignedToPublicationRefetch(window: 0)
        let load = LoadContext(loadedAt: ClockReading(ns: 1_000 * .second),
                               anchor: SyncAnchor(serverTime: 100 * .second, reading: ClockReading(ns: 1_000 * .second)),
                               epochUnix: Self.epochUnix)
        var rng = RandomStream(seed: 1, purpose: StreamPurpose("test-aligned-refetch"))
        #expect(p.refetchDue(after: load, &rng) == ClockReading(ns: 1_389_629 * .millisecond))
    }

    /// The random offset is one unbiased draw over the window's whole nanoseconds.
    @Test func offsetIsOneUniformDraw() {
        let p = AlignedToPublicationRefetch(window: 30 * .second)
        var rng = RandomStream(seed: 2, purpose: StreamPurpose("test-aligned-refetch"))
        var mirror = rng
        for i in 0..<200 {
            let anchor = SyncAnchor(serverTime: Int64(i) * 7 * .second, reading: ClockReading(ns: 5 * .second))
            let load = LoadContext(loadedAt: ClockReading(ns: 5 * .second), anchor: anchor, epochUnix: Self.epochUnix)
            let due = p.refetchDue(after: load, &rng)
            let publication = p.publication(atOrAfter: anchor.serverTime + 6 * .minute, epochUnix: Self.epochUnix)
            #expect(due == anchor.reading(atServerTime: publication + Int64(mirror.below(30_000_000_001))))
            let wait = due - load.loadedAt
            #expect(wait >= 6 * .minute && wait < 7 * .minute + 30 * .second)
        }
    }

    /// The seeds' policy through the new protocol: due = load reading + the same single draw.
    @Test func uniformAfterLoadDrawsAreUnchanged() {
        let u = UniformWindowRefetch()
        var a = RandomStream(seed: 3, purpose: StreamPurpose("test-uniform-refetch")), b = a
        for i in 0..<100 {
            let load = LoadContext(loadedAt: ClockReading(ns: Int64(i) * .minute),
                                   anchor: SyncAnchor(serverTime: 0, reading: ClockReading(ns: 0)), epochUnix: Self.epochUnix)
            #expect(u.refetchDue(after: load, &a) == load.loadedAt + u.delayAfterLoad(&b))
        }
        #expect(a == b)
    }
}
