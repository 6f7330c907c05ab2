// What serving the Store would cost per month, under price models a scenario names.
//
// The seeds' economics article compares two ways to pay for a back end: an API service billed
// per request ("Parse is $199/month when you have over 1 million requests", which "sounds like
// a lot, but that's 33,333 requests/day") and a flat-rate server ("$20/month and you can have a
// pretty nice VPS"). A run measures requests, bytes and the peak second over its window; these
// models turn them into a monthly bill, extrapolating the window to a 30-day month.

import SyncLabKernel

/// One price model from the scenario's `costs` list: per request, or a flat-rate server.
///
/// Prices are in the currency the scenario writes them in (the seeds use US dollars), per
/// 30-day month. Egress is optional for both kinds: `pricePerGB` (default 0) per decimal
/// gigabyte above `includedEgress`.
public struct CostModel: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// An API service: `baseMonthly` includes `includedRequests` requests a month; each
        /// further million costs `pricePerMillion` (pro rata).
        case perRequest(baseMonthly: Double, includedRequests: Double, pricePerMillion: Double)
        /// A server rented at `monthly` that handles up to `capacityRps` requests per second
        /// (nil: capacity not modelled, one server). The peak second decides how many it takes.
        case flat(monthly: Double, capacityRps: Double?)
    }

    /// Names the model in reports and in the budget figure `costPerMonth.<name>`.
    public var name: String
    public var kind: Kind
    /// Price per 10^9 bytes of responses above `includedEgressBytes` (0: egress is free).
    public var pricePerGB: Double
    /// Response bytes per month included in the price (per server for `flat`).
    public var includedEgressBytes: Double

    public init(name: String, kind: Kind, pricePerGB: Double = 0, includedEgressBytes: Double = 0) {
        self.name = name
        self.kind = kind
        self.pricePerGB = pricePerGB
        self.includedEgressBytes = includedEgressBytes
    }

    /// Seconds in the month every `…PerMonth` figure extrapolates to: 30 days.
    public static let secondsPerMonth: Double = 30 * 24 * 3600

    /// `amount` measured over `seconds`, extrapolated to a 30-day month (nil for an empty window).
    public static func perMonth(_ amount: Double, over seconds: Double) -> Double? {
        // Scale first: a window that divides the month (3 h, 30 min) then multiplies exactly.
        seconds > 0 ? amount * (secondsPerMonth / seconds) : nil
    }

    /// The bill for one month with the given traffic.
    public func estimate(requestsPerMonth: Double, bytesPerMonth: Double, peakRequestsPerSecond: Double) -> CostEstimate {
        switch kind {
        case let .perRequest(base, included, perMillion):
            let extra = max(0, requestsPerMonth - included)
            let egress = egressCost(bytesPerMonth, servers: 1)
            return CostEstimate(name: name, monthly: base + extra / 1e6 * perMillion + egress,
                                requestCharge: extra / 1e6 * perMillion, egressCharge: egress,
                                servers: nil, peakFits: nil)
        case let .flat(monthly, capacity):
            var servers = 1
            if let capacity, peakRequestsPerSecond > capacity {
                // Bounded: capacity > 0 and the peak is a count of one second's requests.
                servers = Int((peakRequestsPerSecond / capacity).rounded(.up))
            }
            let egress = egressCost(bytesPerMonth, servers: servers)
            return CostEstimate(name: name, monthly: Double(servers) * monthly + egress,
                                requestCharge: 0, egressCharge: egress, servers: servers,
                                peakFits: capacity.map { peakRequestsPerSecond <= $0 })
        }
    }

    func egressCost(_ bytesPerMonth: Double, servers: Int) -> Double {
        max(0, bytesPerMonth - includedEgressBytes * Double(servers)) / 1e9 * pricePerGB
    }

    /// The scenario key's spelling of the kind.
    public var kindName: String {
        switch kind {
        case .perRequest: return "per-request"
        case .flat: return "flat"
        }
    }
}

/// One price model's bill for a month of the run's traffic.
public struct CostEstimate: Sendable, Equatable {
    public var name: String
    /// Total per month, every charge included.
    public var monthly: Double
    /// The part billed for requests beyond the included ones (per-request models).
    public var requestCharge: Double
    /// The part billed for egress beyond the included bytes.
    public var egressCharge: Double
    /// Servers needed for the peak second (flat models; nil for per-request).
    public var servers: Int?
    /// Whether one server's capacity covers the peak second (nil when no capacity is given).
    public var peakFits: Bool?
}

extension CostModel {
    /// Reads the scenario's `costs` array: names are unique and may appear in figure keys.
    ///
    /// Keys: `name`, `kind` ("per-request" or "flat"); per-request: `pricePerMillion`
    /// (required), `baseMonthly` (0), `includedRequests` (0); flat: `monthly` (required),
    /// `capacityRps` (optional); both: `pricePerGB` (0), `includedEgress` (a size, "1000GB").
    static func list(from node: InputNode) throws -> [CostModel] {
        var models: [CostModel] = []
        for element in try node.elements() {
            let model = try CostModel(from: element)
            if models.contains(where: { $0.name == model.name }) {
                throw try element.required("name").error("duplicate cost model name '\(model.name)'")
            }
            models.append(model)
        }
        return models
    }

    init(from node: InputNode) throws {
        try node.expectObject()
        let nameNode = try node.required("name")
        let name = try nameNode.string()
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw nameNode.error("must be a non-empty name of letters, digits, '-' or '_' (it appears in the figure key costPerMonth.<name>)")
        }
        func amount(_ n: InputNode) throws -> Double {
            let v = try n.double()
            guard v >= 0 else { throw n.error("must not be negative; got \(v)") }
            return v
        }
        let kindNode = try node.required("kind")
        let kindText = try kindNode.string()
        let kind: Kind
        switch kindText {
        case "per-request":
            kind = .perRequest(baseMonthly: try node.value("baseMonthly", default: 0, amount),
                               includedRequests: try node.value("includedRequests", default: 0, amount),
                               pricePerMillion: try amount(node.required("pricePerMillion")))
        case "flat":
            let monthly = try amount(node.required("monthly"))
            let capacity = try node.optional("capacityRps") { n -> Double in
                let v = try n.double()
                guard v > 0 else { throw n.error("must be greater than zero; got \(v)") }
                return v
            }
            kind = .flat(monthly: monthly, capacityRps: capacity)
        default:
            throw kindNode.error("unknown cost model kind '\(kindText)'; expected 'per-request' or 'flat'")
        }
        let pricePerGB = try node.value("pricePerGB", default: 0, amount)
        let included = try node.value("includedEgress", default: 0) { try $0.bytes() }
        try node.rejectUnknownKeys()
        self.init(name: name, kind: kind, pricePerGB: pricePerGB, includedEgressBytes: included)
    }
}

extension RunResult {
    /// Requests that reached the server, extrapolated from the window to a 30-day month.
    public var requestsPerMonth: Double? { CostModel.perMonth(Double(requestsServed), over: simulatedSeconds) }
    /// Response bytes, extrapolated from the window to a 30-day month.
    public var bytesPerMonth: Double? { CostModel.perMonth(Double(bytesServed), over: simulatedSeconds) }
    /// The busiest server second of the window: (index of the second, requests).
    public var peakSecond: (second: Int, requests: UInt32)? {
        var best: (Int, UInt32)? = nil
        for (i, n) in requestsPerSecond.enumerated() where n > (best?.1 ?? 0) { best = (i, n) }
        return best ?? (requestsPerSecond.isEmpty ? nil : (0, 0))
    }
    /// The scenario's price models applied to a month of this run's traffic, in scenario order.
    public var costEstimates: [CostEstimate] {
        guard let requests = requestsPerMonth, let bytes = bytesPerMonth else { return [] }
        let peak = Double(peakSecond?.requests ?? 0)
        return scenario.costModels.map {
            $0.estimate(requestsPerMonth: requests, bytesPerMonth: bytes, peakRequestsPerSecond: peak)
        }
    }
}
