import SyncLabKernel

/// The built-in device clocks as one closed, trivially copyable enum, resolved once per run.
///
/// The event loop reads the design's clock several times per event; through `any DeviceClock`
/// each read copies an existential and calls through a witness table, and that dominated the
/// profile of refetch-heavy runs. A `switch` over this enum calls the concrete type's own code
/// (so every reading is the same bits as through the protocol) and inlines it. A clock an app
/// team adds has no case: `init` returns nil and the world keeps calling it through its protocol.
public enum BuiltInClock: DeviceClock {
    case suspending
    case continuous
    case uptimeSecond
    case uptimeMicrosecond
    case wall

    /// The case of a built-in clock; nil for any other plug-in.
    public init?(_ clock: any DeviceClock) {
        switch clock {
        case is SuspendingDeviceClock: self = .suspending
        case is ContinuousDeviceClock: self = .continuous
        case let u as BootTimeUptimeClock where u.resolution == .second: self = .uptimeSecond
        case let u as BootTimeUptimeClock where u.resolution == .microsecond: self = .uptimeMicrosecond
        case is WallClock: self = .wall
        default: return nil
        }
    }

    /// Its place among the world's reference clocks (`World.referenceReading`, the error-by-clock
    /// rows): every built-in clock is one of them, so a sample reads it once for both.
    public var referenceIndex: Int {
        switch self {
        case .suspending: 0
        case .continuous: 1
        case .uptimeSecond: 2
        case .uptimeMicrosecond: 3
        case .wall: 4
        }
    }

    public var name: String {
        switch self {
        case .suspending: return SuspendingDeviceClock().name
        case .continuous: return ContinuousDeviceClock().name
        case .uptimeSecond: return BootTimeUptimeClock(resolution: .second).name
        case .uptimeMicrosecond: return BootTimeUptimeClock(resolution: .microsecond).name
        case .wall: return WallClock().name
        }
    }

    public var pausesInDeepSleep: Bool { self == .suspending }

    public var resolution: Nanoseconds {
        switch self {
        case .suspending: return SuspendingDeviceClock().resolution
        case .continuous: return ContinuousDeviceClock().resolution
        case .uptimeSecond: return BootTimeUptimeClock(resolution: .second).resolution
        case .uptimeMicrosecond: return BootTimeUptimeClock(resolution: .microsecond).resolution
        case .wall: return WallClock().resolution
        }
    }

    @inline(__always)
    public func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading {
        switch self {
        case .suspending: return SuspendingDeviceClock().reading(d, at: t, c)
        case .continuous: return ContinuousDeviceClock().reading(d, at: t, c)
        case .uptimeSecond: return BootTimeUptimeClock(resolution: .second).reading(d, at: t, c)
        case .uptimeMicrosecond: return BootTimeUptimeClock(resolution: .microsecond).reading(d, at: t, c)
        case .wall: return WallClock().reading(d, at: t, c)
        }
    }

    @inline(__always)
    public func earliest(_ d: DeviceState, reaching target: ClockReading, notBefore t: SimTime,
                         _ c: ClockContext) -> SimTime {
        switch self {
        case .suspending: return SuspendingDeviceClock().earliest(d, reaching: target, notBefore: t, c)
        case .continuous: return ContinuousDeviceClock().earliest(d, reaching: target, notBefore: t, c)
        case .uptimeSecond: return BootTimeUptimeClock(resolution: .second).earliest(d, reaching: target, notBefore: t, c)
        case .uptimeMicrosecond:
            return BootTimeUptimeClock(resolution: .microsecond).earliest(d, reaching: target, notBefore: t, c)
        case .wall: return WallClock().earliest(d, reaching: target, notBefore: t, c)
        }
    }
}
