import SyncLabKernel

/// One row of the model audit: what a model's parameters say a figure should be, what the run
/// counted, and how far apart the two may lie at the run's sample size.
public struct AuditRow: Sendable, Equatable {
    /// The model ("link lte", "radio lte", "server queue", …).
    public var model: String
    /// The figure, a key of `Figure.audit` ("roundTripMs.p50", "promotionShare", …).
    public var figure: String
    public var expected: Double
    public var realised: Double
    public var tolerance: Double
    /// How many observations the realised figure rests on.
    public var samples: Int

    public init(model: String, figure: String, expected: Double, realised: Double, tolerance: Double, samples: Int) {
        self.model = model
        self.figure = figure
        self.expected = expected
        self.realised = realised
        self.tolerance = tolerance
        self.samples = samples
    }

    /// Whether the realised figure lies within the tolerance of the expected one.
    public var holds: Bool { realised.isFinite && abs(realised - expected) <= tolerance }
}

/// What the audit counts while a world runs (`MetricsRecorder.audit`), an observer of the model's
/// events (`ModelEvent`): only counts and integer sums, merged by addition, so every figure is
/// the same for any number of shards, and nothing here draws a random number. What a model's
/// rule says should have happened (the radio's idle rule, the keep-alive's, the lifecycle's
/// survival) it asks the model's own plug-in, from the scenario, never the world.
///
/// The per-player counts (every delay drawn, the pairs of log-uplinks, standbys, the radio's and
/// the keep-alive's rules on the true gap) are kept for the audited players only: every
/// `stride`-th player by global index from a start keyed by the seed, at most about
/// `AuditCounters.audited(for:)` of them, and of each only what the scenario's rows read
/// (`AuditMemory`). Players' links, clocks and draws are keyed by their index alone, so the
/// audited players are a random sample of the population, and every row's tolerance follows
/// from the count it rests on (docs/metrics.md, "Whom it follows"). What a fetch
/// records (its two delays, the pair of log-uplinks, the player's memory) lives in `AuditTables`.
struct AuditCounters: ModelObserver {
    /// Few enough that the audit's counting stays under a tenth of a large idealised run (R1 at
    /// 100,000 players over 3 h, one in 4: 5.6% of its instructions), enough that the rows still fail a
    /// link a few per cent off (`AuditSampleTests`); docs/metrics.md, "Whom it follows".
    static let auditedPlayers = 25_000
    /// The followed players' hours at most: `auditedPlayers` over the gallery's 3 h. A longer run
    /// follows fewer, so that what the rows rest on (draws, pairs, standbys: each in proportion
    /// to the hours followed) and what the counting costs stay those of a 3 h run (on R1 the
    /// Monte Carlo's part of the tolerance then already outweighs the sample's).
    static let auditedPlayerHours = 75_000

    /// How many players `scenario`'s audit follows at most: `auditedPlayers`, and over 3 h as many
    /// whole players as `auditedPlayerHours` allows (3,125 over a day), at least one.
    static func audited(for scenario: Scenario) -> Int {
        let exposure = Int64(auditedPlayerHours) * .hour / max(1, scenario.duration)   // below 2⁵⁸: exact
        return Int(max(1, min(Int64(auditedPlayers), exposure)))
    }
    static let samplePurpose = StreamPurpose("audit-sample")

    /// One player in `stride` is audited: those whose global index + `offset` is a multiple.
    let stride: Int
    let offset: Int
    let first: Int
    /// `stride` as a multiplication, and the slot of the first audited player at or after `first`.
    private let strideDivisor: ExactDivisor
    private let firstSlot: Int
    /// The scenario's links and app lifecycle, whose rules the counts are held against.
    let profiles: [LinkProfile]
    let lifecycle: DeviceEventsConfig.AppLifecycle?
    /// Per link, what its requests did (messages, radio, connection); its draws are in `tables`.
    var requests: [LinkAudit]
    /// The delays drawn and the audited players' memory. A draw counts in the marginal rows only
    /// when the player drew nothing on the link in the last `horizon` ns of its `forgetting`
    /// (0: every draw).
    private(set) var tables: AuditTables
    let window: Int64
    /// Completed standbys of the audited players: wakes, time asleep (ns), and every wake's drawn
    /// length (sum ns, sum of squares in ms², count).
    var wakes: UInt64 = 0
    var asleep: Int64 = 0
    var wakeLengths = Moments()
    /// The app lifecycle (every player): breaks begun in the window, those with the phone locked
    /// and those longer than the grace (suspended); per place (0: locked, 1: other apps) the
    /// breaks that ended in the window, the apps terminated, and the summed chance of
    /// termination and its binomial variance, in units of 2^−40 (integers: exact merges).
    var breaksBegun: UInt64 = 0
    var lockedBreaksBegun: UInt64 = 0
    var suspendedBreaks: UInt64 = 0
    var breaksEnded: [UInt64] = [0, 0]
    var terminations: [UInt64] = [0, 0]
    var terminationChance: [Int128] = [0, 0]
    var terminationVariance: [Int128] = [0, 0]
    static let chanceScale = 0x1p40
    /// Wall-clock corrections from the network (every player) in the window; each phone's first
    /// correction since the start by link and whole minute of the window, and those that stepped.
    var wallCorrections: UInt64 = 0
    var firstCorrections: [Int: UInt64] = [:]
    var firstCorrectionSteps: UInt64 = 0

    /// `memory`: what to keep of each audited player (default: what the scenario's rows read).
    /// `audited`: how many players to audit at most (default `audited(for:)`).
    init(scenario: Scenario, players: Range<Int>, memory: AuditMemory? = nil, audited: Int? = nil) {
        let stride = Self.stride(players: scenario.population.players, audited: audited ?? Self.audited(for: scenario))
        self.stride = stride
        offset = Self.offset(seed: scenario.seed, stride: stride)
        first = players.lowerBound
        strideDivisor = ExactDivisor(stride)
        firstSlot = (players.lowerBound + offset + stride - 1) / stride
        profiles = scenario.links
        lifecycle = scenario.devices.events.lifecycle
        requests = scenario.links.map { _ in LinkAudit() }
        let end = (players.upperBound + offset + stride - 1) / stride
        tables = AuditTables(forgetting: scenario.links.map(ModelAudit.forgetting), players: max(0, end - firstSlot),
                             memory: memory ?? AuditMemory(scenario: scenario))
        window = scenario.duration
    }

    /// One player in how many is audited: the least k for which ⌈players / k⌉ ≤ audited.
    static func stride(players: Int, audited: Int) -> Int {
        max(1, (players + max(1, audited) - 1) / max(1, audited))
    }

    /// Where the audited players start, keyed by the seed: a run's sample is the same for any
    /// number of shards, and another seed audits other players.
    static func offset(seed: UInt64, stride: Int) -> Int {
        guard stride > 1 else { return 0 }
        var rng = RandomStream(seed: seed, purpose: samplePurpose)
        return Int(rng.below(UInt64(stride)))
    }

    /// How many of players 0..<players are audited.
    func audited(of players: Int) -> Int {
        (players + offset + stride - 1) / stride - (offset + stride - 1) / stride
    }

    /// Per link, every count of the audit: its requests' and its draws'.
    var links: [LinkAudit] { requests.indices.map { tables.linkAudit($0, requests: requests[$0]) } }

    /// Drops the per-player memory (the totals stay), in a copy of the tables of its own.
    mutating func forgetPlayers() {
        tables = tables.copy(players: false)
    }

    /// Gives this audit tables of its own where a copy shares them (`MetricsRecorder.ensureUniqueTables`).
    mutating func ensureUniqueTables() {
        if !isKnownUniquelyReferenced(&tables) { tables = tables.copy() }
    }

    /// Whether instant t is inside the measured window.
    @inline(__always)
    func inWindow(_ t: Int64) -> Bool { t >= 0 && t < window }

    /// The part of [from, to) inside the window.
    func inWindow(from: Int64, to: Int64) -> Int64 { max(0, min(to, window) - max(from, 0)) }

    /// Player c's deep sleep with wakes begins: a standby starts. (The standby counts are kept
    /// when the scenario has standby wakes: only their rows read them.)
    mutating func standbyBegins(_ c: Int) {
        guard tables.memory.standby, let s = slot(c) else { return }
        tables.standby[s] = AuditTables.Standby()
    }

    /// Player c's standby wakes at t after sleeping `slept`; the wake lasts `length`.
    mutating func standbyWake(_ c: Int, at t: Int64, slept: Int64, length: Int64) {
        guard tables.memory.standby, let s = slot(c) else { return }
        tables.standby[s].asleep += inWindow(from: t - slept, to: t)
        if t >= 0 && t < window {
            tables.standby[s].wakes += 1
            wakeLengths.add(length)
        }
    }

    /// Player c's standby ends at t (the player is back) after its last `slept`.
    mutating func standbyEnds(_ c: Int, at t: Int64, slept: Int64) {
        guard tables.memory.standby, let s = slot(c) else { return }
        asleep += tables.standby[s].asleep + inWindow(from: t - slept, to: t)
        wakes += UInt64(tables.standby[s].wakes)
        tables.standby[s] = AuditTables.Standby()
    }

    /// Starts loading what the audit keeps of player c, if it is audited (`AuditTables.prefetch`).
    @inline(__always)
    func prefetch(_ c: Int) {
        if let s = slot(c) { tables.prefetch(slot: s) }
    }

    /// Whether player c (local index) is audited (inlined: only the divisibility test remains).
    @inline(__always)
    func follows(_ c: Int) -> Bool { slot(c) != nil }

    /// The slot of player c (local index), or nil when the player is not audited.
    @inline(__always)
    func slot(_ c: Int) -> Int? {
        if stride == 1 { return c }   // every player (up to `auditedPlayers`): no divisions
        let g = first + c + offset
        guard strideDivisor.divides(g) else { return nil }
        return strideDivisor.quotient(g) - firstSlot
    }

    /// A request's uplink delay drawn (ns) at true time t, counted when player c is audited.
    /// The marginal rows count it when its timing cannot depend on the player's earlier draws
    /// through the link's state: on a link that forgets, after an idle `horizon`; on one without
    /// memory in time, every draw. The correlation row takes the successive pairs whose first
    /// draw so counted, or whose gap is past the horizon.
    ///
    /// Without the draw times (`AuditMemory.drawTimes`: no link remembers) a player's last draws
    /// read as none: every draw is then apart from the last (horizon 0), as it is with them.
    mutating func uplink(_ c: Int, _ delay: Int64, at t: Int64, link: Int, measured: Bool) {
        guard let s = slot(c) else { return }
        let f = tables.forgetting[link]
        let keepsTimes = tables.memory.drawTimes
        let last = keepsTimes ? tables.drawTimes[s] : AuditTables.DrawTimes()
        let previous = f.directionsShareState ? max(last.uplinkAt, last.downlinkAt) : last.uplinkAt
        let counted = Self.apart(t, previous, f.horizon)
        // Counted later, in order (`AuditTables.flush`): in the marginal rows if it counts here,
        // and paired with the player's last log-uplink (when there is one) if it pairs here.
        let pairs = measured && (last.uplinkCounted || Self.apart(t, last.uplinkAt, f.horizon))
        let gapBin = keepsTimes && last.uplinkAt != .min ? UplinkGaps.bin(t &- last.uplinkAt) : -1
        typealias Held = AuditTables.HeldDraw
        tables.hold(delay, slot: s, link: link,
                    flags: Held.uplink | (measured && counted ? Held.counts : 0) | (pairs ? Held.pairs : 0), gapBin: gapBin)
        if keepsTimes {
            tables.drawTimes[s].uplinkAt = t
            tables.drawTimes[s].uplinkCounted = counted
        }
    }

    /// A response's downlink delay drawn (ns) at true time t, counted in the marginal rows by the
    /// uplink's rule.
    mutating func downlink(_ c: Int, _ delay: Int64, at t: Int64, link: Int, measured: Bool) {
        guard let s = slot(c) else { return }
        let f = tables.forgetting[link]
        guard tables.memory.drawTimes else {
            if measured { tables.hold(delay, slot: s, link: link, flags: AuditTables.HeldDraw.counts) }   // horizon 0: every draw
            return
        }
        let last = tables.drawTimes[s]
        let previous = f.directionsShareState ? max(last.uplinkAt, last.downlinkAt) : last.downlinkAt
        if measured && Self.apart(t, previous, f.horizon) { tables.hold(delay, slot: s, link: link, flags: AuditTables.HeldDraw.counts) }
        tables.drawTimes[s].downlinkAt = t
    }

    /// Whether a draw at t is at least `horizon` after the last one (`.min`: none, always).
    @inline(__always)
    static func apart(_ t: Int64, _ last: Int64, _ horizon: Int64) -> Bool {
        last == .min || horizon == 0 || (horizon != .max && t - last >= horizon)
    }

    /// Player c's radio and connection were busy until `t` (true time, never rounded).
    @inline(__always)
    mutating func active(_ c: Int, at t: Int64) {
        if tables.memory.lastActive, let s = slot(c) { tables.lastActive[s] = t }
    }

    /// The true instant of player c's last network activity, or nil when it is not audited (or
    /// no row reads it).
    func lastActive(_ c: Int) -> Int64? {
        guard tables.memory.lastActive else { return nil }
        return slot(c).map { tables.lastActive[$0] }
    }

    /// A message of `segments` TCP segments that lost segments adding `added` ns (0: none lost).
    mutating func message(link: Int, segments: Int, added: Int64) {
        requests[link].messagesBySegments[segments, default: 0] += 1
        if added > 0 {
            requests[link].lateMessages += 1
            requests[link].addedDelay += added
        }
    }

    /// Player c's request at t on `link` with a radio: what the radio's rule gives on the true
    /// idle gap, and whether the request paid a promotion.
    mutating func radio(_ c: Int, at t: Int64, link: Int, _ radio: any AuditedRadio, promoted: Bool) {
        guard let last = lastActive(c) else { return }
        requests[link].radioRequests += 1
        func idle(_ last: Int64) -> Bool { radio.isIdle(lastActive: last, at: t) }
        if idle(last) { requests[link].idleByTrueGap += 1 }
        if idle(Self.before(last)) != idle(Self.after(last)) { requests[link].radioBorderline += 1 }
        if promoted { requests[link].promoted += 1 }
    }

    /// The resolution the world keeps the last activity at (whole ns since issue 38: exact): a
    /// request whose rule gives another answer that far either side of the true instant may go
    /// either way, and counts in the tolerance.
    static let storedResolution: Int64 = 0
    static func before(_ t: Int64) -> Int64 { t == .min ? t : t - storedResolution }
    static func after(_ t: Int64) -> Int64 { t == .min ? t : t + storedResolution }

    /// Player c's request at t on a link with connection set-up: whether the keep-alive's rule on
    /// the true idle gap needs a new connection and a look-up, and what the world did.
    mutating func connection(_ c: Int, at t: Int64, link: Int, _ setup: any ConnectionSetup, wasOpen: Bool,
                             cold made: Bool, lookedUp: Bool) {
        guard let last = lastActive(c) else { return }
        requests[link].connectionRequests += 1
        func cold(_ last: Int64) -> Bool { !(wasOpen && setup.isOpen(lastUsed: last, at: t)) }
        func lookup(_ last: Int64) -> Bool { cold(last) && setup.needsLookup(resolvedAt: last, at: t) }
        if cold(last) { requests[link].coldByTrueGap += 1 }
        if lookup(last) { requests[link].lookupsByTrueGap += 1 }
        if cold(Self.before(last)) != cold(Self.after(last)) { requests[link].coldBorderline += 1 }
        if lookup(Self.before(last)) != lookup(Self.after(last)) { requests[link].lookupBorderline += 1 }
        if made { requests[link].coldMade += 1 }
        if lookedUp { requests[link].lookupsMade += 1 }
    }

    /// A break of `length` begins, the phone locked or not (counted when it begins in the window).
    mutating func breakBegins(length: Int64, locked: Bool, grace: Int64) {
        breaksBegun += 1
        if locked { lockedBreaksBegun += 1 }
        if length > grace { suspendedBreaks += 1 }
    }

    /// A break in the window ends; the app survived it with chance `survival`.
    mutating func breakEnds(locked: Bool, survival: Double, terminated: Bool) {
        let k = locked ? 0 : 1
        let p = min(1, max(0, 1 - survival))
        breaksEnded[k] += 1
        if terminated { terminations[k] += 1 }
        terminationChance[k] += Int128((p * Self.chanceScale).rounded())
        terminationVariance[k] += Int128((p * (1 - p) * Self.chanceScale).rounded())
    }

    /// The wall clock's correction number `ordinal` at t (in the window) on `link`, a step or not.
    mutating func wallCorrection(link: Int, ordinal: UInt32, at t: Int64, stepped: Bool) {
        wallCorrections += 1
        guard ordinal == 0 else { return }
        firstCorrections[link << 32 | Int(t / 60_000_000_000), default: 0] += 1
        if stepped { firstCorrectionSteps += 1 }
    }

    mutating func observe(_ event: ModelEvent) {
        switch event {
        case let .uplinkDrawn(c, link, delay, t):
            uplink(c, delay, at: t, link: link, measured: inWindow(t))
        case let .downlinkDrawn(c, link, delay, t, arrived):
            downlink(c, delay, at: t, link: link, measured: inWindow(arrived))
        case let .networkBusy(c, t):
            active(c, at: t)
        // A player the audit does not follow is not counted (`radio`, `connection`): tested
        // first, it costs no cast and no copy of the link's model.
        case let .radioAsked(c, link, t, promoted):
            if inWindow(t), follows(c), let radio = profiles[link].radio as? any AuditedRadio {
                self.radio(c, at: t, link: link, radio, promoted: promoted)
            }
        case let .connectionAsked(c, link, t, wasOpen, cold, lookedUp):
            if inWindow(t), follows(c), let setup = profiles[link].connection {
                connection(c, at: t, link: link, setup, wasOpen: wasOpen, cold: cold, lookedUp: lookedUp)
            }
        case let .messageCrossed(link, segments, added):
            message(link: link, segments: segments, added: added)
        case let .standbyBegan(c):
            standbyBegins(c)
        case let .standbyWoke(c, t, slept, length):
            standbyWake(c, at: t, slept: slept, length: length)
        case let .standbyEnded(c, t, slept):
            standbyEnds(c, at: t, slept: slept)
        case let .breakBegan(t, length, locked):
            if inWindow(t), let lifecycle { breakBegins(length: length, locked: locked, grace: lifecycle.grace) }
        case let .breakEnded(t, length, locked, terminated):
            if inWindow(t), let lifecycle {
                breakEnds(locked: locked, survival: lifecycle.survival(afterBreak: length, locked: locked), terminated: terminated)
            }
        case let .wallClockCorrected(_, link, ordinal, t, stepped):
            if inWindow(t) { wallCorrection(link: link, ordinal: ordinal, at: t, stepped: stepped) }
        case .roundTripAnswered:
            break
        }
    }

    mutating func merge(_ o: AuditCounters) {
        for i in requests.indices { requests[i].merge(o.requests[i]) }
        tables.merge(o.tables)
        wakes += o.wakes
        asleep += o.asleep
        wakeLengths.merge(o.wakeLengths)
        breaksBegun += o.breaksBegun
        lockedBreaksBegun += o.lockedBreaksBegun
        suspendedBreaks += o.suspendedBreaks
        for k in 0..<2 {
            breaksEnded[k] += o.breaksEnded[k]
            terminations[k] += o.terminations[k]
            terminationChance[k] += o.terminationChance[k]
            terminationVariance[k] += o.terminationVariance[k]
        }
        wallCorrections += o.wallCorrections
        firstCorrections.merge(o.firstCorrections, uniquingKeysWith: +)
        firstCorrectionSteps += o.firstCorrectionSteps
    }
}

/// One link's audit counts.
struct LinkAudit {
    /// One-way delays drawn in the window: every request's uplink, every response's downlink.
    var uplink = Moments()
    var downlink = Moments()
    /// Pairs (previous uplink, this uplink) of a player, as scaled logs.
    var lag = PairMoments()
    /// Those pairs by the gap between their uplinks (`UplinkGaps`): on a link correlated in time
    /// the expected correlation depends on it.
    var lagGaps = [UInt64](repeating: 0, count: UplinkGaps.bins)
    /// Messages by segment count, those that lost a segment, and their summed added delay (ns).
    var messagesBySegments: [Int: UInt64] = [:]
    var lateMessages: UInt64 = 0
    var addedDelay: Int64 = 0
    /// Requests on a radio link: asked, idle by the true gap, and promoted (paid a promotion > 0).
    var radioRequests: UInt64 = 0
    var idleByTrueGap: UInt64 = 0
    var promoted: UInt64 = 0
    /// Requests whose answer turns within the stored resolution of the true gap (the tolerance).
    var radioBorderline: UInt64 = 0
    var coldBorderline: UInt64 = 0
    var lookupBorderline: UInt64 = 0
    /// Requests on a keep-alive link: asked, needing a new connection by the true gap, and new
    /// connections made; and the same for DNS look-ups.
    var connectionRequests: UInt64 = 0
    var coldByTrueGap: UInt64 = 0
    var coldMade: UInt64 = 0
    var lookupsByTrueGap: UInt64 = 0
    var lookupsMade: UInt64 = 0

    mutating func merge(_ o: LinkAudit) {
        uplink.merge(o.uplink)
        downlink.merge(o.downlink)
        lag.merge(o.lag)
        for k in lagGaps.indices { lagGaps[k] += o.lagGaps[k] }
        messagesBySegments.merge(o.messagesBySegments, uniquingKeysWith: +)
        lateMessages += o.lateMessages
        addedDelay += o.addedDelay
        radioRequests += o.radioRequests
        idleByTrueGap += o.idleByTrueGap
        promoted += o.promoted
        radioBorderline += o.radioBorderline
        coldBorderline += o.coldBorderline
        lookupBorderline += o.lookupBorderline
        connectionRequests += o.connectionRequests
        coldByTrueGap += o.coldByTrueGap
        coldMade += o.coldMade
        lookupsByTrueGap += o.lookupsByTrueGap
        lookupsMade += o.lookupsMade
    }
}

/// Bins of the gap between a player's successive uplinks, by octave of milliseconds: bin 0 is
/// [0, 1 ms), bin k is [2^(k−1), 2^k) ms, the last open above.
enum UplinkGaps {
    static let bins = 36

    @inline(__always)
    static func bin(_ ns: Int64) -> Int {
        let ms = max(0, ns) / 1_000_000
        return ms < 1 ? 0 : min(bins - 1, 64 - ms.leadingZeroBitCount)
    }

    /// Bin k's bounds (ns): [lower, upper).
    static func bounds(_ k: Int) -> (lower: Int64, upper: Int64) {
        k == 0 ? (0, 1_000_000) : ((Int64(1) << (k - 1)) * 1_000_000, (Int64(1) << k) * 1_000_000)
    }
}

/// Values (ns) in a histogram for quantiles, with exact integer sums (µs) for the mean and SD.
struct Moments {
    var histogram = Histogram()
    var sum: Int128 = 0
    var squares: Int128 = 0

    mutating func add(_ ns: Int64) {
        histogram.record(ns)
        let us = Self.micros(ns)
        sum += us
        // Two 64-bit values: the product is exact in 128 bits, so it needs no overflow check (the
        // checked 128-bit multiply was a third of the audit's cost per delay).
        squares += us &* us
    }

    /// A delay (ns) in whole µs, as the sums keep it.
    @inline(__always)
    static func micros(_ ns: Int64) -> Int128 { Int128((ns + 500) / 1000) }

    mutating func merge(_ o: Moments) {
        histogram.merge(o.histogram)
        sum += o.sum
        squares += o.squares
    }

    var count: Int { Int(histogram.count) }
    /// Standard deviation, ns (nil below two values).
    var standardDeviation: Double? {
        guard count >= 2 else { return nil }
        let n = Double(count), mean = wide(sum) / n
        return (max(0, wide(squares) / n - mean * mean) * n / (n - 1)).squareRoot() * 1000
    }
}

/// Pairs of integers with exact sums, for a correlation.
struct PairMoments {
    var count = 0
    var x: Int128 = 0, y: Int128 = 0, xx: Int128 = 0, yy: Int128 = 0, xy: Int128 = 0

    @inline(__always)
    mutating func add(_ a: Int64, _ b: Int64) {
        let a = Int128(a), b = Int128(b)
        count += 1
        x += a; y += b; xx += a &* a; yy += b &* b; xy += a &* b   // exact: 64-bit factors
    }

    mutating func merge(_ o: PairMoments) {
        count += o.count
        x += o.x; y += o.y; xx += o.xx; yy += o.yy; xy += o.xy
    }

    /// Pearson correlation (nil below three pairs or without spread). Centred in integers first:
    /// the sums are large and nearly cancel. Held within ±1, which pairs that are all equal
    /// (a delay drawn again no time later) can pass by a rounding of the square roots.
    var correlation: Double? {
        guard count >= 3 else { return nil }
        let n = Int128(count)
        let sxy = wide(n * xy - x * y), sxx = wide(n * xx - x * x), syy = wide(n * yy - y * y)
        guard sxx > 0, syy > 0 else { return nil }
        return max(-1, min(1, sxy / (sxx.squareRoot() * syy.squareRoot())))
    }
}

/// An Int128 as a Double, by its two halves (the standard library's conversion traps on this
/// toolchain for some values).
func wide(_ v: Int128) -> Double {
    let magnitude = v < 0 ? 0 - v : v
    let value = Double(UInt64(truncatingIfNeeded: magnitude >> 64)) * 0x1p64 + Double(UInt64(truncatingIfNeeded: magnitude))
    return v < 0 ? -value : value
}
