/// A binary min-heap of events ordered by (time, sequence): the reference pending-event set,
/// and the far-future store of `EventQueue`.
///
/// The sequence number is assigned at scheduling, so events due at the same instant come out in
/// the order they were scheduled and a run never depends on heap internals (a heap alone is not
/// stable on ties). Entries are small value types: an event is data, never a closure.
public struct BinaryHeapQueue<Payload> {
    @usableFromInline struct Entry {
        @usableFromInline var time: Int64
        @usableFromInline var sequence: UInt64
        @usableFromInline var payload: Payload
        @inlinable init(time: Int64, sequence: UInt64, payload: Payload) {
            self.time = time; self.sequence = sequence; self.payload = payload
        }
        @inlinable func precedes(_ other: Entry) -> Bool {
            time != other.time ? time < other.time : sequence < other.sequence
        }
    }

    @usableFromInline var heap: [Entry] = []
    @usableFromInline var nextSequence: UInt64 = 0

    public init(capacity: Int = 0) { heap.reserveCapacity(capacity) }

    public var count: Int { heap.count }
    public var isEmpty: Bool { heap.isEmpty }
    /// Events scheduled so far (a throughput figure for benchmarks).
    public var scheduledCount: UInt64 { nextSequence }

    /// The time of the earliest pending event.
    @inlinable public var nextTime: SimTime? { heap.first.map { SimTime(ns: $0.time) } }

    /// Schedules `payload` at `time`. O(log n).
    @inlinable public mutating func schedule(_ payload: Payload, at time: SimTime) {
        insert(Entry(time: time.ns, sequence: nextSequence, payload: payload))
        nextSequence &+= 1
    }

    /// Inserts an entry that already carries its sequence number.
    /// Schedules with a caller's sequence number: ties at one time come out in its order (the
    /// queue's own numbering is not advanced).
    @inlinable public mutating func schedule(_ payload: Payload, at time: SimTime, sequence: UInt64) {
        insert(Entry(time: time.ns, sequence: sequence, payload: payload))
    }

    @inlinable mutating func insert(_ entry: Entry) {
        heap.append(entry)
        siftUp(heap.count - 1)
    }

    @inlinable var peekTime: Int64? { heap.first?.time }

    /// The payload of the entry that pops next.
    @inlinable public var peekPayload: Payload? { heap.first?.payload }

    /// Removes every event whose payload `shouldRemove` picks. The rest come out in the same
    /// order: the heap is rebuilt from them, and the (time, sequence) keys are all distinct.
    public mutating func removeAll(where shouldRemove: (Payload) -> Bool) {
        heap.removeAll { shouldRemove($0.payload) }
        guard heap.count > 1 else { return }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    @inlinable mutating func removeFirst() -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return top
    }

    /// Removes and returns the earliest event if it is due before `limit`.
    @inlinable public mutating func pop(before limit: SimTime) -> (time: SimTime, payload: Payload)? {
        guard let t = peekTime, t < limit.ns else { return nil }
        return pop()
    }

    /// Replaces the earliest event with `payload` at `time`, which takes the next sequence number:
    /// a pop and a schedule in one sift, for a set kept at a fixed size (when each worker of a
    /// pool is next free). O(log n).
    @inlinable public mutating func replaceFirst(with payload: Payload, at time: SimTime) {
        precondition(!heap.isEmpty, "no event to replace")
        heap[0] = Entry(time: time.ns, sequence: nextSequence, payload: payload)
        nextSequence &+= 1
        siftDown(0)
    }

    /// Removes and returns the earliest event. O(log n).
    @inlinable public mutating func pop() -> (time: SimTime, payload: Payload)? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return (SimTime(ns: top.time), top.payload)
    }

    @inlinable mutating func siftUp(_ start: Int) {
        var i = start
        let item = heap[i]
        while i > 0 {
            let parent = (i - 1) >> 1
            if item.precedes(heap[parent]) {
                heap[i] = heap[parent]
                i = parent
            } else { break }
        }
        heap[i] = item
    }

    @inlinable mutating func siftDown(_ start: Int) {
        var i = start
        let item = heap[i]
        let n = heap.count
        while true {
            let left = 2 * i + 1
            if left >= n { break }
            let right = left + 1
            let child = (right < n && heap[right].precedes(heap[left])) ? right : left
            if heap[child].precedes(item) {
                heap[i] = heap[child]
                i = child
            } else { break }
        }
        heap[i] = item
    }
}

extension BinaryHeapQueue: Sendable where Payload: Sendable {}
extension BinaryHeapQueue.Entry: Sendable where Payload: Sendable {}
