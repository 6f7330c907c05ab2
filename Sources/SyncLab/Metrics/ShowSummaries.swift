import SyncLabKernel

/// When each viewer showed each item change, kept as a summary whose size grows with the
/// changes, not with changes × viewers.
///
/// Each change has one cell per viewer subset (`levels`): every viewer, then nested random
/// subsets of about 1/10, 1/100, … of the players, from which the report shows how each gap
/// figure moves with the number of viewers. A cell keeps its offsets one by one up to
/// `exactLimit` of them (4,096, about 22 KB: a binned cell of a day's change typically takes
/// half that), so a change seen by a few thousand players is measured exactly; past
/// that it counts them in `ShowBins` (1 ms, or 1/512 of the value beyond 1 s) and keeps the
/// exact earliest and latest. Counts add, so merging shards gives the same summary for any
/// number of threads: a cell is binned exactly when its total count passes the limit. Merging
/// keeps the other shards' stores as they are and reads them with this one's: the union of each
/// cell is formed where the rows are measured, on the run's threads, not in a serial pass over
/// every cell between the run and its rows.
struct ShowSummaries {
    /// Subsets beyond "every viewer": players whose key is below 1/10^k of the key range.
    static let subsetLevels = 5
    static let levels = 1 + subsetLevels
    /// A subset holds a player iff the player's key lies below its threshold; the thresholds
    /// fall, so the subsets nest (every player of 1/100 is in 1/10).
    static let thresholds: [UInt64] = (1...subsetLevels).map { k in
        (1...k).reduce(UInt64.max) { t, _ in t / 10 }
    }

    /// A player's subset key: a hash of its global index, the same in every shard and design.
    @inline(__always) static func playerKey(_ player: Int) -> UInt64 {
        RandomStream.mix(UInt64(player) &* 0x9E37_79B9_7F4A_7C15 &+ 0x5851_F42D_4C95_7F2D)
    }

    let transitions: Int
    private var store: ShowStore
    /// Other shards' stores merged in, read with `store` (and never written again).
    private var merged: [ShowStore] = []
    /// The players these summaries count (global indices), and for each the number of subsets
    /// it belongs to, worked out once (0: none; 2: the 1/10 and 1/100 subsets).
    let players: Range<Int>
    private let subsets: [UInt8]

    init(transitions: Int, players: Range<Int> = 0..<0) {
        self.transitions = transitions
        self.players = players
        store = ShowStore(cells: transitions * ShowSummaries.levels)
        subsets = players.map { ShowSummaries.subsets(ofKey: ShowSummaries.playerKey($0)) }
    }

    /// How many of the nested subsets a player of subset key `key` belongs to.
    static func subsets(ofKey key: UInt64) -> UInt8 {
        var level = 0
        while level < subsetLevels && key < thresholds[level] { level += 1 }
        return UInt8(level)
    }

    /// Player `player` (global index, among `players`) showed `transition` `offset` ns after its
    /// true instant.
    @inline(__always) func append(_ offset: Int64, to transition: Int, player: Int) {
        append(offset, to: transition, subsets: Int(subsets[player &- players.lowerBound]))
    }

    /// The same for a player of subset key `key` (any player, for tests).
    func append(_ offset: Int64, to transition: Int, playerKey key: UInt64) {
        append(offset, to: transition, subsets: Int(ShowSummaries.subsets(ofKey: key)))
    }

    @inline(__always) private func append(_ offset: Int64, to transition: Int, subsets: Int) {
        store.append(offset, cell: transition)
        var level = 1
        while level <= subsets {
            store.append(offset, cell: level &* transitions &+ transition)
            level &+= 1
        }
    }

    /// Adds another shard's shows (same transitions), once neither will show more.
    mutating func merge(_ other: ShowSummaries) {
        precondition(other.transitions == transitions)
        merged += [other.store] + other.merged
    }

    /// Every store these summaries read: their own, then the merged shards'.
    private var parts: [ShowStore] { [store] + merged }

    /// Gives these summaries a store of their own when a copy shares it (a copied world about to run).
    mutating func ensureUniqueStore() {
        if !isKnownUniquelyReferenced(&store) { store = store.copy() }
    }

    func viewers(_ transition: Int, level: Int = 0) -> Int { ShowStore.count(level * transitions + transition, in: parts) }

    /// The shows of one cell as bins in value order (a bin of width zero per exact value).
    func bins(_ transition: Int, level: Int = 0) -> [ShowBin] { ShowStore.bins(level * transitions + transition, in: parts) }

    /// One row per transition inside [0, duration) that someone showed, in transition order, for
    /// every viewer and for each subset; and the number of transitions nobody showed. Rows are
    /// measured on up to `threads` threads (nil: every core); each depends only on its own cell,
    /// so the result is the same for any number.
    func rows(_ schedule: [StoreSchedule.Transition], duration: Int64, window: Int64, threads: Int? = nil)
        -> (rows: [TransitionRow], subsets: [[TransitionRow]], unviewed: Int)
    {
        let inWindow = schedule.indices.filter { schedule[$0].time >= 0 && schedule[$0].time < duration }
        let parts = parts
        var perLevel: [[TransitionRow]] = []
        for level in 0..<ShowSummaries.levels {
            let shown = inWindow.filter { ShowStore.count(level * transitions + $0, in: parts) > 0 }
            perLevel.append(concurrentMap(shown.count, blocks: Swift.min(64, Swift.max(1, shown.count / 64)), threads: threads) { k in
                let i = shown[k], cell = level * transitions + i
                let time = schedule[i].time, position = Int(schedule[i].position)
                let earliest = ShowStore.lowest(cell, in: parts), latest = ShowStore.highest(cell, in: parts)
                return if let exact = ShowStore.exactSorted(cell, in: parts) {
                    .measure(time: time, position: position, shows: ExactShows(sorted: exact),
                             earliest: earliest, latest: latest, window: window)
                } else {
                    .measure(time: time, position: position, shows: BinnedShows(ShowStore.bins(cell, in: parts)),
                             earliest: earliest, latest: latest, window: window)
                }
            })
        }
        let unviewed = inWindow.count - perLevel[0].count
        return (perLevel[0], Array(perLevel.dropFirst()), unviewed)
    }

    /// Bytes held (for the memory estimate and its tests).
    var bytes: Int { parts.reduce(0) { $0 + $1.bytes } }
}

/// Shows of one change falling in [lower, upper) ns after its true instant; lower == upper
/// for an exact value.
public struct ShowBin: Sendable, Equatable {
    public var lower: Double
    public var upper: Double
    public var count: Int
    /// Where the bin's shows are taken to lie.
    public var middle: Double { lower == upper ? lower : (lower + upper) / 2 }
}

/// The cells' storage. One writer (the recorder that owns it), so no exclusivity checks.
final class ShowStore: @unchecked Sendable {
    /// Offsets a cell keeps one by one before it counts them in bins.
    static let exactLimit = ShowBins.exactViewers
    /// Exact values go as zigzag varints (7 bits a byte: an offset within ±17 s takes 5 bytes,
    /// within ±36 min 6, not 8) in a chain of 128-byte chunks, each a link to the cell's next
    /// chunk (−1: none) and 124 bytes of values, which may run on into the next chunk.
    /// 8,192 chunks a page.
    static let chunkBytes = 128
    static let chunkData = chunkBytes - 4
    static let chunkPageShift = 13
    /// Bytes an exact value takes with its share of the links, for the memory estimate: a day of
    /// ten million v1.1.5 players kept 28.4 million values in 1.22 million chunks a shard, 5.3
    /// bytes a value.
    static let exactValueBytesEstimate = 5.5
    /// Binned cells: a table of 64-bin pages per cell, pages made only where a show falls. A
    /// page counts in bytes (64 B, one cache line) until one of its bins passes 255, then in
    /// 32-bit words: most pages of a day's change hold a few shows a bin (its viewers spread
    /// over minutes to hours), so counting them in words spent three bytes in four on zeros.
    static let binShift = 6
    static let binsPerPage = 1 << binShift
    static let pagesPerTable = (ShowBins.count + binsPerPage - 1) / binsPerPage
    static let narrowPagesPerBlock = 2_048
    static let widePagesPerBlock = 256
    /// A table entry: no page yet, a byte page's index (≥ 0), or a word page's (`wideEntry`).
    static let noPage: Int32 = -1
    @inline(__always) static func wideEntry(_ page: Int) -> Int32 { Int32(-2 - page) }
    @inline(__always) static func widePage(of entry: Int32) -> Int { Int(-2 - entry) }

    @exclusivity(unchecked) private var counts: [UInt32]
    @exclusivity(unchecked) private var lows: [Int64]
    @exclusivity(unchecked) private var highs: [Int64]
    @exclusivity(unchecked) private var head: [Int32]
    @exclusivity(unchecked) private var tail: [Int32]
    /// Bytes written into each cell's tail chunk.
    @exclusivity(unchecked) private var tailFill: [UInt8]
    /// Start of the cell's page table in `tables`, or −1 while it keeps exact values.
    @exclusivity(unchecked) private var table: [Int32]
    @exclusivity(unchecked) private var chunkPages: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) private var chunks = 0
    /// Chunks given back by cells that switched to bins, reused before new ones.
    @exclusivity(unchecked) private var freeChunks: [Int32] = []
    @exclusivity(unchecked) private var tables: [Int32] = []
    @exclusivity(unchecked) private var narrowBlocks: [UnsafeMutablePointer<UInt8>] = []
    @exclusivity(unchecked) private var narrowPages = 0
    /// Byte pages given back when they widened, zeroed, reused before new ones.
    @exclusivity(unchecked) private var freeNarrowPages: [Int32] = []
    @exclusivity(unchecked) private var wideBlocks: [UnsafeMutablePointer<UInt32>] = []
    @exclusivity(unchecked) private var widePages = 0

    init(cells: Int) {
        counts = [UInt32](repeating: 0, count: cells)
        lows = [Int64](repeating: 0, count: cells)
        highs = lows
        head = [Int32](repeating: -1, count: cells)
        tail = head
        table = head
        tailFill = [UInt8](repeating: 0, count: cells)
    }

    deinit {
        for page in chunkPages { page.deallocate() }
        for block in narrowBlocks { block.deallocate() }
        for block in wideBlocks { block.deallocate() }
    }

    func copy() -> ShowStore {
        let other = ShowStore(cells: 0)
        other.counts = counts; other.lows = lows; other.highs = highs
        other.head = head; other.tail = tail; other.table = table; other.tailFill = tailFill
        other.chunkPages = chunkPages.map { page in
            let p = UnsafeMutableRawPointer.allocate(byteCount: ShowStore.chunkPageBytes, alignment: 64)
            p.copyMemory(from: page, byteCount: ShowStore.chunkPageBytes)
            return p
        }
        other.chunks = chunks
        other.freeChunks = freeChunks
        other.tables = tables
        other.narrowBlocks = ShowStore.copies(of: narrowBlocks, count: ShowStore.narrowBlockBins)
        other.narrowPages = narrowPages
        other.freeNarrowPages = freeNarrowPages
        other.wideBlocks = ShowStore.copies(of: wideBlocks, count: ShowStore.wideBlockBins)
        other.widePages = widePages
        return other
    }

    /// New blocks holding the same `count` bins as `blocks`.
    private static func copies<Bin>(of blocks: [UnsafeMutablePointer<Bin>], count: Int) -> [UnsafeMutablePointer<Bin>] {
        blocks.map { block in
            let p = UnsafeMutablePointer<Bin>.allocate(capacity: count)
            p.update(from: block, count: count)
            return p
        }
    }

    static let chunkPageBytes = chunkBytes << chunkPageShift
    static let narrowBlockBins = binsPerPage * narrowPagesPerBlock
    static let wideBlockBins = binsPerPage * widePagesPerBlock

    var bytes: Int {
        chunkPages.count * ShowStore.chunkPageBytes
            + narrowBlocks.count * ShowStore.narrowBlockBins + wideBlocks.count * ShowStore.wideBlockBins * 4
            + tables.count * 4 + counts.count * 33
    }

    /// Pages in use, byte and word (for the tests).
    var pagesInUse: (narrow: Int, wide: Int) { (narrowPages - freeNarrowPages.count, widePages) }

    func count(_ cell: Int) -> Int { Int(counts[cell]) }
    func lowest(_ cell: Int) -> Int64 { lows[cell] }
    func highest(_ cell: Int) -> Int64 { highs[cell] }

    /// Chunk `c`: its link (an `Int32` at its start), then its bytes of values. Read and
    /// written as raw bytes, so the page is never bound to one type.
    @inline(__always) private func chunk(_ c: Int32) -> UnsafeMutableRawPointer {
        chunkPages[Int(c) >> ShowStore.chunkPageShift] + (Int(c) & ((1 << ShowStore.chunkPageShift) - 1)) * ShowStore.chunkBytes
    }

    @inline(__always) private func next(_ c: Int32) -> Int32 { chunk(c).load(as: Int32.self) }

    /// A chunk with no next one (recently freed ones first).
    private func newChunk() -> Int32 {
        let c: Int32
        if let free = freeChunks.popLast() {
            c = free
        } else {
            if chunks >> ShowStore.chunkPageShift == chunkPages.count {
                chunkPages.append(.allocate(byteCount: ShowStore.chunkPageBytes, alignment: 64))
            }
            c = Int32(chunks)
            chunks += 1
        }
        chunk(c).storeBytes(of: -1 as Int32, as: Int32.self)
        return c
    }

    @inline(__always) private func narrowPage(_ p: Int) -> UnsafeMutablePointer<UInt8> {
        narrowBlocks[p / ShowStore.narrowPagesPerBlock] + (p % ShowStore.narrowPagesPerBlock) * ShowStore.binsPerPage
    }

    @inline(__always) private func widePage(_ p: Int) -> UnsafeMutablePointer<UInt32> {
        wideBlocks[p / ShowStore.widePagesPerBlock] + (p % ShowStore.widePagesPerBlock) * ShowStore.binsPerPage
    }

    /// The count of bin `b` of the page a table entry names (0 when it names none).
    @inline(__always) private func binCount(_ entry: Int32, _ b: Int) -> UInt32 {
        if entry >= 0 { return UInt32(narrowPage(Int(entry))[b]) }
        return entry == ShowStore.noPage ? 0 : widePage(ShowStore.widePage(of: entry))[b]
    }

    @inline(__always) func append(_ x: Int64, cell: Int) {
        let n = Int(counts[cell])
        if n == 0 {
            lows[cell] = x
            highs[cell] = x
        } else {
            if x < lows[cell] { lows[cell] = x }
            if x > highs[cell] { highs[cell] = x }
        }
        counts[cell] = UInt32(n + 1)
        if table[cell] >= 0 { count(x, table: Int(table[cell]), times: 1); return }
        if n == ShowStore.exactLimit { toBins(cell, keptExact: n); count(x, table: Int(table[cell]), times: 1); return }
        keep(x, cell: cell, index: n)
    }

    /// Adds `x` as the `index`-th exact value of `cell`: its zigzag form (sign in the lowest
    /// bit), seven bits a byte from the lowest, the high bit set on every byte but the last.
    @inline(__always) private func keep(_ x: Int64, cell: Int, index n: Int) {
        var z = UInt64(bitPattern: (x << 1) ^ (x >> 63))
        var c: Int32, fill: Int
        if n == 0 {
            c = newChunk()
            head[cell] = c
            fill = 0
        } else {
            c = tail[cell]
            fill = Int(tailFill[cell])
        }
        // Pages never move, so the chunk's address holds while new chunks are made.
        var base = chunk(c) + 4
        while true {
            if fill == ShowStore.chunkData {
                let fresh = newChunk()
                (base - 4).storeBytes(of: fresh, as: Int32.self)
                c = fresh
                base = chunk(c) + 4
                fill = 0
            }
            if z < 0x80 {
                base.storeBytes(of: UInt8(truncatingIfNeeded: z), toByteOffset: fill, as: UInt8.self)
                fill += 1
                break
            }
            base.storeBytes(of: UInt8(truncatingIfNeeded: z) | 0x80, toByteOffset: fill, as: UInt8.self)
            fill += 1
            z >>= 7
        }
        tail[cell] = c
        tailFill[cell] = UInt8(fill)
    }

    @inline(__always) private func count(_ x: Int64, table t: Int, times: UInt32) {
        let i = ShowBins.index(x)
        add(times, slot: t + i >> ShowStore.binShift, bin: i & (ShowStore.binsPerPage - 1))
    }

    /// Adds `times` shows to bin `b` of the page in table slot `slot`, making the page or
    /// widening it to words as the count needs.
    @inline(__always) private func add(_ times: UInt32, slot: Int, bin b: Int) {
        var entry = tables[slot]
        if entry == ShowStore.noPage {
            entry = newNarrowPage()
            tables[slot] = entry
        }
        if entry >= 0 {
            let page = narrowPage(Int(entry))
            let sum = UInt32(page[b]) &+ times
            if sum <= UInt32(UInt8.max) { page[b] = UInt8(truncatingIfNeeded: sum); return }
            entry = widen(slot)
        }
        widePage(ShowStore.widePage(of: entry))[b] &+= times
    }

    private func newNarrowPage() -> Int32 {
        if let free = freeNarrowPages.popLast() { return free }
        if narrowPages == narrowBlocks.count * ShowStore.narrowPagesPerBlock {
            let block = UnsafeMutablePointer<UInt8>.allocate(capacity: ShowStore.narrowBlockBins)
            block.initialize(repeating: 0, count: ShowStore.narrowBlockBins)
            narrowBlocks.append(block)
        }
        narrowPages += 1
        return Int32(narrowPages - 1)
    }

    /// Moves the byte page in table slot `slot` to a word page, giving the byte page back zeroed.
    private func widen(_ slot: Int) -> Int32 {
        let narrow = tables[slot]
        if widePages == wideBlocks.count * ShowStore.widePagesPerBlock {
            let block = UnsafeMutablePointer<UInt32>.allocate(capacity: ShowStore.wideBlockBins)
            block.initialize(repeating: 0, count: ShowStore.wideBlockBins)
            wideBlocks.append(block)
        }
        let wide = widePage(widePages)
        let from = narrowPage(Int(narrow))
        for b in 0..<ShowStore.binsPerPage { wide[b] = UInt32(from[b]) }
        from.update(repeating: 0, count: ShowStore.binsPerPage)
        freeNarrowPages.append(narrow)
        let entry = ShowStore.wideEntry(widePages)
        widePages += 1
        tables[slot] = entry
        return entry
    }

    /// The first `n` exact values of `cell`, in the order they came.
    private func exactValues(_ cell: Int, _ n: Int) -> [Int64] {
        guard n > 0 else { return [] }
        var out: [Int64] = []
        out.reserveCapacity(n)
        var c = head[cell], at = 0
        var base = chunk(c) + 4
        for _ in 0..<n {
            var z: UInt64 = 0, shift: UInt64 = 0
            while true {
                if at == ShowStore.chunkData {
                    c = next(c)
                    base = chunk(c) + 4
                    at = 0
                }
                let b = base.load(fromByteOffset: at, as: UInt8.self)
                at += 1
                z |= UInt64(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            out.append(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
        }
        return out
    }

    /// Switches `cell` from exact values to bins, giving its chunks back.
    private func toBins(_ cell: Int, keptExact n: Int) {
        let values = exactValues(cell, n)
        var c = head[cell]
        while c >= 0 {
            freeChunks.append(c)
            c = next(c)
        }
        head[cell] = -1
        tail[cell] = -1
        tailFill[cell] = 0
        table[cell] = Int32(tables.count)
        tables.append(contentsOf: repeatElement(ShowStore.noPage, count: ShowStore.pagesPerTable))
        for v in values { count(v, table: Int(table[cell]), times: 1) }
    }

    // MARK: Several shards' stores read as one
    //
    // The shows of a cell in all of `parts` (stores of the same cells), as one store that had
    // them all would give them: exact when every part keeps the cell exact and the total is
    // within `exactLimit` (as appending one value at a time would leave it), else binned.

    /// How many shows `cell` has in all of `parts`.
    static func count(_ cell: Int, in parts: [ShowStore]) -> Int {
        parts.reduce(0) { $0 + $1.count(cell) }
    }

    static func lowest(_ cell: Int, in parts: [ShowStore]) -> Int64 {
        parts.lazy.filter { $0.count(cell) > 0 }.map { $0.lowest(cell) }.min() ?? 0
    }

    static func highest(_ cell: Int, in parts: [ShowStore]) -> Int64 {
        parts.lazy.filter { $0.count(cell) > 0 }.map { $0.highest(cell) }.max() ?? 0
    }

    static func exactSorted(_ cell: Int, in parts: [ShowStore]) -> [Int64]? {
        if parts.count == 1 { return parts[0].exactSorted(cell) }
        guard parts.allSatisfy({ $0.table[cell] < 0 }), count(cell, in: parts) <= exactLimit else { return nil }
        return parts.flatMap { $0.exactValues(cell, $0.count(cell)) }.sorted()
    }

    static func bins(_ cell: Int, in parts: [ShowStore]) -> [ShowBin] {
        if parts.count == 1 { return parts[0].bins(cell) }
        if let exact = exactSorted(cell, in: parts) { return exactBins(exact) }
        // The exact values of parts that keep them, as bins in order; then page by page the
        // parts' bin counts and those values added.
        let loose = parts.filter { $0.table[cell] < 0 }.flatMap { $0.exactValues(cell, $0.count(cell)) }.map(ShowBins.index).sorted()
        var out: [ShowBin] = []
        var next = 0
        var page = [UInt32](repeating: 0, count: binsPerPage)
        for p in 0..<pagesPerTable {
            var any = false
            for part in parts where part.table[cell] >= 0 {
                let entry = part.tables[Int(part.table[cell]) + p]
                guard entry != noPage else { continue }
                any = true
                for b in 0..<binsPerPage { page[b] &+= part.binCount(entry, b) }
            }
            while next < loose.count && loose[next] >> binShift == p {
                page[loose[next] & (binsPerPage - 1)] &+= 1
                next += 1
                any = true
            }
            guard any else { continue }
            for b in 0..<binsPerPage where page[b] > 0 {
                let (lower, upper) = ShowBins.bounds(p << binShift + b)
                out.append(ShowBin(lower: lower, upper: upper, count: Int(page[b])))
                page[b] = 0
            }
        }
        return out
    }

    /// Sorted exact values as bins of width zero, one per distinct value.
    private static func exactBins(_ sorted: [Int64]) -> [ShowBin] {
        var out: [ShowBin] = []
        for v in sorted {
            if let last = out.last, last.lower == Double(v) { out[out.count - 1].count += 1; continue }
            out.append(ShowBin(lower: Double(v), upper: Double(v), count: 1))
        }
        return out
    }

    /// The cell's exact values, sorted; nil once it counts them in bins.
    func exactSorted(_ cell: Int) -> [Int64]? {
        table[cell] < 0 ? exactValues(cell, Int(counts[cell])).sorted() : nil
    }

    /// The cell's shows in value order: one bin of width zero per distinct exact value, or
    /// the occupied `ShowBins`.
    func bins(_ cell: Int) -> [ShowBin] {
        let n = Int(counts[cell])
        var out: [ShowBin] = []
        if table[cell] < 0 { return ShowStore.exactBins(exactValues(cell, n).sorted()) }
        let t = Int(table[cell])
        for page in 0..<ShowStore.pagesPerTable where tables[t + page] != ShowStore.noPage {
            let entry = tables[t + page]
            for b in 0..<ShowStore.binsPerPage {
                let n = binCount(entry, b)
                guard n > 0 else { continue }
                let (lower, upper) = ShowBins.bounds(page << ShowStore.binShift + b)
                out.append(ShowBin(lower: lower, upper: upper, count: Int(n)))
            }
        }
        return out
    }
}
