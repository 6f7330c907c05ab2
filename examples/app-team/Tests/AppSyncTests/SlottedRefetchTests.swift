import Testing
import SyncLab
@testable import AppSync

@Suite struct SlottedRefetchTests {
    static let policy = SlottedRefetch(every: 5 * .minute)

    /// The server time at which a load at server time `loadedAt` makes the next fetch due (the
    /// clock reads 1 h then, with no rate correction).
    static func nextFetch(afterLoadAt loadedAt: Int64, _ rng: inout RandomStream) -> Int64 {
        let anchor = SyncAnchor(serverTime: loadedAt, reading: ClockReading(ns: .hour))
        let load = LoadContext(loadedAt: ClockReading(ns: .hour), anchor: anchor, epochUnix: 0)
        return anchor.serverTime(at: policy.refetchDue(after: load, &rng))
    }

    /// A load at 7 min 30 s with 5-minute slots: the next slot is [10 min, 15 min), every instant
    /// of it drawn; a load at a slot's very start still waits for the next slot.
    @Test func dueInTheNextSlot() {
        var rng = RandomStream(seed: 3, purpose: StreamPurpose("slotted"))
        var earliest = Int64.max, latest = Int64.min
        for _ in 0..<2_000 {
            let due = Self.nextFetch(afterLoadAt: 7 * .minute + 30 * .second, &rng)
            #expect(due >= 10 * .minute && due < 15 * .minute)
            (earliest, latest) = (min(earliest, due), max(latest, due))
        }
        // 2,000 uniform draws over 5 minutes come within a second of both ends.
        #expect(earliest < 10 * .minute + .second && latest > 15 * .minute - .second)
        let atStart = Self.nextFetch(afterLoadAt: 10 * .minute, &rng)
        #expect(atStart >= 15 * .minute && atStart < 20 * .minute)
        #expect(Self.policy.summary == "once in every 5m of server time, at a random point")
    }
}
