import Testing
@testable import SyncLab
import SyncLabKernel

/// The memory estimate's per-player figure covers what a world actually keeps per player.
@Suite struct WorldMemoryTests {
    @Test func bytesPerPlayerCoversTheWorldsPerPlayerState() {
        let client = MemoryLayout<ClientState>.stride
        let anchors = World.referenceClockCount * MemoryLayout<ShadowAnchor>.stride
        let slot = MemoryLayout<Int32>.stride                                   // viewingSlot
        // The event queue reserves three ring nodes (entry + link) and one heap entry per player.
        // An entry is (time, sequence, event), padded to 8 bytes.
        let entry = (16 + MemoryLayout<WorldEvent>.stride + 7) / 8 * 8
        let queue = 3 * (entry + MemoryLayout<Int32>.stride) + entry
        let measured = client + anchors + slot + queue
        let parts = "client \(client) B, anchors \(anchors) B, slot \(slot) B, queue \(queue) B = \(measured) B"
        #expect(Scenario.bytesPerPlayer >= measured, "\(parts)")
        #expect(Scenario.bytesPerPlayer <= measured + 128, "\(parts)")   // and not far above it
    }
}
