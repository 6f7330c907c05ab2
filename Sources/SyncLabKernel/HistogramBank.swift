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
    /// Per slot: `width` bucket counts, then total, min, max, sum low, sum high (as UInt64 bits).
    @usableFromInline let stride: Int
    @usableFromInline let storage: UnsafeMutablePointer<UInt64>

    public init(slots: Int, subBits: Int = 10) {
        self.subBits = subBits
        self.slots = slots
        width = (1 << subBits) + (64 - subBits) << (subBits - 1)
        stride = width + 5
        let count = stride * max(slots, 1)
        storage = LargeBlock.allocate(byteCount: count * MemoryLayout<UInt64>.stride, alignment: MemoryLayout<UInt64>.alignment)
            .bindMemory(to: UInt64.self, capacity: count)
        storage.initialize(repeating: 0, count: count)
        for s in 0..<slots {
            storage[s * stride + width + 1] = UInt64(bitPattern: .max)   // min
            storage[s * stride + width + 2] = UInt64(bitPattern: .min)   // max
        }
    }

    deinit { storage.deallocate() }

    /// An independent bank with the same contents.
    public func copy() -> HistogramBank {
        let other = HistogramBank(slots: slots, subBits: subBits)
        other.storage.update(from: storage, count: stride * max(slots, 1))
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
        assert(layout == subBits, "recorded with another layout than the bank's")
        let width = (1 &<< layout) &+ (64 &- layout) &<< (layout &- 1)
        let v = value < 0 ? 0 : value
        let base = storage + slot &* (width &+ 5)
        base[Histogram.bucketIndex(UInt64(v), subBits: layout)] &+= 1
        let stats = base + width
        stats[0] &+= 1
        if v < Int64(bitPattern: stats[1]) { stats[1] = UInt64(bitPattern: v) }
        if v > Int64(bitPattern: stats[2]) { stats[2] = UInt64(bitPattern: v) }
        let (low, carry) = stats[3].addingReportingOverflow(UInt64(v))
        stats[3] = low
        if carry { stats[4] &+= 1 }
    }

    public func merge(_ other: HistogramBank) {
        precondition(other.subBits == subBits && other.slots == slots)
        for s in 0..<slots {
            let a = storage + s * stride, b = other.storage + s * stride
            for i in 0..<width { a[i] &+= b[i] }
            let x = a + width, y = b + width
            x[0] &+= y[0]
            x[1] = UInt64(bitPattern: Swift.min(Int64(bitPattern: x[1]), Int64(bitPattern: y[1])))
            x[2] = UInt64(bitPattern: Swift.max(Int64(bitPattern: x[2]), Int64(bitPattern: y[2])))
            let (low, carry) = x[3].addingReportingOverflow(y[3])
            x[3] = low
            x[4] &+= y[4] &+ (carry ? 1 : 0)
        }
    }

    /// Slot `slot` as a standalone histogram.
    public func histogram(_ slot: Int) -> Histogram {
        let base = storage + slot * stride, stats = base + width
        return Histogram(subBits: subBits, counts: Array(UnsafeBufferPointer(start: base, count: width)),
                         count: stats[0], min: Int64(bitPattern: stats[1]), max: Int64(bitPattern: stats[2]),
                         sumHigh: Int64(bitPattern: stats[4]), sumLow: stats[3])
    }
}
