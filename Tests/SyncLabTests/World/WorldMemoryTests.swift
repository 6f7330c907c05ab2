import Testing
@testable import SyncLab
import SyncLabKernel

/// The memory estimate's per-player figure covers what a world actually keeps per player.
@Suite struct WorldMemoryTests {
    @Test func bytesPerPlayerCoversTheWorldsPerPlayerState() {
        let client = MemoryLayout<ClientState>.stride   // the reference-clock anchors included
        let slot = MemoryLayout<Int32>.stride                                   // viewingSlot
        // The event queue reserves three ring entries (in chunks of ten per 256 bytes, about 26 B
        // each: counted here as entry + 4) and one heap entry per player.
        // An entry is (time, sequence, event), padded to 8 bytes.
        let entry = (16 + MemoryLayout<WorldEvent>.stride + 7) / 8 * 8
        let queue = 3 * (entry + MemoryLayout<Int32>.stride) + entry
        let measured = client + slot + queue
        let parts = "client \(client) B, slot \(slot) B, queue \(queue) B = \(measured) B"
        #expect(Scenario.bytesPerPlayer >= measured, "\(parts)")
        #expect(Scenario.bytesPerPlayer <= measured + 128, "\(parts)")   // and not far above it
    }

    /// An event is 8 bytes, so a queue entry (time, sequence, event) is 24 and a 256-byte chunk
    /// of the calendar holds ten; every kind and every client in range comes back as packed,
    /// the world's own events' −1 and the plan's highest slot included.
    @Test func eventsPackTheirClientAndKindInOneWord() {
        #expect(MemoryLayout<WorldEvent>.stride == 8)
        #expect(WorldEvent.Kind.allCases.count <= 1 << Int(WorldEvent.kindBits))
        #expect(WorldEvent.clientLimit == 67_108_864)
        #expect(WorldEvent.clientLimit > 20_000_000)   // the loader's most players
        let clients: [Int32] = [-1, 0, 1, 19_999_999, Int32(WorldEvent.clientLimit - 1), -Int32(WorldEvent.clientLimit)]
        for kind in WorldEvent.Kind.allCases {
            for client in clients {
                let e = WorldEvent(client: client, kind: kind, epoch: .max)
                #expect(e.client == client && e.kind == kind && e.epoch == .max)
            }
        }
        // The queue's entry: time, sequence, event.
        #expect(MemoryLayout<(Int64, UInt64, WorldEvent)>.stride == 24)
    }

    /// A finished shard hands over its records and lets its world go, so the players' state is
    /// freed before the shards' records are merged (`Simulation.run`): what the records hold
    /// is the world's own, and the block of the players' state has no owner left.
    @Test func aFinishedShardLetsItsPlayersGo() throws {
        var scenario = try DeterminismTests.shipped("v115-uptime.json")
        scenario.population.players = 40
        scenario.duration = 20 * .minute
        let shard = ShardBox(World(scenario: scenario))
        shard.world.run(until: SimTime(ns: scenario.duration))
        weak var players = shard.world.clients.storage
        #expect(players != nil)
        let expected = shard.world.finish()
        let events = shard.world.loop.queue.scheduledCount
        let done = shard.finish()
        #expect(shard.world == nil)
        #expect(players == nil)
        #expect(done.events == events && events > 0)
        let got = done.records.finish(eventsScheduled: done.events, files: [])
        #expect(got.samples == expected.samples && got.samples > 0)
        #expect(got.clientError == expected.clientError && got.responses == expected.responses)
    }

    /// A player's state fills whole cache lines, and what a sample reads (with the reference
    /// clocks' anchors) fits in the first four: the event loop at a million players waits on
    /// the lines it loads (see `World.prefetchPlayer`).
    @Test func playerStateFillsWholeCacheLines() {
        #expect(MemoryLayout<ClientState>.stride % 64 == 0, "stride \(MemoryLayout<ClientState>.stride): adjust the padding")
        #expect(ClientState.sampledBytes <= 4 * 64)
        #expect(ClientState.sampledBytes <= ClientState.displayBytes)
        #expect(ClientState.displayBytes < MemoryLayout<ClientState>.stride)
        // The figures docs/performance.md gives ("Memory per player").
        #expect(MemoryLayout<ClientState>.stride == 448 && ClientState.sampledBytes == 256 && ClientState.displayBytes == 344,
                "\(MemoryLayout<ClientState>.stride) \(ClientState.sampledBytes) \(ClientState.displayBytes)")
        #expect(MemoryLayout<RequestInFlight>.stride == 80)
        let table = StateTable([ClientState](repeating: ClientState(device: DeviceState(driftPPB: 0, wallOffset: 0, bootTime: .zero, epochUnix: 0),
                                                                    link: 0, seed: 1, index: 0), count: 3))
        #expect(Int(bitPattern: table.base) % 64 == 0)
    }
}
