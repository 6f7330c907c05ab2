import SyncLabKernel

/// A positive leap second on the server's clock: `server.leapSecond`
/// (`{"kind": "step", "at": "1h"}` or `{"kind": "smear", "at": "1h", "window": "24h"}`), absent
/// by default (the server clock is true time plus `clockOffset`, as before).
///
/// True time in the lab counts SI seconds. The server's clock is POSIX time (PHP's `time()`,
/// `REQUEST_TIME`), which has no 23:59:60: when UTC inserts a second, POSIX time either repeats a
/// second (the kernel steps the clock back, as Linux and ntpd do) or the server's time source
/// spreads the second over a window (Google's and AWS's NTP smear it over 24 h, noon to noon
/// UTC). Either way, after the leap the server's clock reads 1 s less than before relative to
/// true time. `at` is the instant (since the epoch) the inserted second begins on the server's
/// clock before the leap (true time + `clockOffset`; true time for a server at offset 0): with
/// the epoch at 2012-06-30T23:00:00Z, the leap of 2012-06-30T23:59:60Z is at "1h". A server
/// whose clock is ahead takes it that much earlier in true time, as a kernel steps at its own
/// midnight; for a smear the difference is the offset × 11.6 ppm, nanoseconds.
///
/// Every read of a server's clock goes through `StoreServer.clock(at:offset:)`, which adds
/// `LeapSecondShift.offset(at:)`; the lab's true instant of a server-time instant T is the first
/// true instant the clock reaches T (`LeapSecondShift.firstInstant(reaching:)`), so an item whose
/// end falls inside a repeated second changes at its first occurrence. docs/clocks.md has the
/// model, the sources and what is left out.
public protocol LeapSecondHandling: Plugin {
    /// The leap as a closed form of the server's clock without it, resolved once per run.
    var shift: LeapSecondShift { get }
}

/// The server clock's shift from its clock without the leap, as a function of that clock c (true
/// time + `clockOffset`, ns since the epoch): 0 before `start`, −1 s from `start + window` on,
/// falling linearly in between (a step when `window` is 0).
public struct LeapSecondShift: Sendable, Equatable {
    /// True time (ns since the epoch) at which the clock starts losing the second.
    public let start: Int64
    /// How long it takes to lose it: 0 (a step) or at least 2 s (a smear; under 1 s per second
    /// the clock keeps moving forward, so every server-time instant has a first true instant).
    public let window: Nanoseconds

    /// What the phones do with the leap, for both kinds' report lines (docs/clocks.md, "Phones").
    static let phones = "phones' monotonic clocks never see it, corrected wall clocks take it at their next correction"

    public init(start: Int64, window: Nanoseconds) {
        precondition(window == 0 || window >= 2 * .second, "a smear takes at least 2 s")
        self.start = start
        self.window = window
    }

    /// Server clock minus the clock without the leap when that clock reads t (ns, in −1 s … 0). Inside a
    /// smear it is −⌊(t − start) · 1 s / window⌋ ns, exact in 128-bit integers: the clock loses
    /// the second at 1 s / window, truncated to whole ns toward no shift.
    @inlinable
    public func offset(at t: Int64) -> Int64 {
        if t < start { return 0 }
        let elapsed = t &- start
        if elapsed >= window { return -Int64.second }
        return -LeapSecondShift.fraction(elapsed, window)
    }

    /// ⌊elapsed · 1 s / window⌋ for 0 ≤ elapsed < window (the product needs 128 bits).
    @usableFromInline
    static func fraction(_ elapsed: Int64, _ window: Int64) -> Int64 {
        window.dividingFullWidth(elapsed.multipliedFullWidth(by: .second)).quotient
    }

    /// The least t with t + offset(t) ≥ u: when the clock without the leap reads this, the
    /// server's clock first reads u (subtract `clockOffset` for the true instant). Before the
    /// leap it is u; after it, u + 1 s. For a step, a u inside the repeated second
    /// [start − 1 s, start) is reached on its first pass, at u.
    public func firstInstant(reaching u: Int64) -> Int64 {
        if window == 0 { return u < start ? u : u &+ .second }
        if u <= start { return u }
        // The clock reads start + window − 1 s when the smear ends; later values come after it.
        let v = u &- start
        if v > window &- .second { return u &+ .second }
        // Inside: the least x = t − start with x − ⌊x · 1 s / window⌋ ≥ v. x₀ = ⌈v · window /
        // (window − 1 s)⌉ satisfies it (x − ⌊x·k⌋ ≥ x(1 − k)), and any x that does exceeds
        // (v − 1) · window / (window − 1 s), so at most ⌈window / (window − 1 s)⌉ ≤ 2 steps down.
        let (q, r) = (window &- .second).dividingFullWidth(v.multipliedFullWidth(by: window))
        var x = r > 0 ? q &+ 1 : q
        while x > 0 && (x &- 1) &- LeapSecondShift.fraction(x &- 1, window) >= v { x &-= 1 }
        return start &+ x
    }
}

/// `step`: at `at` the server clock is set back 1 s (POSIX's 23:59:59 repeats), as the Linux
/// kernel inserts a leap second when ntpd or chrony has armed it.
public struct SteppedLeapSecond: LeapSecondHandling, Equatable {
    public static let family = PluginFamily.leapSecond
    public static let kind = "step"
    public static let schema = SchemaFragment(
        "The server clock is set back 1 s at `at` (the POSIX second before it repeats), as the Linux kernel inserts a leap second.",
        properties: ["at": SchemaFragment.ref("duration", "True time since the epoch the inserted second begins: 0 to 30d.", examples: ["1h"])],
        required: ["at"])

    public var at: SimTime

    public init(at: SimTime) { self.at = at }

    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(at: SimTime(ns: try node.required("at").duration(in: 0...ScenarioLoader.Limits.runLength)))
    }

    public var shift: LeapSecondShift { LeapSecondShift(start: at.ns, window: 0) }

    public var summary: String {
        "leap second stepped at \(Units.formatDuration(at.ns)) (the server clock repeats a second; \(LeapSecondShift.phones))"
    }
}

/// `smear`: the server's time source spreads the second linearly over `window` centred on `at`
/// (default 24 h, noon to noon UTC around a midnight leap, as Google's public NTP and AWS's time
/// sync do): the server clock runs 1 s / window slow (11.6 ppm over 24 h) inside it.
public struct SmearedLeapSecond: LeapSecondHandling, Equatable {
    public static let family = PluginFamily.leapSecond
    public static let kind = "smear"
    public static let schema = SchemaFragment(
        "The server's time source smears the second linearly over `window` centred on `at` (Google, AWS: 24h, noon to noon UTC).",
        properties: [
            "at": SchemaFragment.ref("duration", "True time since the epoch the inserted second begins (the window's centre): 0 to 30d.",
                                     examples: ["1h"]),
            "window": SchemaFragment.ref("longDuration", "2s to 7d, a whole even number of ns (default 24h)."),
        ],
        required: ["at"])

    public var at: SimTime
    public var window: Nanoseconds

    public init(at: SimTime, window: Nanoseconds = 24 * .hour) {
        precondition(window >= 2 * .second && window % 2 == 0)
        self.at = at
        self.window = window
    }

    public init(_ node: InputNode, in context: PluginContext) throws {
        let at = try node.required("at").duration(in: 0...ScenarioLoader.Limits.runLength)
        let window = try node.value("window", default: 24 * Int64.hour) { n in
            let w = try n.duration(in: 2 * Int64.second...(7 * ScenarioLoader.Limits.day))
            guard w % 2 == 0 else {
                throw n.error("must be a whole even number of nanoseconds, so that the window is centred on the leap; got \(InputNode.describeScalar(n.value))")
            }
            return w
        }
        self.init(at: SimTime(ns: at), window: window)
    }

    public var shift: LeapSecondShift { LeapSecondShift(start: at.ns &- window / 2, window: window) }

    public var summary: String {
        // 1 s / window in ppb, rounded, shown in ppm to three decimals (integers only).
        let ppb = (1_000_000_000_000_000_000 &+ window / 2) / window
        let milli = String(ppb % 1000)
        let ppm = "\(ppb / 1000).\(String(repeating: "0", count: 3 - milli.count))\(milli)"
        return "leap second at \(Units.formatDuration(at.ns)) smeared over \(Units.formatDuration(window)) centred on it "
            + "(the server clock runs \(ppm) ppm slow inside it; \(LeapSecondShift.phones))"
    }
}
