import SyncLabKernel

/// The scenario's client design, resolved once when the world is built: the one route by
/// which the world reaches its clock, tick policy, estimator and refetch policy.
struct ResolvedDesign {
    /// The design's clock, tick policy and estimator as built-in cases (see `World+BuiltIns`);
    /// nil for a plug-in the world calls through its protocol.
    let clock: BuiltInClock?
    let tick: BuiltInTick?
    let estimator: BuiltInEstimator?
    /// The estimator when it is built in, keeps no memory and has no drift correction: its
    /// estimate is the one-exchange anchor and bound, so the bound can wait for a sample.
    let statelessEstimator: BuiltInEstimator?
    /// The seeds' refetch policy on its concrete type (nil for any other plug-in).
    let refetch: UniformWindowRefetch?
    /// What the design's ± bounds assume (it reads the clock's resolution).
    let boundModel: BoundModel
    /// Whether the design's clock stands still in deep sleep (read per sampled player).
    let clockPausesInDeepSleep: Bool
    /// Whether the design syncs on the response's headers (`client.syncReading`): only then is
    /// their arrival worked out.
    let readsResponseHeaders: Bool

    init(_ scenario: Scenario) {
        let client = scenario.client
        clock = BuiltInClock(client.clock)
        tick = BuiltInTick(client.tick)
        estimator = BuiltInEstimator(client.estimator)
        statelessEstimator = client.estimator.memoryWords == 0 && client.driftCorrection == nil ? estimator : nil
        refetch = client.refetch as? UniformWindowRefetch
        boundModel = scenario.boundModel
        clockPausesInDeepSleep = client.clock.pausesInDeepSleep
        readsResponseHeaders = client.syncReading == .responseHeaders
    }
}
