import SyncLabKernel

/// A link profile's draws as `Sampler`s, read in place by the request handlers.
struct LinkSamplers {
    var uplink: Sampler
    var downlink: Sampler
    var bandwidth: Sampler

    init(_ link: LinkProfile) {
        uplink = Sampler(link.uplink)
        downlink = Sampler(link.downlink)
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
        switch which {
        case .uplink: return network.links[link].uplink.sample(&clients[c].networkRNG)
        case .downlink: return network.links[link].downlink.sample(&clients[c].networkRNG)
        case .bandwidth: return network.links[link].bandwidth.sample(&clients[c].networkRNG)
        }
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
