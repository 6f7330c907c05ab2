import Testing
import SyncLabKernel

private func drain<P>(_ q: inout EventQueue<P>) -> [(time: Int64, payload: P)] {
    var out: [(time: Int64, payload: P)] = []
    while let e = q.pop() { out.append((e.time.ns, e.payload)) }
    return out
}

@Suite("EventQueue ordering and bookkeeping")
struct EventQueueTests {

    @Test("An empty queue")
    func empty() {
        var q = EventQueue<Int>(capacity: 64)
        #expect(q.isEmpty)
        #expect(q.count == 0)
        #expect(q.nextTime == nil)
        #expect(q.scheduledCount == 0)
        #expect(q.pop() == nil)
        #expect(q.scheduledCount == 0)
    }

    @Test("Events pop in time order")
    func popsInTimeOrder() {
        var q = EventQueue<String>()
        let times: [Int64] = [50, 10, 40, -20, 30, 0, 20]
        for t in times { q.schedule("e\(t)", at: SimTime(ns: t)) }
        #expect(q.count == times.count)
        #expect(q.nextTime == SimTime(ns: -20))
        #expect(q.scheduledCount == UInt64(times.count))
        let out = drain(&q)
        #expect(out.map(\.time) == times.sorted())
        #expect(out.map(\.payload) == times.sorted().map { "e\($0)" })
        #expect(q.isEmpty)
        #expect(q.scheduledCount == UInt64(times.count))
    }

    @Test("Extreme times order correctly")
    func extremeTimes() {
        var q = EventQueue<Int>()
        q.schedule(1, at: SimTime(ns: Int64.max))
        q.schedule(2, at: SimTime(ns: 0))
        q.schedule(3, at: SimTime(ns: Int64.min))
        q.schedule(4, at: SimTime(ns: -1))
        q.schedule(5, at: SimTime(ns: Int64.max))
        #expect(drain(&q).map(\.payload) == [3, 4, 2, 1, 5])
    }

    @Test("Equal times pop in insertion order (1000 events, many ties)")
    func tiesPopInInsertionOrder() {
        var rng = RandomStream(seed: 77, purpose: StreamPurpose("queue-ties"))
        var q = EventQueue<Int>()
        var scheduled: [(time: Int64, index: Int)] = []
        for i in 0..<1000 {
            let t = Int64(rng.below(25)) * Nanoseconds.millisecond     // ~40 events per instant
            q.schedule(i, at: SimTime(ns: t))
            scheduled.append((t, i))
        }
        // A stable sort by time: ties broken by the original index.
        let expected = scheduled.sorted { $0.time != $1.time ? $0.time < $1.time : $0.index < $1.index }
        let out = drain(&q)
        #expect(out.map(\.time) == expected.map(\.time))
        #expect(out.map(\.payload) == expected.map(\.index))
    }

    @Test("An event scheduled with a reserved sequence number takes the place among equal times it had when reserved")
    func reservedSequenceKeepsItsPlace() {
        // One instant in the bucket being drained, one in the ring ahead, one in the far heap.
        for t in [Int64(0), 5 * Nanoseconds.second, 3 * Nanoseconds.hour] {
            var q = EventQueue<String>()
            q.schedule("first", at: SimTime(ns: t))
            let reserved = q.reserveSequence()
            q.schedule("third", at: SimTime(ns: t))
            #expect(q.scheduledCount == 3)
            q.schedule("second", at: SimTime(ns: t), sequence: reserved)
            #expect(q.scheduledCount == 3, "a reserved number is counted once")
            #expect(drain(&q).map(\.payload) == ["first", "second", "third"], "at \(t) ns")
        }
        // Reserved while the current bucket drains: it still goes before later-scheduled ties.
        var q = EventQueue<String>()
        q.schedule("a", at: SimTime(ns: 10))
        q.schedule("b", at: SimTime(ns: 20))
        #expect(q.pop()?.payload == "a")
        let reserved = q.reserveSequence()
        q.schedule("d", at: SimTime(ns: 20))
        q.schedule("c", at: SimTime(ns: 20), sequence: reserved)
        #expect(drain(&q).map(\.payload) == ["b", "c", "d"])
    }

    @Test("peek(before:) shows the event pop(before:) would take, from the ring or the far heap, and leaves it")
    func peekLeavesTheEvent() {
        var q = EventQueue<String>()
        q.schedule("ring", at: SimTime(ns: 30 * Nanoseconds.second))
        q.schedule("far", at: SimTime(ns: 2 * Nanoseconds.hour))
        #expect(q.peek(before: SimTime(ns: 30 * Nanoseconds.second)) == nil, "not before its own instant")
        for _ in 0..<2 { #expect(q.peek(before: SimTime(ns: .max))?.payload == "ring") }
        #expect(q.count == 2)
        #expect(q.pop(before: SimTime(ns: .max))?.payload == "ring")
        #expect(q.peek(before: SimTime(ns: .max)).map { ($0.time.ns, $0.payload) } ?? (0, "") == (2 * Nanoseconds.hour, "far"))
        #expect(q.pop()?.payload == "far" && q.peek(before: SimTime(ns: .max)) == nil)
    }

    @Test("An event filed earlier than events already popped (a shard working ahead) comes out next, in order")
    func anEarlierEventComesOutNext() {
        var q = EventQueue<String>()
        let second = Nanoseconds.second
        // The answer due at 1 s reserved its place; other players' events at 1.5 s and 4 s (later
        // buckets) are handled first; then the answer and its player's next event go in.
        let reserved = q.reserveSequence()
        q.schedule("other at 1.5 s", at: SimTime(ns: 3 * second / 2))
        q.schedule("other at 4 s", at: SimTime(ns: 4 * second))
        q.schedule("last at 9 s", at: SimTime(ns: 9 * second))
        #expect(q.pop()?.payload == "other at 1.5 s")
        #expect(q.pop()?.payload == "other at 4 s")
        q.schedule("answer at 1 s", at: SimTime(ns: second), sequence: reserved)
        q.schedule("response at 2 s", at: SimTime(ns: 2 * second))
        #expect(q.nextTime == SimTime(ns: second))
        #expect(drain(&q).map(\.payload) == ["answer at 1 s", "response at 2 s", "last at 9 s"])
    }

    @Test("Interleaved schedule and pop match a reference model")
    func interleaved() {
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("queue-interleaved"))
        var q = EventQueue<Int>()
        // Reference: an unsorted list, the minimum by (time, sequence) removed on each pop.
        var model: [(time: Int64, seq: Int, payload: Int)] = []
        var seq = 0
        var pops = 0
        for step in 0..<5000 {
            if model.isEmpty || rng.below(100) < 55 {
                // Times in a narrow window so ties are common; some earlier than events already popped.
                let t = Int64(rng.below(200)) - 50
                q.schedule(step, at: SimTime(ns: t))
                model.append((t, seq, step))
                seq += 1
            } else {
                let i = model.indices.min { a, b in
                    model[a].time != model[b].time ? model[a].time < model[b].time : model[a].seq < model[b].seq
                }!
                let want = model.remove(at: i)
                let got = q.pop()
                #expect(got?.time == SimTime(ns: want.time))
                #expect(got?.payload == want.payload)
                pops += 1
            }
            #expect(q.count == model.count)
            #expect(q.isEmpty == model.isEmpty)
            #expect(q.nextTime == model.map(\.time).min().map { SimTime(ns: $0) })
            #expect(q.scheduledCount == UInt64(seq))
        }
        #expect(pops > 1000)
        #expect(seq > 2000)
    }

    @Test("The queue is a value: copies evolve independently")
    func valueSemantics() {
        var a = EventQueue<Int>()
        for i in 0..<10 { a.schedule(i, at: SimTime(ns: Int64(10 - i))) }
        var b = a
        _ = b.pop()
        b.schedule(99, at: SimTime(ns: 0))
        #expect(a.count == 10)
        #expect(b.count == 10)
        #expect(a.scheduledCount == 10)
        #expect(b.scheduledCount == 11)
        #expect(drain(&a).map(\.payload) == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
        #expect(drain(&b).map(\.payload) == [99, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    }
}

/// The calendar queue must pop in exactly the binary heap's (time, sequence) order, whatever the
/// mix of near, far, tied and same-bucket events, including scheduling into the bucket being
/// drained and jumps over long empty stretches. (Mismatches are counted and asserted once, so the
/// 40,000-step walk stays fast in debug builds.)
@Suite struct CalendarQueueEquivalenceTests {
    @Test(arguments: [1 as UInt64, 2])
    func popsInHeapOrder(seed: UInt64) {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("queue-equivalence"))
        var calendar = EventQueue<Int>()
        var heap = BinaryHeapQueue<Int>()
        var now: Int64 = 0
        var label = 0
        var popped = 0, orderMismatches = 0, peekMismatches = 0, countMismatches = 0
        for step in 0..<40_000 {
            if rng.below(10) < 6 || heap.isEmpty {
                // Delays from "same instant" to "hours ahead", with many ties.
                let delay: Int64
                switch rng.below(6) {
                case 0: delay = 0
                case 1: delay = Int64(rng.below(1_000_000))                              // within ~1 ms
                case 2: delay = Int64(rng.below(5)) * 1_000_000_000                       // whole seconds: ties
                case 3: delay = Int64(rng.below(60_000_000_000))                          // within the window
                case 4: delay = 60_000_000_000 + Int64(rng.below(600_000_000_000))        // beyond it
                default: delay = Int64(rng.below(10_800_000_000_000))                     // up to 3 h
                }
                calendar.schedule(label, at: SimTime(ns: now + delay))
                heap.schedule(label, at: SimTime(ns: now + delay))
                label += 1
            } else {
                if step % 97 == 0 && calendar.nextTime != heap.nextTime { peekMismatches += 1 }
                let a = calendar.pop(), b = heap.pop()
                if a?.time != b?.time || a?.payload != b?.payload { orderMismatches += 1 }
                if let t = a?.time { now = t.ns }
                popped += 1
            }
            if calendar.count != heap.count { countMismatches += 1 }
        }
        while let b = heap.pop() {
            let a = calendar.pop()
            if a?.time != b.time || a?.payload != b.payload { orderMismatches += 1 }
        }
        #expect(orderMismatches == 0)
        #expect(peekMismatches == 0)
        #expect(countMismatches == 0)
        #expect(calendar.pop() == nil)
        #expect(popped > 10_000)
    }
}

/// `loadingNextTime` loads the next bucket when the one being drained is empty, as a shard
/// does after every event; the events scheduled before the next pop, some earlier than the
/// bucket it loaded, must still come out in the heap's (time, sequence) order.
@Suite struct LoadingNextTimeTests {
    @Test(arguments: [3 as UInt64, 4])
    func loadingEarlyKeepsTheOrder(seed: UInt64) {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("queue-loading-next-time"))
        var calendar = EventQueue<Int>()
        var heap = BinaryHeapQueue<Int>()
        var now: Int64 = 0
        var label = 0
        var popped = 0, orderMismatches = 0, timeMismatches = 0, loadedEarly = 0, beforeLoaded = 0
        // The first time of the bucket the last look loaded, until the next pop (nil: none).
        var loadedAt: Int64? = nil
        for _ in 0..<40_000 {
            // After each step, as a shard publishing its clock: the next time, loading if need be.
            defer {
                let before = calendar.bucketsLoaded
                let next = calendar.loadingNextTime()
                if next != heap.nextTime { timeMismatches += 1 }
                if calendar.bucketsLoaded != before {
                    loadedEarly += 1
                    loadedAt = next?.ns
                }
            }
            if rng.below(10) < 5 || heap.isEmpty {
                // Mostly near the last pop, so that many land before the bucket just loaded.
                let delay: Int64
                switch rng.below(5) {
                case 0: delay = 0
                case 1: delay = Int64(rng.below(1_000_000))                              // within ~1 ms
                case 2: delay = Int64(rng.below(100_000_000))                            // within 0.1 s
                case 3: delay = Int64(rng.below(60_000_000_000))                         // within the window
                default: delay = Int64(rng.below(3_600_000_000_000))                     // up to 1 h
                }
                if let first = loadedAt, now + delay < first { beforeLoaded += 1 }
                calendar.schedule(label, at: SimTime(ns: now + delay))
                heap.schedule(label, at: SimTime(ns: now + delay))
                label += 1
            } else {
                let a = calendar.pop(), b = heap.pop()
                if a?.time != b?.time || a?.payload != b?.payload { orderMismatches += 1 }
                if let t = a?.time { now = t.ns }
                popped += 1
                loadedAt = nil
            }
        }
        while let b = heap.pop() {
            let a = calendar.pop()
            if a?.time != b.time || a?.payload != b.payload { orderMismatches += 1 }
        }
        #expect(orderMismatches == 0)
        #expect(timeMismatches == 0)
        #expect(calendar.pop() == nil)
        #expect(popped > 10_000)
        // The cases under test happened: buckets loaded by the look, not by a pop, and events
        // scheduled after such a look earlier than the bucket it loaded.
        #expect(loadedEarly > 1_000)
        #expect(beforeLoaded > 100)
    }
}

/// The look-ahead the world prefetches with: it must name exactly the events that come next, and
/// reading it must change nothing.
@Suite("EventQueue look-ahead")
struct EventQueueLookaheadTests {
    @Test("upcoming(k) is the k-th next event of the bucket being drained, and pops stay in order")
    func upcomingMatchesPopOrder() {
        var q = EventQueue<Int>(capacity: 64)
        // Ten events inside one 2^24 ns bucket (ties included), and one far later.
        let times: [Int64] = [9, 3, 3, 7, 0, 1, 8, 2, 5, 3]
        for (i, t) in times.enumerated() { q.schedule(i, at: SimTime(ns: t * 1_000)) }
        q.schedule(99, at: SimTime(ns: 3_600_000_000_000))
        let first = q.pop()!
        let expected = times.enumerated().sorted { ($0.element, $0.offset) < ($1.element, $1.offset) }.map(\.offset)
        #expect(first.payload == expected[0])
        let looked = (0..<12).map { q.upcoming($0) }
        #expect(looked.prefix(9).map { $0! } == Array(expected.dropFirst()))
        #expect(looked[9] == nil && looked[10] == nil)   // the far event is in no bucket being drained
        #expect(drain(&q).map(\.payload) == Array(expected.dropFirst()) + [99])
    }

    @Test("bucketsLoaded counts loads; forEachInBucket(ahead:) visits the next bucket's events, up to a limit")
    func bucketsAhead() {
        var q = EventQueue<Int>(capacity: 64)
        let width: Int64 = 1 << 24
        for i in 0..<5 { q.schedule(i, at: SimTime(ns: Int64(i))) }                 // bucket 0
        for i in 10..<16 { q.schedule(i, at: SimTime(ns: width + Int64(i))) }       // bucket 1
        q.schedule(20, at: SimTime(ns: 2 * width))                                  // bucket 2
        #expect(q.bucketsLoaded == 0)
        _ = q.pop()
        // The window's first bucket is the current one from the start: no load yet.
        #expect(q.bucketsLoaded == 0)
        var seen: [Int] = []
        q.forEachInBucket(ahead: 1) { seen.append($0) }
        #expect(seen.sorted() == Array(10..<16))
        var limited: [Int] = []
        q.forEachInBucket(ahead: 1, limit: 4) { limited.append($0) }
        #expect(limited.count == 4 && Set(limited).isSubset(of: Set(10..<16)))
        var two: [Int] = []
        q.forEachInBucket(ahead: 2) { two.append($0) }
        #expect(two == [20])
        q.prefetchBucket(ahead: 2)   // a hint only
        #expect(drain(&q).map(\.payload) == [1, 2, 3, 4] + Array(10..<16) + [20])
        #expect(q.bucketsLoaded == 2)   // buckets 1 and 2
    }

    @Test("A bucket spread over several chunks, in a pool that grows while events are pending, keeps every event and the order")
    func bucketsOverSeveralChunks() {
        var q = EventQueue<Int>(capacity: 1)   // the smallest pool: it must grow
        let width: Int64 = 1 << 24
        q.schedule(-1, at: SimTime(ns: 0))
        // 25 events in bucket 1 (a chunk holds fewer), at times scheduled out of order.
        let times = (0..<25).map { Int64(($0 * 7) % 25) }
        for (i, t) in times.enumerated() { q.schedule(i, at: SimTime(ns: width + t)) }
        // And 200 more over the next buckets, so the pool grows with bucket 1 still pending.
        for i in 0..<200 { q.schedule(100 + i, at: SimTime(ns: 2 * width + Int64(i) * (width / 8))) }
        _ = q.pop()
        var seen: [Int] = []
        q.forEachInBucket(ahead: 1) { seen.append($0) }
        #expect(seen.sorted() == Array(0..<25))
        var limited: [Int] = []
        q.forEachInBucket(ahead: 1, limit: 12) { limited.append($0) }
        #expect(limited.count == 12 && Set(limited).count == 12 && Set(limited).isSubset(of: Set(0..<25)))
        let copy = q
        let expected = (0..<25).sorted { times[$0] < times[$1] } + Array(100..<300)
        var a = q, b = copy
        #expect(drain(&a).map(\.payload) == expected)
        #expect(drain(&b).map(\.payload) == expected)
    }
}

/// Cancelled events swept from the heap (`removeFar(where:)`, `BinaryHeapQueue.removeAll(where:)`):
/// the rest come out exactly as if the removed ones had never been scheduled.
@Suite("EventQueue sweeping of cancelled far events")
struct CancelledFarEventTests {
    /// Times with many ties, near and days ahead (the ring's window is about 18 minutes).
    static func times(_ count: Int, seed: UInt64) -> [Int64] {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("far-sweep"))
        return (0..<count).map { _ in
            rng.below(3) == 0 ? Int64(rng.below(50)) * 1_000_000_000
                : Int64(rng.below(40)) * 3_600_000_000_000 + Int64(rng.below(3)) * 1_000_000_000
        }
    }

    @Test func heapKeepsTheOrderOfTheRest() {
        let times = Self.times(3_000, seed: 1)
        var swept = BinaryHeapQueue<Int>(), reference = BinaryHeapQueue<Int>()
        for (k, t) in times.enumerated() {
            swept.schedule(k, at: SimTime(ns: t))
            if k % 3 != 0 { reference.schedule(k, at: SimTime(ns: t)) }
        }
        swept.removeAll { $0 % 3 == 0 }
        #expect(swept.count == reference.count)
        var a: [Int] = [], b: [Int] = []
        while let e = swept.pop() { a.append(e.payload) }
        while let e = reference.pop() { b.append(e.payload) }
        #expect(a == b)
        #expect(a.count == 2_000)
    }

    @Test func onlyFarEventsAreSweptAndTheRestKeepTheirOrder() {
        let times = Self.times(3_000, seed: 2)
        let window: Int64 = 18 * 60_000_000_000   // within the ring's window from time zero
        var swept = EventQueue<Int>(), reference = EventQueue<Int>()
        for (k, t) in times.enumerated() {
            swept.schedule(k, at: SimTime(ns: t))
            // The reference never had the odd far events; near ones stay in the ring either way.
            if k % 2 == 0 || t < window { reference.schedule(k, at: SimTime(ns: t)) }
        }
        let farBefore = swept.farCount
        swept.removeFar { $0 % 2 == 1 }
        #expect(farBefore > 1_000)
        #expect(swept.farCount == reference.farCount)
        #expect(swept.count == reference.count)
        #expect(swept.scheduledCount == 3_000, "the events scheduled are still counted")
        var a: [Int] = [], b: [Int] = []
        while let e = swept.pop() { a.append(e.payload) }
        while let e = reference.pop() { b.append(e.payload) }
        #expect(a == b)
        #expect(a.contains { $0 % 2 == 1 }, "odd events within the window were not swept")
    }
}
