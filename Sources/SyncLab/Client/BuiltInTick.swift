import SyncLabKernel

/// A tick policy resolved once per run to the built-in ones, with any other plug-in kept behind
/// its protocol (see `BuiltInClock` for why): the timer's clock is resolved too, so a sample's
/// "last tick" is computed without an existential call. Same instants as the plug-in itself.
public enum BuiltInTick: TickPolicy {
    case timer(period: Nanoseconds, clock: BuiltInClock)
    case immediate
    case plugin(any TickPolicy)

    public init(_ tick: any TickPolicy) {
        switch tick {
        case let timer as TimerTick: self = .timer(period: timer.period, clock: BuiltInClock(timer.clock))
        case is ImmediateTick: self = .immediate
        default: self = .plugin(tick)
        }
    }

    public var name: String {
        switch self {
        case .timer: return "timer"
        case .immediate: return ImmediateTick().name
        case .plugin(let tick): return tick.name
        }
    }

    @inline(__always)
    public func session(_ d: DeviceState, start: SimTime, _ c: ClockContext) -> TickSession {
        switch self {
        case .timer(_, let clock): return TimerTick.session(d, start: start, c, clock: clock)
        case .immediate: return ImmediateTick().session(d, start: start, c)
        case .plugin(let tick): return tick.session(d, start: start, c)
        }
    }

    @inline(__always)
    public func firstTick(atOrAfter t: SimTime, _ s: TickSession, _ d: DeviceState,
                          _ c: ClockContext) -> SimTime {
        switch self {
        case .timer(let period, let clock): return TimerTick.firstTick(atOrAfter: t, s, d, c, period: period, clock: clock)
        case .immediate: return t
        case .plugin(let tick): return tick.firstTick(atOrAfter: t, s, d, c)
        }
    }

    @inline(__always)
    public func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState,
                         _ c: ClockContext) -> SimTime {
        switch self {
        case .timer(let period, let clock): return TimerTick.lastTick(atOrBefore: t, s, d, c, period: period, clock: clock)
        case .immediate: return t
        case .plugin(let tick): return tick.lastTick(atOrBefore: t, s, d, c)
        }
    }
}
