import Testing
@testable import SyncLab

/// Work shared out over the cores comes back whole and in order, however it is cut into blocks
/// (more blocks than items, blocks that do not divide the items, one item, none).
@Suite struct ConcurrentMapTests {
    @Test func everyIndexOnceInOrder() {
        for count in [0, 1, 2, 10, 8_193] {
            for blocks in [nil, 1, 3, 8, 16, 64] as [Int?] {
                #expect(concurrentMap(count, blocks: blocks) { $0 * $0 } == (0..<count).map { $0 * $0 })
            }
        }
    }
}
