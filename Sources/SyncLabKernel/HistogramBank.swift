/// Many histograms of one layout in one block of memory: the recorder's fast path.
///
/// Recording into a `Histogram` nested in arrays of structs pays a copy-on-write check per level;
/// a bank pays none. It is a reference-type accumulator on purpose (one owner records into it);
/// `copy()` makes an independent one. Slot `i` is extracted as an ordinary `Histogram` when the
/// run ends, so results stay plain values. Banks of the same shape merge by addition.
public final class HistogramBank: @unchecked Sendable {
    public let subBits: Int
    public let slots: Int
    @usableFromInline let width: Int
    /// Per slot: `width` bucket counts, then total, the complement of the minimum, the maximum,
    /// sum low, sum high. An empty slot is all zeros (the minimum's complement is 0 for any
    /// value, and values are never negative), so a new bank is zero pages the kernel maps only
    /// where a run records (`LargeBlock.allocateZeroed`): a day's timeline of error histograms
    /// is mostly empty buckets.
    @usableFromInline let stride: Int
    @usableFromInline let storage: UnsafeMutablePointer<UInt64>

    public init(slots: Int, subBits: Int = 10) {
        self.subBits = subBits
        self.slots = slots
        width = (1 << subBits) + (64 - subBits) << (subBits - 1)
        stride = width + 5
        let count = stride * max(slots, 1)
        storage = LargeBlock.allocateZeroed(byteCount: count * MemoryLayout<UInt64>.stride)
            .bindMemory(to: UInt64.self, capacity: count)
    }

    deinit { LargeBlock.deallocateZeroed(storage, byteCount: stride * max(slots, 1) * MemoryLayout<UInt64>.stride) }

    /// An independent bank with the same contents.
    public func copy() -> HistogramBank {
        let other = HistogramBank(slots: slots, subBits: subBits)
        other.merge(self)   // into zeros: a copy that leaves the empty slots unmapped
        return other
    }

    /// Records a non-negative value (negative values count as 0) in slot `slot`.
    @inlinable @inline(__always) public func record(_ slot: Int, _ value: Int64) {
        record(slot, value, layout: subBits)
    }

    /// The same, from a caller that knows the bank's `subBits` when it is compiled: passed as a
    /// constant, the bucket's shifts and the slot's size are constants where this is inlined
    /// (half the instructions of a bucket's index).
    @inlinable @inline(__always) public func record(_ slot: Int, _ value: Int64, layout: Int) {
        // Checked in release builds too: a wrong slot or layout would write outside the bank.
        precondition(layout == subBits && UInt(bitPattern: slot) < UInt(bitPattern: slots), "histogram slot or layout out of range")
        let width = (1 &<< layout) &+ (64 &- layout) &<< (layout &- 1)
        let v = value < 0 ? 0 : value
        let base = storage + slot &* (width &+ 5)
        base[Histogram.bucketIndex(UInt64(v), subBits: layout)] &+= 1
        let stats = base + width
        stats[0] &+= 1
        // v below the minimum: its complement above the minimum's (v is never negative).
        if ~UInt64(v) > stats[1] { stats[1] = ~UInt64(v) }
        if UInt64(v) > stats[2] { stats[2] = UInt64(v) }
        let (low, carry) = stats[3].addingReportingOverflow(UInt64(v))
        stats[3] = low
        if carry { stats[4] &+= 1 }
    }

    public func merge(_ other: HistogramBank) {
        precondition(other.subBits == subBits && other.slots == slots)
        for s in 0..<slots {
            let a = storage + s * stride, b = other.storage + s * stride
            let x = a + width, y = b + width
            // An empty slot adds nothing; left unread, its buckets' pages stay unmapped.
            if y[0] == 0 { continue }
            for i in 0..<width { a[i] &+= b[i] }
            x[0] &+= y[0]
            x[1] = Swift.max(x[1], y[1])
            x[2] = Swift.max(x[2], y[2])
            let (low, carry) = x[3].addingReportingOverflow(y[3])
            x[3] = low
            x[4] &+= y[4] &+ (carry ? 1 : 0)
        }
    }

    /// Slot `slot` as a standalone histogram.
    public func histogram(_ slot: Int) -> Histogram {
        let base = storage + slot * stride, stats = base + width
        guard stats[0] > 0 else { return Histogram(subBits: subBits) }
        return Histogram(subBits: subBits, counts: Array(UnsafeBufferPointer(start: base, count: width)),
                         count: stats[0], min: Int64(bitPattern: ~stats[1]), max: Int64(bitPattern: stats[2]),
                         sumHigh: Int64(bitPattern: stats[4]), sumLow: stats[3])
    }
}
