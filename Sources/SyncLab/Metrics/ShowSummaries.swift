import SyncLabKernel

/// When each viewer showed each item change, kept as a summary whose size grows with the
/// changes, not with changes × viewers.
///
/// Each change has one cell per viewer subset (`levels`): every viewer, then nested random
/// subsets of about 1/10, 1/100, … of the players, from which the report shows how each gap
/// figure moves with the number of viewers. A cell keeps its offsets one by one up to
/// `exactLimit` of them (4,096: as many bytes as a binned cell typically takes), so a change
/// seen by a few thousand players is measured exactly; past
/// that it counts them in `ShowBins` (1 ms, or 1/512 of the value beyond 1 s) and keeps the
/// exact earliest and latest. Counts add, so merging shards gives the same summary for any
/// number of threads: a cell is binned exactly when its total count passes the limit.
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

    /// Adds another shard's shows (same transitions).
    mutating func merge(_ other: ShowSummaries) {
        precondition(other.transitions == transitions)
        store.merge(other.store)
    }

    /// Gives these summaries a store of their own when a copy shares it (a copied world about to run).
    mutating func ensureUniqueStore() {
        if !isKnownUniquelyReferenced(&store) { store = store.copy() }
    }

    func viewers(_ transition: Int, level: Int = 0) -> Int { store.count(level * transitions + transition) }

    /// The shows of one cell as bins in value order (a bin of width zero per exact value).
    func bins(_ transition: Int, level: Int = 0) -> [ShowBin] { store.bins(level * transitions + transition) }

    /// One row per transition inside [0, duration) that someone showed, in transition order, for
    /// every viewer and for each subset; and the number of transitions nobody showed. Rows are
    /// measured on all cores; each depends only on its own cell, so the result is the same for
    /// any number of threads.
    func rows(_ schedule: [StoreSchedule.Transition], duration: Int64, window: Int64)
        -> (rows: [TransitionRow], subsets: [[TransitionRow]], unviewed: Int)
    {
        let inWindow = schedule.indices.filter { schedule[$0].time >= 0 && schedule[$0].time < duration }
        var perLevel: [[TransitionRow]] = []
        for level in 0..<ShowSummaries.levels {
            let shown = inWindow.filter { viewers($0, level: level) > 0 }
            perLevel.append(concurrentMap(shown.count, blocks: Swift.min(64, Swift.max(1, shown.count / 64))) { k in
                let i = shown[k], cell = level * transitions + i
                let time = schedule[i].time, position = Int(schedule[i].position)
                let earliest = store.lowest(cell), latest = store.highest(cell)
                return if let exact = store.exactSorted(cell) {
                    .measure(time: time, position: position, shows: ExactShows(sorted: exact),
                             earliest: earliest, latest: latest, window: window)
                } else {
                    .measure(time: time, position: position, shows: BinnedShows(store.bins(cell)),
                             earliest: earliest, latest: latest, window: window)
                }
            })
        }
        let unviewed = inWindow.count - perLevel[0].count
        return (perLevel[0], Array(perLevel.dropFirst()), unviewed)
    }

    /// Bytes held (for the memory estimate and its tests).
    var bytes: Int { store.bytes }
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
    /// Exact values go in chunks of 15 plus a link to the cell's next chunk; 8,192 chunks a page.
    static let values = 15
    static let chunkSlots = 16
    static let chunkPageShift = 13
    /// Binned cells: a table of 64-bin pages per cell, pages made only where a show falls.
    static let binShift = 6
    static let binsPerPage = 1 << binShift
    static let pagesPerTable = (ShowBins.count + binsPerPage - 1) / binsPerPage
    static let binPagesPerBlock = 2_048

    @exclusivity(unchecked) private var counts: [UInt32]
    @exclusivity(unchecked) private var lows: [Int64]
    @exclusivity(unchecked) private var highs: [Int64]
    @exclusivity(unchecked) private var head: [Int32]
    @exclusivity(unchecked) private var tail: [Int32]
    /// Start of the cell's page table in `tables`, or −1 while it keeps exact values.
    @exclusivity(unchecked) private var table: [Int32]
    @exclusivity(unchecked) private var chunkPages: [UnsafeMutablePointer<Int64>] = []
    @exclusivity(unchecked) private var chunks = 0
    /// Chunks given back by cells that switched to bins, reused before new ones.
    @exclusivity(unchecked) private var freeChunks: [Int32] = []
    @exclusivity(unchecked) private var tables: [Int32] = []
    @exclusivity(unchecked) private var binBlocks: [UnsafeMutablePointer<UInt32>] = []
    @exclusivity(unchecked) private var binPages = 0

    init(cells: Int) {
        counts = [UInt32](repeating: 0, count: cells)
        lows = [Int64](repeating: 0, count: cells)
        highs = lows
        head = [Int32](repeating: -1, count: cells)
        tail = head
        table = head
    }

    deinit {
        for page in chunkPages { page.deallocate() }
        for block in binBlocks { block.deallocate() }
    }

    func copy() -> ShowStore {
        let other = ShowStore(cells: 0)
        other.counts = counts; other.lows = lows; other.highs = highs
        other.head = head; other.tail = tail; other.table = table
        let chunkPageSlots = ShowStore.chunkSlots << ShowStore.chunkPageShift
        other.chunkPages = chunkPages.map { page in
            let p = UnsafeMutablePointer<Int64>.allocate(capacity: chunkPageSlots)
            p.update(from: page, count: chunkPageSlots)
            return p
        }
        other.chunks = chunks
        other.freeChunks = freeChunks
        other.tables = tables
        let blockSlots = ShowStore.binsPerPage * ShowStore.binPagesPerBlock
        other.binBlocks = binBlocks.map { block in
            let p = UnsafeMutablePointer<UInt32>.allocate(capacity: blockSlots)
            p.update(from: block, count: blockSlots)
            return p
        }
        other.binPages = binPages
        return other
    }

    var bytes: Int {
        chunkPages.count * (ShowStore.chunkSlots << ShowStore.chunkPageShift) * 8
            + binBlocks.count * ShowStore.binsPerPage * ShowStore.binPagesPerBlock * 4
            + tables.count * 4 + counts.count * 32
    }

    func count(_ cell: Int) -> Int { Int(counts[cell]) }
    func lowest(_ cell: Int) -> Int64 { lows[cell] }
    func highest(_ cell: Int) -> Int64 { highs[cell] }

    @inline(__always) private func chunk(_ c: Int) -> UnsafeMutablePointer<Int64> {
        chunkPages[c >> ShowStore.chunkPageShift] + (c & ((1 << ShowStore.chunkPageShift) - 1)) * ShowStore.chunkSlots
    }

    @inline(__always) private func binPage(_ p: Int) -> UnsafeMutablePointer<UInt32> {
        binBlocks[p / ShowStore.binPagesPerBlock] + (p % ShowStore.binPagesPerBlock) * ShowStore.binsPerPage
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

    /// Adds `x` as the `index`-th exact value of `cell`.
    @inline(__always) private func keep(_ x: Int64, cell: Int, index n: Int) {
        let slot = n % ShowStore.values
        if slot == 0 {
            let c: Int
            if let free = freeChunks.popLast() {
                c = Int(free)
            } else {
                if chunks >> ShowStore.chunkPageShift == chunkPages.count {
                    chunkPages.append(.allocate(capacity: ShowStore.chunkSlots << ShowStore.chunkPageShift))
                }
                c = chunks
                chunks += 1
            }
            if n == 0 { head[cell] = Int32(c) } else { chunk(Int(tail[cell]))[ShowStore.values] = Int64(c) }
            tail[cell] = Int32(c)
        }
        chunk(Int(tail[cell]))[slot] = x
    }

    @inline(__always) private func count(_ x: Int64, table t: Int, times: UInt32) {
        let i = ShowBins.index(x)
        let p = t + i >> ShowStore.binShift
        if tables[p] < 0 { tables[p] = Int32(newBinPage()) }
        binPage(Int(tables[p]))[i & (ShowStore.binsPerPage - 1)] &+= times
    }

    private func newBinPage() -> Int {
        if binPages == binBlocks.count * ShowStore.binPagesPerBlock {
            let slots = ShowStore.binsPerPage * ShowStore.binPagesPerBlock
            let block = UnsafeMutablePointer<UInt32>.allocate(capacity: slots)
            block.initialize(repeating: 0, count: slots)
            binBlocks.append(block)
        }
        binPages += 1
        return binPages - 1
    }

    /// The first `n` exact values of `cell`, in the order they came.
    private func exactValues(_ cell: Int, _ n: Int) -> [Int64] {
        var out: [Int64] = []
        out.reserveCapacity(n)
        var left = n, c = Int(head[cell])
        while left > 0 {
            let p = chunk(c)
            let k = min(left, ShowStore.values)
            out.append(contentsOf: UnsafeBufferPointer(start: p, count: k))
            left -= k
            if left > 0 { c = Int(p[ShowStore.values]) }
        }
        return out
    }

    /// Switches `cell` from exact values to bins, giving its chunks back.
    private func toBins(_ cell: Int, keptExact n: Int) {
        let values = exactValues(cell, n)
        var c = Int(head[cell]), left = n
        while left > 0 {
            freeChunks.append(Int32(c))
            left -= ShowStore.values
            if left > 0 { c = Int(chunk(c)[ShowStore.values]) }
        }
        head[cell] = -1
        tail[cell] = -1
        table[cell] = Int32(tables.count)
        tables.append(contentsOf: repeatElement(-1, count: ShowStore.pagesPerTable))
        for v in values { count(v, table: Int(table[cell]), times: 1) }
    }

    /// Adds every cell of `other` to this store's cell of the same index.
    func merge(_ other: ShowStore) {
        precondition(other.counts.count == counts.count)
        for cell in counts.indices {
            let m = Int(other.counts[cell])
            guard m > 0 else { continue }
            if other.table[cell] < 0 {
                for v in other.exactValues(cell, m) { append(v, cell: cell) }
                continue
            }
            let n = Int(counts[cell])
            if n == 0 {
                lows[cell] = other.lows[cell]
                highs[cell] = other.highs[cell]
            } else {
                lows[cell] = min(lows[cell], other.lows[cell])
                highs[cell] = max(highs[cell], other.highs[cell])
            }
            if table[cell] < 0 { toBins(cell, keptExact: n) }
            counts[cell] = UInt32(n + m)
            let mine = Int(table[cell]), theirs = Int(other.table[cell])
            for page in 0..<ShowStore.pagesPerTable where other.tables[theirs + page] >= 0 {
                let from = other.binPage(Int(other.tables[theirs + page]))
                if tables[mine + page] < 0 { tables[mine + page] = Int32(newBinPage()) }
                let to = binPage(Int(tables[mine + page]))
                for b in 0..<ShowStore.binsPerPage { to[b] &+= from[b] }
            }
        }
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
        if table[cell] < 0 {
            for v in exactValues(cell, n).sorted() {
                if let last = out.last, last.lower == Double(v) { out[out.count - 1].count += 1; continue }
                out.append(ShowBin(lower: Double(v), upper: Double(v), count: 1))
            }
            return out
        }
        let t = Int(table[cell])
        for page in 0..<ShowStore.pagesPerTable where tables[t + page] >= 0 {
            let p = binPage(Int(tables[t + page]))
            for b in 0..<ShowStore.binsPerPage where p[b] > 0 {
                let (lower, upper) = ShowBins.bounds(page << ShowStore.binShift + b)
                out.append(ShowBin(lower: lower, upper: upper, count: Int(p[b])))
            }
        }
        return out
    }
}
