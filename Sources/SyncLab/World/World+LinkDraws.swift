import SyncLabKernel

/// A link profile's draws as `Sampler`s, read in place by the request handlers.
struct LinkSamplers {
    var uplink: Sampler
    var downlink: Sampler
    var bandwidth: Sampler
    /// The link's delays follow a `DelayProcess` other than independent draws: they are drawn
    /// through it (`World.correlatedDelay`). Its delay samplers are then out of line, so the
    /// plain path's one test (`drawsInline`) sends them there and independent draws pay nothing.
    var correlated: Bool
    /// The link's physical floors (`LinkProfile.uplinkFloor`), held here beside the samplers so
    /// the plain path reads them without touching the profile.
    var uplinkFloor: Nanoseconds
    var downlinkFloor: Nanoseconds

    init(_ link: LinkProfile) {
        correlated = !link.hasIndependentDelays
        uplinkFloor = link.floor(.uplink)
        downlinkFloor = link.floor(.downlink)
        uplink = correlated ? .outOfLine() : Sampler(link.uplink)
        downlink = correlated ? .outOfLine() : Sampler(link.downlink)
        bandwidth = Sampler(link.bandwidth)
    }
}

/// Which of a link's distributions a request draws from.
enum LinkDraw {
    case uplink, downlink, bandwidth
}

/// Every draw a request makes from its link and the server: inline for the common shapes,
/// through the scenario's `Distribution` otherwise. Either way the same value from the same
/// stream, the player's network stream.
extension World {
    /// `at` is the true time the message enters the link (read by delay processes that
    /// correlate in time and by trace-driven links; not by bandwidth draws).
    @inline(__always)
    mutating func linkDraw(_ which: LinkDraw, _ c: Int, link: Int, at: SimTime = .zero) -> Double {
        let s: Sampler
        switch which {
        case .uplink: s = network.samplers[link].uplink
        case .downlink: s = network.samplers[link].downlink
        case .bandwidth: s = network.samplers[link].bandwidth
        }
        if s.drawsInline { return s.sample(&clients[c].networkRNG) }
        if which != .bandwidth && network.samplers[link].correlated {
            return correlatedDelay(which == .uplink ? .uplink : .downlink, c, link: link, at: at)
        }
        switch which {
        case .uplink: return network.links[link].uplink.sample(&clients[c].networkRNG)
        case .downlink: return network.links[link].downlink.sample(&clients[c].networkRNG)
        case .bandwidth: return network.links[link].bandwidth.sample(&clients[c].networkRNG)
        }
    }

    /// A delay drawn through the link's delay process, which reads and advances the player's
    /// `linkMemory`, or on a trace-driven link the crossing of a message's first packet. Not
    /// inlined: the plain path stays as small as it was.
    @inline(never)
    mutating func correlatedDelay(_ direction: LinkDirection, _ c: Int, link: Int, at: SimTime) -> Double {
        let player = UInt64(players.lowerBound + c)
        if let trace = network.links[link].trace {
            return Double(trace.crossing(direction, bytes: 1, at: at, player: player, seed: scenario.seed).first)
        }
        let box = network.boxes[link]
        return box.profile.correlation.delay(direction, on: box.profile, memory: &clients[c].linkMemory, at: at,
                                             player: player, seed: scenario.seed, &clients[c].networkRNG)
    }

    /// The time `bytes` take to cross after their first byte: at the drawn `bytesPerSecond`, or on
    /// a trace-driven link the wait from a message's first packet's opportunity to its last's
    /// (the message entered at `at`).
    @inline(__always)
    func linkTransfer(_ direction: LinkDirection, _ c: Int, link: Int, bytes: Int, bytesPerSecond: Double, at: SimTime) -> Nanoseconds {
        guard network.samplers[link].correlated, let trace = network.links[link].trace else {
            return LinkProfile.transferTime(bytes: bytes, bytesPerSecond: bytesPerSecond)
        }
        return trace.crossing(direction, bytes: bytes, at: at, player: UInt64(players.lowerBound + c), seed: scenario.seed).rest
    }

    /// The chance player c's request just drawn on `link` is lost: the link's, or its delay
    /// process's (a bad channel state may lose more).
    @inline(__always)
    func failureChance(_ c: Int, link: Int) -> Double {
        network.samplers[link].correlated ? correlatedFailure(c, link: link) : network.links[link].failure
    }

    /// The delay process's loss chance, out of line like `correlatedDelay`.
    @inline(never)
    func correlatedFailure(_ c: Int, link: Int) -> Double {
        let box = network.boxes[link]
        return box.profile.correlation.failure(on: box.profile, memory: clients[c].linkMemory)
    }

    /// A link delay in whole nanoseconds (`Distribution.sampleDuration`) for a message entering
    /// the link at true time `at`, held at the link's physical floor: every path's one-way delay
    /// (independent, correlated, trace-driven) passes here, so none is shorter than
    /// `LinkProfile.lookahead`.
    @inline(__always)
    mutating func linkDelay(_ which: LinkDraw, _ c: Int, link: Int, at: SimTime) -> Nanoseconds {
        let floor = which == .uplink ? network.samplers[link].uplinkFloor : network.samplers[link].downlinkFloor
        return max(floor, Distribution.duration(linkDraw(which, c, link: link, at: at)))
    }

    /// The server's service time for player c's request.
    @inline(__always)
    mutating func serviceDelay(_ c: Int) -> Nanoseconds {
        if server.serviceSampler.drawsInline { return Distribution.duration(server.serviceSampler.sample(&clients[c].networkRNG)) }
        return server.serviceTime.sampleDuration(&clients[c].networkRNG)
    }
}
