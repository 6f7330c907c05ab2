// What serving the Store would cost per month, under price models a scenario names.
//
// The seeds' economics article compares two ways to pay for a back end: an API service billed
// per request ("Parse is $199/month when you have over 1 million requests", which "sounds like
// a lot, but that's 33,333 requests/day") and a flat-rate server ("$20/month and you can have a
// pretty nice VPS"). A run measures requests, bytes and the peak second over its window; these
// models turn them into a monthly bill, extrapolating the window to a 30-day month.

import SyncLabKernel

/// One price model from the scenario's `costs` list: a name, how requests or servers are billed
/// (`pricing`, a plug-in: per request or flat rate) and the egress every kind may add.
///
/// Prices are in the currency the scenario writes them in (the seeds use US dollars), per
/// 30-day month. Egress is optional for every kind: `pricePerGB` (default 0) per decimal
/// gigabyte above `includedEgress`.
public struct CostModel: Sendable, Equatable {
    /// Names the model in reports and in the budget figure `costPerMonth.<name>`.
    public var name: String
    /// How requests or servers are billed: `PerRequestPricing`, `FlatRatePricing`, or an app's own.
    public var pricing: any CostPricing
    /// Price per 10^9 bytes of responses above `includedEgressBytes` (0: egress is free).
    public var pricePerGB: Double
    /// Response bytes per month included in the price (per server when the pricing counts servers).
    public var includedEgressBytes: Double

    public init(name: String, pricing: any CostPricing, pricePerGB: Double = 0, includedEgressBytes: Double = 0) {
        self.name = name
        self.pricing = pricing
        self.pricePerGB = pricePerGB
        self.includedEgressBytes = includedEgressBytes
    }

    public static func == (a: CostModel, b: CostModel) -> Bool {
        a.name == b.name && a.pricing.isSame(as: b.pricing) && a.pricePerGB == b.pricePerGB
            && a.includedEgressBytes == b.includedEgressBytes
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
        let bill = pricing.bill(requestsPerMonth: requestsPerMonth, peakRequestsPerSecond: peakRequestsPerSecond)
        let egress = egressCost(bytesPerMonth, servers: bill.servers ?? 1)
        return CostEstimate(name: name, monthly: bill.monthly + egress, requestCharge: bill.requestCharge,
                            egressCharge: egress, servers: bill.servers, peakFits: bill.peakFits, note: bill.note)
    }

    func egressCost(_ bytesPerMonth: Double, servers: Int) -> Double {
        max(0, bytesPerMonth - includedEgressBytes * Double(servers)) / 1e9 * pricePerGB
    }
}

/// How a price model bills a month's requests: a `.costModel` plug-in (`"kind"` in `costs`).
public protocol CostPricing: Plugin, Equatable {
    /// The month's bill before egress, for `requestsPerMonth` requests whose busiest second
    /// had `peakRequestsPerSecond`.
    func bill(requestsPerMonth: Double, peakRequestsPerSecond: Double) -> PricingBill
}

extension CostPricing {
    /// Whether `other` is the same pricing with the same terms.
    func isSame(as other: any CostPricing) -> Bool { (other as? Self) == self }
}

/// A pricing's charge for a month, before egress.
public struct PricingBill: Sendable, Equatable {
    /// Everything billed for requests and servers.
    public var monthly: Double
    /// The part billed for requests beyond the included ones.
    public var requestCharge: Double
    /// Servers the peak second needs (nil when the pricing does not count servers).
    public var servers: Int?
    /// Whether one server's capacity covers the peak second (nil when no capacity is given).
    public var peakFits: Bool?
    /// One phrase on what decided the bill, for the report: "within the included requests".
    public var note: String

    public init(monthly: Double, requestCharge: Double = 0, servers: Int? = nil, peakFits: Bool? = nil, note: String) {
        self.monthly = monthly
        self.requestCharge = requestCharge
        self.servers = servers
        self.peakFits = peakFits
        self.note = note
    }
}

/// An API service: `baseMonthly` includes `includedRequests` requests a month; each further
/// million costs `pricePerMillion` (pro rata). The seeds: "Parse is $199/month when you have
/// over 1 million requests".
public struct PerRequestPricing: CostPricing {
    public var baseMonthly: Double
    public var includedRequests: Double
    public var pricePerMillion: Double

    public init(baseMonthly: Double = 0, includedRequests: Double = 0, pricePerMillion: Double) {
        self.baseMonthly = baseMonthly
        self.includedRequests = includedRequests
        self.pricePerMillion = pricePerMillion
    }

    public func bill(requestsPerMonth: Double, peakRequestsPerSecond: Double) -> PricingBill {
        let extra = max(0, requestsPerMonth - includedRequests)
        let charge = extra / 1e6 * pricePerMillion
        return PricingBill(monthly: baseMonthly + charge, requestCharge: charge,
                           note: charge > 0 ? "\(NumberText.fixed(extra / 1e6, 2)) million requests over the included"
                                            : "within the included requests")
    }
}

extension PerRequestPricing: Plugin {
    public static let family = PluginFamily.costModel
    public static let kind = "per-request"
    public static let schema = SchemaFragment(
        "An API service billed per request.",
        properties: ["pricePerMillion": SchemaFragment.ref("nonNegative"), "baseMonthly": SchemaFragment.ref("nonNegative"),
                     "includedRequests": SchemaFragment.ref("nonNegative")],
        required: ["pricePerMillion"])

    public init(_ node: InputNode, in context: PluginContext) throws {
        self.init(baseMonthly: try node.value("baseMonthly", default: 0, CostModel.amount),
                  includedRequests: try node.value("includedRequests", default: 0, CostModel.amount),
                  pricePerMillion: try CostModel.amount(node.required("pricePerMillion")))
    }

    public var summary: String {
        "per request: \(NumberText.money(baseMonthly)) a month including \(NumberText.grouped(includedRequests)) requests, "
            + "\(NumberText.money(pricePerMillion)) per further million"
    }
}

/// A server rented at `monthly` that handles up to `capacityRps` requests per second (nil:
/// capacity not modelled, one server); the peak second decides how many it takes. The seeds:
/// "$20/month and you can have a pretty nice VPS".
public struct FlatRatePricing: CostPricing {
    public var monthly: Double
    public var capacityRps: Double?

    public init(monthly: Double, capacityRps: Double? = nil) {
        self.monthly = monthly
        self.capacityRps = capacityRps
    }

    public func bill(requestsPerMonth: Double, peakRequestsPerSecond: Double) -> PricingBill {
        var servers = 1
        if let capacityRps, peakRequestsPerSecond > capacityRps {
            // Bounded: capacity > 0 and the peak is a count of one second's requests.
            servers = Int((peakRequestsPerSecond / capacityRps).rounded(.up))
        }
        let fits = capacityRps.map { peakRequestsPerSecond <= $0 }
        let peak = NumberText.fixed(peakRequestsPerSecond, 0)
        let note = switch fits {
        case true?: "the peak of \(peak) requests/s fits one server"
        case false?: "the peak of \(peak) requests/s needs \(servers) servers"
        case nil: "capacity not given: one server assumed"
        }
        return PricingBill(monthly: Double(servers) * monthly, servers: servers, peakFits: fits, note: note)
    }
}

extension FlatRatePricing: Plugin {
    public static let family = PluginFamily.costModel
    public static let kind = "flat"
    public static let schema = SchemaFragment(
        "A flat-rate server; the peak second decides how many it takes.",
        properties: ["monthly": SchemaFragment.ref("nonNegative"),
                     "capacityRps": ["type": "number", "exclusiveMinimum": 0, "examples": [200]]],
        required: ["monthly"])

    public init(_ node: InputNode, in context: PluginContext) throws {
        let monthly = try CostModel.amount(node.required("monthly"))
        let capacity = try node.optional("capacityRps") { n -> Double in
            let v = try n.double()
            guard v > 0 else { throw n.error("must be greater than zero; got \(InputNode.describeScalar(n.value))") }
            return v
        }
        self.init(monthly: monthly, capacityRps: capacity)
    }

    public var summary: String {
        "flat: \(NumberText.money(monthly)) a month per server" + (capacityRps.map { ", \(NumberText.compact($0, 1)) requests/s each" } ?? "")
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
    /// What decided the bill, for the report (`PricingBill.note`).
    public var note: String
}

extension CostModel {
    /// Keys every price model takes besides its pricing's: its name and egress.
    static let sharedSchema = SchemaFragment(
        "A price model.",
        properties: ["name": ["type": "string", "pattern": "^[A-Za-z0-9_-]+$", "examples": ["example"]],
                     "pricePerGB": SchemaFragment.ref("nonNegative"), "includedEgress": SchemaFragment.ref("size")],
        required: ["name"])

    /// Reads the scenario's `costs` array: names are unique and may appear in figure keys.
    ///
    /// Keys: `name`, `kind` (a `.costModel` plug-in: "per-request" or "flat" built in, each with
    /// its own keys), `pricePerGB` (0) and `includedEgress` (a size, "1000GB").
    static func list(from node: InputNode, in context: PluginContext = PluginContext()) throws -> [CostModel] {
        var models: [CostModel] = []
        for element in try node.elements() {
            let model = try CostModel(element, in: context)
            if models.contains(where: { $0.name == model.name }) {
                throw try element.required("name").error("duplicate cost model name '\(model.name)'")
            }
            models.append(model)
        }
        return models
    }

    init(_ node: InputNode, in context: PluginContext) throws {
        try node.expectObject()
        let nameNode = try node.required("name")
        let name = try nameNode.string()
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw nameNode.error("must be a non-empty name of letters, digits, '-' or '_' (it appears in the figure key costPerMonth.<name>)")
        }
        // The pricing reads `kind` and its own keys; the shared keys are ours, so we refuse unknown ones.
        let pricing = try context.read(.costModel, from: node, as: (any CostPricing).self)
        let pricePerGB = try node.value("pricePerGB", default: 0, Self.amount)
        let included = try node.value("includedEgress", default: 0) { try $0.bytes() }
        try node.rejectUnknownKeys()
        self.init(name: name, pricing: pricing, pricePerGB: pricePerGB, includedEgressBytes: included)
    }

    /// A price or a count: a number, not negative.
    static func amount(_ n: InputNode) throws -> Double {
        let v = try n.double()
        guard v >= 0 else { throw n.error("must not be negative; got \(InputNode.describeScalar(n.value))") }
        return v
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
    /// The busiest server second's requests that take a worker: every request's, but for a time
    /// endpoint the web server answers outside the pool (`workerRequestsPerSecond`).
    public var peakWorkerRequests: UInt32 {
        endpointLoad == nil ? peakSecond?.requests ?? 0 : workerRequestsPerSecond.max() ?? 0
    }
    /// The scenario's price models applied to a month of this run's traffic, in scenario order.
    /// Every request is billed and every byte is egress; a flat-rate server's capacity is its
    /// workers', so its count follows the peak of the requests that take one.
    public var costEstimates: [CostEstimate] {
        guard let requests = requestsPerMonth, let bytes = bytesPerMonth else { return [] }
        let peak = Double(peakWorkerRequests)
        return scenario.costModels.map {
            $0.estimate(requestsPerMonth: requests, bytesPerMonth: bytes, peakRequestsPerSecond: peak)
        }
    }
}
