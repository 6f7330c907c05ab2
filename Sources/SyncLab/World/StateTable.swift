import SyncLabKernel

/// A fixed-size table of values the event loop reads and writes in place: one heap block, no
/// per-access uniqueness or bounds check, no copy of an element to read one field.
///
/// An `Array` inside the world would make every `clients[c].field = x` pay a copy-on-write and
/// a bounds check, and reading a link profile would copy it with its reference counts. The
/// table is a reference; the world keeps value semantics by copying it before mutating when it is shared
/// (`World.ensureUniqueState`). Every index is checked, in release builds too: an index out of
/// range would otherwise write into another player's state or another allocation, silently.
/// The check is one unsigned compare; it costs R1 3% of its instructions, a realistic run under
/// half a percent (docs/safety.md).
final class StateTable<Element>: RandomAccessCollection {
    @usableFromInline let base: UnsafeMutablePointer<Element>
    let count: Int

    /// The table's first element starts on a cache line (64 bytes), so an element whose stride
    /// is a whole number of lines never straddles one more than it fills.
    init(_ elements: [Element]) {
        count = elements.count
        base = StateTable.allocate(count)
        elements.withUnsafeBufferPointer { base.initialize(from: $0.baseAddress!, count: count) }
    }

    /// A table of `count` elements, element k made by `make(k)` in place.
    init(count: Int, _ make: (Int) -> Element) {
        self.count = count
        base = StateTable.allocate(count)
        for k in 0..<count { (base + k).initialize(to: make(k)) }
    }

    private static func allocate(_ count: Int) -> UnsafeMutablePointer<Element> {
        let bytes = MemoryLayout<Element>.stride * Swift.max(count, 1)
        return LargeBlock.allocate(byteCount: bytes, alignment: Swift.max(64, MemoryLayout<Element>.alignment))
            .bindMemory(to: Element.self, capacity: Swift.max(count, 1))
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// An independent table with the same contents.
    func copy() -> StateTable { StateTable(count: count) { self[$0] } }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Element {
        @inline(__always) unsafeAddress {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "state table index out of range")
            return UnsafePointer(base + i)
        }
        @inline(__always) unsafeMutableAddress {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "state table index out of range")
            return base + i
        }
    }
}
