import Testing
@testable import SyncLab
import SyncLabKernel

/// What a test reads of a player after a run: its state and its last request (the request's
/// instants and stamps live in the world's pool, `RequestsInFlight`, not in the state).
@dynamicMemberLookup
struct PlayerSnapshot {
    let state: ClientState
    /// The player's last request, or an empty one (player −1) if it sent none or another
    /// player's request has taken its slot since.
    let request: RequestInFlight

    subscript<T>(dynamicMember path: KeyPath<ClientState, T>) -> T { state[keyPath: path] }
}

extension World {
    func player(_ c: Int) -> PlayerSnapshot {
        PlayerSnapshot(state: clients[c], request: lastRequest(of: c) ?? RequestInFlight(player: -1))
    }
}

@Suite struct RequestsInFlightTests {
    /// Slots are taken and given back last in, first out; the pool grows only when none is free,
    /// and a slot read for anyone but its holder is refused (the read is checked in release too).
    @Test func slotsAreReusedLastGivenFirst() {
        var pool = RequestsInFlight()
        let a = pool.take(RequestInFlight(player: 7)), b = pool.take(RequestInFlight(player: 8)), c = pool.take(RequestInFlight(player: 9))
        #expect((a, b, c) == (0, 1, 2))
        #expect(pool.inUse == 3 && pool.capacity == 3)
        pool[b, of: 8].sentAt = SimTime(ns: 42)
        #expect(pool[b, of: 8].sentAt.ns == 42)
        pool.giveBack(a)
        pool.giveBack(b)
        #expect(pool.inUse == 1)
        // The last given back comes first, fresh: nothing of player 8's request is left in it.
        let d = pool.take(RequestInFlight(player: 10))
        #expect(d == b && pool[d, of: 10].sentAt == .zero && pool[d, of: 10].file == -1)
        #expect(pool.take(RequestInFlight(player: 11)) == a)
        #expect(pool.take(RequestInFlight(player: 12)) == 3 && pool.capacity == 4)
        // Player 8's last request is gone with its slot; player 9 still holds its own.
        #expect(pool.last(b, of: 8) == nil)
        #expect(pool.last(c, of: 9)?.player == 9)
    }

    /// Through the world: a player holds a slot from its send to its answer, gives it back after,
    /// keeps it across the probes of a round, and a day's pool stays far below its players.
    @Test func aPlayerHoldsItsSlotOnlyWhileItsRequestIsOut() throws {
        var s = try DeterminismTests.shipped("v115-pausing.json")
        s.population.players = 2_000
        s.duration = 2 * .hour
        var world = World(scenario: s)
        var peak = 0, checks = 0
        var t = SimTime.zero
        while t.ns < s.duration {
            t = t + 7 * .second
            world.run(until: t)
            var out = 0
            for c in world.clients.indices {
                let p = world.clients[c]
                // A player holds a slot exactly while its request is out, and the slot is its own.
                #expect((p.requestSlot >= 0) == p.fetchInFlight)
                if p.requestSlot >= 0 {
                    #expect(world.lastRequest(of: c)?.player == Int32(c))
                    out += 1
                }
            }
            #expect(world.requests.inUse == out)
            peak = max(peak, out)
            checks += 1
        }
        #expect(peak > 0 && checks > 1000)
        #expect(world.requests.capacity < s.population.players / 10, "\(world.requests.capacity) slots for \(s.population.players) players")
    }
}
