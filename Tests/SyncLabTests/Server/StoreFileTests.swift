import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct StoreFileTests {
    @Test func defaults() {
        let f = StoreFileFormat()
        #expect(f.overheadBytes == 120)
        #expect(f.bytesPerItem == 150)
        #expect(f.encrypted && f.base64)
        #expect(f.headerBytes == 300)
    }

    @Test func sixtyItemsIsAMultipleOfSixteenSoAFullBlockIsAdded() {
        // JSON 120 + 150 × 60 = 9120 = 570 × 16 → PKCS#7 adds 16 → 9136 → Base64 4 × ceil(9136 / 3)
        // = 4 × 3046 = 12 184 → + 300 headers = 12 484.
        let f = StoreFileFormat(overheadBytes: 120, bytesPerItem: 150, encrypted: true, base64: true, headerBytes: 300)
        #expect(f.responseBytes(items: 60) == 12_484)
        // Without Base64: 9136 + 300; without encryption: 4 × 3040 + 300; neither: 9120 + 300.
        #expect(StoreFileFormat(base64: false).responseBytes(items: 60) == 9_436)
        #expect(StoreFileFormat(encrypted: false).responseBytes(items: 60) == 12_460)
        #expect(StoreFileFormat(encrypted: false, base64: false).responseBytes(items: 60) == 9_420)
    }

    @Test func sevenItemsIsNotAMultipleOfSixteen() {
        // JSON 120 + 1050 = 1170 = 73 × 16 + 2 → pad 14 → 1184 → Base64 4 × ceil(394.67) = 1580 → 1880.
        #expect(StoreFileFormat().responseBytes(items: 7) == 1_880)
        // No encryption: 4 × ceil(1170 / 3) = 4 × 390 = 1560 → 1860. No Base64: 1184 + 300.
        #expect(StoreFileFormat(encrypted: false).responseBytes(items: 7) == 1_860)
        #expect(StoreFileFormat(base64: false).responseBytes(items: 7) == 1_484)
        #expect(StoreFileFormat(encrypted: false, base64: false).responseBytes(items: 7) == 1_470)
    }

    @Test func smallHandCases() {
        // Empty list: 120 → pad 8 → 128 → 4 × ceil(42.67) = 172 → 472.
        #expect(StoreFileFormat().responseBytes(items: 0) == 472)
        // 0 bytes of JSON: a full block of padding → 16 → 4 × 6 = 24; no headers.
        let bare = StoreFileFormat(overheadBytes: 0, bytesPerItem: 1, headerBytes: 0)
        #expect(bare.responseBytes(items: 0) == 24)
        // 15 bytes → 16 (pad 1) → 24; 16 → 32 (pad 16) → 4 × 11 = 44; 17 → 32 → 44.
        #expect(bare.responseBytes(items: 15) == 24)
        #expect(bare.responseBytes(items: 16) == 44)
        #expect(bare.responseBytes(items: 17) == 44)
        // Base64 alone: 1 → 4, 2 → 4, 3 → 4, 4 → 8.
        let b64 = StoreFileFormat(overheadBytes: 0, bytesPerItem: 1, encrypted: false, headerBytes: 0)
        #expect([0, 1, 2, 3, 4, 5, 6, 7].map { b64.responseBytes(items: $0) } == [0, 4, 4, 4, 8, 8, 8, 12])
    }

    @Test func closedFormsOverAGrid() {
        for overhead in [0, 1, 15, 16, 120, 333] {
            for perItem in [1, 7, 16, 150, 151] {
                for items in 0..<70 {
                    let json = overhead + perItem * items
                    let padded = json + (16 - json % 16)           // PKCS#7: always 1…16 bytes
                    #expect((padded - json) >= 1 && (padded - json) <= 16 && padded % 16 == 0)
                    func base64(_ n: Int) -> Int { 4 * ((n + 2) / 3) }
                    let enc = StoreFileFormat(overheadBytes: overhead, bytesPerItem: perItem, headerBytes: 300)
                    #expect(enc.responseBytes(items: items) == base64(padded) + 300)
                    #expect(base64(padded) % 4 == 0 && base64(padded) * 3 >= padded * 4)
                    let plain = StoreFileFormat(overheadBytes: overhead, bytesPerItem: perItem, encrypted: false,
                                                base64: false, headerBytes: 300)
                    #expect(plain.responseBytes(items: items) == json + 300)
                }
            }
        }
    }

    @Test func responseGrowsWithItems() {
        let f = StoreFileFormat()
        for items in 0..<200 { #expect(f.responseBytes(items: items + 1) > f.responseBytes(items: items)) }
    }

    @Test func publishedFileListsItsCoverageHalfOpen() {
        let file = PublishedFile(version: 3, publishedAt: SimTime(ns: 5), coverageStart: [10, 20, 30],
                                 coverage: [100, 50, 30], items: 4, responseBytes: 1_000)
        #expect(file.latestCoverage == 100)
        #expect(file.lists(10, position: 0))
        #expect(file.lists(99, position: 0))
        #expect(!file.lists(100, position: 0))
        #expect(!file.lists(9, position: 0))
        #expect(file.lists(20, position: 1) && !file.lists(50, position: 1))
        // An empty range lists nothing.
        #expect(!file.lists(30, position: 2))
        let empty = PublishedFile(version: 0, publishedAt: .zero, coverageStart: [], coverage: [], items: 0,
                                  responseBytes: 0)
        #expect(empty.latestCoverage == .min)
    }
}
