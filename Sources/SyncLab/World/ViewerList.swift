/// The players with the Store on screen, for sampling. Removal swaps the last one into the
/// gap, so the order depends only on the events, never on addresses.
struct ViewerList {
    private(set) var players: [Int32] = []
    /// Each player's place in `players` (−1: not viewing).
    private var slot: [Int32]

    init(count: Int) { slot = [Int32](repeating: -1, count: count) }

    var count: Int { players.count }
    subscript(i: Int) -> Int { Int(players[i]) }

    mutating func add(_ c: Int) {
        slot[c] = Int32(players.count)
        players.append(Int32(c))
    }

    mutating func remove(_ c: Int) {
        let at = Int(slot[c])
        let last = players.removeLast()
        if Int(last) != c {
            players[at] = last
            slot[Int(last)] = Int32(at)
        }
        slot[c] = -1
    }
}
