import SyncLabKernel

/// A response handled in the event that sent its request, instead of as an event of its own.
///
/// A request answered when sent (`answersWhenSent`) knows at once when its response completes.
/// Handling that completion there, rather than popping it from the queue a fraction of a second
/// later, gives the same run when nothing can come in between that reads or changes the player:
/// no event of the player is due before it (its next display tick, the end of its viewing
/// session; device events and probe rounds are not followed, so scenarios with them always
/// queue), no sample instant falls before it (a sample records the player's state as of its
/// instant), and the run does not stop before it. Other players' events do not matter: every
/// player's draws and state are its own, the server answers from functions of time, and every
/// figure the recorder keeps is a sum. The completion takes the scheduling sequence number its
/// event would have had, and an event queued after all keeps it, so equal times come out in
/// the same order either way.
///
/// The reference fleet's players refetch minutes apart with nothing on screen to update in
/// between: every fetch cycle becomes one event instead of two.
struct PendingResponse {
    var client: Int
    var at: SimTime
    var epoch: UInt32
    var sequence: UInt64
}

extension World {
    /// Whether the response of player c's request, completing at `done`, may be handled in the
    /// sending event (the part of the test known when the request is answered).
    @inline(__always)
    func mayCompleteInline(_ c: Int, at done: SimTime) -> Bool {
        completesResponsesInline && done < runLimit && done < nextSampleAt && done.ns < clients[c].viewEndAt
    }

    /// At the end of the sending event, when the player's next display tick is known: handles
    /// the response now if that tick comes after it, else queues it in its reserved place.
    mutating func completePendingResponse(_ p: PendingResponse) {
        let c = p.client
        guard p.epoch == clients[c].fetchEpoch, p.at.ns < clients[c].displayDueAt else {
            queue.schedule(WorldEvent(client: Int32(c), kind: .responseDone, epoch: p.epoch), at: p.at,
                           sequence: p.sequence)
            return
        }
        responsesInline &+= 1
        responseDone(c, p.at)
    }
}
