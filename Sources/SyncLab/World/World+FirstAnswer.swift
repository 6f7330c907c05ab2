import SyncLabKernel

/// Showing the store before a round ends (`client.showFirstAnswerWithin`).
///
/// A best-of-n round makes a launching player wait through n round trips, each with the file's
/// transfer, before the Store shows anything. With the option, a player that has nothing current
/// to show takes the first answer whose ± bound is within the option's limit as a sync of its
/// own (the file it brought and the estimate of that probe alone), while the other probes go on;
/// when the last is answered the round's estimate replaces it, exactly as it would have been
/// without the early answer (whose estimate works on a copy of the estimator's memory). Why a
/// bound and not simply the first answer: the round's first probe is the one that pays the
/// radio's promotion and the connection's set-up, so on a slow link it is the worst of the round
/// (shown ungated on EDGE, the p99 error was 1.9 s); the bound, half the round trip for NTP's
/// exchange, holds its error under the limit whatever the path's asymmetry. A player already
/// showing a current file keeps it and its sync until the round ends: a one-probe estimate is
/// no better than the round it has.
extension World {
    /// Whether player c, whose round's probe `exchange` was answered at t, shows it now: it has
    /// nothing current to show (no sync yet, no file, or a file that does not list every position
    /// at the time the UI would show) and the probe's ± bound is within the design's limit (and
    /// `client.maxSyncBound`, when set).
    mutating func showsAnswer<C: DeviceClock, T: DeviceClock>(_ c: Int, _ exchange: ProbeExchange, at t: SimTime,
                                                              _ d: DesignClocks<C, T>) -> Bool {
        if clients[c].hasSync && clients[c].file >= 0 {
            let shown = clients[c].anchor.serverTime(at: d.reading(clients[c].device, at: t))
            if server.store.files[Int(clients[c].file)].listsAll(shown) { return false }
        }
        let (s, _) = designSync(clients[c].device, ShadowExchange(exchange), at: t, d, server: exchange.server)
        guard let bound = design.estimator.halfWidth(for: s, design.boundModel).nanoseconds else { return false }
        return bound <= design.showFirstAnswerWithin && design.admits(.halfWidth(bound))
    }

    /// The round's probe `exchange`, answered at t with store file `file`: the player shows it
    /// now. Everything that decides requests waits for the round's end, so the requests are the
    /// same as without the option: the refetch is timed then, the failures so far still count
    /// for the retry's backoff, nothing is stored across launches. A round that fails after it
    /// leaves this sync standing, as any sync.
    mutating func showFirstAnswer<C: DeviceClock, T: DeviceClock>(_ c: Int, _ exchange: ProbeExchange, file: Int32,
                                                                  at t: SimTime, _ d: DesignClocks<C, T>) {
        _ = landSync(c, exchange, best: 0, at: t, d, provisional: true)
        clients[c].file = file
        measure.recorder.firstAnswerShown(at: t)
        clients[c].displayEpoch &+= 1
        scheduleDisplay(c, t, d)
    }
}
