import SyncLabKernel

/// What the world measures with: the recorder, the sample instants and their bookkeeping
/// (`World+Sampling`), and scratch space for counting stale positions.
struct Measurement {
    var recorder: MetricsRecorder
    /// Each sample instant falls at a random phase inside its interval, so sampling never locks
    /// to the whole seconds that truncation and ticks are aligned to.
    var samplingRNG: RandomStream
    var sampleIndex: Int64 = 0
    var nextSampleAt = SimTime.zero
    /// Measuring instants not yet recorded by every viewing player, and how many came before
    /// the first of them.
    var pendingSamples: [SampleInstant] = []
    var pendingBase: UInt32 = 0
    /// Every how many players one is sampled (`scenario.sampleStride`).
    let sampleStride: Int
    /// Marks for counting distinct stale positions without allocating.
    var positionMark: [UInt32]
    var markStamp: UInt32 = 0

    init(_ scenario: Scenario, schedule: StoreSchedule, players: Range<Int>, server: ServerSide) {
        recorder = MetricsRecorder(scenario: scenario, schedule: schedule, players: players,
                                   shadowClockNames: ReferenceClocks.labels)
        samplingRNG = RandomStream(seed: scenario.seed, purpose: StreamPurpose("sampling"))
        sampleStride = scenario.sampleStride
        positionMark = [UInt32](repeating: 0, count: scenario.positions)
        if let serving = server.serving {
            recorder.serving = ServingRecord(perServer: [UInt64](repeating: 0, count: serving.offsets.count),
                                             offsets: scenario.server.fleet == nil ? [] : serving.offsets,
                                             clocks: scenario.server.fleet?.auditsClocks == true
                                                 ? [ServerClockRecord](repeating: ServerClockRecord(), count: serving.offsets.count) : [])
        }
        if let database = server.database {
            var record = DatabaseRecord(transitions: schedule.transitions.count,
                                        minutes: Int(ceilDiv(scenario.duration, .minute)))
            record.overlaps = database.overlaps(schedule)
            recorder.database = record
        }
    }
}

extension Measurement {
    /// Tells the observers what happened in the model (`ModelEvent`).
    @inline(__always)
    mutating func emit(_ event: ModelEvent) {
        recorder.observe(event)
    }

    /// Whether an observer reads player c's drawn delays (the audit's followed players): the
    /// world tells of them only then, so a player outside the audit's sample costs a test.
    @inline(__always)
    func watchesDraws(of c: Int) -> Bool { recorder.audit.follows(c) }

    /// Whether an observer reads answered round trips: the world works them out only then.
    var observesRoundTrips: Bool { recorder.linkRoundTrips != nil }
}
