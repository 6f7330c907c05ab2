import SyncLabKernel

/// A fixed-size table of values the event loop reads and writes in place: one heap block, no
/// per-access uniqueness check, no copy of an element to read one field.
///
/// An `Array` inside the world would make every `clients[c].field = x` pay a copy-on-write and
/// a bounds check, and reading a link profile would copy it with its reference counts. Copies of
/// a table share its block, as references do (a write through any of them is seen by all); the
/// world keeps value semantics by copying the block before mutating when it is shared
/// (`World.ensureUniqueState`). Every index is checked, in release builds too: an index out of
/// range would otherwise write into another player's state or another allocation, silently.
///
/// The table is a value holding the block's address and size beside the object that owns the
/// block. An event handler reaches a player's fields through the world it mutates in place, so
/// the check of an index reads the size from the world itself, which no write to a player's
/// state can change: the compiler may check an index once for several fields, where it had to
/// read the size again after every write, and it reads no object to find the block
/// (docs/safety.md gives the cost).
struct StateTable<Element>: RandomAccessCollection {
    /// Owns the block: freed when the last table sharing it goes.
    final class Storage {
        let base: UnsafeMutablePointer<Element>
        let count: Int
        init(base: UnsafeMutablePointer<Element>, count: Int) { (self.base, self.count) = (base, count) }
        deinit {
            base.deinitialize(count: count)
            base.deallocate()
        }
    }

    private(set) var storage: Storage
    @usableFromInline let base: UnsafeMutablePointer<Element>
    let count: Int

    /// The table's first element starts on a cache line (64 bytes), so an element whose stride
    /// is a whole number of lines never straddles one more than it fills.
    init(_ elements: [Element]) {
        count = elements.count
        base = StateTable.allocate(count)
        let (b, n) = (base, count)
        elements.withUnsafeBufferPointer { b.initialize(from: $0.baseAddress!, count: n) }
        storage = Storage(base: base, count: count)
    }

    /// A table of `count` elements, element k made by `make(k)` in place.
    init(count: Int, _ make: (Int) -> Element) {
        self.count = count
        base = StateTable.allocate(count)
        for k in 0..<count { (base + k).initialize(to: make(k)) }
        storage = Storage(base: base, count: count)
    }

    private static func allocate(_ count: Int) -> UnsafeMutablePointer<Element> {
        let bytes = MemoryLayout<Element>.stride * Swift.max(count, 1)
        return LargeBlock.allocate(byteCount: bytes, alignment: Swift.max(64, MemoryLayout<Element>.alignment))
            .bindMemory(to: Element.self, capacity: Swift.max(count, 1))
    }

    /// An independent table with the same contents.
    func copy() -> StateTable { StateTable(count: count) { self[$0] } }

    /// Whether no other table shares this one's block (then writing to it changes no other).
    mutating func isUnique() -> Bool {
        isKnownUniquelyReferenced(&storage)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Element {
        @inline(__always) unsafeAddress {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "state table index out of range")
            return UnsafePointer(base + i)
        }
        @inline(__always) nonmutating unsafeMutableAddress {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "state table index out of range")
            return base + i
        }
    }
}
