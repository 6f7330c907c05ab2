import Testing
import SyncLabKernel

/// A large block is ordinary memory with a stricter alignment: it must hold every byte asked
/// for, at the alignment asked for, whether or not the kernel backs it with huge pages.
@Suite struct LargeBlockTests {
    /// Sizes either side of one huge page, and a few pages with a partial last one.
    @Test(arguments: [64, 4_096, LargeBlock.hugePage - 8, LargeBlock.hugePage, LargeBlock.hugePage + 8,
                      3 * LargeBlock.hugePage + 1_000])
    func holdsEveryByteAtItsAlignment(byteCount: Int) {
        let block = LargeBlock.allocate(byteCount: byteCount, alignment: 64)
        defer { block.deallocate() }
        let address = Int(bitPattern: block)
        #expect(address % 64 == 0)
        // From one huge page up, the block starts on a huge page: its translation covers it.
        if byteCount >= LargeBlock.hugePage { #expect(address % LargeBlock.hugePage == 0) }
        // Every word written and read back: first, last, and a stride through the middle.
        let words = byteCount / 8
        let p = block.bindMemory(to: UInt64.self, capacity: words)
        var indices = Array(stride(from: 0, to: words, by: 509))
        indices.append(words - 1)
        for i in indices { p[i] = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 }
        for i in indices { #expect(p[i] == UInt64(i) &* 0x9E37_79B9_7F4A_7C15) }
    }

    /// A zeroed block reads as zeros everywhere (mapped from the kernel or cleared by hand, either
    /// side of `zeroedMappingBytes` and of one huge page), and holds what is written to it.
    @Test(arguments: [8, 4_096, LargeBlock.zeroedMappingBytes - 8, LargeBlock.zeroedMappingBytes,
                      LargeBlock.hugePage - 8, LargeBlock.hugePage, 3 * LargeBlock.hugePage + 1_000])
    func aZeroedBlockReadsZeroAndHoldsEveryByte(byteCount: Int) {
        let block = LargeBlock.allocateZeroed(byteCount: byteCount)
        defer { LargeBlock.deallocateZeroed(block, byteCount: byteCount) }
        let address = Int(bitPattern: block)
        #expect(address % 64 == 0)
        if byteCount >= LargeBlock.hugePage { #expect(address % LargeBlock.hugePage == 0) }
        let words = byteCount / 8
        let p = block.bindMemory(to: UInt64.self, capacity: words)
        var nonzero = 0
        for i in 0..<words where p[i] != 0 { nonzero += 1 }
        #expect(nonzero == 0)
        var indices = Array(stride(from: 0, to: words, by: 509))
        indices.append(words - 1)
        for i in indices { p[i] = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 | 1 }
        for i in indices { #expect(p[i] == UInt64(i) &* 0x9E37_79B9_7F4A_7C15 | 1) }
    }

    /// Blocks given back and taken again come back zeroed (a mapping is never reused dirty).
    @Test func aZeroedBlockTakenAgainIsZero() {
        for _ in 0..<3 {
            let byteCount = LargeBlock.hugePage + 4_096
            let block = LargeBlock.allocateZeroed(byteCount: byteCount)
            let p = block.bindMemory(to: UInt64.self, capacity: byteCount / 8)
            #expect(p[0] == 0 && p[byteCount / 8 - 1] == 0 && p[byteCount / 16] == 0)
            p.update(repeating: .max, count: byteCount / 8)
            LargeBlock.deallocateZeroed(block, byteCount: byteCount)
        }
    }

    /// An alignment stricter than a huge page is kept (the block is never less aligned than
    /// asked).
    @Test func keepsAStricterAlignment() {
        let alignment = 2 * LargeBlock.hugePage
        let block = LargeBlock.allocate(byteCount: LargeBlock.hugePage, alignment: alignment)
        defer { block.deallocate() }
        #expect(Int(bitPattern: block) % alignment == 0)
    }
}
