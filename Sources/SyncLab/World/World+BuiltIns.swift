import SyncLabKernel

/// The design's clock, tick policy and estimator as the hot paths call them: on the concrete
/// built-in types when the scenario uses those (`BuiltInClock`, `BuiltInTick`,
/// `BuiltInEstimator`), through the plug-in's protocol otherwise. Either way the same instants,
/// readings and anchors. (The run-ahead loop goes further: it is compiled for the design's
/// clock and tick types themselves, `World.withDesignTypes`.)
///
/// They are `mutating` although they change nothing: every caller is a mutating handler, and a
/// non-mutating call from one made the compiler copy the whole world (retaining each of its
/// arrays) per call, which cost more than the existential calls they replace.
extension World {
    @inline(__always)
    mutating func clockReading(_ d: DeviceState, at t: SimTime) -> ClockReading {
        if let clock = design.clock { return clock.reading(d, at: t, context) }
        return scenario.client.clock.reading(d, at: t, context)
    }

    @inline(__always)
    mutating func tickSession(_ d: DeviceState, start: SimTime) -> TickSession {
        if let tick = design.tick { return tick.session(d, start: start, context) }
        return scenario.client.tick.session(d, start: start, context)
    }

    @inline(__always)
    mutating func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState) -> SimTime {
        if let tick = design.tick { return tick.lastTick(atOrBefore: t, s, d, context) }
        return scenario.client.tick.lastTick(atOrBefore: t, s, d, context)
    }

    /// The design clock's reading at t, from the reference clocks' readings then when it is one
    /// of them (every built-in clock is): a sample reads each clock once.
    @inline(__always)
    mutating func clockReading(_ d: DeviceState, at t: SimTime, _ references: ReferenceReadings) -> ClockReading {
        if let clock = design.clock { return references[clock.referenceIndex] }
        return scenario.client.clock.reading(d, at: t, context)
    }

    /// The last tick at or before t, the same way.
    @inline(__always)
    mutating func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState,
                           _ references: ReferenceReadings) -> SimTime {
        if case .timer(let period, let clock)? = design.tick {
            return TimerTick.lastTick(atOrBefore: t, s, d, context, period: period, clock: clock,
                                      reading: references[clock.referenceIndex])
        }
        return lastTick(atOrBefore: t, s, d)
    }
}
