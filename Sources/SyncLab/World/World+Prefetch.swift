import SyncLabKernel

extension World {
    /// How far ahead in the viewing list the sample loop prefetches: a million players' state
    /// does not fit in any cache, and each sampled player otherwise costs several misses in turn.
    static let sampleLookahead = 8

    /// Starts loading the state of the players with events in the queue's current bucket: the
    /// event loop visits players in no locality order, so each event otherwise begins with
    /// several cache misses in turn.
    mutating func prefetchPlayers(ofCurrentBucket: Void) {
        let count = clients.count
        clients.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            queue.forEachInCurrentBucket { e in
                let c = Int(e.client)
                guard c >= 0 && c < count else { return }   // server events and database slots
                let p = UnsafeRawPointer(base + c)
                var line = 0
                while line < MemoryLayout<ClientState>.stride {
                    prefetchCacheLine(p + line)
                    line &+= 64
                }
            }
        }
    }

    /// Starts loading player `c`'s state and sync anchors (about eight cache lines).
    @inline(__always)
    static func prefetchPlayer(_ c: Int, clients: UnsafeRawPointer, anchors: UnsafeRawPointer) {
        let p = clients + c &* MemoryLayout<ClientState>.stride
        var line = 0
        while line < MemoryLayout<ClientState>.stride {   // every cache line of the state
            prefetchCacheLine(p + line)
            line &+= 64
        }
        let q = anchors + c &* (World.referenceClockCount &* MemoryLayout<ShadowAnchor>.stride)
        prefetchCacheLine(q)
        prefetchCacheLine(q + 64)
    }
}
