import SyncLabKernel

/// Deep sleep with brief wakes (`devices.standbyWakes`): a phone in standby is not one unbroken
/// sleep. Background pushes and background app refresh wake the CPU for seconds at a time, and
/// the pausing clock (`mach_absolute_time`, `CLOCK_UPTIME_RAW`) counts during those seconds; a
/// phone on charge does not deep-sleep at all.
///
/// A wake is a short awake interval inside a sleep: the device wakes (its slept total grows by
/// the sleep so far) and falls asleep again when the wake ends, so `DeviceState.sleptTotal`
/// excludes every wake and the pausing clock's lag after a standby is the sleep time minus the
/// wakes, exactly. The screen stays off and the app stays suspended: nothing else changes.
///
/// Sources (docs/clocks.md): Apple asks senders of background pushes for no more than two or
/// three an hour and gives a woken app up to 30 s (background fetch and background pushes alike);
/// how often iOS grants background refresh is the system's choice and unpublished, and no
/// measured share of standby spent on charge was found, so `every` and `chargingShare` are
/// assumptions, stated as such.
extension DeviceEventsConfig {
    public struct StandbyWakes: Sendable {
        /// One wake: how long after the sleep began or the previous wake ended, and how long the
        /// CPU stays up.
        public struct Wake: Sendable, Equatable {
            public var gap: Nanoseconds
            public var length: Nanoseconds
            public init(gap: Nanoseconds, length: Nanoseconds) {
                self.gap = gap
                self.length = length
            }
        }

        /// From a sleep's start, or a wake's end, to the next wake (true time).
        public var every: Distribution
        /// How long a wake keeps the CPU up.
        public var length: Distribution
        /// Share of standby periods the phone spends on charge, without deep sleep.
        public var chargingShare: Double
        /// When set, every standby's wakes are exactly these, in order, and none after them:
        /// the draws are replaced (known-answer tests and worked examples; not in scenario files).
        public var script: [Wake]?

        public static let defaultEvery = Distribution.exponential(mean: Double(20 * Int64.minute))
        public static let defaultLength = Distribution.uniform(min: Double(Int64.second), max: Double(30 * Int64.second))
        public static let defaultChargingShare = 0.2

        public init(every: Distribution = defaultEvery, length: Distribution = defaultLength,
                    chargingShare: Double = defaultChargingShare, script: [Wake]? = nil) {
            self.every = every
            self.length = length
            self.chargingShare = chargingShare
            self.script = script
        }

        /// Wake `index` of a standby (0 for the first), from `rng` unless scripted; nil: no more.
        func wake(_ index: UInt32, _ rng: inout RandomStream) -> Wake? {
            if let script {
                return Int(index) < script.count ? script[Int(index)] : nil
            }
            let gap = max(every.sampleDuration(&rng), DeviceEventsConfig.minimumInterval)
            return Wake(gap: gap, length: max(length.sampleDuration(&rng), 0))
        }
    }
}

extension DeviceEventsConfig.StandbyWakes: DeviceEvent {
    public static let family = PluginFamily.deviceEvent
    public static let kind = "standbyWakes"
    public static let schema = SchemaFragment(
        "Brief wakes in deep sleep (background pushes, background refresh: the pausing clock counts during them) and standby on charge (no deep sleep).",
        properties: ["every": SchemaFragment.ref("eventInterval", "From a sleep's start or a wake's end to the next wake (default exponential, mean 20m: an assumption; Apple asks for at most 2-3 background pushes an hour)."),
                     "length": SchemaFragment.ref("durationDistribution", "How long a wake keeps the CPU up, 0 to 10m (default uniform 1s-30s: iOS gives a woken app up to 30 s)."),
                     "chargingShare": SchemaFragment.ref("probability", "Share of standby periods spent on charge, without deep sleep (default 0.2: an assumption).")])
    public init(_ n: InputNode, in context: PluginContext) throws {
        self.init(every: try n.value("every", default: Self.defaultEvery) { try DeviceEventsConfig.interval($0) },
                  length: try n.value("length", default: Self.defaultLength) {
                      try $0.distribution(.duration, .durations(0, 10 * Int64.minute))
                  },
                  chargingShare: try n.value("chargingShare", default: Self.defaultChargingShare) { try $0.probability() })
    }
    public var summary: String {
        "standby wakes every \(every.describe(.duration)) lasting \(length.describe(.duration)); "
            + "\(Bounds.number(chargingShare * 100))% of standby periods on charge (no deep sleep)"
    }
    public func switchOn(in config: inout DeviceEventsConfig) { config.standbyWakes = self }
}

/// The world's side: a standby begins, is broken by wakes, and ends when the player returns
/// (`viewStart` / `visitStart` wake the device and `ClientState.newPowerState` ends the standby).
///
/// Wakes are not events. A wake changes nothing but the device's sleep bookkeeping, and nothing
/// reads that during a standby but the player's own events, so the standby keeps only the instant
/// its state changes next (`ClientState.standbyDue`: the next wake, or the end of the wake in
/// progress) and every event of the player first applies the wakes due by its instant
/// (`catchUpStandby`), with the draws, in the order and at the instants a queued wake and its end
/// would have had. A wake due at the same instant as another event of the player comes first.
/// v1.1.5's phones wake about 58 times a player-day (20,000 players, 24 h): as events, with their
/// ends, they were half of its events.
///
/// Draws: whether a standby is on charge comes from `RandomStream(seed, "charging", player +
/// powerEpoch·2³²)`, gap n of a player and the wake it leads to (gaps counted over the whole
/// run, every gap drawn, whether or not its wake comes before the standby ends) from
/// `RandomStream(seed, "standby-wake", player + n·2³²)`: no draw of any other stream changes,
/// and a player's draws do not depend on which shard or thread runs it. Each standby thus draws
/// fresh gaps: a gap the player's return cut short is never reused, which would bias the next
/// standby's first gap long (it is a gap known to have outlasted a standby).
extension World {
    static let chargingPurpose = StreamPurpose("charging")
    static let standbyWakePurpose = StreamPurpose("standby-wake")

    /// Deep sleep is due at `t` (the screen has been off for the sleep delay, or the run starts).
    mutating func beginDeepSleep(_ c: Int, _ t: SimTime) {
        guard let wakes = scenario.devices.events.standbyWakes else {
            updateDevice(c) { $0.fallAsleep(at: t) }
            return
        }
        var rng = RandomStream(seed: scenario.seed, purpose: World.chargingPurpose,
                               entity: UInt64(players.lowerBound + c) | UInt64(clients[c].powerEpoch) << 32)
        if rng.bernoulli(wakes.chargingShare) { return }        // on charge: stays awake
        updateDevice(c) { $0.fallAsleep(at: t) }
        measure.emit(.standbyBegan(player: c))
        clients[c].standbyWakeIndex = 0
        clients[c].standbyDue = nextStandbyWake(c, after: t, wakes)
    }

    /// When this standby's next wake begins, one fresh gap after `t` (`.max`: no more wakes).
    mutating func nextStandbyWake(_ c: Int, after t: SimTime, _ wakes: DeviceEventsConfig.StandbyWakes) -> Int64 {
        var rng = deviceEventStream(World.standbyWakePurpose, c, clients[c].standbyWakeOrdinal)
        clients[c].standbyWakeOrdinal &+= 1
        guard let wake = wakes.wake(UInt32(clients[c].standbyWakeIndex), &rng) else { return .max }
        return (t + wake.gap).ns
    }

    /// Applies the wakes of player c's standby that begin or end by `t`. Called before anything
    /// else of an event of the player.
    @inline(__always)
    mutating func catchUpStandby(_ c: Int, through t: SimTime) {
        if clients[c].standbyDue <= t.ns { applyStandbyWakes(c, through: t) }
    }

    mutating func applyStandbyWakes(_ c: Int, through t: SimTime) {
        guard let wakes = scenario.devices.events.standbyWakes else { return }
        while clients[c].standbyDue <= t.ns {
            let at = SimTime(ns: clients[c].standbyDue)
            if clients[c].device.asleep {
                // A push or a background refresh wakes the CPU; it sleeps again `length` later.
                // The wake's length comes from the stream its gap was drawn from.
                var rng = deviceEventStream(World.standbyWakePurpose, c, clients[c].standbyWakeOrdinal &- 1)
                guard let wake = wakes.wake(UInt32(clients[c].standbyWakeIndex), &rng) else {
                    clients[c].standbyDue = .max
                    return
                }
                let slept = updateDevice(c) { $0.wake(at: at) }
                measure.emit(.standbyWoke(player: c, at: at.ns, slept: slept, length: wake.length))
                clients[c].standbyWakeIndex &+= 1
                clients[c].standbyDue = (at + wake.length).ns
            } else {
                // The wake's work is done: deep sleep again, until the next wake.
                updateDevice(c) { $0.fallAsleep(at: at) }
                clients[c].standbyDue = nextStandbyWake(c, after: at, wakes)
            }
        }
    }
}
