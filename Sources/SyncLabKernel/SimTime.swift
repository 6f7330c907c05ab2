/// Virtual time and clock readings.
///
/// True (reference) time and what a device's clock says are different types on purpose: a client
/// strategy only ever sees `ClockReading`s and the server's reply; only metrics compare the two.

/// A duration in integer nanoseconds. Plain `Int64` so state stays compact and arithmetic exact.
public typealias Nanoseconds = Int64

public extension Nanoseconds {
    static let nanosecond: Int64 = 1
    static let microsecond: Int64 = 1_000
    static let millisecond: Int64 = 1_000_000
    static let second: Int64 = 1_000_000_000
    static let minute: Int64 = 60_000_000_000
    static let hour: Int64 = 3_600_000_000_000
}

/// True time: integer nanoseconds since the scenario's epoch (a real calendar instant).
public struct SimTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var ns: Int64
    @inlinable public init(ns: Int64) { self.ns = ns }
    /// Computed, not stored: a stored static is reached through a once-guarded accessor on every use.
    @inlinable public static var zero: SimTime { SimTime(ns: 0) }
    @inlinable public static func < (a: SimTime, b: SimTime) -> Bool { a.ns < b.ns }
    @inlinable public static func + (a: SimTime, d: Nanoseconds) -> SimTime { SimTime(ns: a.ns &+ d) }
    @inlinable public static func - (a: SimTime, d: Nanoseconds) -> SimTime { SimTime(ns: a.ns &- d) }
    @inlinable public static func - (a: SimTime, b: SimTime) -> Nanoseconds { a.ns &- b.ns }
    public var description: String { "t=\(ns)ns" }
}

/// What a device clock shows, in nanoseconds of that clock. Never comparable with `SimTime`.
public struct ClockReading: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var ns: Int64
    @inlinable public init(ns: Int64) { self.ns = ns }
    @inlinable public static func < (a: ClockReading, b: ClockReading) -> Bool { a.ns < b.ns }
    @inlinable public static func + (a: ClockReading, d: Nanoseconds) -> ClockReading { ClockReading(ns: a.ns &+ d) }
    @inlinable public static func - (a: ClockReading, b: ClockReading) -> Nanoseconds { a.ns &- b.ns }
    public var description: String { "clock=\(ns)ns" }
}

/// Integer division rounding toward negative infinity (Swift's `/` truncates toward zero).
@inlinable @inline(__always) public func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    // The common case first: a non-negative instant over a positive step (by a constant, such as
    // the whole second, a multiplication and a shift, with no test of the remainder).
    if a >= 0 && b > 0 { return a / b }
    let q = a / b
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q
}

/// `a` rounded down to a multiple of `step` (toward negative infinity).
@inlinable public func floorTo(_ a: Int64, _ step: Int64) -> Int64 { floorDiv(a, step) * step }

/// Integer division rounding toward positive infinity.
@inlinable public func ceilDiv(_ a: Int64, _ b: Int64) -> Int64 { -floorDiv(-a, b) }
