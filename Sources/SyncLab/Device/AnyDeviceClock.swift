import SyncLabKernel

/// Any device clock as one concrete type, for generic code handed a clock known only at run
/// time (a tick timer on another clock than the design's, or a path too rare to specialise).
public struct AnyDeviceClock: DeviceClock {
    public let base: any DeviceClock
    public init(_ base: any DeviceClock) { self.base = base }
    public var name: String { base.name }
    public var pausesInDeepSleep: Bool { base.pausesInDeepSleep }
    public var resolution: Nanoseconds { base.resolution }
    public var neverReadsLessLater: Bool { base.neverReadsLessLater }
    public func reading(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> ClockReading { base.reading(d, at: t, c) }
    public func driftOffset(_ d: DeviceState, at t: SimTime, _ c: ClockContext) -> Nanoseconds { base.driftOffset(d, at: t, c) }
    public func earliest(_ d: DeviceState, reaching target: ClockReading, notBefore t: SimTime,
                  _ c: ClockContext) -> SimTime {
        base.earliest(d, reaching: target, notBefore: t, c)
    }
}
