import SyncLabKernel

/// The round trip a link gives a one-packet time request, recorded per link profile when a run
/// is held against telemetry (`Simulation.run`'s `recordsLinkRoundTrips`). An observer: it reads
/// what `respond` already worked out and changes nothing.
///
/// Recorded: the request's leg from upload complete to the server's arrival, plus the response's
/// downlink delay — without the server's time and without the transfer of either message's
/// bytes, as an app's telemetry of small time requests sees a link (t4 − t1 − (t3 − t2)).
/// - On a trace-driven link both legs are the crossing of the message's first packet
///   (`correlatedDelay`): the uplink leg is the request's first packet's crossing from the instant
///   it was sent, the downlink delay the response's first packet's from the instant it left.
/// - With connections modelled (`NetworkSide.modelsConnection`) the uplink leg includes the
///   request's lost segments; the radio's promotion and a new connection's set-up come before
///   upload complete (`prepareRequest`), so they are not in it, nor are the response's lost
///   segments (a one-segment answer's share of them is not modelled apart).
/// - Only answered requests: not one the client's time-out ends first (`timedOut`), nor one the
///   server never answers. Counted by the instant the request was sent, inside the window.
/// - The original plan's API calls (`World+Database`) cross the same send and response tail
///   (`requestLeaves`, `responseCrosses`) but are answered outside `respond`: they record none.
extension World {
    @inline(never)
    mutating func recordLinkRoundTrip(_ c: Int, link: Int, arrivedAt: SimTime, downlink: Nanoseconds) {
        let r = self[requestOf: c]
        let rtt = (arrivedAt - r.uploadCompleteAt) + downlink
        measure.emit(.roundTripAnswered(link: link, roundTrip: rtt, sentAt: r.sentAt.ns))
    }
}
