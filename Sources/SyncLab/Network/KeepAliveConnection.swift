import SyncLabKernel

/// HTTP keep-alive: a connection stays open while it is used at least every `idleTimeout`, and a
/// request that finds none pays a DNS lookup (unless cached), TCP's handshake and TLS's.
///
/// Round trips of a new connection: DNS 1 (a query to the resolver; skipped while the last
/// answer is younger than `dnsTtl`), TCP 1 (SYN, SYN-ACK; the request rides with the final
/// ACK), TLS 1.3 1 (RFC 8446 full handshake) or TLS 1.2 2 (RFC 5246), none for plain HTTP. The
/// default idle time-out is nginx's `keepalive_timeout` (75 s); the client side may close first
/// (docs/links.md lists others, such as Apache's 5 s).
///
/// Simplifications: the connection closes exactly `idleTimeout` after its last use (the server's
/// close is noticed at once, no stale-connection retry); a request that fails or times out
/// closes it; the app's start opens none; the DNS lookup goes to a resolver as far as the
/// server (the link's own delays; a carrier's resolver is nearer).
public struct KeepAliveConnection: ConnectionSetup, Equatable {
    public static let family = PluginFamily.connection
    public static let kind = "keep-alive"
    public static let schema = SchemaFragment(
        "HTTP keep-alive: a connection idle longer than `idleTimeout` closes; a cold request pays DNS, TCP and TLS round trips.",
        properties: [
            "idleTimeout": ["$ref": "#/$defs/positiveDuration",
                            "description": "How long an idle connection stays open: 1ms to 1d (default 75s, nginx's keepalive_timeout)."],
            "tls": ["enum": ["1.3", "1.2", "none"], "description": "TLS version: 1.3 adds 1 round trip, 1.2 adds 2, none 0 (default 1.3)."],
            "dnsTtl": ["$ref": "#/$defs/duration",
                       "description": "How long a DNS answer is cached: 0s to 1d (default 0s: every new connection looks the name up)."],
            "sendReading": ["enum": ["before-setup", "after-setup"],
                            "description": "When the client reads its clock for 'request sent': before set-up (in the round trip; default) or once connected."],
        ])

    public enum TLS: String, Sendable, CaseIterable {
        case tls13 = "1.3", tls12 = "1.2", none
        /// Round trips of a full handshake.
        public var roundTrips: Int {
            switch self {
            case .tls13: 1
            case .tls12: 2
            case .none: 0
            }
        }
    }

    /// nginx's default `keepalive_timeout`.
    public static let defaultIdleTimeout: Nanoseconds = 75 * .second

    public var idleTimeout: Nanoseconds
    public var tls: TLS
    public var dnsTTL: Nanoseconds
    public var readsSendWhenConnected: Bool

    public init(idleTimeout: Nanoseconds = defaultIdleTimeout, tls: TLS = .tls13, dnsTTL: Nanoseconds = 0,
                readsSendWhenConnected: Bool = false) {
        precondition(idleTimeout > 0 && dnsTTL >= 0)
        self.idleTimeout = idleTimeout
        self.tls = tls
        self.dnsTTL = dnsTTL
        self.readsSendWhenConnected = readsSendWhenConnected
    }

    public init(_ node: InputNode, in context: PluginContext) throws {
        let day = ScenarioLoader.Limits.day
        let idle = try node.value("idleTimeout", default: Self.defaultIdleTimeout) { try $0.duration(in: Int64.millisecond...day) }
        let tls = try node.value("tls", default: TLS.tls13) { n -> TLS in
            let text = try n.string()
            guard let v = TLS(rawValue: text) else {
                throw n.error("unknown TLS version '\(text)'; expected one of '1.3', '1.2', 'none'")
            }
            return v
        }
        let ttl = try node.value("dnsTtl", default: Int64(0)) { try $0.duration(in: 0...day) }
        let after = try node.value("sendReading", default: false) { n -> Bool in
            switch try n.string() {
            case "before-setup": return false
            case "after-setup": return true
            case let other: throw n.error("unknown send reading '\(other)'; expected 'before-setup' or 'after-setup'")
            }
        }
        self.init(idleTimeout: idle, tls: tls, dnsTTL: ttl, readsSendWhenConnected: after)
    }

    public var summary: String {
        "keep-alive \(Units.formatDuration(idleTimeout)), "
            + (tls == .none ? "no TLS" : "TLS \(tls.rawValue)")
            + (dnsTTL > 0 ? ", DNS cached \(Units.formatDuration(dnsTTL))" : ", DNS looked up per connection")
            + (readsSendWhenConnected ? ", send read once connected" : ", send read before setup")
    }

    public func isOpen(lastUsed: Int64, at now: Int64) -> Bool {
        lastUsed != .min && now - lastUsed <= idleTimeout
    }

    public func needsLookup(resolvedAt: Int64, at now: Int64) -> Bool {
        resolvedAt == .min || now - resolvedAt >= dnsTTL
    }

    public var handshakeRoundTrips: Int { 1 + tls.roundTrips }
}
