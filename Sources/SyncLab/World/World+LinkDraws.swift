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

    init(_ link: LinkProfile) {
        correlated = !link.hasIndependentDelays
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
    @inline(__always)
    mutating func linkDraw(_ which: LinkDraw, _ c: Int, link: Int) -> Double {
        let s: Sampler
        switch which {
        case .uplink: s = network.samplers[link].uplink
        case .downlink: s = network.samplers[link].downlink
        case .bandwidth: s = network.samplers[link].bandwidth
        }
        if s.drawsInline { return s.sample(&clients[c].networkRNG) }
        if which != .bandwidth && network.samplers[link].correlated {
            return correlatedDelay(which == .uplink ? .uplink : .downlink, c, link: link)
        }
        switch which {
        case .uplink: return network.links[link].uplink.sample(&clients[c].networkRNG)
        case .downlink: return network.links[link].downlink.sample(&clients[c].networkRNG)
        case .bandwidth: return network.links[link].bandwidth.sample(&clients[c].networkRNG)
        }
    }

    /// A delay drawn through the link's delay process, which reads and advances the player's
    /// `linkMemory`. Not inlined: the plain path stays as small as it was.
    @inline(never)
    mutating func correlatedDelay(_ direction: LinkDirection, _ c: Int, link: Int) -> Double {
        let profile = network.links[link]
        return profile.correlation.delay(direction, on: profile, memory: &clients[c].linkMemory,
                                         player: UInt64(players.lowerBound + c), seed: scenario.seed, &clients[c].networkRNG)
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
        let profile = network.links[link]
        return profile.correlation.failure(on: profile, memory: clients[c].linkMemory)
    }

    /// A link delay in whole nanoseconds (`Distribution.sampleDuration`).
    @inline(__always)
    mutating func linkDelay(_ which: LinkDraw, _ c: Int, link: Int) -> Nanoseconds {
        Distribution.duration(linkDraw(which, c, link: link))
    }

    /// The server's service time for player c's request.
    @inline(__always)
    mutating func serviceDelay(_ c: Int) -> Nanoseconds {
        if server.serviceSampler.drawsInline { return Distribution.duration(server.serviceSampler.sample(&clients[c].networkRNG)) }
        return server.serviceTime.sampleDuration(&clients[c].networkRNG)
    }
}
