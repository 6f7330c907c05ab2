import SyncLabKernel

/// What the time endpoint's requests were of the server's load (`client.probeTarget`), counted
/// as they reach the server, in the server second they arrive in, like every request.
struct EndpointRecord {
    var perSecond: [UInt32]
    var requests: UInt64 = 0
    var bytes: UInt64 = 0

    init(seconds: Int) { perSecond = [UInt32](repeating: 0, count: seconds) }

    mutating func merge(_ o: EndpointRecord) {
        for i in perSecond.indices where i < o.perSecond.count { perSecond[i] &+= o.perSecond[i] }
        requests += o.requests
        bytes += o.bytes
    }
}

/// The time endpoint's requests in the window; the store's are the rest of `RunResult`'s.
public struct EndpointLoad: Sendable, Equatable {
    /// Endpoint requests reaching the server in each server second of the window.
    public var requestsPerSecond: [UInt32]
    public var requests: UInt64
    public var bytes: UInt64
}

/// One kind of request's load: how many, their bytes, and their busiest seconds.
public struct RequestKindLoad: Sendable, Equatable {
    public var requests: UInt64
    public var bytes: UInt64
    /// The busiest server second (its index in the window and its requests), and the 99th
    /// percentile and mean of requests per second.
    public var peakSecond: Int
    public var peak: UInt32
    public var p99: Int64
    public var mean: Double

    init(perSecond: [UInt32], requests: UInt64, bytes: UInt64, seconds: Double) {
        self.requests = requests
        self.bytes = bytes
        var best = (0, UInt32(0))
        for (i, n) in perSecond.enumerated() where n > best.1 { best = (i, n) }
        (peakSecond, peak) = best
        p99 = RunResult.ranks(ofCounts: perSecond, [0.99])[0] ?? 0
        mean = seconds > 0 ? Double(requests) / seconds : 0
    }
}

extension RunResult {
    /// Store requests reaching the server in each server second: all of them, less the time
    /// endpoint's.
    public var storeRequestsPerSecond: [UInt32] {
        guard let e = endpointLoad else { return requestsPerSecond }
        return zip(requestsPerSecond, e.requestsPerSecond).map { $0 &- $1 }
    }

    /// The two kinds of request apart, (store, endpoint), or nil when the probes fetch the store.
    public var loadByKind: (store: RequestKindLoad, endpoint: RequestKindLoad)? {
        guard let e = endpointLoad else { return nil }
        let store = RequestKindLoad(perSecond: storeRequestsPerSecond, requests: requestsServed - e.requests,
                                    bytes: bytesServed - e.bytes, seconds: simulatedSeconds)
        return (store, RequestKindLoad(perSecond: e.requestsPerSecond, requests: e.requests, bytes: e.bytes, seconds: simulatedSeconds))
    }

    /// Requests each second that take a worker: all of them, less the time endpoint's when the
    /// web server answers it outside the pool. A server's capacity (`FlatRatePricing.capacityRps`)
    /// is its workers'.
    public var workerRequestsPerSecond: [UInt32] {
        guard let endpoint = scenario.client.probeTarget.endpoint, !endpoint.takesWorkers else { return requestsPerSecond }
        return storeRequestsPerSecond
    }
}
