import SyncLabKernel

/// What the world keeps of one player's store fetch while it is out: the instants and the
/// server's stamps that the exchange is read from when the answer comes (`currentExchange`).
///
/// At any instant only the players with a request out need these 80 bytes, a small share of a
/// day's players: so they live in a pool (`RequestsInFlight`), not in every player's state.
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

    init(player: Int32) { self.player = player }
}

/// The pool of requests in flight: a slot each, taken when a player sends and given back when
/// the request is done with (answered, failed or dropped). A player keeps its slot across the
/// probes of a round. It grows to the most requests out at once and reuses what is given back,
/// the last given first, so the slots a run touches stay few and warm.
///
/// A player's state holds its slot (`ClientState.requestSlot`): the slot while it holds one,
/// −1 before its first request, and −2 − slot after giving it back, so that a test may still
/// read its last request while no other has taken the slot (`lastRequest`).
struct RequestsInFlight {
    private var slots: [RequestInFlight] = []
    private var free: [Int32] = []

    /// Slots in use now.
    var inUse: Int { slots.count - free.count }
    /// The most slots ever in use at once.
    var capacity: Int { slots.count }

    /// A slot for player p's request.
    mutating func take(for p: Int) -> Int32 {
        if let s = free.popLast() {
            slots[Int(s)] = RequestInFlight(player: Int32(p))
            return s
        }
        slots.append(RequestInFlight(player: Int32(p)))
        return Int32(slots.count - 1)
    }

    mutating func giveBack(_ s: Int32) { free.append(s) }

    /// Slot s, held by player p.
    subscript(s: Int32, of p: Int) -> RequestInFlight {
        @inline(__always) get {
            let r = slots[Int(s)]
            precondition(r.player == Int32(truncatingIfNeeded: p), "request slot \(s) read for player \(p), held by \(r.player)")
            return r
        }
        @inline(__always) set {
            precondition(slots[Int(s)].player == Int32(truncatingIfNeeded: p), "request slot \(s) written for player \(p)")
            slots[Int(s)] = newValue
        }
    }

    /// What slot s last held, if it was player p's.
    func last(_ s: Int32, of p: Int) -> RequestInFlight? {
        s >= 0 && Int(s) < slots.count && slots[Int(s)].player == Int32(truncatingIfNeeded: p) ? slots[Int(s)] : nil
    }
}

extension World {
    /// Player c's request in flight (`sendRequest` took its slot).
    subscript(requestOf c: Int) -> RequestInFlight {
        @inline(__always) get { requests[clients[c].requestSlot, of: c] }
        @inline(__always) set { requests[clients[c].requestSlot, of: c] = newValue }
    }

    /// A slot for the request player c is about to send: the one it holds (the next probe of a
    /// round), else a free one.
    @inline(__always)
    mutating func takeRequestSlot(_ c: Int) {
        if clients[c].requestSlot < 0 { clients[c].requestSlot = requests.take(for: c) }
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
