import SyncLabKernel

/// Early events: a player's next events handled at once, ahead of the world's clock, instead of queued
/// (one of the executor's ways, `Executor`).
///
/// A request answered when sent (`answersWhenSent`: the file it finds on arrival is the server's
/// timeline's) knows at once when its response completes. Handling that completion in the event
/// that sent the request, rather than popping it from the queue a fraction of a second later, gives
/// the same run when nothing can come in between that reads or changes the player: no other event
/// of the player is due before it (each kind declares how the player's state keeps it,
/// `WorldEvent.Kind.pending`: its next display tick, the end of its viewing session, its wall
/// clock's next correction, a retry owed; kinds not followed, such as the other device events, and
/// probe rounds switch early handling off in any scenario that may have them; standby wakes are no
/// events and a player on screen has none), no sample instant falls before it (a sample records the
/// player's state as of its instant), and the run does not stop before it. Other players' events do
/// not matter: every player's draws and state are its own, the server answers from functions of
/// time, and every figure the recorder keeps is a sum. The same holds for the player's next display
/// tick once the response is in, except that a tick may pass sample instants: it changes nothing a
/// sample reads (it moves what the UI has shown and may send a request; only a response changes the
/// sync, the file and the device), so the samples the player records later, with its state then,
/// are those of the instants. A tick needs no answer from the server, so it runs ahead where the
/// players share the fleet too, but for the tick that refetches: its request must reach the fleet
/// in turn, so it waits in the queue, in the place it reserved. A player with nothing on screen to
/// update runs on, fetch after fetch, until its session ends or the run does. Each event handled
/// so still takes a scheduling sequence number (a response or a tick queued after all keeps its
/// own), so equal times come out in the same order and the event count is unchanged.
///
/// The reference fleet's players refetch minutes apart with one sample instant a day: each runs
/// through most of its day in two or three events, with its state in cache.
struct PendingResponse {
    var client: Int
    var at: SimTime
    var epoch: UInt32
    var sequence: UInt64
}

extension World {
    /// Whether the response of player c's request, completing at `done`, may be handled in the
    /// sending event as far as the world is concerned: no sample instant and no stop of the run
    /// before it (nor a fired instant the player records later, `World+Sampling`), and no link
    /// that models connections (their answers wait in the queue). The player's own events are
    /// checked at the end of the sending event, once its next display tick is known
    /// (`handleEarlyResponse`).
    @inline(__always)
    func mayHandleResponseEarly(_ c: Int, at done: SimTime) -> Bool {
        executor.handlesResponsesEarly && !executor.linksModelConnections && done < loop.earlyHandlingLimit && done < measure.nextSampleAt
            && clients[c].sampledThrough == samplesFired   // none fired that the player has yet to record
    }

    /// At the end of the sending event: handles the response now if none of the player's other
    /// events (`Executor.earlyResponseMarks`: its next display tick, the end of its session, ...) is
    /// due by then, else queues it in its reserved place.
    mutating func handleEarlyResponse<C: DeviceClock, T: DeviceClock>(_ p: PendingResponse, _ d: DesignClocks<C, T>) {
        let c = p.client
        guard p.epoch == clients[c].fetchEpoch, clients[c].nonePending(executor.earlyResponseMarks, atOrBefore: p.at.ns) else {
            loop.queue.schedule(WorldEvent(client: Int32(c), kind: .responseDone, epoch: p.epoch), at: p.at,
                           sequence: p.sequence)
            return
        }
        executor.responsesEarly &+= 1
        responseDone(c, p.at, d)
    }
}

/// A display tick of a player to handle at the end of the current event (`World.mayHandleTickEarly`),
/// with the sequence number it reserved, which it keeps if it must be queued after all.
struct PendingDisplay {
    var client: Int
    var at: SimTime
    var epoch: UInt32
    var sequence: UInt64
}

extension World {
    /// Whether player c's next display tick, at `tick`, may be handled at once, ahead of the
    /// world's clock: the same test as for a response but for sample instants — no other event
    /// of the player pending by then (`Executor.earlyTickMarks`: no request in flight or owed, the
    /// session lasting beyond the tick, no wall-clock correction before it) and no stop of the
    /// run before it — never on the original plan's database, whose answers wait in its queue.
    /// Where players share the fleet, a tick that would refetch is queued after all
    /// (`handleEarlyEvents`): its request must reach the fleet in turn.
    @inline(__always)
    func mayHandleTickEarly(_ c: Int, to tick: SimTime) -> Bool {
        executor.handlesTicksEarly && executor.handlesResponsesEarly && !server.usesDatabase
            && tick < loop.earlyHandlingLimit && clients[c].nonePending(executor.earlyTickMarks, atOrBefore: tick.ns)
    }

    /// Ends an event: handles the response and the display ticks it left pending, which may leave
    /// others (a tick that refetches, whose response completes, whose next tick is due, ...), until
    /// the player's next event must wait in the queue.
    @inline(__always)
    mutating func handleEarlyEvents<C: DeviceClock, T: DeviceClock>(_ d: DesignClocks<C, T>) {
        while true {
            if let p = executor.pendingResponse {
                executor.pendingResponse = nil
                handleEarlyResponse(p, d)
            } else if let p = executor.pendingDisplay {
                executor.pendingDisplay = nil
                // A tick cancelled since (the response it was computed before came in) is dropped,
                // as its event would be.
                guard p.epoch == clients[p.client].displayEpoch && clients[p.client].phase == .viewing else { continue }
                // Read once, for the test and the tick (`World.display`). A tick that refetches,
                // where players share the fleet, must send its request to the fleet in turn, so it
                // is queued in its reserved place.
                let reading = d.reading(clients[p.client].device, at: p.at)
                if !server.answersWhenSent && refetches(p.client, reading: reading) {
                    executor.refetchTicksQueued &+= 1
                    loop.queue.schedule(WorldEvent(client: Int32(p.client), kind: .display, epoch: p.epoch), at: p.at,
                                        sequence: p.sequence)
                    continue
                }
                executor.ticksEarly &+= 1
                display(p.client, p.at, d, reading: reading)
            } else {
                return
            }
        }
    }
}
