#if canImport(Glibc)
import Glibc
#endif

/// Memory for the tables the event loop reads at random: players' state, the histogram banks,
/// the event queue's pool.
///
/// A million players' state is 512 MB, and the error histograms about 8 MB per world: with 4 KiB
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
        let rounded = wholeHugePages(byteCount)
        let block = UnsafeMutableRawPointer.allocate(byteCount: rounded, alignment: max(alignment, hugePage))
        #if os(Linux) && canImport(Glibc)
        _ = madvise(block, rounded, MADV_HUGEPAGE)
        #endif
        return block
    }

    /// Zeroed memory of `byteCount` bytes, 64-byte aligned (2 MiB aligned from one huge page up);
    /// give it back with `deallocateZeroed(_:byteCount:)` and the same count.
    ///
    /// For tables mostly left at zero, such as histograms, of which a run touches a few buckets:
    /// from `zeroedMappingBytes` up the block is mapped straight from the kernel, whose pages
    /// read as zero and are given memory only when first written. Clearing it by hand would
    /// have the kernel supply and zero every page at once, then write each again (the reference
    /// fleet at 100k players peaked 32 MiB higher so, for histogram buckets it never fills).
    public static func allocateZeroed(byteCount: Int) -> UnsafeMutableRawPointer {
        #if os(Linux) && canImport(Glibc)
        if byteCount >= zeroedMappingBytes {
            // Page-aligned as mapped; from one huge page up, whole huge pages on a huge page
            // boundary, mapped with one huge page of slack and trimmed.
            let huge = byteCount >= hugePage
            let length = mappedLength(byteCount)
            let span = huge ? length + hugePage : length
            guard let raw = mmap(nil, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                  raw != MAP_FAILED else {
                fatalError("LargeBlock: cannot map \(span) bytes")
            }
            guard huge else { return raw }
            let start = wholeHugePages(Int(bitPattern: raw))   // the first huge page boundary in it
            let head = start - Int(bitPattern: raw)
            let block = raw + head
            if head > 0 { munmap(raw, head) }
            if span - head - length > 0 { munmap(block + length, span - head - length) }
            _ = madvise(block, length, MADV_HUGEPAGE)
            return block
        }
        #endif
        let block = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 64)
        block.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        return block
    }

    /// Gives back a block from `allocateZeroed(byteCount:)`.
    public static func deallocateZeroed(_ block: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux) && canImport(Glibc)
        if byteCount >= zeroedMappingBytes {
            munmap(block, mappedLength(byteCount))
            return
        }
        #endif
        block.deallocate()
    }

    /// The bytes a zeroed block maps: whole huge pages from one up (whole pages below, which the
    /// kernel rounds to).
    private static func mappedLength(_ byteCount: Int) -> Int {
        byteCount >= hugePage ? wholeHugePages(byteCount) : byteCount
    }

    /// `byteCount` (or an address) rounded up to whole huge pages.
    private static func wholeHugePages(_ byteCount: Int) -> Int {
        (byteCount + hugePage - 1) / hugePage * hugePage
    }

    /// From this size a zeroed block is its own mapping: below it, a page or two cleared by hand
    /// cost less than a mapping.
    public static let zeroedMappingBytes = 64 << 10
}
