import SyncLabKernel

// A figure declared once. Every figure a run measures is one `Figure` in `Figure.all`: the key
// budgets name, its unit, what it means and the values it can take. The budget loader's list of
// names, `summary.json`'s decimals, docs/summary-json.md's table (checked by a test), what
// `synclab index` and `merge` accept and the unit a report prints all read this list, so a new
// figure is one line here and a figure can no longer be listed in one place and priced in another.

/// The unit a figure is measured in: how it prints and what range it has unless it says otherwise.
public enum FigureUnit: String, Sendable, CaseIterable {
    case milliseconds = "ms"
    case share
    case minutes = "min"
    case requestsPerSecond = "req/s"
    case dollars = "USD"
    case bytes
    case count
    case ratio
    /// 1 or 0: a verdict (`modelAudit.allHold`).
    case flag

    /// A time above this is not from any run (a millennium, in milliseconds).
    public static let largestMs = 3.2e13
    /// A request rate above this is not from any run (a billion requests a second).
    public static let largestRate = 1e9

    /// The values a figure in this unit can take, non-negative unless the figure says otherwise.
    public var range: ClosedRange<Double> {
        switch self {
        case .milliseconds: 0...Self.largestMs
        case .share, .flag: 0...1
        case .requestsPerSecond: 0...Self.largestRate
        case .minutes, .dollars, .bytes, .count, .ratio: 0...Double.greatestFiniteMagnitude
        }
    }
}

/// Where a figure exists: in every run, only with device events on, or only across seeds.
public enum FigureScope: Sendable {
    case run, deviceEvents, acrossSeeds
}

public struct Figure: Sendable {
    /// The key budgets name, dotted. A part `<link>` or `<model>` stands for a link profile's or
    /// a cost model's name (one or more key parts).
    public let key: String
    public let unit: FigureUnit
    public let meaning: String
    public let range: ClosedRange<Double>
    public let scope: FigureScope
    /// Digits after the point `summary.json` writes the figure with.
    public let decimals: Int
    /// Where `summary.json` holds the figure, dotted (nil: only budgets and reports name it).
    public let json: String?

    /// `json` defaults to the key; `budgetOnly` figures are not in summary.json.
    public init(_ key: String, _ unit: FigureUnit, _ meaning: String, range: ClosedRange<Double>? = nil,
                scope: FigureScope = .run, decimals: Int? = nil, json: String? = nil, budgetOnly: Bool = false) {
        self.key = key
        self.json = budgetOnly ? nil : json ?? key
        self.unit = unit
        self.meaning = meaning
        self.range = range ?? unit.range
        self.scope = scope
        self.decimals = decimals ?? (unit == .share ? 6 : unit == .count ? 0 : 3)
    }

    /// "a share from 0 to 1", "milliseconds ≥ 0", …: what the figure is, for messages.
    public var expected: String {
        switch unit {
        case .share, .flag: return unit == .flag ? "1 or 0" : "a share from 0 to 1"
        case .requestsPerSecond: return "requests per second ≥ 0"
        case .milliseconds: return range.lowerBound < 0 ? "milliseconds" : "milliseconds ≥ 0"
        default: return range.lowerBound < 0 ? "a number" : "a number ≥ 0"
        }
    }

    /// Whether `value` is one this figure can take: finite and inside its range.
    public func isPossible(_ value: Double) -> Bool {
        value.isFinite && range.contains(value) && (unit != .flag || value == 0 || value == 1)
    }

    /// Whether `name` is this figure's key, a placeholder part standing for any name.
    public func matches(_ name: String) -> Bool {
        guard let open = key.firstIndex(of: "<"), let close = key.firstIndex(of: ">") else { return key == name }
        let prefix = key[..<open], suffix = key[key.index(after: close)...]
        return name.count > prefix.count + suffix.count && name.hasPrefix(prefix) && name.hasSuffix(suffix)
    }

    /// The key with its placeholder replaced by `name`.
    public func key(for name: String) -> String {
        guard let open = key.firstIndex(of: "<"), let close = key.firstIndex(of: ">") else { return key }
        return String(key[..<open]) + name + String(key[key.index(after: close)...])
    }

    /// The placeholder of the key ("<link>"), or nil.
    public var placeholder: String? {
        guard let open = key.firstIndex(of: "<"), let close = key.firstIndex(of: ">") else { return nil }
        return String(key[open...close])
    }

    /// The declaration of figure `key`, or nil when no run writes such a figure.
    public static func declared(_ key: String) -> Figure? {
        if let exact = byKey[key] { return exact }
        return all.first { $0.placeholder != nil && $0.matches(key) }
    }

    private static let byKey: [String: Figure] = Dictionary(all.filter { $0.placeholder == nil }.map { ($0.key, $0) }) { a, _ in a }
}

// Each figure is a typed handle (`Figure.clientErrorMsP99`) that code names instead of spelling its
// key; `Figure.all` lists the handles. A family measured per reference clock or error source is one
// template with a placeholder (`<clock>`, `<source>`), filled in `all` for every clock or source, so
// code that builds such a figure fills the same template (`key(for:)`) rather than a string.
extension Figure {
    private static func ms(_ key: String, _ q: String, _ what: String, budgetOnly: Bool = false) -> Figure {
        Figure("\(key).\(q)", .milliseconds, "\(what), \(q == "max" ? "maximum" : q)", budgetOnly: budgetOnly)
    }
    private static func overChanges(_ key: String, _ q: String, _ what: String) -> Figure {
        Figure("\(key).\(q)", .share, "\(what): \(q == "min" ? "minimum" : q) over changes")
    }

    private static let gap = "per item change, latest minus earliest show instant (worst pair), over changes shown by ≥ 2 players"
    public static let transitionGapMsP50 = ms("transitionGapMs", "p50", gap)
    public static let transitionGapMsP99 = ms("transitionGapMs", "p99", gap)
    public static let transitionGapMsMax = ms("transitionGapMs", "max", gap)
    private static let spread = "per change, 99th minus 1st percentile of show instants"
    public static let transitionSpreadMsP50 = ms("transitionSpreadMs", "p50", spread)
    public static let transitionSpreadMsP99 = ms("transitionSpreadMs", "p99", spread)
    private static let spread999 = "per change, 99.9th minus 0.1th percentile of show instants"
    public static let transitionSpread999MsP50 = ms("transitionSpread999Ms", "p50", spread999)
    public static let transitionSpread999MsP99 = ms("transitionSpread999Ms", "p99", spread999)
    public static let transitionsWithin500msShare = Figure("transitionsWithin500msShare", .share, "changes whose worst pair is ≤ 500 ms")
    public static let viewersInBest500msShare = Figure("viewersInBest500msShare", .share,
                                                       "(player, change) shows inside the best-placed 500 ms window of their change")
    public static let viewersInCentred500msShare = Figure("viewersInCentred500msShare", .share,
                                                          "(player, change) shows within [−250 ms, +250 ms) of the change")
    public static let viewerPairsWithin500msShare = Figure("viewerPairsWithin500msShare", .share, "viewer pairs of every change at most 500 ms apart")
    private static let best = "per change, its viewers inside the best-placed 500 ms window"
    public static let transitionBest500msShareP50 = overChanges("transitionBest500msShare", "p50", best)
    public static let transitionBest500msShareP1 = overChanges("transitionBest500msShare", "p1", best)
    public static let transitionBest500msShareMin = overChanges("transitionBest500msShare", "min", best)
    private static let centred = "per change, its viewers within [−250 ms, +250 ms)"
    public static let transitionCentred500msShareP50 = overChanges("transitionCentred500msShare", "p50", centred)
    public static let transitionCentred500msShareP1 = overChanges("transitionCentred500msShare", "p1", centred)
    public static let transitionCentred500msShareMin = overChanges("transitionCentred500msShare", "min", centred)
    private static let pairs = "per change, its viewer pairs at most 500 ms apart"
    public static let transitionPairsWithin500msShareP50 = overChanges("transitionPairsWithin500msShare", "p50", pairs)
    public static let transitionPairsWithin500msShareP1 = overChanges("transitionPairsWithin500msShare", "p1", pairs)
    private static let displayed = "|displayed error| at random instants of viewing players"
    public static let clientErrorMsP50 = ms("clientErrorMs", "p50", displayed)
    public static let clientErrorMsP99 = ms("clientErrorMs", "p99", displayed)
    public static let clientErrorMsMax = ms("clientErrorMs", "max", displayed)
    private static let estimate = "|clock-based estimate error|, without the UI tick"
    public static let estimateErrorMsP50 = ms("estimateErrorMs", "p50", estimate)
    public static let estimateErrorMsP99 = ms("estimateErrorMs", "p99", estimate)
    public static let estimateErrorMsMax = ms("estimateErrorMs", "max", estimate)
    public static let requests = Figure("requests", .count, "requests that reached the server in the window")
    public static let peakRequestsPerSecond = Figure("peakRequestsPerSecond", .requestsPerSecond, "requests in the busiest server second", decimals: 0)
    public static let p99RequestsPerSecond = Figure("p99RequestsPerSecond", .requestsPerSecond, "99th percentile of requests per server second",
                                                    decimals: 0)
    public static let p999RequestsPerSecond = Figure("p999RequestsPerSecond", .requestsPerSecond, "99.9th percentile of requests per server second",
                                                     decimals: 0)
    public static let meanRequestsPerSecond = Figure("meanRequestsPerSecond", .requestsPerSecond, "mean requests per server second")
    public static let peakToMeanRatio = Figure("peakToMeanRatio", .ratio, "peak over mean requests per second", budgetOnly: true)
    public static let bareShare = Figure("bareShare", .share, "viewing position-time with no data")
    public static let staleShare = Figure("staleShare", .share, "viewing position-time showing another item than the true one")
    public static let failedRequestShare = Figure("failedRequestShare", .share, "client-noticed failures over requests sent")
    public static let displayedSecondWrongShare = Figure("displayedSecondWrongShare", .share,
                                                         "samples whose screen showed another whole second than the server's")
    /// Templates: `all` holds one per reference clock (`estimateErrorMsByClockP50.key(for: "wall")`).
    private static let byClock = "|estimate error| of the same syncs measured with the <clock> clock"
    public static let estimateErrorMsByClockP50 = ms("estimateErrorMs.byClock.<clock>", "p50", byClock, budgetOnly: true)
    public static let estimateErrorMsByClockP99 = ms("estimateErrorMs.byClock.<clock>", "p99", byClock, budgetOnly: true)
    public static let estimateErrorMsByClockMax = ms("estimateErrorMs.byClock.<clock>", "max", byClock, budgetOnly: true)
    private static let byLink = "|displayed error| of the players on link <link>"
    public static let clientErrorMsByLinkP50 = ms("clientErrorMs.byLink.<link>", "p50", byLink, budgetOnly: true)
    public static let clientErrorMsByLinkP99 = ms("clientErrorMs.byLink.<link>", "p99", byLink, budgetOnly: true)
    public static let clientErrorMsByLinkMax = ms("clientErrorMs.byLink.<link>", "max", byLink, budgetOnly: true)
    public static let requestsPerMonth = Figure("requestsPerMonth", .count, "requests extrapolated to a 30-day month", decimals: 0)
    public static let bytesPerMonth = Figure("bytesPerMonth", .bytes, "response bytes extrapolated to a 30-day month", decimals: 0)
    public static let costPerMonth = Figure("costPerMonth.<model>", .dollars, "monthly price under cost model <model>", decimals: 2, budgetOnly: true)
    /// Templates: `all` holds one per `ErrorSource` (`errorSourceMsMean.key(for: source.key)`).
    public static let errorSourceMsMean = Figure("errorSourceMs.<source>.mean", .milliseconds, "mean of the displayed error's <source> part (signed)",
                                                 range: -FigureUnit.largestMs...FigureUnit.largestMs)
    public static let errorSourceMsSd = Figure("errorSourceMs.<source>.sd", .milliseconds,
                                               "standard deviation of the displayed error's <source> part")
    private static let wake = "whole minutes after waking from deep sleep from which the p99 |%| stays ≤ "
    public static let wakeRecoveryMinutesDisplayed = Figure(
        "wakeRecoveryMinutes.displayed", .minutes, wake.replacingOccurrences(of: "%", with: "displayed error") + "500 ms", decimals: 0)
    public static let wakeRecoveryMinutesEstimate = Figure(
        "wakeRecoveryMinutes.estimate", .minutes, wake.replacingOccurrences(of: "%", with: "estimate error") + "500 ms", decimals: 0)
    public static let wakeRecoveryMinutesDisplayedVsNoSleep = Figure(
        "wakeRecoveryMinutes.displayed.vsNoSleep", .minutes,
        wake.replacingOccurrences(of: "%", with: "displayed error") + "the no-sleep p99 + 500 ms", decimals: 0,
        json: "wakeRecoveryMinutes.displayedVsNoSleep")
    public static let wakeRecoveryMinutesEstimateVsNoSleep = Figure(
        "wakeRecoveryMinutes.estimate.vsNoSleep", .minutes,
        wake.replacingOccurrences(of: "%", with: "estimate error") + "the no-sleep p99 + 500 ms", decimals: 0,
        json: "wakeRecoveryMinutes.estimateVsNoSleep")
    private static func deviceEvents(_ key: String, _ what: String) -> Figure {
        Figure("deviceEvents.\(key)", .count, what, scope: .deviceEvents, decimals: 0)
    }
    public static let deviceEventsReboots = deviceEvents("reboots", "reboots in the window")
    public static let deviceEventsRebootsWhileViewing = deviceEvents("rebootsWhileViewing", "reboots while viewing")
    public static let deviceEventsAppKills = deviceEvents("appKills", "app kills")
    public static let deviceEventsWallClockChanges = deviceEvents("wallClockChanges", "wall-clock changes")
    public static let deviceEventsTamperings = deviceEvents("tamperings", "tamperings")
    public static let deviceEventsWallClockSteps = deviceEvents("wallClockSteps", "wall-clock steps")
    public static let deviceEventsWallClockSlews = deviceEvents("wallClockSlews", "wall-clock slews")
    public static let earlyShowShare = Figure("earlyShowShare", .share, "shows put on screen before their start", scope: .deviceEvents,
                                              json: "deviceEvents.earlyShowShare")
    public static let tamperEarlyShowShare = Figure("tamperEarlyShowShare", .share, "a tamperer's shows put on screen before their start",
                                                    scope: .deviceEvents, json: "deviceEvents.tamperEarlyShowShare")
    public static let tamperHeadStartMsMean = Figure("tamperHeadStartMs.mean", .milliseconds, "how early a tamperer's screen ran, mean",
                                                     scope: .deviceEvents, json: "deviceEvents.tamperHeadStartMs.mean")
    public static let tamperHeadStartMsMax = Figure("tamperHeadStartMs.max", .milliseconds, "how early a tamperer's screen ran, maximum",
                                                    scope: .deviceEvents, json: "deviceEvents.tamperHeadStartMs.max")
    public static let queueWaitMsMean = Figure("queueWaitMs.mean", .milliseconds, "server queue wait, mean", json: "serverQueue.waitMsMean")
    public static let queueWaitMsP99 = Figure("queueWaitMs.p99", .milliseconds, "server queue wait, p99", json: "serverQueue.waitMsP99")
    public static let queueWaitMsMax = Figure("queueWaitMs.max", .milliseconds, "server queue wait, maximum", json: "serverQueue.waitMsMax")
    public static let queueLengthMax = Figure("queueLengthMax", .count, "longest server queue", decimals: 0, budgetOnly: true)
    public static let outageFailures = Figure("outageFailures", .count, "requests refused or timed out by an outage", decimals: 0, budgetOnly: true)
    public static let originalPlanEarlyShowShare = Figure("originalPlan.earlyShowShare", .share, "original plan: shows before their start",
                                                          budgetOnly: true)
    public static let originalPlanEarlyVisibilityMsMax = Figure("originalPlan.earlyVisibilityMs.max", .milliseconds,
                                                                "original plan: most any change was seen early", budgetOnly: true)
    public static let originalPlanQueryWaitMsP99 = Figure("originalPlan.queryWaitMs.p99", .milliseconds, "original plan: database query wait, p99",
                                                          budgetOnly: true)
    public static let boundCoverageShare = Figure("boundCoverageShare", .share, "samples whose truth lay inside the client's claimed ± bound",
                                                  json: "boundCoverage.share")
    public static let boundMsP50 = Figure("boundMs.p50", .milliseconds, "the claimed ± bound, p50", json: "boundCoverage.boundMs.p50")
    public static let boundMsP99 = Figure("boundMs.p99", .milliseconds, "the claimed ± bound, p99", json: "boundCoverage.boundMs.p99")
    public static let boundCoverageShareByLink = Figure("boundCoverageShare.byLink.<link>", .share, "bound coverage of the players on link <link>",
                                                        json: "boundCoverage.byLink.<link>")
    public static let modelAuditAllHold = Figure("modelAudit.allHold", .flag, "1 when every row of the model audit holds, else 0", decimals: 0)
    /// In a run held against telemetry only (`run --telemetry`); any run may name it in a budget
    /// (without telemetry it is not measured, and the budget fails).
    public static let telemetryAgrees = Figure("telemetry.agrees", .flag,
                                               "with --telemetry: 1 when every link compared with the telemetry agrees (and one was), else 0",
                                               decimals: 0)
    public static let seedFailureRate = Figure("seedFailureRate", .share, "share of seeds on which a per-run budget fails", scope: .acrossSeeds,
                                               budgetOnly: true)
    public static let seedFailureRateUpper95 = Figure("seedFailureRate.upper95", .share, "upper end of the 95% Wilson interval of seedFailureRate",
                                                      scope: .acrossSeeds, budgetOnly: true)

    /// This template with its placeholder replaced by `name` in key, meaning and json path.
    public func filled(_ name: String) -> Figure {
        guard let placeholder else { return self }
        return Figure(key(for: name), unit, meaning.replacingOccurrences(of: placeholder, with: name), range: range, scope: scope,
                      decimals: decimals, json: json?.replacingOccurrences(of: placeholder, with: name), budgetOnly: json == nil)
    }

    /// Every figure, in the order budgets' hints and docs list them.
    public static let all: [Figure] = {
        var f: [Figure] = [
            transitionGapMsP50, transitionGapMsP99, transitionGapMsMax, transitionSpreadMsP50, transitionSpreadMsP99,
            transitionSpread999MsP50, transitionSpread999MsP99, transitionsWithin500msShare, viewersInBest500msShare,
            viewersInCentred500msShare, viewerPairsWithin500msShare,
            transitionBest500msShareP50, transitionBest500msShareP1, transitionBest500msShareMin,
            transitionCentred500msShareP50, transitionCentred500msShareP1, transitionCentred500msShareMin,
            transitionPairsWithin500msShareP50, transitionPairsWithin500msShareP1,
            clientErrorMsP50, clientErrorMsP99, clientErrorMsMax, estimateErrorMsP50, estimateErrorMsP99, estimateErrorMsMax,
            requests, peakRequestsPerSecond, p99RequestsPerSecond, p999RequestsPerSecond, meanRequestsPerSecond, peakToMeanRatio,
            bareShare, staleShare, failedRequestShare, displayedSecondWrongShare,
        ]
        for clock in ReferenceClocks.labels {
            f += [estimateErrorMsByClockP50, estimateErrorMsByClockP99, estimateErrorMsByClockMax].map { $0.filled(clock) }
        }
        f += [clientErrorMsByLinkP50, clientErrorMsByLinkP99, clientErrorMsByLinkMax, requestsPerMonth, bytesPerMonth, costPerMonth]
        for source in ErrorSource.allCases { f += [errorSourceMsMean, errorSourceMsSd].map { $0.filled(source.key) } }
        f += [
            wakeRecoveryMinutesDisplayed, wakeRecoveryMinutesEstimate, wakeRecoveryMinutesDisplayedVsNoSleep, wakeRecoveryMinutesEstimateVsNoSleep,
            deviceEventsReboots, deviceEventsRebootsWhileViewing, deviceEventsAppKills, deviceEventsWallClockChanges, deviceEventsTamperings,
            deviceEventsWallClockSteps, deviceEventsWallClockSlews, earlyShowShare, tamperEarlyShowShare, tamperHeadStartMsMean, tamperHeadStartMsMax,
            queueWaitMsMean, queueWaitMsP99, queueWaitMsMax, queueLengthMax, outageFailures,
            originalPlanEarlyShowShare, originalPlanEarlyVisibilityMsMax, originalPlanQueryWaitMsP99,
            boundCoverageShare, boundMsP50, boundMsP99, boundCoverageShareByLink, modelAuditAllHold, telemetryAgrees,
            seedFailureRate, seedFailureRateUpper95,
        ]
        return f
    }()

    /// The keys of every figure a run of `scenario` has, placeholders filled with its links' and
    /// cost models' names (not the figures across seeds).
    public static func keys(for scenario: Scenario) -> [String] {
        var keys: [String] = []
        for figure in all {
            switch figure.scope {
            case .acrossSeeds: continue
            case .deviceEvents where !scenario.devices.events.any: continue
            default: break
            }
            switch figure.placeholder {
            case "<link>"?: keys += scenario.links.map { figure.key(for: $0.name) }
            case "<model>"?: keys += scenario.costModels.map { figure.key(for: $0.name) }
            default: keys.append(figure.key)
            }
        }
        return keys
    }
}

extension Figure {
    /// The figures of the model audit's rows (`AuditRow.figure`): per row its unit and meaning.
    /// They are not budget figures; `modelAudit.allHold` is.
    public static let audit: [Figure] = [
        Figure("uplinkMs.p50", .milliseconds, "median one-way delay up, of draws timed independently of the player's earlier ones"),
        Figure("uplinkMs.p99", .milliseconds, "99th percentile of the one-way delay up"),
        Figure("uplinkMs.sd", .milliseconds, "standard deviation of the one-way delay up"),
        Figure("downlinkMs.p50", .milliseconds, "median one-way delay down, of draws timed independently of the player's earlier ones"),
        Figure("downlinkMs.p99", .milliseconds, "99th percentile of the one-way delay down"),
        Figure("downlinkMs.sd", .milliseconds, "standard deviation of the one-way delay down"),
        Figure("uplinkLag1Correlation", .ratio, "correlation of the logs of a player's successive uplink delays", range: -1...1),
        Figure("lateMessageShare", .share, "messages (requests and responses) that lost a segment"),
        Figure("addedDelayMs.mean", .milliseconds, "mean delay lost segments added per message"),
        Figure("promotionShare", .share, "requests that paid a radio promotion"),
        Figure("coldSetupShare", .share, "requests that opened a new connection"),
        Figure("warmRequestShare", .share, "requests that found their connection open"),
        Figure("dnsLookupShare", .share, "requests that looked the host name up"),
        Figure("queueWaitMs.mean", .milliseconds, "mean wait in the server's queue"),
        Figure("refusedShare", .share, "arrivals refused by a full queue"),
        Figure("stampOffsetGapMs.max", .milliseconds, "largest gap between a fleet server's offset as the scenario gives it and as its stamps carried it"),
        Figure("wakesPerAsleepHour", .ratio, "standby wakes per hour of deep sleep"),
        Figure("awakeSecondsPerWake", .ratio, "seconds a standby wake keeps the CPU up"),
        Figure("lockedBreakShare", .share, "breaks begun with the phone locked"),
        Figure("suspendedShare", .share, "breaks longer than the lifecycle's grace: the app suspended"),
        Figure("terminatedShare", .share, "breaks that ended with the app terminated (a cold start on return)"),
        Figure("correctionsPerPhoneHour", .ratio, "wall-clock corrections from the network per phone and hour"),
        Figure("firstCorrectionStepShare", .share, "phones' first wall-clock corrections that stepped the clock (the rest slewed or left it)"),
    ]

    /// The declaration of audit figure `key`, or nil.
    public static func audited(_ key: String) -> Figure? { audit.first { $0.key == key } }
}
