import SyncLabKernel

/// The model audit's rows: per active model, each figure its parameters fix (a closed form, the
/// rule applied to what the run did, or a Monte Carlo of the documented process on a stream of
/// its own) against the figure the run counted, with a tolerance from the sample size. Every
/// rule is in docs/metrics.md ("What the models did").
public enum ModelAudit {
    /// Standard errors a realised figure may lie from its expected value: 5 (a chance of about
    /// 6 in 10 million per row under the normal approximation), so a correct model holds on
    /// every row of every run and a model off by more than that fails.
    public static let z = 5.0
    /// Draws of the Monte Carlo that gives a link's delay law.
    public static let monteCarloDraws = 100_000
    static let purpose = StreamPurpose("model-audit")

    /// The rows, each model's worked out apart on its own stream, so they may be worked out at
    /// once (the Monte Carlos of cellular links take a few tenths of a second after a run) and
    /// still come out the same, in the same order, on any number of `threads` (nil: every core).
    static func rows(_ scenario: Scenario, _ audit: AuditCounters, serving: ServingRecord?, threads: Int? = nil) -> [AuditRow] {
        var parts: [@Sendable () -> [AuditRow]] = []
        let links = audit.links
        for (i, link) in scenario.links.enumerated() {
            let counters = links[i]
            parts.append { linkRows(link, counters, seed: scenario.seed, index: i) }
        }
        if let serving { parts.append { queueRows(scenario, serving) } }
        if let serving, !serving.clocks.isEmpty { parts.append { serverClockRows(scenario, serving) } }
        if let wakes = scenario.devices.events.standbyWakes, wakes.script == nil { parts.append { standbyRows(wakes, audit, seed: scenario.seed) } }
        if let lifecycle = scenario.devices.events.lifecycle { parts.append { lifecycleRows(scenario, lifecycle, audit) } }
        if let sync = scenario.devices.events.wallClockSync {
            // Worked out before the parts, on all the threads (within a part it would run on one).
            let chances = stepChanceTable(scenario, sync, audit, threads: threads)?.chances
            parts.append { wallClockRows(scenario, sync, audit, chances: chances) }
        }
        let all = parts
        return concurrentMap(all.count, threads: threads) { all[$0]() }.flatMap { $0 }
    }

    // MARK: Links

    /// How a link's delay process forgets a player's past, for choosing the draws the marginal
    /// rows count (issue 39). A client that probes back to back sends each probe when the last
    /// answer arrives, so after a slow delay the next probe comes later, when a slow state has
    /// had longer to fade: on a link correlated in time those probes over-sample its good states.
    /// A draw whose player drew nothing on the link for `horizon` ns is nearly independent of the
    /// earlier draws (its correlation with them at most `residual`), whenever it was sent.
    struct Forgetting: Equatable {
        /// 0: the process has no memory in time (independent draws, traces replayed by order),
        /// every draw counts; `.max`: unknown, only a player's first draw counts.
        var horizon: Int64
        /// Whether the two directions share one state (Gilbert–Elliott), so a downlink's timing
        /// depends on the uplink just drawn.
        var directionsShareState: Bool
        /// The most a counted draw correlates with the player's draw before it.
        var residual: Double
    }

    /// The correlation a counted draw may keep with the one before: e^−6.9.
    static let forgottenBelow = 0.001

    /// From what the link's delay process declares of itself (`DelayProcess.memory`).
    static func forgetting(_ link: LinkProfile) -> Forgetting {
        if link.trace != nil { return Forgetting(horizon: .max, directionsShareState: false, residual: forgottenBelow) }
        switch link.correlation.memory {
        case .none: return Forgetting(horizon: 0, directionsShareState: false, residual: 0)
        case let .fades(timeConstant, shared):
            // e^(−Δt/T) ≤ 0.001 from Δt = 6.9 T.
            let horizonOver = DeterministicMath.log(1 / forgottenBelow)
            return Forgetting(horizon: horizon(ns: timeConstant * horizonOver), directionsShareState: shared, residual: forgottenBelow)
        case .unknown: return Forgetting(horizon: .max, directionsShareState: true, residual: forgottenBelow)
        }
    }

    /// A horizon of `ns` nanoseconds, rounded up; `.max` (never forgets: only a player's first
    /// draw counts) when it is past what an Int64 holds or not a number: rates the loader accepts
    /// go down to any positive value (a channel that stays good or bad for centuries is a fixed
    /// mixture of players), so λ = g + b may be 2e-10 per second and the horizon 3.5e19 ns.
    static func horizon(ns: Double) -> Int64 {
        guard ns.isFinite, ns < 0x1p63 else { return .max }
        return Int64(max(0, ns).rounded(.up))
    }

    /// A link's delay law by Monte Carlo of its own delay process: the uplink and downlink of
    /// fresh players. A process starts each player in its stationary law, so a fresh player's
    /// draw has the law of every draw, at any instant.
    struct DelayLaw {
        var uplink: [Int64], downlink: [Int64]
    }

    /// `throughProcess`: every draw through the link's delay process, as for a process with
    /// memory (tests: the independent link's direct draws equal it).
    static func delayLaw(_ link: LinkProfile, seed: UInt64, index: Int, throughProcess: Bool = false) -> DelayLaw {
        var rng = RandomStream(seed: seed, purpose: purpose, entity: UInt64(index))
        var up: [Int64] = [], down: [Int64] = []
        up.reserveCapacity(monteCarloDraws)
        down.reserveCapacity(monteCarloDraws)
        let (upFloor, downFloor) = (link.floor(.uplink), link.floor(.downlink))
        if link.hasIndependentDelays && !throughProcess {
            // What `IndependentDelays` draws, from its laws directly: the same draws from the same
            // stream, without a call through the process per draw (most of the audit's fixed cost
            // in an idealised run).
            let (upLaw, downLaw) = (link.distribution(.uplink), link.distribution(.downlink))
            for _ in 0..<monteCarloDraws {
                up.append(max(upFloor, upLaw.sampleDuration(&rng)))
                down.append(max(downFloor, downLaw.sampleDuration(&rng)))
            }
        } else {
            for m in 0..<monteCarloDraws {
                var memory = LinkMemory()
                let player = UInt64.max - UInt64(m)
                // Held at the link's floors, as the world holds its delays.
                up.append(max(upFloor, Distribution.duration(link.correlation.delay(.uplink, on: link, memory: &memory, at: .zero,
                                                                                    player: player, seed: seed, &rng))))
                down.append(max(downFloor, Distribution.duration(link.correlation.delay(.downlink, on: link, memory: &memory, at: .zero,
                                                                                        player: player, seed: seed, &rng))))
            }
        }
        RadixSort.sort(&up)
        RadixSort.sort(&down)
        return DelayLaw(uplink: up, downlink: down)
    }

    /// Pairs per gap in the Monte Carlo of the lag-1 correlation.
    static let pairDraws = 20_000

    /// The correlation of the log-uplinks of fresh players' first request and a request `gap`
    /// later (a downlink drawn between them, as in the world), by Monte Carlo on a stream of its
    /// own (`lagCorrelations` with the one gap).
    static func lagCorrelation(_ link: LinkProfile, gap: Int64, seed: UInt64, index: Int, throughProcess: Bool = false) -> Double {
        lagCorrelations(link, gaps: [gap], seed: seed, index: index, throughProcess: throughProcess)[0]
    }

    /// The same at each of `gaps`, from the same fresh players (common random numbers): each
    /// player draws its first uplink and the downlink once, then the uplink `gap` later from the
    /// same random numbers at every gap, on a stream of its own split from the link's. Each
    /// gap's correlation has the law and the Monte Carlo error it would have alone; the players'
    /// first two delays, drawn once rather than once per gap, are most of what it saves.
    static func lagCorrelations(_ link: LinkProfile, gaps: [Int64], seed: UInt64, index: Int,
                                throughProcess: Bool = false) -> [Double] {
        var rng = RandomStream(seed: seed, purpose: purpose, entity: 4 << 40 | UInt64(index))
        var pairs = [PairMoments](repeating: PairMoments(), count: gaps.count)
        let direct = link.hasIndependentDelays && !throughProcess   // as in `delayLaw`
        let (upLaw, downLaw) = (link.distribution(.uplink), link.distribution(.downlink))
        for m in 0..<pairDraws {
            var first = RandomStream(state: rng.next())
            let second = RandomStream(state: rng.next())
            var memory = LinkMemory()
            let player = UInt64.max - UInt64(m)
            let u: Double
            if direct {
                u = upLaw.sample(&first)
                _ = downLaw.sample(&first)
            } else {
                u = link.correlation.delay(.uplink, on: link, memory: &memory, at: .zero, player: player, seed: seed, &first)
                _ = link.correlation.delay(.downlink, on: link, memory: &memory, at: .zero, player: player, seed: seed, &first)
            }
            let a = ScaledLog.of(link.floored(Distribution.duration(u), .uplink))
            guard a != .min else { continue }
            for (k, gap) in gaps.enumerated() {
                var r = second, later = memory
                let next = direct ? upLaw.sample(&r)
                    : link.correlation.delay(.uplink, on: link, memory: &later, at: SimTime(ns: gap), player: player, seed: seed, &r)
                let b = ScaledLog.of(link.floored(Distribution.duration(next), .uplink))
                if b != .min { pairs[k].add(a, b) }
            }
        }
        return pairs.map { $0.correlation ?? 0 }
    }

    /// The expected pooled lag-1 correlation of a run's uplink pairs, and its tolerance less the
    /// run's own sampling error. Successive uplinks share one marginal law, so the pooled Pearson
    /// correlation is the pairs' mean covariance over the common variance: the count-weighted
    /// mean of the correlation at each pair's gap. Per gap bin the correlation lies between its
    /// values at the bin's ends (every process forgets monotonically with time), widened by the
    /// millisecond the draw times are kept to: the expected value takes their midpoint, the
    /// tolerance their half-difference plus z Monte Carlo errors. A process that does not depend
    /// on time (independent, replayed traces) needs one point, with no binning error.
    ///
    /// `perPair` is the variance per pair of the pooled correlation (n pairs: perPair/n), in the
    /// normal approximation: a pair at correlation r, pooled with a common ρ̄, varies by
    /// (1 + r²)(1 + ρ̄²) − 4ρ̄r, and a player's chain of such pairs overlaps, which multiplies it
    /// by 1/(1 − r²). With one r throughout this is Bartlett's (1 − r²) for an AR(1) series.
    static func expectedLag(_ link: LinkProfile, gaps: [UInt64], seed: UInt64, index: Int)
        -> (expected: Double, binning: Double, perPair: Double) {
        let total = Double(gaps.reduce(0, +))
        let mcError = { (rho: Double) in z * ((1 - rho * rho) / Double(pairDraws)).squareRoot() }
        var points: [(weight: Double, r: Double)] = []
        var expected = 0.0, binning = 0.0
        if link.correlation.memory == .none || total == 0 {
            let rho = lagCorrelation(link, gap: 0, seed: seed, index: index)
            (expected, binning) = (rho, mcError(rho))
            points = [(1, rho)]
        } else {
            // Each bin's ends, all from the same fresh players.
            let bins = gaps.indices.filter { gaps[$0] > 0 }
            let ends = bins.flatMap { k -> [Int64] in
                let (lower, upper) = UplinkGaps.bounds(k)
                return [max(0, lower - 1_000_000), upper + 1_000_000]
            }
            let r = lagCorrelations(link, gaps: ends, seed: seed, index: index)
            for (j, k) in bins.enumerated() {
                let near = r[2 * j], far = r[2 * j + 1], count = gaps[k]
                let w = Double(count) / total
                expected += w * (near + far) / 2
                binning += w * (abs(near - far) / 2 + max(mcError(near), mcError(far)))
                // The larger correlation of the bin's ends: the wider variance.
                points.append((w, max(abs(near), abs(far))))
            }
        }
        let pooled = expected
        let perPair = points.reduce(0.0) { sum, p in
            let r = min(0.99, p.r)
            return sum + p.weight * max(0, (1 + r * r) * (1 + pooled * pooled) - 4 * pooled * r) / (1 - r * r)
        }
        return (expected, binning, perPair)
    }

    static func linkRows(_ link: LinkProfile, _ a: LinkAudit, seed: UInt64, index: Int) -> [AuditRow] {
        var rows: [AuditRow] = []
        let model = "link \(link.name)"
        // A trace-driven link's delays are the trace's crossings, not a law the Monte Carlo draws.
        if link.trace == nil && (a.uplink.count >= 30 || a.downlink.count >= 30) {
            let law = delayLaw(link, seed: seed, index: index)
            let lag = expectedLag(link, gaps: a.lagGaps, seed: seed, index: index)
            // Counted draws a horizon apart are all but independent; on a link without memory in
            // time (replayed traces step per draw) successive ones are correlated: fewer
            // independent values than draws, by the largest correlation the run's gaps allow.
            let forgets = forgetting(link)
            let rho = min(0.99, max(0, forgets.horizon > 0 ? forgets.residual : lag.expected + lag.binning))
            let shrink = (1 - rho) / (1 + rho)
            for (name, drawn, sorted) in [("uplinkMs", a.uplink, law.uplink), ("downlinkMs", a.downlink, law.downlink)] where drawn.count >= 30 {
                let n = Double(drawn.count) * shrink
                for (q, key) in [(0.5, "p50"), (0.99, "p99")] {
                    let expected = Double(quantile(sorted, q))
                    let realised = Double(drawn.histogram.quantile(q) ?? 0)
                    rows.append(AuditRow(model: model, figure: "\(name).\(key)", expected: expected / 1e6, realised: realised / 1e6,
                                         tolerance: quantileTolerance(sorted, q, n: n) / 1e6, samples: drawn.count))
                }
                let (sd, sdTolerance) = sdLaw(sorted, n: n)
                rows.append(AuditRow(model: model, figure: "\(name).sd", expected: sd / 1e6,
                                     realised: (drawn.standardDeviation ?? .nan) / 1e6, tolerance: sdTolerance / 1e6, samples: drawn.count))
            }
            if a.lag.count >= 30 {
                let n = Double(a.lag.count)
                rows.append(AuditRow(model: model, figure: "uplinkLag1Correlation", expected: lag.expected, realised: a.lag.correlation ?? .nan,
                                     tolerance: z * (lag.perPair / n).squareRoot() + lag.binning, samples: a.lag.count))
            }
        }
        if let loss = link.loss as? TCPRetransmitLoss, !a.messagesBySegments.isEmpty {
            rows += lossRows(loss, link, a, model: "segment loss \(link.name)")
        }
        if a.radioRequests > 0, let radio = link.radio as? any AuditedRadio {
            let n = Double(a.radioRequests)
            let paid = radio.idlePromotionChance
            let idle = Double(a.idleByTrueGap)
            // Binomial: of the idle requests each pays with chance `paid`.
            rows.append(AuditRow(model: "radio \(link.name)", figure: "promotionShare", expected: idle * paid / n,
                                 realised: Double(a.promoted) / n,
                                 tolerance: (z * (idle * paid * (1 - paid)).squareRoot() + Double(a.radioBorderline)) / n,
                                 samples: Int(a.radioRequests)))
        }
        if a.connectionRequests > 0 {
            let n = Double(a.connectionRequests)
            let model = "connection \(link.name)"
            // The keep-alive's rule on each request's true idle gap: exact but for requests whose
            // answer turns within the world's stored resolution of that gap.
            let cold = Double(a.coldBorderline) / n, lookups = Double(a.lookupBorderline) / n
            rows.append(AuditRow(model: model, figure: "coldSetupShare", expected: Double(a.coldByTrueGap) / n,
                                 realised: Double(a.coldMade) / n, tolerance: cold, samples: Int(a.connectionRequests)))
            rows.append(AuditRow(model: model, figure: "warmRequestShare", expected: 1 - Double(a.coldByTrueGap) / n,
                                 realised: 1 - Double(a.coldMade) / n, tolerance: cold, samples: Int(a.connectionRequests)))
            rows.append(AuditRow(model: model, figure: "dnsLookupShare", expected: Double(a.lookupsByTrueGap) / n,
                                 realised: Double(a.lookupsMade) / n, tolerance: lookups, samples: Int(a.connectionRequests)))
        }
        return rows
    }

    /// Nearest-rank quantile of sorted values.
    static func quantile(_ sorted: [Int64], _ q: Double) -> Int64 {
        let i = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, i))]
    }

    /// How far a q-quantile of n independent draws may lie from the law's: the law's quantiles
    /// at q ± z·√(q(1−q)(1/n + 1/M)) (the order statistic's interval, widened by the Monte Carlo's
    /// own M draws), plus the histogram's bucket (2^−10 relative) and a microsecond.
    static func quantileTolerance(_ sorted: [Int64], _ q: Double, n: Double) -> Double {
        let delta = z * (q * (1 - q) * (1 / max(n, 1) + 1 / Double(sorted.count))).squareRoot()
        let mid = Double(quantile(sorted, q))
        let lo = Double(quantile(sorted, max(0, q - delta))), hi = Double(quantile(sorted, min(1, q + delta)))
        return max(mid - lo, hi - mid) + mid * 0x1p-9 + 1000
    }

    /// The law's standard deviation (ns), and z standard errors of a sample SD of n draws from it:
    /// Var(s) ≈ (μ4 − σ⁴)/(4σ²n), the same again for the Monte Carlo's M draws.
    static func sdLaw(_ sorted: [Int64], n: Double) -> (Double, Double) {
        let m = Double(sorted.count)
        let mean = sorted.reduce(0.0) { $0 + Double($1) } / m
        var m2 = 0.0, m4 = 0.0
        for v in sorted {
            let d = Double(v) - mean
            m2 += d * d
            m4 += d * d * d * d
        }
        m2 /= m
        m4 /= m
        guard m2 > 0 else { return (0, 1000) }
        let perDraw = max(0, m4 - m2 * m2) / (4 * m2)
        return (m2.squareRoot(), z * (perDraw * (1 / max(n, 1) + 1 / m)).squareRoot() + 1000)
    }

    /// The chance a promotion drawn from `d` is positive (a request pays it).
    static func promotionPaidChance(_ d: Distribution) -> Double {
        switch d {
        case .constant(let v): return v > 0 ? 1 : 0
        case .uniform(let lo, let hi): return lo >= 0 ? (hi > 0 ? 1 : 0) : hi <= 0 ? 0 : hi / (hi - lo)
        case .lognormal, .exponential, .pareto, .lognormalMixture: return 1
        case .normal(let mean, let sd): return sd > 0 ? 1 - normalCDF(-mean / sd) : (mean > 0 ? 1 : 0)
        case .empirical(let values): return Double(values.filter { $0 > 0 }.count) / Double(values.count)
        case .geometric: return 1
        }
    }

    /// Φ(x), by the complementary error function's series-free approximation (Abramowitz and
    /// Stegun 7.1.26, error below 1.5e-7).
    static func normalCDF(_ x: Double) -> Double {
        let t = 1 / (1 + 0.3275911 * abs(x) / 2.0.squareRoot())
        let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
        let erfc = poly * DeterministicMath.exp(-(x * x) / 2)
        return x >= 0 ? 1 - erfc / 2 : erfc / 2
    }

    // MARK: Segment loss

    /// A message of s segments is late when any segment is lost: 1 − (1 − rate)^s. Its added
    /// delay is its latest segment's: with F_i the law of segment i's delay (k losses with chance
    /// (1 − rate)·rate^k; fast retransmit for the segments with three or more after them), the
    /// maximum has law Π F_i, from which its mean and variance.
    static func lossRows(_ loss: TCPRetransmitLoss, _ link: LinkProfile, _ a: LinkAudit, model: String) -> [AuditRow] {
        var n = 0.0, lateMean = 0.0, lateVariance = 0.0, delayMean = 0.0, delayVariance = 0.0
        for (segments, count) in a.messagesBySegments {
            let c = Double(count)
            let p = 1 - pow1m(loss.rate, segments)
            let (mean, second) = messageDelayMoments(loss, segments: segments, roundTrip: link.meanRoundTrip)
            n += c
            lateMean += c * p
            lateVariance += c * p * (1 - p)
            delayMean += c * mean
            delayVariance += c * max(0, second - mean * mean)
        }
        return [
            AuditRow(model: model, figure: "lateMessageShare", expected: lateMean / n, realised: Double(a.lateMessages) / n,
                     tolerance: z * lateVariance.squareRoot() / n + 0.5 / n, samples: Int(n)),
            AuditRow(model: model, figure: "addedDelayMs.mean", expected: delayMean / n / 1e6, realised: Double(a.addedDelay) / n / 1e6,
                     tolerance: (z * delayVariance.squareRoot() / n + 1) / 1e6, samples: Int(n)),
        ]
    }

    /// (1 − p)^s by repeated multiplication (exact enough, and the same on every machine).
    static func pow1m(_ p: Double, _ s: Int) -> Double {
        var r = 1.0
        for _ in 0..<s { r *= 1 - p }
        return r
    }

    /// Mean and second moment (ns, ns²) of the added delay of a message of `segments` segments.
    static func messageDelayMoments(_ loss: TCPRetransmitLoss, segments: Int, roundTrip: Double) -> (Double, Double) {
        let first = loss.firstTimeout(roundTrip: roundTrip)
        let rtt = Int64(roundTrip.rounded(.up))
        let most = TCPRetransmitLoss.maximumLosses
        // Each kind of segment's delay law: value and chance per loss count k = 0 … most.
        func law(fast: Bool) -> [(Int64, Double)] {
            (0...most).map { k in
                let chance = k == most ? powInt(loss.rate, k) : (1 - loss.rate) * powInt(loss.rate, k)
                return (loss.segmentDelay(losses: k, fastRetransmit: fast, firstTimeout: first, roundTrip: rtt), chance)
            }
        }
        let fastCount = max(0, segments - TCPRetransmitLoss.duplicateAckThreshold)
        let laws = [(law(fast: true), fastCount), (law(fast: false), segments - fastCount)]
        let values = Set(laws.flatMap { $0.0.map(\.0) }).sorted()
        func cdf(_ x: Int64) -> Double {
            laws.reduce(1.0) { acc, l in
                l.1 == 0 ? acc : acc * powInt(l.0.filter { $0.0 <= x }.reduce(0) { $0 + $1.1 }, l.1)
            }
        }
        var mean = 0.0, second = 0.0, below = 0.0
        for v in values {
            let at = cdf(v)
            let chance = max(0, at - below)
            mean += chance * Double(v)
            second += chance * Double(v) * Double(v)
            below = at
        }
        return (mean, second)
    }

    static func powInt(_ x: Double, _ k: Int) -> Double {
        var r = 1.0
        for _ in 0..<k { r *= x }
        return r
    }

    // MARK: Server queue

    /// The queue's mean wait against Erlang C (M/M/c: exponential service, Poisson arrivals, no
    /// queue limit) or Pollaczek–Khinchine (M/G/1), and refusals against M/M/c/K's blocking
    /// chance, where the server is one of those: no outages, no round-robin fleet. The arrival
    /// rate is the run's own; the tolerance z standard errors of the batch means over the
    /// window's `ServingRecord.batches` time slices.
    /// Per fleet server that took a stamp in the window, when the scenario sets server clocks
    /// apart (`fleet.clockOffsets`, `fleet.faults`): the largest gap between the offset the
    /// scenario gives the server at a stamp's instant and the one the stamp carried. A stamp
    /// truncated from the right clock falls short by less than one timestamp resolution, never
    /// more, and never runs ahead; the tolerance is that resolution less 1 ns.
    static func serverClockRows(_ scenario: Scenario, _ s: ServingRecord) -> [AuditRow] {
        let resolution = scenario.server.timestampResolution
        return s.clocks.enumerated().compactMap { k, record in
            guard record.stamps > 0 else { return nil }
            return AuditRow(model: "server clock \(k)", figure: "stampOffsetGapMs.max", expected: 0,
                            realised: Double(record.gapMax) / 1e6, tolerance: Double(resolution - 1) / 1e6,
                            samples: Int(clamping: record.stamps))
        }
    }

    static func queueRows(_ scenario: Scenario, _ s: ServingRecord) -> [AuditRow] {
        let config = scenario.server
        guard let c = config.workers, config.outages.isEmpty else { return [] }
        if let fleet = config.fleet, fleet.servers > 1, fleet.balancing == .roundRobin { return [] }
        // A time endpoint served in the pool mixes its service time with the store's: one law no longer describes it.
        if scenario.client.probeTarget.endpoint?.takesWorkers == true { return [] }
        let pools = Double(config.fleet?.servers ?? 1)
        let arrivals = Double(s.admitted + s.queueFull)
        guard arrivals >= 100 else { return [] }
        let lambda = arrivals / pools / (Double(scenario.duration) / 1e9)   // per second per pool
        let service = config.serviceTime
        let meanService = service.mean / 1e9
        var rows: [AuditRow] = []
        var expectedWait: Double? = nil
        var blocking: Double? = nil
        if case .exponential = service {
            if let limit = config.queueLimit {
                let (wait, block) = mmck(lambda: lambda, mu: 1 / meanService, c: c, k: c + limit)
                expectedWait = wait
                blocking = block
            } else {
                expectedWait = erlangCWait(lambda: lambda, mu: 1 / meanService, c: c)
            }
        } else if c == 1, config.queueLimit == nil, let second = secondMoment(service) {
            let rho = lambda * meanService
            expectedWait = rho < 1 ? lambda * second / 1e18 / (2 * (1 - rho)) : nil
        }
        let model = "server queue"
        if let expectedWait, s.admitted > 0 {
            let realised = (s.waits.mean ?? 0) / 1e9
            let se = batchError(s.batchWaitSums.map { Double($0) / 1e9 }, s.batchServed.map { Double($0) })
            rows.append(AuditRow(model: model, figure: "queueWaitMs.mean", expected: expectedWait * 1e3, realised: realised * 1e3,
                                 tolerance: (z * se + 1e-6) * 1e3, samples: Int(s.admitted)))
        }
        if let blocking {
            let se = batchError(s.batchRefused.map { Double($0) }, zip(s.batchServed, s.batchRefused).map { Double($0 + $1) })
            let share = Double(s.queueFull) / arrivals
            rows.append(AuditRow(model: model, figure: "refusedShare", expected: blocking, realised: share,
                                 tolerance: z * se + 0.5 / arrivals, samples: Int(arrivals)))
        }
        return rows
    }

    /// The standard error of a ratio Σ sums / Σ counts from its batches' ratios (batch means):
    /// with B batches whose ratios are r_b, their mean r̄ and s² = Σ(r_b − r̄)²/(B − 1), the
    /// error is √(s²/B); infinite below two batches with a count. (Counts are converted with
    /// `Double($0)`: `counts.map(Double.init)` on [UInt64] resolved to `init(bitPattern:)`.)
    static func batchError(_ sums: [Double], _ counts: [Double]) -> Double {
        let used = zip(sums, counts).filter { $0.1 > 0 }
        guard used.count >= 2 else { return .infinity }
        let means = used.map { $0.0 / $0.1 }
        let mean = means.reduce(0, +) / Double(means.count)
        let variance = means.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(means.count - 1)
        return (variance / Double(means.count)).squareRoot()
    }

    /// Erlang C's mean wait (s) of M/M/c: C(c, a)/(cμ − λ), a = λ/μ; nil when ρ ≥ 1.
    public static func erlangCWait(lambda: Double, mu: Double, c: Int) -> Double? {
        let a = lambda / mu, rho = a / Double(c)
        guard rho < 1 else { return nil }
        // Erlang B by its recurrence, then C from B.
        var b = 1.0
        for k in 1...c { b = a * b / (Double(k) + a * b) }
        let erlangC = b / (1 - rho * (1 - b))
        return erlangC / (Double(c) * mu - lambda)
    }

    /// M/M/c/K (c servers, K in the system at most): the mean wait (s) of an admitted request
    /// and the chance an arrival finds the system full, from the birth–death chain's stationary law.
    public static func mmck(lambda: Double, mu: Double, c: Int, k: Int) -> (wait: Double, blocking: Double) {
        var p = [1.0]
        for n in 1...max(k, 1) { p.append(p[n - 1] * lambda / (Double(min(n, c)) * mu)) }
        let total = p.reduce(0, +)
        p = p.map { $0 / total }
        let queued = p.indices.reduce(0.0) { $0 + Double(max(0, $1 - c)) * p[$1] }
        let blocking = p[k]
        let admitted = lambda * (1 - blocking)
        return (admitted > 0 ? queued / admitted : 0, blocking)
    }

    /// E[S²] (ns²) of a service distribution, where known in closed form.
    static func secondMoment(_ d: Distribution) -> Double? {
        switch d {
        case .constant(let v): return v * v
        case .exponential(let mean): return 2 * mean * mean
        case .uniform(let lo, let hi): return (lo * lo + lo * hi + hi * hi) / 3
        case .lognormal(let median, let sigma): return median * median * DeterministicMath.exp(2 * sigma * sigma)
        default: return nil
        }
    }

    // MARK: Standby wakes

    /// Wakes per hour asleep: with exponential gaps (mean m) the wakes of a standby are a Poisson
    /// process in its asleep time, so wakes ÷ time asleep estimates 1/m without bias, however
    /// standbys end; the tolerance is z·√N over the exposure. Awake seconds per wake: the mean of
    /// the lengths drawn against the law's (a Monte Carlo of it, the lengths clipped at 0 as the
    /// world clips them), z standard errors. Only standbys that ended in the window count.
    static func standbyRows(_ wakes: DeviceEventsConfig.StandbyWakes, _ a: AuditCounters, seed: UInt64) -> [AuditRow] {
        var rows: [AuditRow] = []
        let hours = Double(a.asleep) / 3.6e12
        if case .exponential(let mean) = wakes.every, hours > 0, mean >= Double(DeviceEventsConfig.minimumInterval) * 20 {
            // The world lifts a gap below `minimumInterval` to it: negligible when m is 20 times that.
            let expected = 3.6e12 / mean
            rows.append(AuditRow(model: "standby wakes", figure: "wakesPerAsleepHour", expected: expected,
                                 realised: Double(a.wakes) / hours, tolerance: z * max(Double(a.wakes), 1).squareRoot() / hours,
                                 samples: Int(a.wakes)))
        }
        if a.wakeLengths.count >= 30 {
            var rng = RandomStream(seed: seed, purpose: purpose, entity: 1 << 40)
            var law = Moments()
            for _ in 0..<monteCarloDraws { law.add(max(wakes.length.sampleDuration(&rng), 0)) }
            let mean = wide(law.sum) / Double(law.count) / 1e6, sd = (law.standardDeviation ?? 0) / 1e9
            let n = Double(a.wakeLengths.count)
            rows.append(AuditRow(model: "standby wakes", figure: "awakeSecondsPerWake", expected: mean,
                                 realised: wide(a.wakeLengths.sum) / n / 1e6,
                                 tolerance: z * sd * (1 / n + 1 / Double(monteCarloDraws)).squareRoot() + 1e-6, samples: a.wakeLengths.count))
        }
        return rows
    }

    // MARK: App lifecycle

    /// A break begins with the phone locked with chance `lockShare` (a binomial row); it is
    /// suspended when longer than the grace, with the chance a Monte Carlo of the population's
    /// break law bounded as the lifecycle bounds it gives; a break that ends is terminated with
    /// chance 1 − S(b) at its own length b and place, so the terminations are a Poisson–binomial
    /// count with mean Σ(1 − S) and variance Σ S(1 − S) (the rule applied to the breaks the run
    /// had: where the break law is not stationary, as around a release, breaks that end in the
    /// window are not a sample of it). Each terminated app cold-starts on return.
    static func lifecycleRows(_ scenario: Scenario, _ lifecycle: DeviceEventsConfig.AppLifecycle, _ a: AuditCounters) -> [AuditRow] {
        var rows: [AuditRow] = []
        let model = "app lifecycle"
        if a.breaksBegun >= 30 {
            let n = Double(a.breaksBegun)
            let p = scenario.population.lockShare
            rows.append(AuditRow(model: model, figure: "lockedBreakShare", expected: p, realised: Double(a.lockedBreaksBegun) / n,
                                 tolerance: z * (p * (1 - p) / n).squareRoot() + 0.5 / n, samples: Int(a.breaksBegun)))
            var rng = RandomStream(seed: scenario.seed, purpose: purpose, entity: 3 << 40)
            var longer = 0
            for _ in 0..<monteCarloDraws {
                let drawn = scenario.population.breakDuration.sampleDuration(&rng)
                if max(lifecycle.bounded(drawn, scenario.population.breakDuration, &rng), .second) > lifecycle.grace { longer += 1 }
            }
            let q = Double(longer) / Double(monteCarloDraws)
            rows.append(AuditRow(model: model, figure: "suspendedShare", expected: q, realised: Double(a.suspendedBreaks) / n,
                                 tolerance: z * (q * (1 - q) * (1 / n + 1 / Double(monteCarloDraws))).squareRoot() + 0.5 / n,
                                 samples: Int(a.breaksBegun)))
        }
        for (k, place) in ["locked", "other apps"].enumerated() where a.breaksEnded[k] > 0 {
            let n = Double(a.breaksEnded[k])
            let mean = wide(a.terminationChance[k]) / AuditCounters.chanceScale
            let variance = wide(a.terminationVariance[k]) / AuditCounters.chanceScale
            rows.append(AuditRow(model: "\(model) (\(place))", figure: "terminatedShare", expected: mean / n,
                                 realised: Double(a.terminations[k]) / n, tolerance: (z * variance.squareRoot() + 0.5) / n,
                                 samples: Int(a.breaksEnded[k])))
        }
        return rows
    }

    // MARK: Wall clock

    /// Corrections per phone-hour: with a constant interval I every phone corrects at a uniform
    /// phase, so its count in a window of T is ⌊T/I⌋ or one more, with chance f = frac(T/I):
    /// mean T/I, variance f(1 − f) per phone. The share of first corrections that step: the
    /// wall clock is off by O + r·t at a phone's first correction t after the start (O its
    /// initial offset, r its rate), the estimate by that plus the exchange's error e, and a step
    /// when |estimate| > stepAbove; with O and r normal (or constant), O + r·t is normal, and the
    /// chance is averaged over a Monte Carlo of e (half the link's asymmetry, or the drawn law).
    /// Only where nothing else moves the clock before its first correction.
    /// `chances`: the step chances, worked out beforehand (`stepChanceTable`; nil: here).
    static func wallClockRows(_ scenario: Scenario, _ sync: DeviceEventsConfig.WallClockSync, _ a: AuditCounters,
                              chances given: StepChances? = nil) -> [AuditRow] {
        var rows: [AuditRow] = []
        let model = "wall clock"
        let phones = Double(scenario.population.players), hours = Double(scenario.duration) / 3.6e12
        if case .constant(let interval) = sync.every, interval >= Double(DeviceEventsConfig.minimumInterval), phones * hours > 0 {
            let ratio = Double(scenario.duration) / interval
            let f = ratio - ratio.rounded(.down)
            rows.append(AuditRow(model: model, figure: "correctionsPerPhoneHour", expected: 3.6e12 / interval,
                                 realised: Double(a.wallCorrections) / (phones * hours),
                                 tolerance: (z * (phones * f * (1 - f)).squareRoot() + 0.5) / (phones * hours),
                                 samples: Int(a.wallCorrections)))
        }
        guard let chances = given ?? stepChanceTable(scenario, sync, a)?.chances else { return rows }
        var expected = 0.0, variance = 0.0, allowance = 0.0
        for key in a.firstCorrections.keys.sorted() {
            let count = Double(a.firstCorrections[key]!)
            let (lo, loError) = chances[key]!, (hi, hiError) = chances[key + 1]!
            let p = (lo + hi) / 2
            expected += count * p
            variance += count * p * (1 - p)
            allowance += count * (abs(hi - lo) / 2 + z * max(loError, hiError))
        }
        let n = Double(a.firstCorrections.values.reduce(0, +))
        rows.append(AuditRow(model: model, figure: "firstCorrectionStepShare", expected: expected / n,
                             realised: Double(a.firstCorrectionSteps) / n,
                             tolerance: (z * variance.squareRoot() + allowance + 0.5) / n, samples: Int(n)))
        return rows
    }

    /// Per minute boundary a first correction's count needs, keyed link << 32 | minute (a
    /// boundary ends one minute and starts the next): the chance of a step there and its Monte
    /// Carlo standard error. Nil when the step share has no row: too few first corrections, or
    /// a clock the closed form does not cover (wander, leap second, reboots, changes by hand).
    typealias StepChances = [Int: (chance: Double, error: Double)]

    /// The step chances, with the Monte Carlo evaluations they took (each: one chance averaged
    /// over the link's 10,000 errors; those of a curve tried and not kept included).
    static func stepChanceTable(_ scenario: Scenario, _ sync: DeviceEventsConfig.WallClockSync, _ a: AuditCounters,
                                threads: Int? = nil) -> (chances: StepChances, evaluations: Int)? {
        let events = scenario.devices.events
        func normal(_ d: Distribution) -> (Double, Double)? {
            switch d {
            case .constant(let v): return (v, 0)
            case .normal(let mean, let sd): return (mean, sd)
            default: return nil
            }
        }
        let firsts = a.firstCorrections.values.reduce(0, +)
        guard firsts >= 30, sync.wander == nil, scenario.server.leapSecond == nil, events.reboots == nil,
              events.wallClockChanges == nil, events.tampering == nil,
              let offset = normal(scenario.devices.wallClockOffset), let drift = normal(scenario.devices.driftPPM) else { return nil }
        let draws = 10_000
        let step = Double(sync.stepAbove)
        // Each link's errors on its own stream, then its boundaries (or a curve's points) in
        // parallel: called outside the rows' own parallel parts (a parallel map inside one runs
        // on one core), as a day's boundaries on three links were the last fifth of a second of
        // a run.
        let keys = a.firstCorrections.keys.sorted()
        let links = Array(Set(keys.map { $0 >> 32 })).sorted()
        let errorsByLink = concurrentMap(links.count, threads: threads) { i -> [Double] in
            var rng = RandomStream(seed: scenario.seed, purpose: purpose, entity: 2 << 40 | UInt64(links[i]))
            return (0..<draws).map { _ in Double(sync.measurementError(&rng, link: scenario.links[links[i]])) }
        }
        // The clock's law at true time t (ns): O + r·t, normal.
        @Sendable func law(_ t: Double) -> (mean: Double, sd: Double) {
            (offset.0 + drift.0 * 1e-6 * t, (offset.1 * offset.1 + (drift.1 * 1e-6 * t) * (drift.1 * 1e-6 * t)).squareRoot())
        }
        var chances: StepChances = [:]
        var evaluations = 0
        for (i, link) in links.enumerated() {
            let errors = errorsByLink[i]
            let boundaries = Array(Set(keys.filter { $0 >> 32 == link }.flatMap { [$0, $0 + 1] })).sorted()
            let times = boundaries.map { Double($0 & 0xFFFF_FFFF) * 6e10 }
            // A clock whose mean does not move and whose spread grows with t (no mean drift, a
            // spread in both offset and drift): the chance depends on t through the spread
            // alone, smoothly, so a curve through a few spreads gives every boundary's
            // (`StepChanceCurve`); else each boundary is worked out.
            var spent = 0
            let curve = drift.0 == 0 && offset.1 > 0 && drift.1 > 0
                ? StepChanceCurve.fit(spreads: times.map { law($0).sd }, threads: threads, spent: &spent) { sd in
                    stepMoments(mean: offset.0, sd: sd, step: step, errors: errors)
                } : nil
            evaluations += spent
            if let curve {
                for (k, key) in boundaries.enumerated() { chances[key] = stepChance(curve.values[k], draws: draws) }
                continue
            }
            let direct = concurrentMap(times.count, blocks: 64, threads: threads) { k -> (chance: Double, error: Double) in
                let (mean, sd) = law(times[k])
                return stepChance(mean: mean, sd: sd, step: step, errors: errors)
            }
            evaluations += times.count
            for (k, key) in boundaries.enumerated() { chances[key] = direct[k] }
        }
        return (chances, evaluations)
    }

    /// The chance a first correction steps when the wall clock is off by N(mean, sd²) and the
    /// exchange adds each of `errors` in turn (their average), and that average's Monte Carlo
    /// standard error.
    @inline(__always)
    static func stepChance(mean: Double, sd: Double, step: Double, errors: [Double]) -> (chance: Double, error: Double) {
        stepChance(stepMoments(mean: mean, sd: sd, step: step, errors: errors), draws: errors.count)
    }

    /// The average over `errors` of the chance a first correction steps (as `stepChance`), and
    /// of its square.
    @inline(__always)
    static func stepMoments(mean: Double, sd: Double, step: Double, errors: [Double]) -> (mean: Double, squares: Double) {
        var sum = 0.0, squares = 0.0
        for e in errors {
            let g = sd > 0 ? 1 - normalCDF((step - mean - e) / sd) + normalCDF((-step - mean - e) / sd) : (abs(mean + e) > step ? 1 : 0)
            sum += g
            squares += g * g
        }
        return (sum / Double(errors.count), squares / Double(errors.count))
    }

    /// The chance and its Monte Carlo standard error from the average chance and square over
    /// `draws` errors.
    @inline(__always)
    static func stepChance(_ moments: (mean: Double, squares: Double), draws: Int) -> (chance: Double, error: Double) {
        let m = moments.mean
        return (m, (max(0, moments.squares - m * m) / Double(draws)).squareRoot())
    }
}
