import SyncLabKernel

extension World {
    /// Players whose state one bucket load starts loading, at most: a bucket can hold hundreds
    /// of events, and starting them all at once only evicts what is in use.
    static let bucketPrefetchLimit = 16

    /// A software pipeline over the event queue, run when a new bucket is loaded: the event loop
    /// visits players in no locality order, so each event would otherwise begin with several
    /// cache misses in turn. It starts loading the state of the first players with events in
    /// this bucket — and in the next one if this one holds few — and the events of the one
    /// after (read when it is the next). For an event that draws a link's delays, also what the
    /// model audit keeps of the player, a table of its own.
    mutating func prefetchFromNewBucket() {
        let count = clients.count
        let players = UnsafeRawPointer(clients.base)
        let audit = measure.recorder.audit
        func player(_ e: WorldEvent) {
            let c = Int(e.client)
            guard c >= 0 && c < count else { return }   // server events and database slots
            World.prefetchPlayer(c, clients: players, bytes: World.prefetchBytes(e.kind))
            if World.drawsDelays(e.kind) { audit.prefetch(c) }
        }
        var k = 0
        while k < World.bucketPrefetchLimit, let e = loop.queue.upcoming(k) {
            player(e)
            k += 1
        }
        if k < 4 { loop.queue.forEachInBucket(ahead: 1, limit: World.bucketPrefetchLimit, player) }
        loop.queue.prefetchBucket(ahead: 2)
    }

    /// Keeps the pipeline `bucketPrefetchLimit` events deep within a bucket: each event handled
    /// starts loading the player of the event that many places later. (Loading an answer's
    /// request slot, `RequestsInFlight`, as well did not pay: the slots in use are few and warm.)
    @inline(__always)
    mutating func prefetchUpcoming() {
        guard let e = loop.queue.upcoming(World.bucketPrefetchLimit &- 1) else { return }
        let c = Int(e.client)
        guard c >= 0 && c < clients.count else { return }
        World.prefetchPlayer(c, clients: UnsafeRawPointer(clients.base), bytes: World.prefetchBytes(e.kind))
        if World.drawsDelays(e.kind) { measure.recorder.audit.prefetch(c) }
    }

    /// Whether an event of `kind` draws link delays: a request sent (and answered at once
    /// without a serving model) or the fleet's answer.
    @inline(__always)
    static func drawsDelays(_ kind: WorldEvent.Kind) -> Bool { kind == .sendRequest || kind == .serverReply }

    /// The bytes of a player's state an event of `kind` reads: a display tick that does not send
    /// reads nothing of the request in flight or the random streams. (Loading lines an event
    /// does not use is not free: at a million players the loads in flight are what the loop
    /// waits on.)
    @inline(__always)
    static func prefetchBytes(_ kind: WorldEvent.Kind) -> Int {
        kind == .display ? ClientState.displayBytes : MemoryLayout<ClientState>.stride
    }

    /// Starts loading the first `bytes` of player `c`'s state (which starts on a cache line).
    @inline(__always)
    static func prefetchPlayer(_ c: Int, clients: UnsafeRawPointer, bytes: Int) {
        let p = clients + c &* MemoryLayout<ClientState>.stride
        var offset = 0
        while offset < bytes {
            prefetchCacheLine(p + offset)
            offset &+= 64
        }
    }
}
