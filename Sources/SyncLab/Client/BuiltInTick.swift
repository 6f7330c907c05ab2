import SyncLabKernel

/// The built-in tick policies on built-in clocks as one trivially copyable enum, resolved once
/// per run (see `BuiltInClock` for why): a sample's "last tick" is computed without an
/// existential call. Same instants as the plug-in itself; nil for any other plug-in.
public enum BuiltInTick: TickPolicy {
    case timer(period: Nanoseconds, clock: BuiltInClock)
    case immediate

    public init?(_ tick: any TickPolicy) {
        switch tick {
        case let timer as TimerTick:
            guard let clock = BuiltInClock(timer.clock) else { return nil }
            self = .timer(period: timer.period, clock: clock)
        case is ImmediateTick: self = .immediate
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .timer: return "timer"
        case .immediate: return ImmediateTick().name
        }
    }

    @inline(__always)
    public func session(_ d: DeviceState, start: SimTime, _ c: ClockContext) -> TickSession {
        switch self {
        case .timer(_, let clock): return TimerTick.session(d, start: start, c, clock: clock)
        case .immediate: return ImmediateTick().session(d, start: start, c)
        }
    }

    @inline(__always)
    public func firstTick(atOrAfter t: SimTime, _ s: TickSession, _ d: DeviceState,
                          _ c: ClockContext) -> SimTime {
        switch self {
        case .timer(let period, let clock): return TimerTick.firstTick(atOrAfter: t, s, d, c, period: period, clock: clock)
        case .immediate: return t
        }
    }

    @inline(__always)
    public func lastTick(atOrBefore t: SimTime, _ s: TickSession, _ d: DeviceState,
                         _ c: ClockContext) -> SimTime {
        switch self {
        case .timer(let period, let clock): return TimerTick.lastTick(atOrBefore: t, s, d, c, period: period, clock: clock)
        case .immediate: return t
        }
    }
}
