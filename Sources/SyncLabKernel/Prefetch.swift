/// A hint to the CPU to start loading the cache line at `address` (LLVM's prefetch intrinsic:
/// read, high locality, data cache). It never faults and changes no value, only timing.
@usableFromInline @_silgen_name("llvm.prefetch.p0")
func _cachePrefetch(_ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ data: Int32)

/// Starts loading the cache line holding `address` (see `_cachePrefetch`).
///
/// Built for ThreadSanitizer (`make tsan` defines `SYNCLAB_NO_PREFETCH`), it does nothing: the
/// sanitizer's instrumentation wraps the call in an `invoke`, which LLVM refuses for this
/// intrinsic, and a hint that changes only timing has nothing to check.
@inlinable @inline(__always)
public func prefetchCacheLine(_ address: UnsafeRawPointer) {
    #if !SYNCLAB_NO_PREFETCH
    _cachePrefetch(address, 0, 3, 1)
    #endif
}
