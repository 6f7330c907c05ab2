import SyncLabKernel

/// A wall clock disciplined by the network (`devices.wallClockSync`): between corrections the
/// phone's calendar clock runs at its oscillator's rate (the same crystal counts it), so it
/// drifts; every `every` the phone asks a time server, estimates its offset from one exchange,
/// and removes it — stepping when the estimate is above `stepAbove`, else slewing at `slewPpm`.
///
/// The seeds' fix, `time(now) − KERN_BOOTTIME`, inherits the drift and the slews but not the
/// steps: the kernel shifts its boot time by every step (`DeviceState.kernelBootWallUnix`).
///
/// Defaults and sources (docs/clocks.md, "A wall clock the network corrects"): Android's
/// network time service polls every 24 h (`config_ntpPollingInterval`); the reference NTP daemon
/// steps above 128 ms and slews below it, at most 0.5 ms per second (500 ppm, the Unix kernels'
/// `adjtime` limit). Apple does not publish how often iOS's `timed` corrects the clock. One
/// SNTP exchange estimates the offset with an error of half the path's asymmetry (RFC 5905):
/// by default the player's own link, one uplink and one downlink delay drawn per correction.
extension DeviceEventsConfig {
    public struct WallClockSync: Sendable {
        /// Where a correction's offset estimate goes wrong.
        public enum MeasurementError: Sendable, Equatable {
            /// Half the asymmetry of one exchange over the player's link: (downlink − uplink)/2.
            case link
            /// Drawn from a signed distribution (ns) per correction.
            case drawn(Distribution)
        }

        /// Random-walk frequency noise: every `step` the wall clock's rate changes by a normal
        /// draw of standard deviation `sigmaPPB`. Its Allan variance at τ = m·step is
        /// σ²(2m² + 1)/(6m) in ppb² (see `WallClockSyncTests`).
        public struct Wander: Sendable, Equatable {
            public var step: Nanoseconds
            public var sigmaPPB: Double
            public init(step: Nanoseconds = 10 * .minute, sigmaPPB: Double) {
                self.step = step
                self.sigmaPPB = sigmaPPB
            }

            /// One step of the walk at `t`: the clock is re-anchored (it reads the same) and its
            /// rate moves by a normal draw, kept within ±0.1% so the clock never runs backwards.
            public func step(_ device: inout DeviceState, at t: SimTime, _ c: ClockContext, _ rng: inout RandomStream) {
                let change = Int64(Distribution.normal(mean: 0, sd: sigmaPPB).sample(&rng).rounded())
                let limit = Int64(WallClockSync.largestSlewPPB)
                device.anchorWallClock(at: t, c)
                device.wallRatePPB = Int32(min(max(Int64(device.wallRatePPB) &+ change, -limit), limit))
            }
        }

        /// Time between one phone's corrections (true time).
        public var every: Distribution
        public var error: MeasurementError
        /// A correction whose estimate exceeds this (in size) sets the clock; smaller ones slew.
        public var stepAbove: Nanoseconds
        /// Slew rate in ppb; 0: corrections at or below `stepAbove` are left alone (Android's
        /// style: it sets the clock only when it is off by more than its threshold, 5 s).
        public var slewPPB: Int32
        public var wander: Wander?

        public static let defaultEvery = Distribution.constant(Double(24 * Int64.hour))
        public static let defaultStepAbove: Nanoseconds = 128 * .millisecond
        public static let defaultSlewPPB: Int32 = 500_000
        /// Slews are at most this (a slew is stored in the device's compact state) and the rate
        /// at most 0.1%, so the wall clock never runs backwards between events.
        public static let largestSlewed: Nanoseconds = 2 * .second
        public static let largestSlewPPB: Int32 = 1_000_000

        public init(every: Distribution = defaultEvery, error: MeasurementError = .link,
                    stepAbove: Nanoseconds = defaultStepAbove, slewPPB: Int32 = defaultSlewPPB,
                    wander: Wander? = nil) {
            self.every = every
            self.error = error
            self.stepAbove = stepAbove
            self.slewPPB = slewPPB
            self.wander = wander
        }

        /// What a correction does to a wall clock that is `offset` ahead of true time, when
        /// its estimate is off by `error`.
        public enum Correction: Equatable, Sendable {
            case step(Nanoseconds)
            case slew(Nanoseconds)
            case none
        }

        public func correction(offset: Nanoseconds, error: Nanoseconds) -> Correction {
            let estimate = offset &+ error
            if estimate.magnitude > stepAbove.magnitude { return .step(-estimate) }
            return slewPPB > 0 && estimate != 0 ? .slew(-estimate) : .none
        }

        /// The estimate's error for one correction, drawn from `rng` (after the interval).
        func measurementError(_ rng: inout RandomStream, link: LinkProfile) -> Nanoseconds {
            switch error {
            case .link:
                let up = link.floored(link.uplink.sampleDuration(&rng), .uplink)
                let down = link.floored(link.downlink.sampleDuration(&rng), .downlink)
                return (down &- up) / 2
            case .drawn(let d):
                return Int64(d.sample(&rng).rounded())
            }
        }
    }
}

extension DeviceEventsConfig.WallClockSync: DeviceEvent {
    public static let family = PluginFamily.deviceEvent
    public static let kind = "wallClockSync"
    public static let schema = SchemaFragment(
        "The phone corrects its wall clock from a time server: it drifts at the oscillator's rate between corrections, then steps (above stepAbove) or slews. The uptime fix (time − KERN_BOOTTIME) follows drift and slews, not steps.",
        properties: [
            "every": SchemaFragment.ref("eventInterval", "Between one phone's corrections (default 24h: Android's poll interval; iOS does not publish its own)."),
            "error": ["description": "Error of each offset estimate: \"link\" (default), half the asymmetry of one exchange over the player's link, or a signed distribution.",
                      "oneOf": [["const": "link"], SchemaFragment.ref("offsetDistribution")]],
            "stepAbove": SchemaFragment.ref("duration", "Estimates larger than this set the clock, at most 2s while slewing (default 128ms, ntpd's step threshold; Android: 5s with slewPpm 0).", examples: ["128ms"]),
            "slewPpm": ["type": "number", "minimum": 0, "maximum": 1000,
                        "description": "Slew rate for smaller estimates, ppm (default 500: adjtime's limit); 0 leaves them alone (Android)."],
            "wander": ["type": "object", "additionalProperties": false, "required": ["sigmaPpb"],
                       "description": "Random-walk frequency noise of the wall clock.",
                       "properties": [
                           "step": SchemaFragment.ref("duration", "Between frequency changes, 1s to 1d (default 10m)."),
                           "sigmaPpb": ["type": "number", "minimum": 0, "maximum": 100000,
                                        "description": "Standard deviation of each change, ppb."],
                       ]],
        ])

    public init(_ n: InputNode, in context: PluginContext) throws {
        let limits = ScenarioLoader.Limits.self
        let error = try n.value("error", default: MeasurementError.link) { e -> MeasurementError in
            if case .string("link") = e.value { return .link }
            do {
                return .drawn(try e.signedDistribution(Bounds(most: Double(limits.delay))))
            } catch let problem as InputError {
                guard case .string = e.value else { throw problem }
                throw e.error("expected \"link\" or a signed duration distribution like \"10ms\"; \(problem.message)")
            }
        }
        let stepAbove = try n.value("stepAbove", default: Self.defaultStepAbove) {
            try $0.duration(in: 0...limits.delay)
        }
        let slewPPM = try n.value("slewPpm", default: Double(Self.defaultSlewPPB) / 1_000) { m -> Double in
            let v = try m.double()
            guard v >= 0 && v <= 1_000 else {
                throw m.error("must be between 0 and 1000 ppm (a slew faster than 0.1% could run the clock backwards); got \(InputNode.describeScalar(m.value))")
            }
            return v
        }
        let slewPPB = Int32((slewPPM * 1_000).rounded())
        let wander = try n.optional("wander") { w -> Wander in
            try w.expectObject()
            let step = try w.value("step", default: 10 * Int64.minute) { try $0.duration(in: Int64.second...limits.day) }
            let sigmaNode = try w.required("sigmaPpb")
            let sigma = try sigmaNode.double()
            guard sigma >= 0 && sigma <= 100_000 else {
                throw sigmaNode.error("must be between 0 and 100000 ppb; got \(InputNode.describeScalar(sigmaNode.value))")
            }
            try w.rejectUnknownKeys()
            return Wander(step: step, sigmaPPB: sigma)
        }
        if slewPPB > 0 && stepAbove > Self.largestSlewed {
            throw (n.child("stepAbove") ?? n).error("must be at most 2s when slewPpm is above 0 (corrections up to stepAbove are slewed); got \(Units.formatDuration(stepAbove))")
        }
        self.init(every: try n.value("every", default: Self.defaultEvery) { try DeviceEventsConfig.interval($0) },
                  error: error, stepAbove: stepAbove, slewPPB: slewPPB, wander: wander)
    }

    public var summary: String {
        let errorText: String
        switch error {
        case .link: errorText = "half the link's asymmetry"
        case .drawn(let d): errorText = d.describe(.duration)
        }
        let slew = slewPPB > 0 ? "slews smaller ones at \(Bounds.number(Double(slewPPB) / 1_000)) ppm" : "leaves smaller ones alone"
        var text = "the wall clock drifts with the oscillator and is corrected every \(every.describe(.duration)) "
            + "(estimate error: \(errorText)); it steps when off by more than \(Units.formatDuration(stepAbove)), \(slew)"
        if let wander {
            text += "; frequency wanders by \(Bounds.number(wander.sigmaPPB)) ppb every \(Units.formatDuration(wander.step))"
        }
        return text
    }

    public func switchOn(in config: inout DeviceEventsConfig) { config.wallClockSync = self }
}
