import Testing
@testable import SyncLab
import SyncLabKernel

/// The memory estimate's per-player figure covers what a world actually keeps per player.
@Suite struct WorldMemoryTests {
    @Test func bytesPerPlayerCoversTheWorldsPerPlayerState() {
        let client = MemoryLayout<ClientState>.stride   // the reference-clock anchors included
        let slot = MemoryLayout<Int32>.stride                                   // viewingSlot
        // The event queue reserves three ring entries (in chunks of seven per 256 bytes, about 37 B
        // each: counted here as entry + 4) and one heap entry per player.
        // An entry is (time, sequence, event), padded to 8 bytes.
        let entry = (16 + MemoryLayout<WorldEvent>.stride + 7) / 8 * 8
        let queue = 3 * (entry + MemoryLayout<Int32>.stride) + entry
        let measured = client + slot + queue
        let parts = "client \(client) B, slot \(slot) B, queue \(queue) B = \(measured) B"
        #expect(Scenario.bytesPerPlayer >= measured, "\(parts)")
        #expect(Scenario.bytesPerPlayer <= measured + 128, "\(parts)")   // and not far above it
    }

    /// A player's state fills whole cache lines, and what a sample reads (with the reference
    /// clocks' anchors) fits in the first four: the event loop at a million players waits on
    /// the lines it loads (see `World.prefetchPlayer`).
    @Test func playerStateFillsWholeCacheLines() {
        #expect(MemoryLayout<ClientState>.stride % 64 == 0, "stride \(MemoryLayout<ClientState>.stride): adjust the padding")
        #expect(ClientState.sampledBytes <= 4 * 64)
        #expect(ClientState.sampledBytes <= ClientState.displayBytes)
        #expect(ClientState.displayBytes < MemoryLayout<ClientState>.stride)
        let table = StateTable([ClientState](repeating: ClientState(device: DeviceState(driftPPB: 0, wallOffset: 0, bootTime: .zero, epochUnix: 0),
                                                                    link: 0, seed: 1, index: 0), count: 3))
        #expect(Int(bitPattern: table.base) % 64 == 0)
    }
}
