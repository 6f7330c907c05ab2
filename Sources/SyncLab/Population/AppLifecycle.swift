import SyncLabKernel

/// The app's lifecycle across a break (`devices.lifecycle`): when the player leaves the Store
/// the app runs on in the background for a short grace period, is then suspended (in memory, no
/// code running), and iOS may terminate it to free memory. A terminated app cold-starts on the
/// player's return and syncs from scratch, as at a visit's start; a surviving app resumes with
/// its old sync (the seeds' "minutes behind" after standby).
///
/// The chance of termination grows with the time suspended and depends on where the player is:
/// a locked phone needs little memory, a player in other apps evicts suspended apps to make room.
/// Termination is decided once, when the player returns, from the survival function of that
/// hazard over the break — exact, with no event per player:
///
///     S(b) = 1                                  b ≤ grace
///     S(b) = 0                                  b − grace ≥ horizon (when set)
///     S(b) = 2^−((b − grace)/median)^shape      otherwise (Weibull, `median` per state)
///
/// It also bounds a break's length (`maxBreak`): a break drawn longer is drawn again, so breaks
/// follow `population.break` conditioned on being at most `maxBreak`; breaks within the bound are
/// the same draws as without the lifecycle.
///
/// Sources (docs/lifecycle.md): the 30 s grace is what `beginBackgroundTask` grants from iOS 13
/// on; the hazard's medians and shape are assumptions (iOS publishes no termination rates);
/// `maxBreak` rests on how often people pick up their phones (Hintze et al. 2014/2017).
extension DeviceEventsConfig {
    public struct AppLifecycle: Sendable, Equatable {
        /// Background execution after the Store leaves the screen, before suspension.
        public var grace: Nanoseconds
        /// Median time suspended before termination with the phone locked.
        public var lockedMedian: Nanoseconds
        /// Median time suspended before termination with the player in other apps.
        public var otherAppsMedian: Nanoseconds
        /// Weibull shape of the hazard: 1 constant, above 1 rising with time suspended.
        public var shape: Double
        /// Time suspended after which the app is always terminated (nil: none).
        public var horizon: Nanoseconds?
        /// Longest break inside a visit (nil: `population.break` unbounded, as without lifecycle).
        public var maxBreak: Nanoseconds?

        public static let defaultGrace = 30 * Int64.second
        public static let defaultLockedMedian = 2 * Int64.hour
        public static let defaultOtherAppsMedian = 15 * Int64.minute
        public static let defaultShape = 1.5
        public static let defaultMaxBreak: Nanoseconds? = 30 * .minute
        /// Redraws of a break longer than `maxBreak` before it is clamped to the bound.
        static let redrawLimit = 64

        public init(grace: Nanoseconds = defaultGrace, lockedMedian: Nanoseconds = defaultLockedMedian,
                    otherAppsMedian: Nanoseconds = defaultOtherAppsMedian, shape: Double = defaultShape,
                    horizon: Nanoseconds? = nil, maxBreak: Nanoseconds? = defaultMaxBreak) {
            self.grace = grace
            self.lockedMedian = lockedMedian
            self.otherAppsMedian = otherAppsMedian
            self.shape = shape
            self.horizon = horizon
            self.maxBreak = maxBreak
        }

        /// Probability that the app is still in memory when the player returns after `length`.
        public func survival(afterBreak length: Nanoseconds, locked: Bool) -> Double {
            let suspended = length - grace
            guard suspended > 0 else { return 1 }
            if let horizon, suspended >= horizon { return 0 }
            let x = Double(suspended) / Double(locked ? lockedMedian : otherAppsMedian)
            return DeterministicMath.exp(-Self.ln2 * DeterministicMath.exp(shape * DeterministicMath.log(x)))
        }

        /// Whether the app was terminated during a break of `length`, drawing one number from `rng`.
        func terminated(afterBreak length: Nanoseconds, locked: Bool, _ rng: inout RandomStream) -> Bool {
            !rng.bernoulli(survival(afterBreak: length, locked: locked))
        }

        /// A break within `maxBreak`: `drawn` if it is, else a fresh draw of `distribution` from
        /// `rng` until one is (clamped to the bound after `redrawLimit` tries).
        func bounded(_ drawn: Nanoseconds, _ distribution: Distribution, _ rng: inout RandomStream) -> Nanoseconds {
            guard let maxBreak, drawn > maxBreak else { return drawn }
            for _ in 0..<Self.redrawLimit {
                let again = distribution.sampleDuration(&rng)
                if again <= maxBreak { return again }
            }
            return maxBreak
        }

        static let ln2 = 0.693_147_180_559_945_3
    }
}

extension DeviceEventsConfig.AppLifecycle: DeviceEvent {
    public static let family = PluginFamily.deviceEvent
    public static let kind = "lifecycle"
    public static let schema = SchemaFragment(
        "The app's lifecycle across a break: background for a grace period, then suspended; iOS terminates it with a hazard rising with time suspended (locked phone vs. player in other apps), and a terminated app cold-starts on return. Also bounds a break's length.",
        properties: ["grace": SchemaFragment.ref("duration", "Background execution before suspension, 0 to 10m (default 30s: beginBackgroundTask's time from iOS 13)."),
                     "lockedMedian": SchemaFragment.ref("positiveDuration", "Median time suspended before termination with the phone locked, 1s to 30d (default 2h: an assumption)."),
                     "otherAppsMedian": SchemaFragment.ref("positiveDuration", "Median time suspended before termination with the player in other apps, 1s to 30d (default 15m: an assumption)."),
                     "shape": ["type": "number", "minimum": 0.2, "maximum": 10, "examples": [1.5],
                               "description": "Weibull shape of the hazard, 0.2 to 10: 1 constant, above 1 rising with time suspended (default 1.5: an assumption)."],
                     "horizon": SchemaFragment.ref("positiveDuration", "Time suspended after which the app is always terminated, 1s to 30d (default: none)."),
                     "maxBreak": ["oneOf": [SchemaFragment.ref("positiveDuration"), ["const": "none"]],
                                  "description": "Longest break inside a visit, 1s to 1d: longer draws of population.break are drawn again (default 30m); \"none\" keeps breaks unbounded."]])

    public init(_ n: InputNode, in context: PluginContext) throws {
        let grace = try n.value("grace", default: Self.defaultGrace) { try $0.duration(in: 0...(10 * Int64.minute)) }
        let lockedMedian = try n.value("lockedMedian", default: Self.defaultLockedMedian) {
            try $0.duration(in: Int64.second...ScenarioLoader.Limits.runLength)
        }
        let otherAppsMedian = try n.value("otherAppsMedian", default: Self.defaultOtherAppsMedian) {
            try $0.duration(in: Int64.second...ScenarioLoader.Limits.runLength)
        }
        let shape = try n.value("shape", default: Self.defaultShape) { node in
            let shape = try node.double()
            guard shape >= 0.2, shape <= 10 else { throw node.error("must be between 0.2 and 10; got \(Bounds.number(shape))") }
            return shape
        }
        let horizon = try n.optional("horizon") { try $0.duration(in: Int64.second...ScenarioLoader.Limits.runLength) }
        let maxBreak = try n.value("maxBreak", default: Self.defaultMaxBreak) { node -> Nanoseconds? in
            if case .string(let text) = node.value {
                if text == "none" { return nil }
                if case .failure = Units.parseDuration(text) {
                    throw node.error("must be a duration from 1s to 1d, like \"30m\", or \"none\"; got \"\(text)\"")
                }
            }
            return try node.duration(in: Int64.second...ScenarioLoader.Limits.day)
        }
        self.init(grace: grace, lockedMedian: lockedMedian, otherAppsMedian: otherAppsMedian, shape: shape,
                  horizon: horizon, maxBreak: maxBreak)
    }

    public var summary: String {
        var s = "app in the background \(Units.formatDuration(grace)), then suspended; iOS terminates it after a median "
            + "\(Units.formatDuration(lockedMedian)) suspended (phone locked) or \(Units.formatDuration(otherAppsMedian)) "
            + "(player in other apps), Weibull shape \(Bounds.number(shape))"
        if let horizon { s += ", always by \(Units.formatDuration(horizon))" }
        s += maxBreak.map { "; breaks at most \(Units.formatDuration($0))" } ?? "; breaks unbounded"
        return s
    }

    public func switchOn(in config: inout DeviceEventsConfig) { config.lifecycle = self }
}

/// The world's side: the break's length is bounded when the Store leaves the screen, and the
/// app's survival is decided when the player comes back (`viewStart`).
///
/// Draws: a redrawn break comes from `RandomStream(seed, "break-bound", player + powerEpoch·2³²)`,
/// the survival decision from `RandomStream(seed, "app-lifecycle", player + powerEpoch·2³²)`;
/// `powerEpoch` grows at every view start, so each break has its own streams and no other draw
/// moves.
extension World {
    static let lifecyclePurpose = StreamPurpose("app-lifecycle")
    static let breakBoundPurpose = StreamPurpose("break-bound")

    /// The break about to start, `drawn` long, within the lifecycle's `maxBreak`.
    mutating func boundedBreak(_ c: Int, _ t: SimTime, drawn: Nanoseconds) -> Nanoseconds {
        guard let lifecycle = scenario.devices.events.lifecycle, let limit = lifecycle.maxBreak, drawn > limit else { return drawn }
        var rng = deviceEventStream(World.breakBoundPurpose, c, clients[c].powerEpoch)
        if measure.recorder.inWindow(t) { measure.recorder.deviceEvents.breaksRedrawn += 1 }
        return lifecycle.bounded(drawn, scenario.population.breakDuration, &rng)
    }

    /// The player is back from a break that began at `viewEndAt`: iOS may have terminated the app
    /// meanwhile, and then the Store cold-starts.
    mutating func endBreak(_ c: Int, _ t: SimTime, _ lifecycle: DeviceEventsConfig.AppLifecycle) {
        let locked = !clients[c].screenOn
        var rng = deviceEventStream(World.lifecyclePurpose, c, clients[c].powerEpoch)
        let terminated = lifecycle.terminated(afterBreak: t.ns - clients[c].viewEndAt, locked: locked, &rng)
        if measure.recorder.inWindow(t) {
            measure.recorder.deviceEvents.breakEnded(locked: locked, terminated: terminated)
        }
        measure.emit(.breakEnded(at: t.ns, length: t.ns - clients[c].viewEndAt, locked: locked, terminated: terminated))
        if terminated { killApp(c) }
    }
}
