import SyncLabKernel

/// The request trace (`run --trace-requests N`): each step of a traced player's request noted on
/// its open row (`RequestTrace`). Out of line and behind one test, so untraced runs pay nothing
/// else; nothing here draws a random number or changes a player's state.
extension World {
    @inline(never)
    mutating func traceSent(_ c: Int, _ t: SimTime, link: Int) {
        guard measure.recorder.inWindow(t), measure.recorder.trace?.traces(c) == true else { return }
        let reading = traceReading(c, at: t)
        // The store fetch after a time endpoint's probes is no probe; any other request is the
        // next probe of its round (`probesDone` counts the ones answered).
        let afterProbes = design.probesTimeEndpoint && clients[c].storeOwed
        let kind: TraceRow.Kind = probesEndpoint(c) ? .timeEndpoint : .store
        let probe = afterProbes ? nil : Int(clients[c].probesDone) + 1
        measure.recorder.trace?.sent(c, link: link, kind: kind, probe: probe, at: t.ns, reading: reading)
    }

    @inline(never)
    mutating func traceUpdate(_ c: Int, _ change: (inout TraceRow) -> Void) {
        measure.recorder.trace?.update(c, change)
    }

    @inline(never)
    mutating func traceClose(_ c: Int, _ outcome: TraceRow.Outcome, at t: SimTime) {
        guard measure.recorder.trace?.traces(c) == true else { return }
        let reading = traceReading(c, at: t)
        measure.recorder.trace?.close(c, outcome, at: t.ns, reading: reading)
    }

    /// The server side of player c's request, from what the request handlers stored.
    @inline(never)
    mutating func traceServed(_ c: Int, arrived t: SimTime, start: SimTime) {
        let r = self[requestOf: c]
        let stamp = r.timestamp, left = r.leftAt
        traceUpdate(c) {
            $0.reachedServer = t.ns
            $0.waited = start - t
            $0.served = start.ns
            $0.stamp = stamp
            $0.responseStart = left.ns
        }
    }
}
