import SyncLabKernel

/// The scenario's client design, resolved once when the world is built.
struct ResolvedDesign {
    let estimator: any SyncEstimator
    /// Whether the estimator keeps no memory, reads only the best probe and has no drift
    /// correction: its estimate is the one-exchange anchor and bound, so the bound can wait for
    /// a sample (`settleSync`).
    let isStateless: Bool
    let refetch: any RefetchPolicy
    /// What the design's ± bounds assume (it reads the clock's resolution).
    let boundModel: BoundModel
    /// Whether the design's clock stands still in deep sleep (read per sampled player).
    let clockPausesInDeepSleep: Bool
    /// Whether the design syncs on the response's headers (`client.syncReading`): only then is
    /// their arrival worked out.
    let readsResponseHeaders: Bool
    /// The time endpoint the probes go to, nil when they fetch the store (`client.probeTarget`).
    let timeEndpoint: TimeEndpoint?
    /// Whether there is one, and its response's bytes (0 without): read per request, where
    /// reading the optional itself copies the endpoint's service-time law.
    let probesTimeEndpoint: Bool
    let endpointBytes: Int
    /// `client.showFirstAnswerWithin` in ns, −1 without.
    let showFirstAnswerWithin: Nanoseconds
    /// `client.maxSyncBound` in ns, −1 without.
    let maxSyncBound: Nanoseconds
    /// The design's clocks for paths too rare to specialise (settling a sync): the same route
    /// as the event loop's (`DesignClocks`), on existentials.
    let clocks: DesignClocks<AnyDeviceClock, AnyDeviceClock>

    /// Whether a round whose estimate claims `bound` is used: always without
    /// `client.maxSyncBound`, else when the bound is claimed and within it.
    func admits(_ bound: SyncBound) -> Bool { Self.admits(bound, limit: maxSyncBound) }

    static func admits(_ bound: SyncBound, limit: Nanoseconds) -> Bool {
        limit < 0 || bound.nanoseconds.map { $0 <= limit } ?? false
    }

    init(_ scenario: Scenario, context: ClockContext) {
        let client = scenario.client
        estimator = client.estimator
        isStateless = client.estimator.memoryWords == 0 && client.driftCorrection == nil && !client.estimator.readsEveryProbe
        refetch = client.refetch
        boundModel = scenario.boundModel
        clockPausesInDeepSleep = client.clock.pausesInDeepSleep
        readsResponseHeaders = client.syncReading == .responseHeaders
        timeEndpoint = client.probeTarget.endpoint
        probesTimeEndpoint = timeEndpoint != nil
        endpointBytes = timeEndpoint?.responseBytes ?? 0
        showFirstAnswerWithin = client.showFirstAnswerWithin ?? -1
        maxSyncBound = client.maxSyncBound ?? -1
        clocks = DesignClocks(client, clock: AnyDeviceClock(client.clock), ticks: TickInstants(client.tick),
                              context: context, devicesChange: scenario.devices.events.any)
    }
}
