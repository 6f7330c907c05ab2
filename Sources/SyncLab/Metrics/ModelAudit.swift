import SyncLabKernel

/// One row of the model audit: what a model's parameters say a figure should be, what the run
/// counted, and how far apart the two may lie at the run's sample size.
public struct AuditRow: Sendable, Equatable {
    /// The model ("link lte", "radio lte", "server queue", …).
    public var model: String
    /// The figure, a key of `Figure.auditFigures` ("roundTripMs.p50", "promotionShare", …).
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

/// What the audit counts while a world runs (`MetricsRecorder.audit`): only counts and integer
/// sums, merged by addition, so every figure is the same for any number of shards, and nothing
/// here draws a random number (every existing figure stays as it was).
///
/// Per-player memory (the uplink waiting for its downlink, the last uplink, the true instant of
/// the last network activity) is kept for the audited players only: every `stride`-th player by
/// global index, at most about `AuditCounters.auditedPlayers` of them.
struct AuditCounters {
    static let auditedPlayers = 200_000
    /// Fixed-point scale of log-delays (ln of ns), for sums that merge exactly.
    static let logScale = 0x1p24

    let stride: Int
    let first: Int
    var links: [LinkAudit]
    /// Per audited player (by local slot): the last uplink's scaled log (`.min`: none) and true
    /// instant (ns), the last network activity (true ns, `.min`: none yet).
    var lastLogUplink: [Int64]
    var lastUplinkAt: [Int64]
    var lastActive: [Int64]
    /// Per audited player, the standby in progress: wakes begun and time asleep in the window,
    /// counted only when the standby ends (one still going at the end would be cut off).
    var standbyWakes: [UInt32]
    var standbyAsleep: [Int64]
    let window: Int64
    /// Completed standbys of the audited players: wakes, time asleep (ns), and every wake's drawn
    /// length (sum ns, sum of squares in ms², count).
    var wakes: UInt64 = 0
    var asleep: Int64 = 0
    var wakeLengths = Moments()

    init(scenario: Scenario, players: Range<Int>) {
        stride = max(1, scenario.population.players / Self.auditedPlayers)
        first = players.lowerBound
        links = scenario.links.map { _ in LinkAudit() }
        let lo = (players.lowerBound + stride - 1) / stride, hi = (players.upperBound + stride - 1) / stride
        let slots = max(0, hi - lo)
        lastLogUplink = [Int64](repeating: .min, count: slots)
        lastUplinkAt = [Int64](repeating: .min, count: slots)
        lastActive = [Int64](repeating: .min, count: slots)
        standbyWakes = [UInt32](repeating: 0, count: slots)
        standbyAsleep = [Int64](repeating: 0, count: slots)
        window = scenario.duration
    }

    /// Drops the per-player memory (the totals stay).
    mutating func forgetPlayers() {
        lastLogUplink = []
        lastUplinkAt = []
        lastActive = []
        standbyWakes = []
        standbyAsleep = []
    }

    /// The part of [from, to) inside the window.
    func inWindow(from: Int64, to: Int64) -> Int64 { max(0, min(to, window) - max(from, 0)) }

    /// Player c's deep sleep with wakes begins: a standby starts.
    mutating func standbyBegins(_ c: Int) {
        guard let s = slot(c) else { return }
        standbyWakes[s] = 0
        standbyAsleep[s] = 0
    }

    /// Player c's standby wakes at t after sleeping `slept`; the wake lasts `length`.
    mutating func standbyWake(_ c: Int, at t: Int64, slept: Int64, length: Int64) {
        guard let s = slot(c) else { return }
        standbyAsleep[s] += inWindow(from: t - slept, to: t)
        if t >= 0 && t < window {
            standbyWakes[s] += 1
            wakeLengths.add(length)
        }
    }

    /// Player c's standby ends at t (the player is back) after its last `slept`.
    mutating func standbyEnds(_ c: Int, at t: Int64, slept: Int64) {
        guard let s = slot(c) else { return }
        asleep += standbyAsleep[s] + inWindow(from: t - slept, to: t)
        wakes += UInt64(standbyWakes[s])
        standbyWakes[s] = 0
        standbyAsleep[s] = 0
    }

    /// The slot of player c (local index), or nil when the player is not audited.
    @inline(__always)
    func slot(_ c: Int) -> Int? {
        let g = first + c
        guard g % stride == 0 else { return nil }
        return g / stride - (first + stride - 1) / stride
    }

    /// A request's uplink delay drawn (ns) at true time t: every player's in the window, and the
    /// audited players' successive pairs with the gap between them.
    mutating func uplink(_ c: Int, _ delay: Int64, at t: Int64, link: Int, measured: Bool) {
        if measured { links[link].uplink.add(delay) }
        guard let s = slot(c) else { return }
        let log = Self.scaledLog(delay)
        if measured, lastLogUplink[s] != .min, log != .min {
            links[link].lag.add(lastLogUplink[s], log)
            links[link].lagGaps[UplinkGaps.bin(t - lastUplinkAt[s])] += 1
        }
        lastLogUplink[s] = log
        lastUplinkAt[s] = t
    }

    /// A response's downlink delay drawn (ns).
    mutating func downlink(_ c: Int, _ delay: Int64, link: Int, measured: Bool) {
        if measured { links[link].downlink.add(delay) }
    }

    /// Player c's radio and connection were busy until `t` (true time, never rounded).
    @inline(__always)
    mutating func active(_ c: Int, at t: Int64) {
        if let s = slot(c) { lastActive[s] = t }
    }

    /// The true instant of player c's last network activity, or nil when it is not audited.
    func lastActive(_ c: Int) -> Int64? { slot(c).map { lastActive[$0] } }

    static func scaledLog(_ ns: Int64) -> Int64 { ns > 0 ? Int64((DeterministicMath.log(Double(ns)) * logScale).rounded()) : .min }

    /// A message of `segments` TCP segments that lost segments adding `added` ns (0: none lost).
    mutating func message(link: Int, segments: Int, added: Int64) {
        links[link].messagesBySegments[segments, default: 0] += 1
        if added > 0 {
            links[link].lateMessages += 1
            links[link].addedDelay += added
        }
    }

    /// Player c's request at t on `link` with a radio: what the radio's rule gives on the true
    /// idle gap, and whether the request paid a promotion.
    mutating func radio(_ c: Int, at t: Int64, link: Int, tail: Int64, promoted: Bool) {
        guard let last = lastActive(c) else { return }
        links[link].radioRequests += 1
        func idle(_ last: Int64) -> Bool { last == .min || t - last > tail }
        if idle(last) { links[link].idleByTrueGap += 1 }
        if idle(Self.before(last)) != idle(Self.after(last)) { links[link].radioBorderline += 1 }
        if promoted { links[link].promoted += 1 }
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
        links[link].connectionRequests += 1
        func cold(_ last: Int64) -> Bool { !(wasOpen && setup.isOpen(lastUsed: last, at: t)) }
        func lookup(_ last: Int64) -> Bool { cold(last) && setup.needsLookup(resolvedAt: last, at: t) }
        if cold(last) { links[link].coldByTrueGap += 1 }
        if lookup(last) { links[link].lookupsByTrueGap += 1 }
        if cold(Self.before(last)) != cold(Self.after(last)) { links[link].coldBorderline += 1 }
        if lookup(Self.before(last)) != lookup(Self.after(last)) { links[link].lookupBorderline += 1 }
        if made { links[link].coldMade += 1 }
        if lookedUp { links[link].lookupsMade += 1 }
    }

    mutating func merge(_ o: AuditCounters) {
        for i in links.indices { links[i].merge(o.links[i]) }
        wakes += o.wakes
        asleep += o.asleep
        wakeLengths.merge(o.wakeLengths)
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
        let us = Int128((ns + 500) / 1000)
        sum += us
        squares += us * us
    }

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

    mutating func add(_ a: Int64, _ b: Int64) {
        let a = Int128(a), b = Int128(b)
        count += 1
        x += a; y += b; xx += a * a; yy += b * b; xy += a * b
    }

    mutating func merge(_ o: PairMoments) {
        count += o.count
        x += o.x; y += o.y; xx += o.xx; yy += o.yy; xy += o.xy
    }

    /// Pearson correlation (nil below three pairs or without spread). Centred in integers first:
    /// the sums are large and nearly cancel.
    var correlation: Double? {
        guard count >= 3 else { return nil }
        let n = Int128(count)
        let sxy = wide(n * xy - x * y), sxx = wide(n * xx - x * x), syy = wide(n * yy - y * y)
        guard sxx > 0, syy > 0 else { return nil }
        return sxy / (sxx.squareRoot() * syy.squareRoot())
    }
}

/// An Int128 as a Double, by its two halves (the standard library's conversion traps on this
/// toolchain for some values).
func wide(_ v: Int128) -> Double {
    let magnitude = v < 0 ? 0 - v : v
    let value = Double(UInt64(truncatingIfNeeded: magnitude >> 64)) * 0x1p64 + Double(UInt64(truncatingIfNeeded: magnitude))
    return v < 0 ? -value : value
}
