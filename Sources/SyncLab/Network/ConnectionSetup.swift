import SyncLabKernel

/// What a request costs before its first byte can leave when the client has no open connection:
/// a link profile's `connection` (`{"kind": "keep-alive", "idleTimeout": "75s", "tls": "1.3"}`),
/// absent by default (every request finds a ready connection, as before).
///
/// The world keeps, per player, the true time of the last network activity to the millisecond
/// (`ClientState.lastNetworkAt`) and whether the connection was closed since (a failed request,
/// the app's end); a model decides from them whether a request is cold and how many round trips
/// it pays. The DNS cache is taken to be as fresh as that last activity: a player opens at most
/// one connection per fetch, so its lookup and the connection's last use are seconds apart (the
/// cache is judged a little fresher than it is when a connection stays in use for long). Each
/// round trip is an uplink and a downlink drawn from the link's distributions (independently,
/// from a stream of their own keyed to the player and the request, so switching the model on
/// moves no other draw).
public protocol ConnectionSetup: Plugin {
    /// Whether a connection last used at `lastUsed` (true ns; `.min`: none since the app
    /// started) is still open at `now`.
    func isOpen(lastUsed: Int64, at now: Int64) -> Bool
    /// Whether a name last resolved at `resolvedAt` (`.min`: never) must be looked up again at `now`.
    func needsLookup(resolvedAt: Int64, at now: Int64) -> Bool
    /// Round trips a new connection pays after its DNS lookup: TCP's handshake and TLS's.
    var handshakeRoundTrips: Int { get }
    /// Whether the client's send reading is taken once the connection is ready (setup time then
    /// stays out of the measured round trip) rather than when it asks for the request.
    var readsSendWhenConnected: Bool { get }
}
