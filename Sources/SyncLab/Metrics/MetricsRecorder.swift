import SyncLabKernel

/// Collects what the design's metrics need while the world runs, only inside the measured
/// window [0, duration); `finish` turns it into a `RunResult`. It reads nothing but what the
/// world hands it, and knows no report format.
struct MetricsRecorder {
    let scenario: Scenario
    let schedule: StoreSchedule
    let shadowClockNames: [String]
    let firstSecond: Int64
    var requestsPerSecond: [UInt32]
    var bytesServed: UInt64 = 0
    var requestsServed: UInt64 = 0
    var requestsSent: UInt64 = 0
    var requestsLost: UInt64 = 0
    var requestsFailed: UInt64 = 0
    var responses: UInt64 = 0
    var roundTrip = Histogram()
    var visits: UInt64 = 0
    var releaseOnline = 0
    var releaseJoined = 0
    /// Show offsets per transition index (only transitions inside the window are kept).
    var shown: [[Int64]]

    var displayError = ErrorStats()
    var estimateError = ErrorStats()
    var shadowErrors: [ErrorStats]
    var displayByLink: [ErrorStats]
    var estimateByLink: [ErrorStats]
    /// Index 0: no deep sleep since launch; 1...: minutes since wake, last bucket open-ended.
    var displayByWake: [ErrorStats]
    var estimateByWake: [ErrorStats]
    static let wakeBuckets = 12
    var samples: UInt64 = 0
    var sampleInstants: UInt64 = 0
    var viewingSum: UInt64 = 0
    var viewingPeak = 0
    var positionSamples: UInt64 = 0
    var bareSamples: UInt64 = 0
    var staleSamples: UInt64 = 0
    var measuring = false
    /// Error over time: one bucket per `timelineStep` of the window, displayed error and the
    /// estimate with each reference clock (coarse histograms: these feed charts).
    let timelineStep: Nanoseconds
    var timeline: [TimelineBucket]
    var currentBucket = 0

    init(scenario: Scenario, schedule: StoreSchedule, shadowClockNames: [String]) {
        self.scenario = scenario
        self.schedule = schedule
        self.shadowClockNames = shadowClockNames
        firstSecond = floorDiv(scenario.epochUnix, .second)
        let seconds = Int(floorDiv(scenario.epochUnix + scenario.duration - 1, .second) - firstSecond) + 1
        requestsPerSecond = [UInt32](repeating: 0, count: max(seconds, 1))
        shown = [[Int64]](repeating: [], count: schedule.transitions.count)
        shadowErrors = [ErrorStats](repeating: ErrorStats(), count: shadowClockNames.count)
        displayByLink = [ErrorStats](repeating: ErrorStats(), count: scenario.links.count)
        estimateByLink = displayByLink
        displayByWake = [ErrorStats](repeating: ErrorStats(), count: MetricsRecorder.wakeBuckets)
        estimateByWake = displayByWake
        // About 300 buckets at most, in whole minutes.
        let step = max(1, ceilDiv(scenario.duration, 300 * .minute)) * .minute
        let clocks = shadowClockNames.count
        timelineStep = step
        timeline = (0..<Int(ceilDiv(scenario.duration, step))).map { i in
            TimelineBucket(start: Int64(i) * step, clocks: clocks)
        }
    }

    func inWindow(_ t: SimTime) -> Bool { t.ns >= 0 && t.ns < scenario.duration }

    mutating func visits(at t: SimTime) { if inWindow(t) { visits += 1 } }

    mutating func release(at t: SimTime, online: Int, joined: Int) {
        releaseOnline = online
        releaseJoined = joined
    }

    mutating func requestSent(at t: SimTime, lost: Bool) {
        guard inWindow(t) else { return }
        requestsSent += 1
        if lost { requestsLost += 1 }
    }

    /// A request reaches the server: counted in the server second it arrives in.
    mutating func served(serverTime: Int64, bytes: Int) {
        guard serverTime >= 0 && serverTime < scenario.duration else { return }
        let second = Int(floorDiv(scenario.epochUnix + serverTime, .second) - firstSecond)
        requestsPerSecond[second] &+= 1
        requestsServed += 1
        bytesServed += UInt64(bytes)
    }

    mutating func responseReceived(at t: SimTime, roundTrip rtt: Nanoseconds) {
        guard inWindow(t) else { return }
        responses += 1
        roundTrip.record(rtt)
    }

    mutating func requestFailed(at t: SimTime) { if inWindow(t) { requestsFailed += 1 } }

    mutating func transitionShown(index: Int, offset: Int64) {
        let time = schedule.transitions[index].time
        guard time >= 0 && time < scenario.duration else { return }
        shown[index].append(offset)
    }

    mutating func beginSample(at t: SimTime, viewing: Int) {
        measuring = inWindow(t)
        guard measuring else { return }
        sampleInstants += 1
        currentBucket = min(timeline.count - 1, Int(t.ns / timelineStep))
        timeline[currentBucket].sampleInstants += 1
        timeline[currentBucket].viewingSum += UInt64(viewing)
        viewingSum += UInt64(viewing)
        viewingPeak = max(viewingPeak, viewing)
    }

    mutating func sampleBare(positions: Int) {
        guard measuring else { return }
        positionSamples += UInt64(positions)
        bareSamples += UInt64(positions)
    }

    mutating func shadowSample(clock k: Int, error: Int64) {
        guard measuring else { return }
        shadowErrors[k].record(error)
        timeline[currentBucket].estimateByClock[k].record(error)
    }

    mutating func sample(displayError shownError: Int64, estimateError estimate: Int64, link: Int,
                         minutesSinceWake: Int?, bare: Int, stale: Int, positions: Int) {
        guard measuring else { return }
        samples += 1
        displayError.record(shownError)
        estimateError.record(estimate)
        timeline[currentBucket].display.record(shownError)
        displayByLink[link].record(shownError)
        estimateByLink[link].record(estimate)
        let bucket = minutesSinceWake.map { min($0 + 1, MetricsRecorder.wakeBuckets - 1) } ?? 0
        displayByWake[bucket].record(shownError)
        estimateByWake[bucket].record(estimate)
        positionSamples += UInt64(positions)
        bareSamples += UInt64(bare)
        staleSamples += UInt64(stale)
    }

    func finish(eventsScheduled: UInt64, files: [PublishedFile]) -> RunResult {
        var rows: [TransitionRow] = []
        var unviewed = 0
        for (i, tr) in schedule.transitions.enumerated() where tr.time >= 0 && tr.time < scenario.duration {
            if shown[i].isEmpty { unviewed += 1; continue }
            rows.append(.measure(time: tr.time, position: Int(tr.position), offsets: shown[i],
                                 window: 500 * .millisecond))
        }
        let published = files.filter { $0.publishedAt.ns >= 0 && $0.publishedAt.ns < scenario.duration }
        let meanBytes = published.isEmpty ? files.last.map { Double($0.responseBytes) } ?? 0
            : Double(published.map(\.responseBytes).reduce(0, +)) / Double(published.count)
        return RunResult(
            scenario: scenario, transitions: rows, transitionsUnviewed: unviewed,
            requestsPerSecond: requestsPerSecond, requestsServed: requestsServed, bytesServed: bytesServed,
            requestsSent: requestsSent, requestsLost: requestsLost, requestsFailed: requestsFailed,
            responses: responses, roundTrip: roundTrip, visits: visits,
            releaseOnline: releaseOnline, releaseJoined: releaseJoined,
            displayError: displayError, estimateError: estimateError,
            errorByClock: zip(shadowClockNames, shadowErrors).map { ($0, $1) },
            displayByLink: displayByLink, estimateByLink: estimateByLink,
            displayByWake: displayByWake, estimateByWake: estimateByWake,
            samples: samples, sampleInstants: sampleInstants, viewingSum: viewingSum, viewingPeak: viewingPeak,
            positionSamples: positionSamples, bareSamples: bareSamples, staleSamples: staleSamples,
            filesPublished: published.count, meanFileBytes: meanBytes, eventsScheduled: eventsScheduled,
            timelineStep: timelineStep, timeline: timeline)
    }
}

/// Errors sampled in one stretch of the window, for charts of error over time.
public struct TimelineBucket: Sendable, Equatable {
    /// Start of the stretch, true time since the epoch.
    public var start: Int64
    public var display = ErrorStats(subBits: 5)
    /// The estimate with each reference clock, in `RunResult.errorByClock` order.
    public var estimateByClock: [ErrorStats]
    public var sampleInstants: UInt64 = 0
    public var viewingSum: UInt64 = 0
    init(start: Int64, clocks: Int) {
        self.start = start
        estimateByClock = [ErrorStats](repeating: ErrorStats(subBits: 5), count: clocks)
    }
    /// Mean number of players viewing at this bucket's sample instants.
    public var meanViewing: Double? { sampleInstants == 0 ? nil : Double(viewingSum) / Double(sampleInstants) }
}
