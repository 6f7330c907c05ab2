import SyncLabKernel

/// Named link profiles with plausible numbers: `{"preset": "edge", "share": 0.1}` in
/// `network.profiles`, any key overridable. docs/links.md gives the source of every number.
///
/// One-way delays are lognormal mixtures (`LognormalMixture`): a narrow lognormal body and, for
/// 2% of the draws in each direction, a lognormal tail several times slower, fitted so that the
/// round trip (uplink + downlink) has the median and standard deviation of a published
/// measurement (`LinkCalibrationTests` checks the fit and draws through the world). The uplink
/// takes 55% of the body, as radio uplinks are scheduled on request. Bandwidth is the downlink
/// rate drawn per request; `failure` is the chance a request is lost outright (the client notices
/// at the 30 s time-out) — we take the measured packet-loss rates for it, which is pessimistic
/// since TCP retransmits most lost packets (the retransmissions are in the tail).
public enum LinkPresets {
    /// Round trips fitted to (median, SD): Wi-Fi (21, 19) ms, LTE (55, 132) ms; 3G (150, 360) ms and
    /// EDGE (550, 1320) ms borrow LTE's shape (no published spread found for them).
    ///
    /// Cellular delays are correlated in time (`AR1Delays`), with time constants set from the
    /// Saturator traces of the Sprout paper (docs/links.md, "Calibrated from measured links"):
    /// 2 s on LTE, 5 s on 3G; EDGE borrows 3G's. Wi-Fi has no measured trace here and stays
    /// independent.
    ///
    /// Each preset's one-way delays are held at a physical floor (uplink, downlink): the radio's
    /// fastest turn (its scheduling interval and processing) plus the wired path's propagation
    /// and switching. Each clamps under 0.5% of a direction's draws (docs/links.md, "Physical
    /// floors"; `LinkFloorTests` derives the shares).
    public static let all: [LinkProfile] = [
        profile("wifi", bodyMs: (11, 9), tailMs: (75, 60), tailSigma: 0.6, megabitsPerSecond: 20, bandwidthSigma: 0.8, failure: 0.002,
                floorMs: (3, 2)),
        profile("lte", bodyMs: (28, 23), tailMs: (455, 375), tailSigma: 0.7, megabitsPerSecond: 12, bandwidthSigma: 0.8, failure: 0.005,
                floorMs: (7, 7), timeConstant: 2 * .second),
        profile("3g", bodyMs: (76, 63), tailMs: (1240, 1020), tailSigma: 0.7, megabitsPerSecond: 1.6, bandwidthSigma: 0.8, failure: 0.01,
                floorMs: (20, 12), timeConstant: 5 * .second),
        profile("edge", bodyMs: (280, 230), tailMs: (4550, 3750), tailSigma: 0.7, megabitsPerSecond: 0.12, bandwidthSigma: 0.5, failure: 0.03,
                floorMs: (60, 40), timeConstant: 5 * .second),
    ]

    /// Every preset's body σ and tail share: the shape fitted to the LTE measurement.
    static let bodySigma = 0.45
    static let tailShare = 0.02

    public static var names: [String] { all.map(\.name) }

    /// The preset called `name`, or nil.
    public static func named(_ name: String) -> LinkProfile? { all.first { $0.name == name } }

    /// `bodyMs` and `tailMs` are (uplink, downlink) medians in milliseconds, `floorMs` the
    /// (uplink, downlink) physical floors in whole milliseconds.
    /// `timeConstant`: the AR(1) time constant of log-delay (nil: independent draws).
    static func profile(_ name: String, bodyMs: (Double, Double), tailMs: (Double, Double), tailSigma: Double,
                        megabitsPerSecond: Double, bandwidthSigma: Double, failure: Double, floorMs: (Int64, Int64),
                        timeConstant: Nanoseconds? = nil) -> LinkProfile {
        func delay(_ body: Double, _ tail: Double) -> Distribution {
            .lognormalMixture(LognormalMixture(bodyMedian: body * 1e6, bodySigma: bodySigma, tailShare: tailShare,
                                               tailMedian: tail * 1e6, tailSigma: tailSigma))
        }
        // The process stays untabulated here: `LinkProfile.read` prepares the profiles a
        // scenario uses, so naming the presets builds no quantile table for the unused ones.
        var link = LinkProfile(name: name, share: 0,
                               uplink: delay(bodyMs.0, tailMs.0),
                               downlink: delay(bodyMs.1, tailMs.1),
                               bandwidth: .lognormal(median: megabitsPerSecond * 1e6 / 8, sigma: bandwidthSigma),
                               failure: failure, timeout: 30 * .second,
                               correlation: timeConstant.map { AR1Delays(tau: $0) } ?? IndependentDelays())
        link.uplinkFloor = floorMs.0 * .millisecond
        link.downlinkFloor = floorMs.1 * .millisecond
        return link
    }
}

extension LinkProfile {
    /// This profile drawing its delays through `process`, prepared for its distributions (a
    /// correlated process's tables are built here, once at load).
    func preparingCorrelation(_ process: any DelayProcess) -> LinkProfile {
        var link = self
        link.correlation = process.prepared(for: self)
        return link
    }

    /// Reads one element of `network.profiles`: either every key, or a `preset` whose keys the
    /// element may override (`name` defaults to the preset's name). `others` are the profiles
    /// read so far, whose names this one must not repeat.
    static func read(_ p: InputNode, others: [LinkProfile], context: PluginContext = PluginContext()) throws -> LinkProfile {
        try p.expectObject()
        // Asked for first only when present, so a profile without one lists 'preset' last
        // among its allowed keys.
        let preset = p.value["preset"] == nil ? nil : try p.optional("preset") { n -> LinkProfile in
            let name = try n.string()
            guard let found = LinkPresets.named(name) else {
                let names = LinkPresets.names.map { "'\($0)'" }.joined(separator: ", ")
                throw n.error("unknown link preset '\(name)'; expected one of \(names)")
            }
            return found
        }
        let limits = ScenarioLoader.Limits.self
        /// A key the preset supplies when absent, else required.
        func field<T>(_ key: String, _ fromPreset: (LinkProfile) -> T, _ read: (InputNode) throws -> T) throws -> T {
            if let preset, p.child(key) == nil { return fromPreset(preset) }
            return try read(p.required(key))
        }
        let linkName = try field("name", \.name) { nameNode in
            let name = try nameNode.string()
            guard !name.isEmpty, name.count <= 64, name.unicodeScalars.allSatisfy(InputNode.isPrintable) else {
                throw nameNode.error("must be 1 to 64 printable characters; got \(InputNode.describeScalar(nameNode.value))")
            }
            return name
        }
        if others.contains(where: { $0.name == linkName }) {
            throw (p.child("name") ?? p).error("duplicate link profile name '\(linkName)'; each profile needs its own name"
                + (p.child("name") == nil ? " (give this preset a 'name')" : ""))
        }
        let share = try p.required("share").probability()
        // Asked for only when present, so a profile without one lists it among its allowed keys
        // after the others.
        if p.value["linkTrace"] != nil, let node = p.child("linkTrace") {
            return try readTraceLink(p, node, name: linkName, share: share, preset: preset, context: context)
        }
        let link = LinkProfile(
            name: linkName, share: share,
            uplink: try field("uplink", \.uplink) { try $0.distribution(.duration, .durations(0, limits.delay)) },
            downlink: try field("downlink", \.downlink) { try $0.distribution(.duration, .durations(0, limits.delay)) },
            bandwidth: try field("bandwidth", \.bandwidth) { try $0.distribution(.rate, Bounds(least: 1, most: 1e12)) },
            failure: try p.value("failure", default: preset?.failure ?? 0) { try $0.probability() },
            timeout: try p.value("timeout", default: preset?.timeout ?? 30 * Int64.second) {
                try $0.duration(in: Int64.millisecond...limits.delay)
            })
        var correlated = link
        (correlated.uplinkFloor, correlated.downlinkFloor) = try readFloor(p, preset: preset, timeout: link.timeout)
        // A preset's correlation in time comes with it while its delays suit the process; delays
        // overridden with another shape (a constant, a trace) are drawn independently unless
        // `correlation` says otherwise.
        if let inherited = preset?.correlation, (try? inherited.check(link, at: p)) != nil {
            correlated.correlation = inherited
        }
        if let node = p.child("correlation") {
            correlated.correlation = try context.read(.delayProcess, from: node)
            try correlated.correlation.check(link, at: node)
        }
        correlated = correlated.preparingCorrelation(correlated.correlation)
        if let node = p.child("loss") {
            correlated.loss = try context.read(.packetLoss, from: node) as any PacketLoss
            let roundTrip = correlated.meanRoundTrip
            guard roundTrip.isFinite, roundTrip <= Double(LinkProfile.maximumLossRoundTrip) else {
                throw node.error("needs a link whose mean round trip (uplink + downlink) is finite and at most "
                    + "\(Units.formatDuration(LinkProfile.maximumLossRoundTrip)), since its time-outs are timed by it; this link's is "
                    + (roundTrip.isFinite ? Units.formatDuration(Int64(min(roundTrip, 0x1p62))) : "infinite (a delay law without a mean)"))
            }
        }
        if let node = p.child("connection") { correlated.connection = try context.read(.connection, from: node) as any ConnectionSetup }
        if let node = p.child("radio") { correlated.radio = try context.read(.radio, from: node) as any RadioState }
        _ = p.child("linkTrace")
        if preset == nil { _ = p.child("preset") }
        try p.rejectUnknownKeys()
        return correlated
    }

    /// A profile's `floor`: one duration for both directions (`"3ms"`) or
    /// `{"uplink": "4ms", "downlink": "2ms"}` (a direction left out keeps the preset's, else 0);
    /// absent, the preset's floors or none. A floor is at least 0 and at most the link's time-out
    /// (a message slower than it could never be answered).
    static func readFloor(_ p: InputNode, preset: LinkProfile?, timeout: Nanoseconds) throws -> (uplink: Nanoseconds, downlink: Nanoseconds) {
        let inherited = (preset?.uplinkFloor ?? 0, preset?.downlinkFloor ?? 0)
        guard let node = p.child("floor") else { return inherited }
        func one(_ n: InputNode) throws -> Nanoseconds {
            guard case .string = n.value else {
                throw n.error("expected a duration with a unit, like \"3ms\", or {\"uplink\": …, \"downlink\": …}; got \(InputNode.describe(n.value))")
            }
            let floor = try n.nonNegativeDuration()
            guard floor <= timeout else {
                throw n.error("a floor of \(Units.formatDuration(floor)) is longer than the link's time-out of \(Units.formatDuration(timeout)); "
                    + "no message could arrive in time")
            }
            return floor
        }
        if case .object = node.value {
            let up = try node.value("uplink", default: inherited.0) { try one($0) }
            let down = try node.value("downlink", default: inherited.1) { try one($0) }
            try node.rejectUnknownKeys()
            return (up, down)
        }
        let both = try one(node)
        return (both, both)
    }

    /// A profile whose messages cross measured delivery traces: `linkTrace` is
    /// `{"uplink": {"trace": FILE}, "downlink": {"trace": FILE}, "baseDelay": "20ms"}` in place
    /// of `uplink`, `downlink`, `bandwidth` and `correlation` (the traces set all four).
    static func readTraceLink(_ p: InputNode, _ node: InputNode, name: String, share: Double, preset: LinkProfile?,
                              context: PluginContext) throws -> LinkProfile {
        if preset != nil { throw node.error("a trace-driven link cannot start from a preset; give 'name', 'share' and 'linkTrace'") }
        for key in ["uplink", "downlink", "bandwidth", "correlation"] {
            if let other = p.child(key) {
                throw other.error("'\(key)' cannot be set on a trace-driven link: 'linkTrace' sets the delays and the rate")
            }
        }
        try node.expectObject()
        func trace(_ key: String) throws -> DeliveryOpportunities {
            let direction = try node.required(key)
            try direction.expectObject()
            let file = try direction.required("trace")
            let path = try file.string()
            try direction.rejectUnknownKeys()
            return try MahimahiTrace.read(path, at: file)
        }
        let up = try trace("uplink"), down = try trace("downlink")
        let limits = ScenarioLoader.Limits.self
        let failure = try p.value("failure", default: 0) { try $0.probability() }
        let timeout = try p.value("timeout", default: 30 * Int64.second) { try $0.duration(in: Int64.millisecond...limits.delay) }
        // As a floor (`readFloor`): a base delay past the time-out leaves no message in time.
        let baseDelay = try node.value("baseDelay", default: Nanoseconds(0)) { n in
            let delay = try n.nonNegativeDuration()
            guard delay <= timeout else {
                throw n.error("a base delay of \(Units.formatDuration(delay)) is longer than the link's time-out of "
                    + "\(Units.formatDuration(timeout)); no message could arrive in time")
            }
            return delay
        }
        try node.rejectUnknownKeys()
        var link = LinkProfile(
            name: name, share: share,
            uplink: .constant(Double(baseDelay)), downlink: .constant(Double(baseDelay)),
            // Unused: the traces carry the bytes. Drawn all the same, so the player's stream keeps its shape.
            bandwidth: .constant(1e12),
            failure: failure, timeout: timeout)
        link.trace = TraceLink(uplink: up, downlink: down, baseDelay: baseDelay)
        (link.uplinkFloor, link.downlinkFloor) = try readFloor(p, preset: nil, timeout: link.timeout)
        if let node = p.child("loss") { link.loss = try context.read(.packetLoss, from: node) as any PacketLoss }
        if let node = p.child("connection") { link.connection = try context.read(.connection, from: node) as any ConnectionSetup }
        if let node = p.child("radio") { link.radio = try context.read(.radio, from: node) as any RadioState }
        _ = p.child("preset")
        try p.rejectUnknownKeys()
        return link
    }

    /// Refuses a trace-driven profile whose traces a message the scenario is known to send could
    /// take longer than `TraceLink.maximumCrossing` to cross (`TraceLink.crossingProblem`): a
    /// request (`network.requestBytes`) up, the store file of every position (`store.file`) down.
    /// `nodes` are the profiles' nodes, in the order of `links`.
    static func checkTraceCrossings(_ links: [LinkProfile], at nodes: [InputNode], requestBytes: Int, storeFileBytes: Int) throws(InputError) {
        for (link, p) in zip(links, nodes) {
            guard let trace = link.trace, let node = p.child("linkTrace") else { continue }
            for (direction, opportunities, message, bytes, related) in [
                ("uplink", trace.uplink, "a request (network.requestBytes, \(requestBytes) bytes)", requestBytes, "network.requestBytes"),
                ("downlink", trace.downlink, "the store file (store.file, \(storeFileBytes) bytes)", storeFileBytes, "store.file")] {
                guard let problem = TraceLink.crossingProblem(message, bytes: bytes, trace: opportunities) else { continue }
                var error = (node.child(direction)?.child("trace") ?? node).error("trace file '\(opportunities.file)': \(problem)")
                error.relatedPath = related
                throw error
            }
        }
    }
}
