/// The pending-event set of the discrete-event loop: a calendar queue (R. Brown, "Calendar
/// queues: a fast O(1) priority queue implementation for the simulation event set problem",
/// CACM 31(10), 1988), in the bounded-window form.
///
/// Events within the next `bucketCount × bucketWidth` (about 18 min) go into a ring of ~17 ms
/// buckets, unsorted; a bucket is sorted only when the clock reaches it. The window is sized for
/// the minutes-ahead pattern: refetches 6–9 min out land in the ring directly (a 69 s window sent
/// them through the heap, which cost a quarter of a refetch-heavy run). Events further ahead
/// (visits hours out) wait in a binary heap and move into the ring as the window slides over
/// them. Wide buckets keep the ring's heads (256 KiB) in cache: at 1 ms × 2^20 buckets every
/// insert missed it, and a bucket holds only a dozen events even at a million players. An
/// occupancy bitmap skips empty buckets. Order is exactly the (time, scheduling sequence) order
/// of `BinaryHeapQueue` — equal times come out in the order they were scheduled — so swapping one
/// queue for the other never changes a run.
///
/// Storage is one pool of chunks, a bucket's events in a short list of them, owned by a buffer
/// object and copied on write, so the queue is an ordinary value with one uniqueness check per
/// operation.
public struct EventQueue<Payload> {
    @usableFromInline typealias Entry = BinaryHeapQueue<Payload>.Entry

    @usableFromInline static var widthShift: Int64 { 24 }          // 2^24 ns ≈ 16.8 ms
    @usableFromInline static var bucketCount: Int { 1 << 16 }      // 65,536 buckets ≈ 18.3 min

    @usableFromInline var ring: CalendarRing<Payload>
    /// Ring index of the current bucket, and the time its span starts (a multiple of the width).
    @usableFromInline var cursor = 0
    @usableFromInline var windowStart: Int64
    @usableFromInline var nearCount = 0
    @usableFromInline var far: BinaryHeapQueue<Payload>
    @usableFromInline var nextSequence: UInt64 = 0
    /// The scheduling sequence number of the event popped last: with its time, its place in the
    /// queue's order, for a caller that must order it against events it keeps apart.
    @usableFromInline var lastPopped: UInt64 = 0
    @inlinable public var poppedSequence: UInt64 { lastPopped }

    /// `start`: no event will be scheduled before it (the run's first instant).
    public init(capacity: Int = 0, start: SimTime = .zero) {
        windowStart = (start.ns >> EventQueue.widthShift) << EventQueue.widthShift
        ring = CalendarRing(buckets: EventQueue.bucketCount, capacity: max(capacity, 64))
        far = BinaryHeapQueue(capacity: capacity)
    }

    public var count: Int { ring.currentCount + nearCount + far.count }
    /// Events beyond the ring's window, waiting in the heap.
    @inlinable public var farCount: Int { far.count }
    public var isEmpty: Bool { count == 0 }
    /// Events scheduled so far (a throughput figure for benchmarks).
    public var scheduledCount: UInt64 { nextSequence }
    /// Buckets loaded so far: when it changes, a new batch of events is next (the caller may
    /// start loading their state, see `upcoming(_:)`).
    @usableFromInline var loads: UInt64 = 0
    public var bucketsLoaded: UInt64 { loads }

    /// The event `k` places after the next one to pop, if the bucket being drained holds it.
    @inlinable public func upcoming(_ k: Int) -> Payload? {
        k < ring.currentCount ? ring.current[ring.currentCount &- 1 &- k].payload : nil
    }

    /// Calls `body` with at most `limit` of the events in the bucket `k` ≥ 1 widths after the
    /// current one (events that far ahead still in the heap are not visited), in no promised
    /// order.
    @inlinable public func forEachInBucket(ahead k: Int, limit: Int = .max, _ body: (Payload) -> Void) {
        let b = (cursor &+ k) & (EventQueue.bucketCount &- 1)
        var chunk = ring.heads[b], count = Int(ring.fill[b])
        var visited = 0
        while chunk >= 0 && visited < limit {
            let entries = ring.entries(chunk)
            for i in 0..<min(count, limit &- visited) { body(entries[i].payload) }
            visited &+= count
            chunk = ring.header(chunk).pointee.next
            count = ring.perChunk
        }
    }

    /// Starts loading the events of the bucket `k` ≥ 1 widths after the current one.
    @inlinable public func prefetchBucket(ahead k: Int) {
        ring.prefetchChunks(of: (cursor &+ k) & (EventQueue.bucketCount &- 1))
    }

    @inlinable var width: Int64 { 1 << EventQueue.widthShift }

    /// Buckets from the window start to time `t`, or nil if `t` lies beyond the window (or the
    /// arithmetic would overflow, as for times near `Int64.max`). Negative means before it.
    @inlinable func bucketOffset(_ t: Int64) -> Int? {
        let (delta, overflow) = t.subtractingReportingOverflow(windowStart)
        if overflow { return t < windowStart ? -1 : nil }
        let offset = delta >> EventQueue.widthShift
        return offset < Int64(EventQueue.bucketCount) ? Int(offset) : nil
    }

    @inlinable mutating func uniqueRing() {
        if !isKnownUniquelyReferenced(&ring) { ring = ring.copy() }
    }

    /// Schedules `payload` at `time`. O(1) near, O(log n) far. An event earlier than the last
    /// popped one (a shard's answer after it worked ahead on other players' events) goes into the
    /// bucket being drained, in order, and comes out next.
    @inlinable public mutating func schedule(_ payload: Payload, at time: SimTime) {
        uniqueRing()
        place(Entry(time: time.ns, sequence: nextSequence, payload: payload))
        nextSequence &+= 1
    }

    /// Takes the next scheduling sequence number for an event whose time is known now but which
    /// is scheduled later in the same step, or handled at once instead: scheduled with it
    /// (`schedule(_:at:sequence:)`), the event keeps the place among equal times it would have had.
    @inlinable public mutating func reserveSequence() -> UInt64 {
        defer { nextSequence &+= 1 }
        return nextSequence
    }

    /// Schedules `payload` at `time` with a sequence number taken by `reserveSequence`.
    @inlinable public mutating func schedule(_ payload: Payload, at time: SimTime, sequence: UInt64) {
        uniqueRing()
        place(Entry(time: time.ns, sequence: sequence, payload: payload))
    }

    @inlinable mutating func place(_ entry: Entry) {
        guard let offset = bucketOffset(entry.time) else {
            far.insert(entry)
            return
        }
        if offset <= 0 {
            ring.insertCurrent(entry)      // the bucket being drained (kept sorted)
        } else {
            ring.append(entry, to: (cursor &+ offset) & (EventQueue.bucketCount &- 1))
            nearCount &+= 1
        }
    }

    /// Drops the events beyond the ring's window whose payload `isCancelled` picks; the rest keep
    /// their order. An event cancelled by its owner is otherwise dropped only when its time
    /// comes: in the ring that is minutes away, in the heap it may be days, and cancelled events
    /// could pile up there without bound.
    public mutating func removeFar(where isCancelled: (Payload) -> Bool) {
        far.removeAll(where: isCancelled)
    }

    /// The earliest pending event's time (inlinable: a shard reads it after every event).
    @inlinable public var nextTime: SimTime? {
        if let t = ring.currentFirstTime { return SimTime(ns: t) }
        if nearCount > 0 {
            let index = (cursor + ring.stepsToOccupied(from: cursor)) & (EventQueue.bucketCount - 1)
            return ring.minimumTime(in: index).map(SimTime.init(ns:))
        }
        return far.peekTime.map(SimTime.init(ns:))
    }

    /// The same, loading the next bucket first when the one being drained is empty, as the next
    /// pop would: its time is then the bucket's first, where `nextTime` scans the bucket for it.
    /// For a caller that asks after every event (a shard publishing its clock) and pops next:
    /// the bucket is sorted once instead of scanned, then sorted. Events scheduled meanwhile
    /// before the loaded bucket join it in order (`place`), so the order of pops is the same.
    @inlinable public mutating func loadingNextTime() -> SimTime? {
        uniqueRing()
        if ring.currentCount == 0 && !advance() { return nil }
        return ring.currentFirstTime.map(SimTime.init(ns:))
    }

    /// Removes and returns the earliest event.
    @inlinable public mutating func pop() -> (time: SimTime, payload: Payload)? {
        uniqueRing()
        if ring.currentCount == 0 && !advance() { return nil }
        let e = ring.removeCurrent()
        lastPopped = e.sequence
        return (SimTime(ns: e.time), e.payload)
    }

    /// Removes and returns the earliest event if it is due before `limit`; otherwise leaves it.
    @inlinable public mutating func pop(before limit: SimTime) -> (time: SimTime, payload: Payload)? {
        uniqueRing()
        if ring.currentCount == 0 && !advance() { return nil }
        guard let first = ring.currentFirstTime, first < limit.ns else { return nil }
        let e = ring.removeCurrent()
        lastPopped = e.sequence
        return (SimTime(ns: e.time), e.payload)
    }

    /// The earliest event if it is due before `limit`, left in the queue.
    @inlinable public mutating func peek(before limit: SimTime) -> (time: SimTime, payload: Payload)? {
        uniqueRing()
        if ring.currentCount == 0 && !advance() { return nil }
        guard let first = ring.currentFirstTime, first < limit.ns else { return nil }
        let e = ring.current[ring.currentCount &- 1]
        return (SimTime(ns: e.time), e.payload)
    }

    /// Moves the window to the next bucket holding events and loads it; false when none remain.
    @inlinable mutating func advance() -> Bool {
        while ring.currentCount == 0 {
            if nearCount == 0 {
                guard let first = far.peekTime else { return false }
                // Nothing near: jump the window to the next far event.
                windowStart = (first >> EventQueue.widthShift) << EventQueue.widthShift
            } else {
                let steps = ring.stepsToOccupied(from: cursor)
                cursor = (cursor &+ steps) & (EventQueue.bucketCount &- 1)
                windowStart &+= Int64(steps) &* width
            }
            // Far events the window now covers move into their buckets.
            while let t = far.peekTime, bucketOffset(t) != nil {
                place(far.removeFirst())
            }
            nearCount &-= ring.load(cursor)
            loads &+= 1
            if ring.currentCount == 0 && nearCount == 0 && !far.isEmpty && bucketOffset(far.peekTime!) == nil {
                // A time the window cannot reach without overflowing: serve it from the heap.
                ring.pushCurrentRaw(far.removeFirst())
            }
        }
        return true
    }
}

/// The storage of `EventQueue`: a pool of chunks, each a cache-line-aligned block holding a few
/// entries of one bucket, chained per bucket, plus the sorted current bucket. Only `EventQueue`
/// writes to it. New entries fill the bucket's newest chunk, in no particular order; `load`
/// sorts them.
///
/// Chunks, not one node per entry: at a million players the buckets' entries were written
/// minutes apart to scattered nodes, and loading a bucket walked them one cache miss after the
/// other (a tenth of the run). A chunk's entries share its lines, and a bucket of 40 events is
/// six chunks to walk.
@usableFromInline final class CalendarRing<Payload> {
    @usableFromInline typealias Entry = BinaryHeapQueue<Payload>.Entry
    /// A chunk's first bytes: the next (older) chunk of its bucket, -1 if none. Every chunk but
    /// a bucket's newest is full; the newest holds `fill[bucket]` entries.
    @usableFromInline struct Header {
        @usableFromInline var next: Int32
        @inlinable init(next: Int32) { self.next = next }
    }

    @usableFromInline let buckets: Int
    /// Bytes per chunk (whole cache lines), where its entries start, and how many it holds.
    @usableFromInline let chunkBytes: Int
    @usableFromInline let entryOffset: Int
    @usableFromInline let perChunk: Int
    @exclusivity(unchecked) @usableFromInline var pool: UnsafeMutableRawPointer
    @exclusivity(unchecked) @usableFromInline var capacity: Int
    @exclusivity(unchecked) @usableFromInline var used = 0
    @exclusivity(unchecked) @usableFromInline var freeHead: Int32 = -1
    /// Per bucket, its newest chunk (the one being filled), -1 if the bucket is empty, and how
    /// many entries that chunk holds: kept here, not in the chunk, so an append into a chunk
    /// written minutes ago only stores to it (a read there would wait for a cache miss).
    @usableFromInline let heads: UnsafeMutablePointer<Int32>
    @usableFromInline let fill: UnsafeMutablePointer<UInt8>
    @usableFromInline let occupied: UnsafeMutablePointer<UInt64>
    /// The bucket being drained, sorted descending (next event last).
    @exclusivity(unchecked) @usableFromInline var current: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) @usableFromInline var currentCount = 0
    @exclusivity(unchecked) @usableFromInline var currentCapacity = 64

    /// `capacity`: entries expected at once (the pool grows beyond it when needed).
    @usableFromInline init(buckets: Int, capacity: Int) {
        self.buckets = buckets
        entryOffset = max(MemoryLayout<Header>.stride, MemoryLayout<Entry>.alignment)
        // About four lines per chunk: long enough that a busy bucket is a few chunks, short
        // enough that an idle one (one event) costs little to load.
        perChunk = max(1, (256 - entryOffset) / MemoryLayout<Entry>.stride)
        chunkBytes = (entryOffset + perChunk * MemoryLayout<Entry>.stride + 63) & ~63
        // Full chunks for the expected entries, plus one partly filled chunk per occupied bucket.
        self.capacity = max(16, capacity / perChunk + min(buckets, capacity))
        pool = LargeBlock.allocate(byteCount: self.capacity * chunkBytes, alignment: 64)
        heads = .allocate(capacity: buckets)
        heads.initialize(repeating: -1, count: buckets)
        fill = .allocate(capacity: buckets)
        fill.initialize(repeating: 0, count: buckets)
        occupied = .allocate(capacity: buckets / 64)
        occupied.initialize(repeating: 0, count: buckets / 64)
        current = .allocate(capacity: currentCapacity)
    }

    deinit {
        for b in 0..<buckets {
            forEachChunk(of: b) { entries, count in entries.deinitialize(count: count) }
        }
        current.deinitialize(count: currentCount)
        pool.deallocate(); heads.deallocate(); fill.deallocate(); occupied.deallocate(); current.deallocate()
    }

    /// An independent copy (copy-on-write of `EventQueue`).
    @usableFromInline func copy() -> CalendarRing {
        let c = CalendarRing(buckets: buckets, capacity: capacity * perChunk)
        for b in 0..<buckets {
            forEachChunk(of: b) { entries, count in
                for i in 0..<count { c.append(entries[i], to: b) }
            }
        }
        for i in 0..<currentCount { c.pushCurrentRaw(current[i]) }
        return c
    }

    /// Calls `body` with each chunk of bucket `b`, newest first, and how many entries it holds.
    func forEachChunk(of b: Int, _ body: (UnsafeMutablePointer<Entry>, Int) -> Void) {
        var chunk = heads[b], count = Int(fill[b])
        while chunk >= 0 {
            body(entries(chunk), count)
            chunk = header(chunk).pointee.next
            count = perChunk
        }
    }

    @inlinable func header(_ chunk: Int32) -> UnsafeMutablePointer<Header> {
        (pool + (Int(chunk) &* chunkBytes)).assumingMemoryBound(to: Header.self)
    }

    @inlinable func entries(_ chunk: Int32) -> UnsafeMutablePointer<Entry> {
        (pool + (Int(chunk) &* chunkBytes &+ entryOffset)).assumingMemoryBound(to: Entry.self)
    }

    @inlinable var currentFirstTime: Int64? { currentCount > 0 ? current[currentCount - 1].time : nil }

    /// A fresh chunk (recently freed ones first: their lines are likely still in cache).
    @inlinable func allocateChunk() -> Int32 {
        if freeHead >= 0 {
            let chunk = freeHead
            freeHead = header(chunk).pointee.next
            return chunk
        }
        if used == capacity { grow() }
        let chunk = Int32(used)
        (pool + (used &* chunkBytes)).bindMemory(to: Header.self, capacity: 1)
        (pool + (used &* chunkBytes &+ entryOffset)).bindMemory(to: Entry.self, capacity: perChunk)
        used &+= 1
        return chunk
    }

    @usableFromInline func grow() {
        let newCapacity = capacity * 2
        let bigger = LargeBlock.allocate(byteCount: newCapacity * chunkBytes, alignment: 64)
        // Entries are moved bitwise (every Swift value may be); the old block is then freed
        // without deinitializing them.
        bigger.copyMemory(from: pool, byteCount: used * chunkBytes)
        for k in 0..<used {
            (bigger + k * chunkBytes).bindMemory(to: Header.self, capacity: 1)
            (bigger + k * chunkBytes + entryOffset).bindMemory(to: Entry.self, capacity: perChunk)
        }
        pool.deallocate()
        pool = bigger
        capacity = newCapacity
    }

    @inlinable func append(_ entry: Entry, to bucket: Int) {
        var chunk = heads[bucket]
        if chunk < 0 || Int(fill[bucket]) == perChunk {
            let fresh = allocateChunk()
            header(fresh).initialize(to: Header(next: chunk))
            heads[bucket] = fresh
            fill[bucket] = 0
            chunk = fresh
        }
        (entries(chunk) + Int(fill[bucket])).initialize(to: entry)
        fill[bucket] &+= 1
        occupied[bucket >> 6] |= 1 << UInt64(bucket & 63)
    }

    /// Moves bucket `b` into the current, sorted; returns how many events it held.
    @inlinable func load(_ b: Int) -> Int {
        var chunk = heads[b], n = Int(fill[b])
        var moved = 0
        while chunk >= 0 {
            let h = header(chunk)
            let next = h.pointee.next
            if next >= 0 { prefetchChunk(next) }
            if currentCount &+ n > currentCapacity { growCurrent(to: currentCount &+ n) }
            (current + currentCount).moveInitialize(from: entries(chunk), count: n)
            currentCount &+= n
            moved &+= n
            h.pointee.next = freeHead
            freeHead = chunk
            chunk = next
            n = perChunk
        }
        heads[b] = -1
        occupied[b >> 6] &= ~(1 << UInt64(b & 63))
        if moved > 1 { sortCurrent() }
        return moved
    }

    /// Sorts the current bucket, descending (next event last). A bucket holds a handful of
    /// events: an insertion sort in place, without the library sort's general machinery (which
    /// was a fortieth of a run at a million players); a long bucket takes the library sort.
    @inlinable func sortCurrent() {
        if currentCount > 32 {
            var all = UnsafeMutableBufferPointer(start: current, count: currentCount)
            all.sort { $1.precedes($0) }
            return
        }
        var i = 1
        while i < currentCount {
            let entry = (current + i).move()
            var j = i
            while j > 0 && current[j &- 1].precedes(entry) {
                (current + j).moveInitialize(from: current + (j &- 1), count: 1)
                j &-= 1
            }
            (current + j).initialize(to: entry)
            i &+= 1
        }
    }

    @inlinable func prefetchChunk(_ chunk: Int32) {
        let p = UnsafeRawPointer(pool + (Int(chunk) &* chunkBytes))
        var offset = 0
        while offset < chunkBytes {
            prefetchCacheLine(p + offset)
            offset &+= 64
        }
    }

    /// Starts loading the newest chunk of bucket `b` (the rest follow as `load` walks them).
    @inlinable func prefetchChunks(of b: Int) {
        let chunk = heads[b]
        if chunk >= 0 { prefetchChunk(chunk) }
    }

    @inlinable func pushCurrentRaw(_ entry: Entry) {
        if currentCount == currentCapacity { growCurrent(to: currentCount &+ 1) }
        (current + currentCount).initialize(to: entry)
        currentCount &+= 1
    }

    @usableFromInline func growCurrent(to needed: Int) {
        var newCapacity = currentCapacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let bigger = UnsafeMutablePointer<Entry>.allocate(capacity: newCapacity)
        bigger.moveInitialize(from: current, count: currentCount)
        current.deallocate()
        current = bigger
        currentCapacity = newCapacity
    }

    /// Inserts into the sorted current bucket; ties go after the earlier-scheduled ones.
    @inlinable func insertCurrent(_ entry: Entry) {
        if currentCount == currentCapacity { growCurrent(to: currentCount &+ 1) }
        var lo = 0, hi = currentCount
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if current[mid].precedes(entry) { hi = mid } else { lo = mid &+ 1 }
        }
        (current + lo + 1).moveInitialize(from: current + lo, count: currentCount &- lo)
        (current + lo).initialize(to: entry)
        currentCount &+= 1
    }

    @inlinable func removeCurrent() -> Entry {
        currentCount &-= 1
        return (current + currentCount).move()
    }

    /// Buckets from `cursor` to the next occupied one (0 if the cursor's own is occupied).
    @inlinable func stepsToOccupied(from cursor: Int) -> Int {
        var index = cursor
        var steps = 0
        while steps < buckets {
            let word = occupied[index >> 6] >> UInt64(index & 63)
            if word != 0 { return steps &+ word.trailingZeroBitCount }
            let skip = 64 &- (index & 63)
            steps &+= skip
            index = (index &+ skip) & (buckets &- 1)
        }
        return buckets
    }

    @usableFromInline func minimumTime(in b: Int) -> Int64? {
        var best: Int64? = nil
        forEachChunk(of: b) { entries, count in
            for i in 0..<count { best = Swift.min(best ?? .max, entries[i].time) }
        }
        return best
    }
}
