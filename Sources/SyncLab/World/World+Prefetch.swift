/// A hint to the CPU to start loading the cache line at `address` (LLVM's prefetch intrinsic:
/// read, high locality, data cache). It never faults and changes no value, only timing.
@_silgen_name("llvm.prefetch.p0")
func _cachePrefetch(_ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ data: Int32)

extension World {
    /// How far ahead in the viewing list the sample loop prefetches: a million players' state
    /// does not fit in any cache, and each sampled player otherwise costs several misses in turn.
    static let sampleLookahead = 8

    /// Starts loading player `c`'s state and sync anchors (about eight cache lines).
    @inline(__always)
    static func prefetchPlayer(_ c: Int, clients: UnsafeRawPointer, anchors: UnsafeRawPointer) {
        let p = clients + c &* MemoryLayout<ClientState>.stride
        var line = 0
        while line < MemoryLayout<ClientState>.stride {   // every cache line of the state
            _cachePrefetch(p + line, 0, 3, 1)
            line &+= 64
        }
        let q = anchors + c &* (World.referenceClockCount &* MemoryLayout<ShadowAnchor>.stride)
        _cachePrefetch(q, 0, 3, 1)
        _cachePrefetch(q + 64, 0, 3, 1)
    }
}
