import SyncLabKernel

/// What the model audit records of every delay drawn (`AuditCounters.uplink`, `.downlink`) and
/// of its audited players, in tables written in place.
///
/// A fetch draws two delays and the link rows read every one (on a link without memory in time
/// every draw counts), so what a draw costs is what R1 pays for its audit. A draw is one bucket
/// of a `HistogramBank` of constant layout and two integer sums; an uplink adds its pair with the
/// player's last log-uplink. The same counts as `Moments` and `PairMoments` would hold, read out
/// as plain `LinkAudit`s (`linkAudit`), so the same rows, byte for byte.
///
/// Each audited player's memory is kept in columns, and only the columns the scenario's rows
/// read (`AuditMemory`): an idealised run keeps 8 bytes a player, not 48.
///
/// A draw is not counted where it is drawn: it waits in a short list (`hold`) and a few hundred
/// are counted at once (`flush`). Counted in the world's event, a draw's log and its bucket
/// (a cache miss in a bank of a quarter of a megabyte) sat on the event's path; counted
/// together, one draw's log and miss overlap the next one's. Every count is a sum, and an
/// uplink's pair reads the player's last log in the order the draws were made, so the tables
/// come out the same. Whatever reads the tables flushes first.
///
/// A reference, like the recorder's banks: a copied audit shares it until
/// `AuditCounters.ensureUniqueTables` (the world's `ensureUniqueState`) gives it its own. One
/// world records into it; the rows read it once the run is done (hence `@unchecked Sendable`).
final class AuditTables: @unchecked Sendable {
    let memory: AuditMemory
    /// Per link, how its delay process forgets (`ModelAudit.forgetting`), read on every draw.
    let forgetting: StateTable<ModelAudit.Forgetting>
    /// The draws the marginal rows count: slot 2·link the uplinks, 2·link + 1 the downlinks,
    /// with their exact sums of µs and of their squares (`Moments`).
    let delays: HistogramBank
    let sums: StateTable<DelaySums>
    /// Per link, the audited players' successive log-uplinks, and the gaps between them
    /// (`UplinkGaps`, link-major; kept with the draw times).
    let lag: StateTable<PairMoments>
    let lagGaps: StateTable<UInt64>
    /// Per audited player, by slot (`AuditCounters.slot`): the last uplink's scaled log (`.min`:
    /// none), always; the other columns as `memory` keeps them (else empty).
    let logUplinks: StateTable<Int64>
    let drawTimes: StateTable<DrawTimes>
    let lastActive: StateTable<Int64>
    let standby: StateTable<Standby>

    /// `Histogram`'s default layout, as `Moments` records it: a constant where `record` is inlined.
    static let layout = 10

    /// Draws not yet counted, in the order they were drawn (`hold`, `flush`).
    private let held: UnsafeMutablePointer<HeldDraw>
    private var heldCount = 0
    /// How many draws wait at most: 4 KB, so the list stays in the first-level cache.
    static let heldRoom = 256

    /// A draw waiting to be counted: its delay, its player's slot, its link, and what it counts in.
    struct HeldDraw {
        var ns: Int64
        var slot: Int32
        var link: UInt16
        /// `uplink`, `counts` (in the marginal rows), `pairs` (with the player's last uplink, if any).
        var flags: UInt8
        /// The gap to the player's last uplink as a `UplinkGaps` bin; −1 where the times are not kept.
        var gapBin: Int8

        static let uplink: UInt8 = 1, counts: UInt8 = 2, pairs: UInt8 = 4
    }

    /// The exact sums of one slot's draws: µs, and µs squared.
    struct DelaySums {
        var sum: Int128 = 0
        var squares: Int128 = 0

        /// As `Moments.add` sums them.
        @inline(__always)
        mutating func add(_ ns: Int64) {
            let us = Moments.micros(ns)
            sum += us
            squares += us &* us   // exact: 64-bit factors
        }
    }

    /// A player's last uplink's true instant (ns, `.min`: none) and whether it counted in the
    /// marginal rows, and its last downlink's instant.
    struct DrawTimes {
        var uplinkAt: Int64 = .min
        var downlinkAt: Int64 = .min
        var uplinkCounted = false
    }

    /// A player's standby in progress: its wakes begun and time asleep (ns) in the window,
    /// counted only when the standby ends (one still going at the end would be cut off).
    struct Standby {
        var asleep: Int64 = 0
        var wakes: UInt32 = 0
    }

    init(forgetting: [ModelAudit.Forgetting], players: Int, memory: AuditMemory) {
        self.memory = memory
        let links = forgetting.count
        self.forgetting = StateTable(forgetting)
        delays = HistogramBank(slots: 2 * links, subBits: Self.layout)
        sums = StateTable(count: 2 * links) { _ in DelaySums() }
        lag = StateTable(count: links) { _ in PairMoments() }
        lagGaps = StateTable(count: memory.drawTimes ? links * UplinkGaps.bins : 0) { _ in 0 }
        logUplinks = StateTable(count: players) { _ in .min }
        drawTimes = StateTable(count: memory.drawTimes ? players : 0) { _ in DrawTimes() }
        lastActive = StateTable(count: memory.lastActive ? players : 0) { _ in .min }
        standby = StateTable(count: memory.standby ? players : 0) { _ in Standby() }
        held = .allocate(capacity: Self.heldRoom)
    }

    deinit { held.deallocate() }

    private init(copying o: AuditTables, players: Bool) {
        memory = o.memory
        forgetting = o.forgetting.copy()
        delays = o.delays.copy()
        sums = o.sums.copy()
        lag = o.lag.copy()
        lagGaps = o.lagGaps.copy()
        func column<T>(_ table: StateTable<T>) -> StateTable<T> { StateTable(count: players ? table.count : 0) { table[$0] } }
        logUplinks = column(o.logUplinks)
        drawTimes = column(o.drawTimes)
        lastActive = column(o.lastActive)
        standby = column(o.standby)
        // The draws still held come along (they change the players' memory): the original, which
        // another world may be reading, is not flushed.
        precondition(players || o.heldCount == 0, "held draws need the players' memory")
        held = .allocate(capacity: Self.heldRoom)
        held.initialize(from: o.held, count: o.heldCount)
        heldCount = o.heldCount
    }

    /// Starts loading audited player `slot`'s memory (`prefetchCacheLine`): the world's pipeline
    /// loads a player's state ahead of its event, and a draw reads this table too.
    /// (The last log-uplinks are read when the draws are counted, not in the event.)
    @inline(__always)
    func prefetch(slot: Int) {
        if memory.drawTimes && slot < drawTimes.count { prefetchCacheLine(UnsafeRawPointer(drawTimes.base + slot)) }
    }

    /// An independent copy; without the players' memory when `players` is false (the totals stay,
    /// with the draws still held counted into them).
    func copy(players: Bool = true) -> AuditTables {
        guard !players && heldCount > 0 else { return AuditTables(copying: self, players: players) }
        let counted = AuditTables(copying: self, players: true)
        counted.flush()
        return AuditTables(copying: counted, players: false)
    }

    /// A draw of `ns` to count for the player in `slot` on `link` (`HeldDraw`'s flags and gap
    /// bin): it waits with the others until the list is full.
    @inline(__always)
    func hold(_ ns: Int64, slot: Int, link: Int, flags: UInt8, gapBin: Int = -1) {
        held[heldCount] = HeldDraw(ns: ns, slot: Int32(truncatingIfNeeded: slot), link: UInt16(truncatingIfNeeded: link),
                                   flags: flags, gapBin: Int8(gapBin))
        heldCount &+= 1
        if heldCount == Self.heldRoom { flush() }
    }

    /// Counts the draws held, in the order they were drawn: into the histograms and sums, and an
    /// uplink's scaled log paired with its player's last.
    func flush() {
        for i in 0..<heldCount {
            let d = held[i]
            let link = Int(d.link)
            let uplink = d.flags & HeldDraw.uplink != 0
            if d.flags & HeldDraw.counts != 0 { count(d.ns, uplink ? .uplink : .downlink, link: link) }
            guard uplink else { continue }
            let s = Int(d.slot)
            let log = ScaledLog.of(d.ns), last = logUplinks[s]
            if d.flags & HeldDraw.pairs != 0, last != .min, log != .min { pair(last, log, gapBin: Int(d.gapBin), link: link) }
            logUplinks[s] = log
        }
        heldCount = 0
    }

    /// A delay the marginal rows count, in `direction` on `link`: as `Moments.add`.
    @inline(__always)
    func count(_ ns: Int64, _ direction: LinkDirection, link: Int) {
        let slot = 2 &* link &+ (direction == .uplink ? 0 : 1)
        delays.record(slot, ns, layout: Self.layout)
        sums[slot].add(ns)
    }

    /// A pair of successive log-uplinks of an audited player on `link`, their gap in `UplinkGaps`
    /// bin `gapBin` (−1: the draw times are not kept).
    @inline(__always)
    func pair(_ previous: Int64, _ log: Int64, gapBin: Int, link: Int) {
        lag[link].add(previous, log)
        if gapBin >= 0 { lagGaps[link &* UplinkGaps.bins &+ gapBin] &+= 1 }
    }

    /// Adds another shard's counts (same scenario); the players' memory is its own.
    func merge(_ o: AuditTables) {
        flush()
        o.flush()
        delays.merge(o.delays)
        for i in sums.indices {
            sums[i].sum += o.sums[i].sum
            sums[i].squares += o.sums[i].squares
        }
        for i in lag.indices { lag[i].merge(o.lag[i]) }
        for i in lagGaps.indices { lagGaps[i] &+= o.lagGaps[i] }
    }

    /// Link `link`'s counts as the rows read them: `requests` (its other counts) with its draws
    /// (the gap bins empty when the draw times are not kept).
    func linkAudit(_ link: Int, requests: LinkAudit) -> LinkAudit {
        flush()
        func moments(_ slot: Int) -> Moments {
            Moments(histogram: delays.histogram(slot), sum: sums[slot].sum, squares: sums[slot].squares)
        }
        var a = requests
        a.uplink = moments(2 * link)
        a.downlink = moments(2 * link + 1)
        a.lag = lag[link]
        if memory.drawTimes { a.lagGaps = (0..<UplinkGaps.bins).map { lagGaps[link * UplinkGaps.bins + $0] } }
        return a
    }
}

/// Which of an audited player's memories the audit keeps: only those the scenario's rows read, so
/// a run pays for the memory of the models it turns on. `everything` keeps them all (the
/// reference the tests hold the others against: the same rows).
struct AuditMemory: Equatable {
    /// The last uplink's and downlink's instants: read when a link's delays remember the player's
    /// past (which draws count depends on the time since its last draw) and by the lag row's
    /// expectation, which bins the gaps between uplinks, on such a link. On links without memory
    /// in time every draw counts and the lag row needs one point.
    var drawTimes: Bool
    /// The last network activity: read by an audited radio's and a keep-alive's rows.
    var lastActive: Bool
    /// The standby in progress: read by the standby rows.
    var standby: Bool

    static let everything = AuditMemory(drawTimes: true, lastActive: true, standby: true)

    /// What `scenario`'s rows read.
    init(scenario: Scenario) {
        drawTimes = scenario.links.contains { ModelAudit.forgetting($0).horizon != 0 || $0.correlation.memory != .none }
        lastActive = scenario.links.contains { ($0.radio as? any AuditedRadio) != nil || $0.connection != nil }
        standby = scenario.devices.events.standbyWakes != nil
    }

    init(drawTimes: Bool, lastActive: Bool, standby: Bool) {
        self.drawTimes = drawTimes
        self.lastActive = lastActive
        self.standby = standby
    }
}
