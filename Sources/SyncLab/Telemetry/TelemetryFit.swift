import SyncLabKernel

/// Fits one link profile per link label of an app's telemetry (`synclab fit`, docs/telemetry.md).
///
/// Per link: the round trip's law by maximum likelihood (`RoundTripMixture`) on the rows that
/// start a burst (`TelemetrySampling`), split into directions by a stated rule
/// (`DirectionSplit`); the round trip's floor; the time constant of the AR(1) on log-delay from
/// consecutive exchanges of a device (`TimeCorrelation`); the failure share; the link's share of
/// devices. Every figure has a 95% interval from resampling devices (bias-corrected percentiles),
/// not rows: one device's
/// exchanges are alike (same phone, same place, same spells), so rows resampled one by one would
/// count a device's likeness as evidence and give intervals too narrow.
public enum TelemetryFit {
    public struct Options: Sendable {
        public var uplinkShare = DirectionSplit.defaultUplinkShare
        public var burstGap = TelemetrySampling.defaultBurstGap
        /// The share of devices held out of the fit to judge it (0: judged on the rows it was fitted on).
        public var holdout = 0.0
        public var resamples = 200
        public var seed: UInt64 = 1
        /// The family fitted: `ar1` by default.
        public var family = Family.ar1
        public init() {}
    }

    /// What the fit fits per link (`synclab fit --family`).
    public enum Family: String, Sendable, CaseIterable {
        /// A two-part lognormal mixture (body, tail) and an AR(1) on log-delay (`AR1Delays`).
        case ar1 = "ar1"
        /// A mixture with a third, outage part when the data support it
        /// (`RoundTripMixture.fitWithOutage`) and an AR(1) with a nugget (`NuggetAR1Delays`,
        /// `TimeCorrelation.nuggetFit`).
        case outageNugget = "outage-nugget"
    }

    /// A fitted figure with its 95% interval from the resamples (`biasCorrectedInterval`).
    public struct Parameter: Sendable, Equatable {
        public var name: String
        /// "ms", "s", "share" or "" (a spread, in log units).
        public var unit: String
        public var value: Double
        public var low: Double
        public var high: Double
        /// Resamples in which the figure could not be fitted (a time constant the data cannot tell).
        public var undefined = 0
        /// A bound the data give rather than an estimate (the floor: a resample's least round trip
        /// is never below the whole sample's): its interval is the plain percentiles.
        public var isBound = false
    }

    /// The correlation of one device's consecutive round trips at gaps in one range.
    public struct LagRow: Sendable, Equatable {
        public var from: Double, to: Double   // s
        public var pairs: Int
        public var meanGap: Double
        /// The data's Gaussian correlation (normal scores); nan below `TimeCorrelation.leastPairs`.
        public var data: Double
        /// The fitted process's: exp(−gap/τ), 0 when independent.
        public var fitted: Double
    }

    public struct LinkResult: Sendable {
        public var name: String
        public var devices: Int
        public var rows: Int
        public var answered: Int
        public var failures: Int
        /// Answered rows that start a burst: the draws of the law.
        public var lawRows: Int
        public var roundTrip: RoundTripMixture
        public var split: DirectionSplit
        /// The least round trip among the law's draws, ns: the floor the fit sets.
        public var floor: Double
        /// The AR(1) time constant, ns; nil when the data show no correlation in time.
        public var timeConstant: Nanoseconds?
        /// The correlated share w of the AR(1) with a nugget (the `outage-nugget` family); nil otherwise.
        public var correlatedShare: Double? = nil
        public var failureShare: Double
        public var share: Double
        public var parameters: [Parameter]
        public var lags: [LagRow]
        /// The fitted profile, as `fitted.json` writes it (rounded to whole microseconds). Its
        /// delay process is as written too, not yet prepared for the link's distributions (an
        /// AR(1)'s quantile table, most of a fit's time, is built when a scenario that uses it
        /// loads): to run it in code, prepare it first (`correlation.prepared(for: profile)`).
        public var profile: LinkProfile
        public var law: RoundTripLaw
        /// The law's draws the fit used, sorted (ns).
        public var sample: [Double]
        /// The fit judged on held-out devices' draws (or on `sample` without a hold-out).
        public var judged: TelemetryAgreement.Link?
        public var judgedOnHoldout: Bool
        /// Draws the naive fit would use (every answered row), for the sampling note.
        public var everyRowMedian: Double
    }

    public struct Result: Sendable {
        public var file: String
        public var options: Options
        public var links: [LinkResult]
        public var devicesFitted: Int
        public var devicesHeldOut: Int
        /// Labels with rows but no answered round trip to fit.
        public var unfitted: [String]
        /// Consecutive rows of a device sent at the same millisecond: not paired (no order).
        public var unorderedPairs: Int
    }

    /// Whether `device` is held out: a keyed hash of its id below `share`, so the split is the
    /// same on every machine and for every order of the rows.
    public static func heldOut(_ device: String, share: Double) -> Bool {
        guard share > 0 else { return false }
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in device.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let u = Double(RandomStream.mix(h ^ 0x686F_6C64_6F75_74) >> 11) * 0x1p-53   // "holdout"
        return u < share
    }

    public static func fit(_ table: TelemetryTable, options: Options = Options()) -> Result {
        let order = TelemetrySampling.deviceOrder(table)
        let linkCount = table.links.count
        let held = table.devices.map { heldOut($0, share: options.holdout) }
        var data = Collected(links: linkCount)
        var heldSample = [[Double]](repeating: [], count: linkCount)
        var everyRow = [[Double]](repeating: [], count: linkCount)
        let gapMs = options.burstGap / .millisecond
        var previous = -1
        var unordered = 0
        var devicesFitted = 0, devicesHeld = 0
        var deviceRows = [Int](repeating: 0, count: linkCount)
        func closeDevice() {
            let total = deviceRows.reduce(0, +)
            guard total > 0 else { return }
            for l in 0..<linkCount where deviceRows[l] > 0 { data.shareEntries.append((UInt16(l), Double(deviceRows[l]) / Double(total))) }
            for l in 0..<linkCount { deviceRows[l] = 0 }
        }
        for r in order {
            let d = table.device[r], l = Int(table.link[r])
            let newDevice = previous < 0 || table.device[previous] != d
            if newDevice {
                if previous >= 0 && !held[Int(table.device[previous])] { closeDevice(); data.endDevice() }
                if held[Int(d)] { devicesHeld += 1 } else { devicesFitted += 1 }
            }
            let startsBurst = newDevice || options.burstGap <= 0 || table.sentMs[r] - table.sentMs[previous] >= gapMs
            let rt = table.roundTripNs[r]
            if held[Int(d)] {
                if startsBurst && table.answered[r] { heldSample[l].append(rt) }
                previous = r
                continue
            }
            deviceRows[l] += 1
            data.rows[l] += 1
            if table.answered[r] {
                data.answered[l] += 1
                everyRow[l].append(rt)
                let bin = LogBins.bin(rt)
                data.allBins[l][bin] += 1
                if startsBurst {
                    data.law.append(UInt32(l) << 16 | UInt32(bin))
                    data.lawValues[l].append(rt)
                    data.deviceFloor[l] = min(data.deviceFloor[l], rt)
                }
                if !newDevice, table.answered[previous], Int(table.link[previous]) == l {
                    let gap = table.sentMs[r] - table.sentMs[previous]
                    if gap <= 0 { unordered += 1 }
                    else if let g = TimeCorrelation.gapBin(Double(gap) / 1e3) {
                        data.pairs.append((UInt32(l) << 8 | UInt32(g), UInt16(LogBins.bin(table.roundTripNs[previous])), UInt16(bin)))
                        data.pairGap[l][g] += Double(gap) / 1e3
                        data.pairCount[l][g] += 1
                    }
                }
            } else {
                data.failures[l] += 1
            }
            previous = r
        }
        if previous >= 0 && !held[Int(table.device[previous])] { closeDevice(); data.endDevice() }

        // Normal scores per link and bin, from every answered row's bin (the pairs' own marginal).
        let scores = (0..<linkCount).map { TimeCorrelation.normalScores(data.allBins[$0]) }
        var point = data.estimate(devices: nil, scores: scores, options: options, start: nil, attenuations: nil)
        // The split's own error at each link's fitted point, taken off it and its resamples.
        let corrections = (0..<linkCount).map { l in
            point.mixtures[l].map { m in
                DirectionSplit.Correction(measuredAt: DirectionSplit(m, uplinkShare: options.uplinkShare), roundTrip: m, floor: point.floors[l])
            } ?? .none
        }
        // The round trip's score correlation for the fitted directions; resamples keep it.
        let attenuations = (0..<linkCount).map { l in
            point.mixtures[l].map { TimeCorrelation.Attenuation(DirectionSplit($0, uplinkShare: options.uplinkShare).corrected(corrections[l])) }
        }
        let meanGaps = data.meanGaps
        for l in 0..<linkCount {
            (point.taus[l], point.weights[l]) = Self.correlation(point.lagStats[l], gaps: meanGaps[l], attenuation: attenuations[l],
                                                                family: options.family)
        }
        // Resamples of devices.
        var resampled: [Estimate] = []
        let deviceCount = data.deviceCount
        if deviceCount > 0 {
            for b in 0..<options.resamples {
                var rng = RandomStream(seed: options.seed, purpose: StreamPurpose("telemetry-fit-resample"), entity: UInt64(b))
                var counts = [UInt32](repeating: 0, count: deviceCount)
                for _ in 0..<deviceCount { counts[Int(rng.next() % UInt64(deviceCount))] += 1 }
                resampled.append(data.estimate(devices: counts, scores: scores, options: options, start: point.mixtures,
                                               attenuations: attenuations))
            }
        }

        var links: [LinkResult] = []
        var unfitted: [String] = []
        for l in 0..<linkCount {
            guard let mixture = point.mixtures[l] else {
                if data.rows[l] > 0 || !heldSample[l].isEmpty { unfitted.append(table.links[l]) }
                continue
            }
            let split = DirectionSplit(mixture, uplinkShare: options.uplinkShare).corrected(corrections[l])
            let floor = point.floors[l]
            let tau = point.taus[l], weight = point.weights[l]
            let profile = fittedProfile(table.links[l], split: split, floor: floor, tau: tau, weight: weight,
                                        failure: point.failureShares[l], share: point.shares[l], prepared: false)
            let law = RoundTripLaw(profile)!
            let sample = data.lawValues[l].sorted()
            let extra = options.family == .outageNugget ? Extra(outage: mixture.outageShare > 0, weight: weight) : nil
            var parameters = figures(mixture, split, floor, tau, point.failureShares[l], point.shares[l], extra)
            let perResample = resampled.map { e -> [Double?] in
                guard let m = e.mixtures[l] else { return [Double?](repeating: nil, count: parameters.count) }
                let s = DirectionSplit(m, uplinkShare: options.uplinkShare).corrected(corrections[l])
                return figures(m, s, e.floors[l], e.taus[l], e.failureShares[l], e.shares[l],
                               extra.map { Extra(outage: $0.outage, weight: e.weights[l]) }).map { p in
                    p.value.isFinite ? p.value : nil   // a link no resampled device is on has no floor
                }
            }
            for i in parameters.indices {
                let values = perResample.compactMap { $0[i] }.sorted()
                parameters[i].undefined = perResample.count - values.count
                if values.isEmpty { parameters[i].low = .nan; parameters[i].high = .nan; continue }
                (parameters[i].low, parameters[i].high) = parameters[i].isBound
                    ? (LinkStatistics.quantile(values, 0.025), LinkStatistics.quantile(values, 0.975))
                    : biasCorrectedInterval(values, estimate: parameters[i].value)
            }
            let judgedSample = options.holdout > 0 ? heldSample[l].sorted() : sample
            let judged = judgedSample.isEmpty ? nil
                : TelemetryAgreement.compare(link: table.links[l], telemetry: judgedSample, modelCount: nil, cdf: law.cdf, quantile: law.quantile)
            let lags = TimeCorrelation.rows(point.lagStats[l], gaps: meanGaps[l], tau: tau, weight: weight ?? 1,
                                            attenuation: attenuations[l] ?? .none)
            let every = everyRow[l].sorted()
            links.append(LinkResult(
                name: table.links[l], devices: data.linkDevices[l], rows: data.rows[l], answered: data.answered[l],
                failures: data.failures[l], lawRows: sample.count, roundTrip: mixture, split: split, floor: floor,
                timeConstant: tau, correlatedShare: weight, failureShare: point.failureShares[l], share: point.shares[l], parameters: parameters,
                lags: lags, profile: profile, law: law, sample: sample, judged: judged, judgedOnHoldout: options.holdout > 0,
                everyRowMedian: LinkStatistics.quantile(every, 0.5)))
        }
        return Result(file: table.file, options: options, links: links, devicesFitted: devicesFitted, devicesHeldOut: devicesHeld,
                      unfitted: unfitted, unorderedPairs: unordered)
    }

    /// The bias-corrected percentile interval at 95% (Efron 1981): when a fit is biased at the
    /// telemetry's size (a mixture's tail takes some of the body's upper rows when the rows are
    /// few), the resamples are biased the same way around the estimate, and z₀ = Φ⁻¹(share of
    /// resamples below the estimate) moves the percentiles read, to Φ(2z₀ ∓ 1.96). With no bias
    /// (z₀ = 0) it is the plain 2.5th–97.5th percentile interval. `sorted` are the resamples.
    static func biasCorrectedInterval(_ sorted: [Double], estimate: Double) -> (Double, Double) {
        guard estimate.isFinite else { return (LinkStatistics.quantile(sorted, 0.025), LinkStatistics.quantile(sorted, 0.975)) }
        let below = Double(sorted.filter { $0 < estimate }.count) + Double(sorted.filter { $0 == estimate }.count) / 2
        let share = min(max(below / Double(sorted.count), 0.5 / Double(sorted.count)), 1 - 0.5 / Double(sorted.count))
        let z0 = TimeCorrelation.inverseNormal(share)
        let z = 1.959963984540054
        return (LinkStatistics.quantile(sorted, NormalLaw.cdf(2 * z0 - z)), LinkStatistics.quantile(sorted, NormalLaw.cdf(2 * z0 + z)))
    }

    /// The time constant and, for the `outage-nugget` family, the correlated share of one link's
    /// lag sums; both nil when the data show no correlation in time.
    static func correlation(_ sums: [TimeCorrelation.Sums], gaps: [Double], attenuation: TimeCorrelation.Attenuation?,
                            family: Family) -> (Nanoseconds?, Double?) {
        guard let f = attenuation else { return (nil, nil) }
        switch family {
        case .ar1: return (TimeCorrelation.timeConstant(sums, gaps: gaps, attenuation: f), nil)
        case .outageNugget:
            guard let fit = TimeCorrelation.nuggetFit(sums, gaps: gaps, attenuation: f) else { return (nil, nil) }
            return (fit.tau, fit.weight)
        }
    }

    /// The `outage-nugget` family's figures beyond the default's: the outage part's (when the
    /// whole sample has one) and the correlated share.
    struct Extra {
        var outage: Bool
        var weight: Double?
    }

    /// The reported figures in a fixed order; nan where undefined (a time constant when independent).
    static func figures(_ m: RoundTripMixture, _ s: DirectionSplit, _ floor: Double, _ tau: Nanoseconds?, _ failure: Double,
                        _ share: Double, _ extra: Extra? = nil) -> [Parameter] {
        func p(_ name: String, _ unit: String, _ v: Double) -> Parameter { Parameter(name: name, unit: unit, value: v, low: v, high: v) }
        var outage: [Parameter] = [], weight: [Parameter] = []
        if let extra {
            if extra.outage {
                outage = [
                    p("round trip: outage share", "share", m.outageShare),
                    p("round trip: outage median", "ms", m.outageMedian / 1e6),
                    p("round trip: outage spread σ", "", m.outageSigma),
                    p("each way: outage share", "share", s.uplink.outageShare),
                    p("uplink: outage median", "ms", s.uplink.outageMedian / 1e6),
                    p("downlink: outage median", "ms", s.downlink.outageMedian / 1e6),
                    p("each way: outage spread σ", "", s.uplink.outageSigma),
                ]
            }
            weight = [p("correlated share w", "share", extra.weight ?? .nan)]
        }
        return [
            p("round trip: body median", "ms", m.bodyMedian / 1e6),
            p("round trip: body spread σ", "", m.bodySigma),
            p("round trip: tail share", "share", m.tailShare),
            p("round trip: tail median", "ms", m.tailMedian / 1e6),
            p("round trip: tail spread σ", "", m.tailSigma),
            { var f = p("round trip: floor", "ms", floor / 1e6); f.isBound = true; return f }(),
            p("uplink: body median", "ms", s.uplink.bodyMedian / 1e6),
            p("downlink: body median", "ms", s.downlink.bodyMedian / 1e6),
            p("each way: body spread σ", "", s.uplink.bodySigma),
            p("each way: tail share", "share", s.uplink.tailShare),
            p("uplink: tail median", "ms", s.uplink.tailMedian / 1e6),
            p("downlink: tail median", "ms", s.downlink.tailMedian / 1e6),
            p("each way: tail spread σ", "", s.uplink.tailSigma),
        ] + outage + [
            p("time constant τ", "s", tau.map { Double($0) / 1e9 } ?? .nan),
        ] + weight + [
            p("failure share", "share", failure),
            p("share of devices", "share", share),
        ]
    }

    /// The profile `fitted.json` carries: the split's mixtures and floors rounded to whole
    /// microseconds (as written), a bandwidth and time-out from the preset of the same name (or
    /// the LTE preset's, said in the report), the fitted failure share and time constant.
    public static func fittedProfile(_ name: String, split: DirectionSplit, floor: Double, tau: Nanoseconds?,
                                     failure: Double, share: Double) -> LinkProfile {
        fittedProfile(name, split: split, floor: floor, tau: tau, weight: nil, failure: failure, share: share)
    }

    /// The profile with, when `weight` is given, an AR(1) with a nugget (`NuggetAR1Delays`) in
    /// place of the AR(1), and the mixtures' outage parts rounded as the others.
    public static func fittedProfile(_ name: String, split: DirectionSplit, floor: Double, tau: Nanoseconds?, weight: Double?,
                                     failure: Double, share: Double) -> LinkProfile {
        fittedProfile(name, split: split, floor: floor, tau: tau, weight: weight, failure: failure, share: share, prepared: true)
    }

    /// `prepared`: with the delay process prepared for the link (`DelayProcess.prepared(for:)`),
    /// as a loaded scenario's is, or as written.
    static func fittedProfile(_ name: String, split: DirectionSplit, floor: Double, tau: Nanoseconds?, weight: Double?,
                              failure: Double, share: Double, prepared: Bool) -> LinkProfile {
        func rounded(_ m: LognormalMixture) -> LognormalMixture {
            func us(_ ns: Double) -> Double { max(1_000, (ns / 1_000).rounded() * 1_000) }
            func sigma(_ s: Double) -> Double { (s * 10_000).rounded() / 10_000 }
            // A broad tail centred near the body can split to a median a little under the body's;
            // a scenario's tail is the slower part, so it is held at the body's median.
            var r = LognormalMixture(bodyMedian: us(m.bodyMedian), bodySigma: sigma(m.bodySigma), tailShare: (m.tailShare * 1e6).rounded() / 1e6,
                                     tailMedian: max(us(m.tailMedian), us(m.bodyMedian)), tailSigma: sigma(m.tailSigma))
            if m.outageShare > 0 {
                r.outageShare = (m.outageShare * 1e6).rounded() / 1e6
                r.outageMedian = max(us(m.outageMedian), r.tailMedian)
                r.outageSigma = sigma(m.outageSigma)
            }
            return r
        }
        let base = LinkPresets.named(name) ?? LinkPresets.named("lte")!
        let correlation: any DelayProcess = tau.map { t -> any DelayProcess in
            let tau = max(AR1Delays.minimumTimeConstant, (t / .millisecond) * .millisecond)
            return weight.map { NuggetAR1Delays(tau: tau, weight: $0) } ?? AR1Delays(tau: tau)
        } ?? IndependentDelays()
        var link = LinkProfile(name: name, share: share, uplink: .lognormalMixture(rounded(split.uplink)),
                               downlink: .lognormalMixture(rounded(split.downlink)), bandwidth: base.bandwidth,
                               failure: (failure * 1e6).rounded() / 1e6, timeout: base.timeout, correlation: correlation)
        link.uplinkFloor = Int64(floor * split.uplinkShare / 1_000) * 1_000
        link.downlinkFloor = Int64(floor * (1 - split.uplinkShare) / 1_000) * 1_000
        if prepared { link.correlation = link.correlation.prepared(for: link) }
        return link
    }

    /// What one estimate (the whole sample's or a resample's) gives per link.
    struct Estimate {
        var mixtures: [RoundTripMixture?]
        var floors: [Double]
        var taus: [Nanoseconds?]
        /// The correlated shares (the `outage-nugget` family), nil elsewhere.
        var weights: [Double?]
        var failureShares: [Double]
        var shares: [Double]
        var lagStats: [[TimeCorrelation.Sums]]
    }

    /// The fitting devices' rows, kept device by device so a resample of devices is a weighted sum.
    struct Collected {
        let links: Int
        var rows: [Int], answered: [Int], failures: [Int], linkDevices: [Int]
        var allBins: [[Double]]
        var lawValues: [[Double]]
        /// Per device: its law draws (link << 16 | bin), its pairs, its link weights, its floors.
        var law: [UInt32] = [], lawEnds: [Int] = []
        var pairs: [(UInt32, UInt16, UInt16)] = [], pairEnds: [Int] = []
        /// The whole sample's pairs per link and gap range, and the sum of their gaps (s).
        var pairGap: [[Double]], pairCount: [[Double]]
        var meanGaps: [[Double]] { zip(pairGap, pairCount).map { g, n in zip(g, n).map { $1 > 0 ? $0 / $1 : .nan } } }
        var shareEntries: [(UInt16, Double)] = [], shareEnds: [Int] = []
        var deviceFloor: [Double]
        var floors: [(UInt16, Double)] = [], floorEnds: [Int] = []
        var outcomes: [(UInt16, Int32, Int32)] = [], outcomeEnds: [Int] = []
        var lastRows: [Int], lastAnswered: [Int], lastFailures: [Int]

        init(links: Int) {
            self.links = links
            rows = .init(repeating: 0, count: links); answered = rows; failures = rows; linkDevices = rows
            lastRows = rows; lastAnswered = rows; lastFailures = rows
            allBins = .init(repeating: .init(repeating: 0, count: LogBins.count), count: links)
            lawValues = .init(repeating: [], count: links)
            pairGap = .init(repeating: .init(repeating: 0, count: TimeCorrelation.edges.count - 1), count: links)
            pairCount = pairGap
            deviceFloor = .init(repeating: .infinity, count: links)
        }

        var deviceCount: Int { lawEnds.count }

        mutating func endDevice() {
            lawEnds.append(law.count)
            pairEnds.append(pairs.count)
            shareEnds.append(shareEntries.count)
            for l in 0..<links where deviceFloor[l].isFinite { floors.append((UInt16(l), deviceFloor[l])); deviceFloor[l] = .infinity }
            floorEnds.append(floors.count)
            for l in 0..<links where rows[l] > lastRows[l] {
                linkDevices[l] += 1
                outcomes.append((UInt16(l), Int32(answered[l] - lastAnswered[l]), Int32(failures[l] - lastFailures[l])))
            }
            outcomeEnds.append(outcomes.count)
            lastRows = rows; lastAnswered = answered; lastFailures = failures
        }

        /// The estimate from every device once (`devices` nil) or each device `devices[d]` times.
        func estimate(devices: [UInt32]?, scores: [[Double]], options: Options, start: [RoundTripMixture?]?,
                      attenuations: [TimeCorrelation.Attenuation?]?) -> Estimate {
            var bins = [[Double]](repeating: .init(repeating: 0, count: LogBins.count), count: links)
            var sums = [[TimeCorrelation.Sums]](repeating: .init(repeating: .init(), count: TimeCorrelation.edges.count - 1), count: links)
            var answeredW = [Double](repeating: 0, count: links), failedW = answeredW, shareW = answeredW
            var floorsW = [Double](repeating: .infinity, count: links)
            var weightTotal = 0.0
            for d in 0..<deviceCount {
                let w = devices.map { Double($0[d]) } ?? 1
                guard w > 0 else { continue }
                weightTotal += w
                for e in (d == 0 ? 0 : lawEnds[d - 1])..<lawEnds[d] {
                    bins[Int(law[e] >> 16)][Int(law[e] & 0xFFFF)] += w
                }
                for e in (d == 0 ? 0 : pairEnds[d - 1])..<pairEnds[d] {
                    let (key, a, b) = pairs[e]
                    let l = Int(key >> 8), g = Int(key & 0xFF)
                    sums[l][g].add(scores[l][Int(a)], scores[l][Int(b)], weight: w)
                }
                for e in (d == 0 ? 0 : shareEnds[d - 1])..<shareEnds[d] { shareW[Int(shareEntries[e].0)] += w * shareEntries[e].1 }
                for e in (d == 0 ? 0 : floorEnds[d - 1])..<floorEnds[d] {
                    let l = Int(floors[e].0)
                    floorsW[l] = min(floorsW[l], floors[e].1)
                }
                for e in (d == 0 ? 0 : outcomeEnds[d - 1])..<outcomeEnds[d] {
                    let (l, a, f) = outcomes[e]
                    answeredW[Int(l)] += w * Double(a)
                    failedW[Int(l)] += w * Double(f)
                }
            }
            let gaps = meanGaps
            var estimate = Estimate(mixtures: [], floors: floorsW, taus: [], weights: [], failureShares: [], shares: [], lagStats: sums)
            for l in 0..<links {
                let start = start?[l] ?? nil
                estimate.mixtures.append(options.family == .ar1 ? RoundTripMixture.fit(bins[l], start: start)
                                         : RoundTripMixture.fitWithOutage(bins[l], start: start))
                let (tau, weight) = TelemetryFit.correlation(sums[l], gaps: gaps[l], attenuation: attenuations?[l] ?? nil, family: options.family)
                estimate.taus.append(tau)
                estimate.weights.append(weight)
                let all = answeredW[l] + failedW[l]
                estimate.failureShares.append(all > 0 ? failedW[l] / all : .nan)
                estimate.shares.append(weightTotal > 0 ? shareW[l] / weightTotal : .nan)
            }
            return estimate
        }
    }
}
