import SyncLabKernel

extension World {
    /// Players whose state one bucket load starts loading, at most: a bucket can hold hundreds
    /// of events, and starting them all at once only evicts what is in use.
    static let bucketPrefetchLimit = 16

    /// A software pipeline over the event queue, run when a new bucket is loaded: the event loop
    /// visits players in no locality order, so each event would otherwise begin with several
    /// cache misses in turn. It starts loading the state of the first players with events in
    /// this bucket — and in the next one if this one holds few — and the events of the one
    /// after (read when it is the next).
    mutating func prefetchAhead() {
        let count = clients.count
        let players = UnsafeRawPointer(clients.base)
        shadowAnchors.withUnsafeBufferPointer { anchors in
            guard let anchorBase = anchors.baseAddress else { return }
            let shadows = UnsafeRawPointer(anchorBase)
            func player(_ e: WorldEvent) {
                let c = Int(e.client)
                guard c >= 0 && c < count else { return }   // server events and database slots
                World.prefetchPlayer(c, clients: players, anchors: shadows)
            }
            var k = 0
            while k < World.bucketPrefetchLimit, let e = queue.upcoming(k) {
                player(e)
                k += 1
            }
            if k < 4 { queue.forEachInBucket(ahead: 1, limit: World.bucketPrefetchLimit, player) }
        }
        queue.prefetchBucket(ahead: 2)
    }

    /// Keeps the pipeline `bucketPrefetchLimit` events deep within a bucket: each event handled
    /// starts loading the player of the event that many places later.
    @inline(__always)
    mutating func prefetchUpcoming() {
        guard let e = queue.upcoming(World.bucketPrefetchLimit &- 1) else { return }
        let c = Int(e.client)
        guard c >= 0 && c < clients.count else { return }
        shadowAnchors.withUnsafeBufferPointer { anchors in
            guard let anchorBase = anchors.baseAddress else { return }
            World.prefetchPlayer(c, clients: UnsafeRawPointer(clients.base), anchors: UnsafeRawPointer(anchorBase))
        }
    }

    /// Starts loading player `c`'s state — its first `bytes` — and sync anchors.
    @inline(__always)
    static func prefetchPlayer(_ c: Int, clients: UnsafeRawPointer, anchors: UnsafeRawPointer,
                               bytes: Int = MemoryLayout<ClientState>.stride) {
        let p = clients + c &* MemoryLayout<ClientState>.stride
        // Every cache line the first `bytes` touch (the state need not start on a line).
        let first = Int(bitPattern: p) & ~63, last = (Int(bitPattern: p) &+ bytes &- 1) & ~63
        var line = first
        while line <= last {
            prefetchCacheLine(UnsafeRawPointer(bitPattern: line)!)
            line &+= 64
        }
        let q = Int(bitPattern: anchors + c &* (World.referenceClockCount &* MemoryLayout<ShadowAnchor>.stride))
        line = q & ~63
        while line <= (q &+ World.referenceClockCount &* MemoryLayout<ShadowAnchor>.stride &- 1) & ~63 {
            prefetchCacheLine(UnsafeRawPointer(bitPattern: line)!)
            line &+= 64
        }
    }
}
