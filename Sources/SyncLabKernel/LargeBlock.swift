#if canImport(Glibc)
import Glibc
#endif

/// Memory for the tables the event loop reads at random: players' state, the histogram banks,
/// the event queue's pool.
///
/// A million players' state is 448 MB, and the error histograms about 8 MB per world: with 4 KiB
/// pages, nearly every random access to them also misses the address translation cache, and
/// the processor walks the page tables before it can even start loading the line. On Linux a
/// block of 2 MiB or more is aligned to 2 MiB and marked for transparent huge pages
/// (`MADV_HUGEPAGE`), so one translation covers 512 times as much. It changes where memory
/// lies, never what it holds: a hint the kernel may ignore, as it does where huge pages are off.
public enum LargeBlock {
    /// The huge page size on x86-64 and arm64 Linux.
    public static let hugePage = 2 << 20

    /// Uninitialized memory of `byteCount` bytes, aligned to at least `alignment`; free it with
    /// `deallocate()`.
    public static func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        guard byteCount >= hugePage else {
            return .allocate(byteCount: byteCount, alignment: alignment)
        }
        // Whole huge pages, so that the block's last one is not shared with other allocations.
        let rounded = (byteCount + hugePage - 1) / hugePage * hugePage
        let block = UnsafeMutableRawPointer.allocate(byteCount: rounded, alignment: max(alignment, hugePage))
        #if os(Linux) && canImport(Glibc)
        _ = madvise(block, rounded, MADV_HUGEPAGE)
        #endif
        return block
    }
}
