import SyncLabKernel

/// Where a sync's probes go (`client.probeTarget`): the store file itself, as the seeds' client
/// does, or a light time endpoint followed by one fetch of the store file.
///
/// The seeds' client learns the server's time from the store file's response, so every probe of a
/// best-of-n round downloads the whole file (about 12.7 KB, through a PHP-FPM worker) and a
/// launching player waits through n file transfers with a bare Store. The design an engineer
/// reaches for first is a time endpoint: a response of a few hundred bytes carrying the server's
/// receive and transmit stamps, answered by the web server itself (nginx's `$msec` in a header on
/// a static response) or by a cheap handler in the worker pool, probed n times; then one fetch
/// of the store file, whose stamps the sync no longer needs.
public enum ProbeTarget: Sendable, Equatable {
    /// Every probe is a store-file request (the default): the file comes with the sync.
    case store
    /// The probes go to a time endpoint; once the last one is answered, one store fetch follows.
    case timeEndpoint(TimeEndpoint)

    /// The endpoint, or nil when the probes fetch the store.
    public var endpoint: TimeEndpoint? {
        if case .timeEndpoint(let e) = self { return e }
        return nil
    }

    /// The target in a report's words (nil for the store: the seeds' design says nothing of it).
    public var summary: String? {
        guard let e = endpoint else { return nil }
        let host = switch e.servedBy {
        case .webServer: "by the web server outside the worker pool"
        case .workerPool: "by the worker pool"
        }
        let service = switch e.serviceTime {
        case .constant(let v): Units.formatDuration(Int64(v))
        default: e.serviceTime.describe(.duration)
        }
        return "probes a time endpoint (\(e.responseBytes) B responses, served \(host), service time \(service)), "
            + "then fetches the store file once after the last probe's answer"
    }
}

/// A light time endpoint: its response's size and who serves it.
public struct TimeEndpoint: Sendable, Equatable {
    /// Who answers the endpoint's requests.
    public enum Host: String, Sendable, CaseIterable {
        /// The web server in front of the pool (nginx, a static response with the stamps in its
        /// headers): no worker, no queue; its service time is the server's own.
        case webServer = "web-server"
        /// A handler in the fleet's worker pools: it takes a worker for its service time and waits
        /// in the same FIFO queue as the store's requests.
        case workerPool = "worker-pool"
    }

    /// Bytes of each response on the wire, headers included. Default 360: the 300 header bytes
    /// the lab gives every response (`store.file.headerBytes`) and a 60-byte body carrying two
    /// microsecond stamps (`{"receive":1700000000.123456,"transmit":1700000000.123481}`).
    public var responseBytes: Int
    public var servedBy: Host
    /// From the request's start to its response leaving (drawn per request from the player's
    /// network stream, like the store's `server.serviceTime`).
    public var serviceTime: Distribution

    public static let defaultResponseBytes = 360

    /// The default service time: 0.1 ms for the web server (a static response and a clock read
    /// take tens of microseconds of CPU), 1 ms for a PHP-FPM handler (the worker's request
    /// set-up and tear-down alone take about that).
    public static func defaultServiceTime(_ host: Host) -> Distribution {
        .constant(Double(host == .webServer ? 100 * Nanoseconds.microsecond : Nanoseconds.millisecond))
    }

    public init(responseBytes: Int = TimeEndpoint.defaultResponseBytes, servedBy: Host = .webServer,
                serviceTime: Distribution? = nil) {
        self.responseBytes = responseBytes
        self.servedBy = servedBy
        self.serviceTime = serviceTime ?? TimeEndpoint.defaultServiceTime(servedBy)
    }

    /// Whether its requests take a worker (and count toward a server's capacity).
    public var takesWorkers: Bool { servedBy == .workerPool }
}

extension ScenarioLoader {
    /// `client.probeTarget`: `"store"` (default), `"time-endpoint"` (its defaults) or
    /// `{kind: "time-endpoint", responseBytes (360), servedBy ("web-server" | "worker-pool"),
    /// serviceTime (0.1ms on the web server, 1ms in the pool)}`.
    static func readProbeTarget(_ n: InputNode) throws -> ProbeTarget {
        let kinds = "'store' or 'time-endpoint'"
        if case .string(let text) = n.value {
            switch text {
            case "store": return .store
            case "time-endpoint": return .timeEndpoint(TimeEndpoint())
            default: throw n.error("expected \(kinds), or an object {kind: \"time-endpoint\", ...}; got \(InputNode.describeScalar(n.value))")
            }
        }
        guard case .object = n.value else {
            throw n.error("expected \(kinds), or an object {kind: \"time-endpoint\", ...}; got \(InputNode.describe(n.value))")
        }
        let kindNode = try n.required("kind")
        switch try kindNode.string() {
        case "store":
            try n.rejectUnknownKeys()
            return .store
        case "time-endpoint":
            let bytes = try n.value("responseBytes", default: TimeEndpoint.defaultResponseBytes) { try $0.int(min: 1, max: 100_000_000) }
            let host = try n.value("servedBy", default: TimeEndpoint.Host.webServer) { try $0.choice(TimeEndpoint.Host.self) }
            let service = try n.optional("serviceTime") { try $0.distribution(.duration, .durations(0, Limits.delay)) }
            try n.rejectUnknownKeys()
            return .timeEndpoint(TimeEndpoint(responseBytes: bytes, servedBy: host, serviceTime: service))
        default:
            throw kindNode.error("expected \(kinds); got \(InputNode.describeScalar(kindNode.value))")
        }
    }
}
