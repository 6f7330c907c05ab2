import SyncLabKernel

/// What the world keeps of one player's store fetch while it is out: the instants and the
/// server's stamps that the exchange is read from when the answer comes (`currentExchange`).
///
/// At any instant only the players with a request out need these 80 bytes (with the padding),
/// a small share of a day's players: so they live in a pool (`RequestsInFlight`), not in every
/// player's state.
struct RequestInFlight {
    /// When the client read its send clock, and when the request's last byte left the device.
    var sentAt = SimTime.zero
    var uploadCompleteAt = SimTime.zero
    /// When the server took the request and when its response left (true time).
    var arrivedAt = SimTime.zero
    var leftAt = SimTime.zero
    /// When the response's headers (and the server's stamps in them) arrived, for a design
    /// that reads them.
    var headersAt = SimTime.zero
    /// The server's stamp; its untruncated clock when it stamped, and its offset from true time.
    var timestamp: Int64 = 0
    var exactStamp: Int64 = 0
    var serverOffset: Int64 = 0
    /// The store file the answer carries.
    var file: Int32 = -1
    /// Whose request the slot holds (a read by anyone else is a mistake, caught).
    var player: Int32
    /// The fleet's index of the server answering it (a fleet has at most 1000 servers).
    var server: UInt16 = 0
    /// Once given back, the slot given back before it (`RequestsInFlight`; in the padding).
    fileprivate var nextFree: Int32 = -1

    init(player: Int32) { self.player = player }

    init(player: Int32, sentAt: SimTime, uploadCompleteAt: SimTime) {
        (self.player, self.sentAt, self.uploadCompleteAt) = (player, sentAt, uploadCompleteAt)
    }

    /// The server's stamp on the request: what it carries, the stamping server's exact clock
    /// then, its offset from true time and which server it is.
    mutating func stamp(_ timestamp: Int64, exact: Int64, serverOffset: Int64, server: Int) {
        (self.timestamp, exactStamp, self.serverOffset, self.server) = (timestamp, exact, serverOffset, UInt16(server))
    }

    /// The server answers with store file `file`: the request reached it at `arrivedAt` and
    /// the response leaves at `leftAt`.
    mutating func answer(file: Int, arrivedAt: SimTime, leftAt: SimTime) {
        (self.file, self.arrivedAt, self.leftAt) = (Int32(file), arrivedAt, leftAt)
    }
}

/// The pool of requests in flight: a slot each, taken when a player sends and given back when
/// the request is done with (answered, failed or dropped). A player keeps its slot across the
/// probes of a round. It grows to the most requests out at once and reuses what is given back,
/// the last given first, so the slots a run touches stay few and warm.
///
/// A player's state holds its slot (`ClientState.requestSlot`): the slot while it holds one,
/// −1 before its first request, and −2 − slot after giving it back, so that a test may still
/// read its last request while no other has taken the slot (`lastRequest`).
///
/// Slots are read and written in place, through their address, as the players' state is
/// (`StateTable`): a copy in and out of an array on every write of one field made R1 18%
/// slower. So copies of a pool share its slots, as copies of a table do, and the world copies
/// the pool before running when it is shared (`World.ensureUniqueState`). Every slot index and
/// holder is checked, in release builds too.
struct RequestsInFlight {
    /// Owns the slots' memory: freed when the last pool sharing it goes. (A slot holds no
    /// references, so nothing in it needs deinitializing.)
    final class Block {
        let base: UnsafeMutablePointer<RequestInFlight>
        let room: Int
        init(room: Int) { (self.room, base) = (room, .allocate(capacity: room)) }
        deinit { base.deallocate() }
    }

    // The address and the count beside the block, as in `StateTable`: read from the pool
    // itself, not from the object, they need no access check.
    private var block = Block(room: 64)
    private var base: UnsafeMutablePointer<RequestInFlight>
    /// The most slots ever in use at once: slots 0..<capacity are made.
    private(set) var capacity = 0
    /// The slot given back last (−1: none), the top of a stack of them chained through their
    /// `nextFree` fields (a stack in the slots themselves: no array to check and grow per request).
    private var freeTop: Int32 = -1
    /// Slots given back and not taken again.
    private var freeCount = 0

    init() { base = block.base }

    /// Slots in use now.
    var inUse: Int { capacity - freeCount }

    /// A slot for `fresh`, a request of player `fresh.player`.
    @inline(__always)
    mutating func take(_ fresh: RequestInFlight) -> Int32 {
        let s = freeTop
        if s >= 0 {
            freeTop = base[Int(s)].nextFree
            freeCount -= 1
            base[Int(s)] = fresh
            return s
        }
        if capacity == block.room { moveTo(Block(room: 2 * block.room)) }
        (base + capacity).initialize(to: fresh)
        capacity += 1
        return Int32(capacity - 1)
    }

    /// Slot s is done with. What it held stays until it is taken again (`last`).
    @inline(__always)
    mutating func giveBack(_ s: Int32) {
        base[Int(s)].nextFree = freeTop
        freeTop = s
        freeCount += 1
    }

    private mutating func moveTo(_ bigger: Block) {
        bigger.base.initialize(from: base, count: capacity)
        (block, base) = (bigger, bigger.base)
    }

    /// Slot s, which player p must hold.
    @inline(__always)
    func address(_ s: Int32, of p: Int) -> UnsafeMutablePointer<RequestInFlight> {
        precondition(UInt(bitPattern: Int(s)) < UInt(capacity), "request slot \(s) out of range")
        let q = base + Int(s)
        precondition(q.pointee.player == Int32(truncatingIfNeeded: p), "request slot \(s) is not player \(p)'s")
        return q
    }

    subscript(s: Int32, of p: Int) -> RequestInFlight {
        @inline(__always) unsafeAddress { UnsafePointer(address(s, of: p)) }
        @inline(__always) nonmutating unsafeMutableAddress { address(s, of: p) }
    }

    /// What slot s last held, if it was player p's.
    func last(_ s: Int32, of p: Int) -> RequestInFlight? {
        guard s >= 0 && Int(s) < capacity, base[Int(s)].player == Int32(truncatingIfNeeded: p) else { return nil }
        return base[Int(s)]
    }

    /// Whether no other pool shares these slots (then writing to them changes no other).
    mutating func isUnique() -> Bool { isKnownUniquelyReferenced(&block) }

    /// An independent pool with the same slots.
    func copy() -> RequestsInFlight {
        var c = self
        c.moveTo(Block(room: block.room))
        return c
    }
}

extension World {
    /// Player c's request in flight (`sendRequest` took its slot).
    subscript(requestOf c: Int) -> RequestInFlight {
        @inline(__always) unsafeAddress { UnsafePointer(requests.address(clients[c].requestSlot, of: c)) }
        @inline(__always) mutating unsafeMutableAddress { requests.address(clients[c].requestSlot, of: c) }
    }

    /// Player c sends `request`: into the slot it holds (the next probe of a round), else a
    /// free one.
    @inline(__always)
    mutating func takeRequestSlot(_ c: Int, for request: RequestInFlight) {
        let s = clients[c].requestSlot
        if s >= 0 {
            self[requestOf: c] = request
        } else {
            clients[c].requestSlot = requests.take(request)
        }
    }

    /// Player c is done with its request (answered, failed or dropped): its slot goes back.
    @inline(__always)
    mutating func giveBackRequestSlot(_ c: Int) {
        let s = clients[c].requestSlot
        guard s >= 0 else { return }
        requests.giveBack(s)
        clients[c].requestSlot = -2 - s
    }

    /// Player c's last request, answered or not, while no other request has taken its slot: for
    /// tests that look at an exchange after it completed.
    func lastRequest(of c: Int) -> RequestInFlight? {
        let s = clients[c].requestSlot
        return requests.last(s >= 0 ? s : -2 - s, of: c)
    }
}
