import Foundation
import SyncLabKernel

/// The fleet that players share (a round-robin balancer, finite worker pools and their backlogs)
/// as its own part of the run, and the synchronisation that lets shards of players run on
/// several threads beside it and still give the one-thread result, byte for byte.
///
/// The method is conservative parallel discrete-event simulation (Chandy–Misra–Bryant), with
/// clocks in shared memory in place of null messages. A request cannot reach the fleet sooner
/// than its link's uplink lookahead after it is sent, nor can the fleet's answer change the
/// player sooner than the downlink lookahead after the request arrives (`LinkProfile.lookahead`:
/// the links' physical floors). So:
///
/// - a request's answer is due in its player's world at its arrival plus its link's downlink
///   lookahead, an instant fixed when it is sent, in the place among the player's events its
///   request reserved then;
/// - each shard publishes, after every event, the earlier of its next event and the first answer
///   due to it (`ShardClocks`): no request of its can be sent before;
/// - the fleet answers, in order of arrival (ties by player, then request), every request
///   arriving before S + the least uplink lookahead, S being the least of the shards' clocks: no
///   request still to come can arrive sooner (`answered`);
/// - a shard handles its events up to the first answer due to it, and there takes the answers
///   the fleet has; while some shard is still behind that request's arrival less the uplink
///   lookahead, it works ahead on the events of players with no answer due before them
///   (`workAhead`), and waits only if it has none.
///
/// Invariant: every answer a shard will receive is to a request it sent, and it handles none of
/// a player's events past an answer to that player not yet in its queue; each answer goes in
/// with its reserved sequence number, so each player's events come in the same order whatever
/// the number of shards; and the fleet answers one sequence of requests in one order fixed by
/// their arrival instants and names. Players meet nowhere else: a player's event reads only its
/// own state, the world's (changed only by the world's own events, which nobody works past but
/// a sample instant, whose viewing count no answer changes and whose per-player records each
/// player makes at its own next event, `World+Sampling`) and its own streams, and every merge
/// of results is a sum, a maximum or a sorted union. Hence any number of shards and threads
/// gives the same results.
///
/// Liveness: whenever a shard is not handling events (it waits, or it has left the run at its
/// limit L), its published clock is exact: the earliest of its next event, its first due answer
/// and L. So the shard with the least clock never waits for long: every other clock is at least
/// its due answer, its request's arrival plus a downlink lookahead, and the fleet may answer
/// requests arriving up to the uplink lookahead past that. It moves, the least clock rises, and
/// every shard reaches L. Hence a shard publishes when it leaves the run too: a trade can bring
/// only answers its players had given up on, which schedule nothing, and a shard that then left
/// without publishing held every shard that waited on it (`docs/model.md`, "Liveness").
///
/// Shards trade with the fleet once per answer, not per event, and wait only where one has run
/// ahead of another by more than the lookahead at an answer with nothing to work ahead on; then
/// they spin briefly and yield their core.
final class FleetCoordinator: @unchecked Sendable {
    let scenario: Scenario
    /// The least lookahead of any link the scenario uses, each way.
    let uplinkLead: Nanoseconds
    let downlinkLead: Nanoseconds
    /// Each shard's players (global indices), in order.
    let shardPlayers: [Range<Int>]
    private let clocks: any ShardClocks
    private let lock = makeFleetLock()
    // Guarded by `lock`.
    private let server: ServerSide
    private var fleet: ServingState
    /// What the fleet did in the window (served seconds, queue waits), merged into the results.
    private var records: MetricsRecorder
    /// Requests posted and not yet answered, in arrival order.
    private var pending = BinaryHeapQueue<FleetRequest>()
    /// Answers for each shard not yet taken into its queue.
    private var inbox: [[FleetAnswer]]
    /// Every request arriving before this instant has been answered.
    private var answered = Int64.min
    /// Requests answered (for tests and the run's statistics).
    private(set) var requestsAnswered = 0
    /// Times a shard traded with the fleet for a due answer, and times it then had to wait for
    /// another shard.
    private(set) var exchanges = 0
    private(set) var waits = 0
    private(set) var eventsWhileWaiting = 0
    /// Tests: each shard handles every event it may ahead of every trade, not only where it would
    /// wait, so the out-of-order path runs on any number of shards, one included.
    var worksAheadAlways = false

    init(scenario: Scenario, schedule: StoreSchedule, shardPlayers: [Range<Int>]) {
        self.scenario = scenario
        self.shardPlayers = shardPlayers
        uplinkLead = scenario.links.map { $0.lookahead(.uplink) }.min() ?? 0
        downlinkLead = scenario.links.map { $0.lookahead(.downlink) }.min() ?? 0
        precondition(uplinkLead + downlinkLead > 0, "a shared fleet needs links that take some time")
        let start = SimTime(ns: -scenario.warmup), end = SimTime(ns: scenario.duration)
        server = ServerSide(scenario, schedule: schedule, start: start, end: end, players: 0)
        fleet = server.serving!
        records = Measurement(scenario, schedule: schedule, players: 0..<0, server: server).recorder
        inbox = Array(repeating: [], count: shardPlayers.count)
        // One clock per shard, and one more that mirrors `answered` for shards that wait.
        clocks = makeShardClocks(shardPlayers.count + 1)
    }

    /// A copy of a coordinator with one shard, for a copy of its world (`World.ensureUniqueState`).
    func copy() -> FleetCoordinator {
        lock.lock(); defer { lock.unlock() }
        precondition(shardPlayers.count == 1, "only a world run alone copies its fleet")
        let other = FleetCoordinator(scenario: scenario, schedule: server.store.schedule, shardPlayers: shardPlayers)
        other.fleet = fleet
        other.records = records
        other.records.ensureUniqueTables()
        other.pending = pending
        other.inbox = inbox
        other.answered = answered
        other.requestsAnswered = requestsAnswered
        (other.exchanges, other.waits, other.eventsWhileWaiting) = (exchanges, waits, eventsWhileWaiting)
        other.worksAheadAlways = worksAheadAlways
        other.stallLimit = stallLimit
        other.clocks.store(0, clocks.load(0))
        return other
    }

    /// Whether a scenario's fleet keeps state its players share, so the fleet runs as its own
    /// part (else each request is answered when sent, in its player's world).
    static func isNeeded(for scenario: Scenario) -> Bool {
        scenario.server.hasServingModel && !scenario.server.answersEachRequestAlone && scenario.server.design == nil
    }

    /// The fleet's records so far, for the run's results.
    var fleetRecords: MetricsRecorder {
        lock.lock(); defer { lock.unlock() }
        return records
    }

    /// Shard k's next event is at `next` (or later): it sends nothing before then.
    @inline(__always)
    func publish(_ k: Int, next: Int64) { clocks.store(k, next) }

    /// Shard k's requests sent in its last event.
    func post(_ requests: inout [FleetRequest]) {
        lock.lock()
        for r in requests {
            precondition(r.at.ns >= answered, "a request reached the fleet behind its clock")
            pending.schedule(r, at: r.at, sequence: r.order)
        }
        lock.unlock()
        requests.removeAll(keepingCapacity: true)
    }

    /// Shard k, which can send nothing before `next`, needs an answer: the fleet answers what it
    /// safely can, and the shard takes the answers it has.
    func exchange(_ k: Int, next: Int64) -> [FleetAnswer] {
        lock.lock()
        defer { lock.unlock() }
        exchanges += 1
        clocks.store(k, next)
        advance()
        let answers = inbox[k]
        inbox[k] = []
        return answers
    }

    /// Shard k waits, without the lock, for the answer to a request arriving at `arrival`: until
    /// every other shard's clock has passed `arrival` less the uplink lookahead, when the fleet
    /// may answer it. Should that already hold (the answer due first was to another request of
    /// the same instant), until anything moves.
    ///
    /// The wait ends by the liveness argument (`docs/model.md`): the shard with the least clock
    /// never waits. Should no clock move for `stallLimit` (a bug, not a slow machine: the shard
    /// it waits for would have to be off its core for that long), the run stops with what it
    /// was waiting for rather than hang.
    func wait(_ k: Int, forArrival arrival: Int64, after seen: (others: Int64, answered: Int64)) {
        lock.lock(); waits += 1; lock.unlock()
        // Spinning suits shards that each have a core, and the wait is usually some events of
        // another shard's (microseconds); with more threads than cores (tests run in parallel,
        // `--threads` above the cores) the waiting one yields, so the one it waits for can run,
        // and sleeps only after a long wait. (Sleeping after 16k yields instead of a million
        // made `outage-fixed-retry --threads 4` slower in wall time on a loaded machine: 34 s
        // against 23 s, median of 3 paired runs.)
        var spins = 0, sleepsStill = 0
        var last = progress(k)
        while !mayAnswer(arrival: arrival, after: seen, now: last) {
            spins += 1
            if spins > 1 << 20 {
                usleep(Self.sleepMicroseconds)
                sleepsStill += 1
                if sleepsStill >= stallLimit.sleeps { stalled(k, arrival: arrival, seen: seen, now: last) }
            } else if spins > 256 {
                sched_yield()
            }
            let now = progress(k)
            if now != last { (last, sleepsStill) = (now, 0) }
        }
    }

    /// How long a waiting shard may see no clock move before the run stops as stalled: a minute,
    /// counted in sleeps (each at least `sleepMicroseconds`), so no host clock is read.
    struct StallLimit {
        var sleeps: Int
        static let standard = StallLimit(seconds: 60)
        init(seconds: Int) { sleeps = seconds * 1_000_000 / Int(FleetCoordinator.sleepMicroseconds) }
    }
    var stallLimit = StallLimit.standard
    static let sleepMicroseconds: useconds_t = 100

    private func stalled(_ k: Int, arrival: Int64, seen: (others: Int64, answered: Int64),
                         now: (others: Int64, answered: Int64)) -> Never {
        let values = (0...shardPlayers.count).map { String(clocks.load($0)) }.joined(separator: ", ")
        fatalError("""
            internal error: the shards of a run stopped making progress (shard \(k) of \(shardPlayers.count) waits \
            for the fleet to answer a request arriving at \(arrival) ns; the least other clock is \(now.others) ns, \
            it was \(seen.others) ns at the trade; clocks, then the fleet's: \(values)). Please report it with the \
            scenario; --threads 1 runs without shards.
            """)
    }

    /// Whether the fleet may now answer a request of shard k's arriving at `arrival`: every
    /// other shard's clock has passed it less the uplink lookahead. Should that already have held
    /// when k last traded (`seen`: the answer due first was to another request of the same
    /// instant), whether anything has moved since.
    @inline(__always)
    func mayAnswer(_ k: Int, arrival: Int64, after seen: (others: Int64, answered: Int64)) -> Bool {
        mayAnswer(arrival: arrival, after: seen, now: progress(k))
    }

    @inline(__always)
    private func mayAnswer(arrival: Int64, after seen: (others: Int64, answered: Int64),
                           now: (others: Int64, answered: Int64)) -> Bool {
        let target = arrival &- uplinkLead
        return seen.others > target ? now != seen : now.others > target
    }

    /// Counts the events a shard handled while the fleet could not yet answer it.
    func handledWhileWaiting(_ count: Int) {
        lock.lock(); eventsWhileWaiting += count; lock.unlock()
    }

    /// The least clock of the shards other than k (`Int64.max` when k is alone), and how far the
    /// fleet has answered: read without the lock.
    func progress(_ k: Int) -> (others: Int64, answered: Int64) {
        var least = Int64.max
        for j in shardPlayers.indices where j != k { least = min(least, clocks.load(j)) }
        return (least, clocks.load(shardPlayers.count))
    }

    /// Answers every request that no request still to come can arrive before.
    private func advance() {
        // A shard's clock is never past an answer due to it (it holds the due instant from the
        // send on), and an answer can make its player send again no sooner than it is due: the
        // clocks alone bound every request still to come.
        var bound = Int64.max
        for k in shardPlayers.indices { bound = min(bound, clocks.load(k)) }
        let horizon = bound.addingSaturating(uplinkLead)
        while let at = pending.nextTime, at.ns < horizon, let (_, r) = pending.pop() {
            let outcome = fleet.answer(r, scenario: scenario, timeline: server.timeline, recorder: &records)
            requestsAnswered += 1
            guard r.answerAt != .never else { continue }
            inbox[shard(of: r.player)].append(FleetAnswer(request: r, outcome: outcome))
        }
        answered = max(answered, horizon)
        clocks.store(shardPlayers.count, answered)
    }

    private func shard(of player: Int) -> Int {
        var lo = 0, hi = shardPlayers.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if shardPlayers[mid].lowerBound <= player { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}

/// A world's tie to the fleet's part of the run.
struct FleetLink {
    var coordinator: FleetCoordinator
    let shard: Int
    /// When the answers to this world's requests still with the fleet are due (with each
    /// request's arrival), and those that have come (removed from `due` lazily: answers come in
    /// order of arrival, not of due time).
    var due = BinaryHeapQueue<Int64>()
    var came = BinaryHeapQueue<Void>()
    /// Each player (index in the world) with requests at the fleet whose answers have not come:
    /// how many, and the earliest instant one is due (held until none is left).
    var atFleet: [Int32: (count: Int32, due: Int64)] = [:]
    /// The clock this world last published.
    var published = Int64.min
    /// The world made the coordinator itself (a world run alone): its results include the fleet's.
    let ownsCoordinator: Bool

    init(coordinator: FleetCoordinator, shard: Int, ownsCoordinator: Bool) {
        self.coordinator = coordinator
        self.shard = shard
        self.ownsCoordinator = ownsCoordinator
    }

    /// The first instant an answer still with the fleet is due in this world (`Int64.max`: none).
    mutating func firstDue() -> Int64 {
        while let d = due.nextTime, let c = came.nextTime, d == c {
            _ = due.pop()
            _ = came.pop()
        }
        return due.nextTime?.ns ?? .max
    }

    /// The arrival of the request whose answer is due first (after `firstDue`).
    var firstDueArrival: Int64 { due.peekPayload ?? .min }
}

extension World {
    /// `runEvents` for a world whose players share the fleet: the same loop, stopping where an
    /// answer from the fleet is due to trade requests and answers with it (`FleetCoordinator`).
    ///
    /// Every answer this world can receive is to a request it sent, due at an instant fixed when
    /// it was sent: until the first of those, nothing from outside can change its players, and
    /// it runs on without asking anyone. There it takes what the fleet has answered; while
    /// another shard is still behind that request's arrival, it works ahead, or else waits.
    mutating func runCoupledEvents<C: DeviceClock, T: DeviceClock>(_ d: DesignClocks<C, T>) {
        guard var link = fleet else { return }
        let coordinator = link.coordinator, k = link.shard
        var loaded = loop.queue.bucketsLoaded
        while true {
            var due = link.firstDue()
            if measure.pendingSamples.count >= executor.pendingSampleLimit && pendingSamplesPrecede(firstDue: due) {
                catchUpAllSamples(d)
            }
            while handleNext(before: SimTime(ns: min(loop.runLimit.ns, due)), loaded: &loaded, d) {
                afterCoupledEvent(&link, due: &due)
            }
            if due >= loop.runLimit.ns { break }
            // Tests: as far ahead as the shard may go, before every trade (see below).
            if coordinator.worksAheadAlways { coordinator.handledWhileWaiting(workAhead(&link, due: &due, loaded: &loaded, d) { false }) }
            let seen = coordinator.progress(k)
            link.published = min(nextEventBound(), due)
            let answers = coordinator.exchange(k, next: link.published)
            for a in answers {
                link.came.schedule((), at: a.request.answerAt)
                let c = Int32(a.request.player - players.lowerBound)
                if let n = link.atFleet[c], n.count > 1 { link.atFleet[c]!.count -= 1 } else { link.atFleet[c] = nil }
                deliverAnswer(a)
            }
            guard answers.isEmpty else { continue }
            let arrival = link.firstDueArrival
            let handled = workAhead(&link, due: &due, loaded: &loaded, d) { coordinator.mayAnswer(k, arrival: arrival, after: seen) }
            if handled > 0 { coordinator.handledWhileWaiting(handled) } else { coordinator.wait(k, forArrival: arrival, after: seen) }
        }
        // Leaving, the world publishes the clock that holds until its next run (its run limit):
        // other shards may still wait on it, and a clock left at an answer it has since taken
        // (one its player had given up on, so no event followed) would hold them for good.
        let last = min(nextEventBound(), link.firstDue())
        if last != link.published {
            link.published = last
            coordinator.publish(k, next: last)
        }
        fleet = link
    }

    /// While the fleet cannot yet give the answer due first, handles the events that come next
    /// as long as each is of a player with no answer due at or before it, or a sample instant:
    /// players meet only at the fleet, so such an event comes out the same before another
    /// player's answer as after it, and its player's own events keep their order; a sample
    /// instant reads only the viewing count, which no answer changes, and each player records it
    /// with its own state at the first of its events past it (`World+Sampling`). Stops at an
    /// event of a player whose answer is due, at the world's other events (the server's jobs), or
    /// once `ready` (checked every eighth event: reading another shard's clock may miss the
    /// cache). The world's published clock stays at the answer due first, the earliest instant
    /// it can still send from. Returns the events handled.
    private mutating func workAhead<C: DeviceClock, T: DeviceClock>(_ link: inout FleetLink, due: inout Int64, loaded: inout UInt64,
                                                                   _ d: DesignClocks<C, T>, until ready: () -> Bool) -> Int {
        var handled = 0
        while handled & 7 != 0 || !ready(),
              let (t, e) = loop.queue.peek(before: loop.runLimit),
              e.kind.isPlayerEvent ? t.ns < link.atFleet[e.client]?.due ?? .max : e.kind == .sample,
              handleNext(before: loop.runLimit, loaded: &loaded, d) {
            afterCoupledEvent(&link, due: &due)
            if e.kind == .sample { executor.samplesWorkedPast &+= 1 }
            handled += 1
        }
        return handled
    }

    /// After each event of a coupled world: its requests go to the fleet, and the world publishes
    /// how soon it could send again.
    @inline(__always)
    private mutating func afterCoupledEvent(_ link: inout FleetLink, due: inout Int64) {
        if !fleetOutbox.isEmpty {
            for r in fleetOutbox where r.answerAt != .never {
                link.due.schedule(r.at.ns, at: r.answerAt)
                let c = Int32(r.player - players.lowerBound)
                let n = link.atFleet[c] ?? (0, .max)
                link.atFleet[c] = (n.count + 1, min(n.due, r.answerAt.ns))
                due = min(due, r.answerAt.ns)
            }
            link.coordinator.post(&fleetOutbox)
        }
        // Only a new value is written: a write takes the line from every shard reading it.
        let next = min(nextEventBound(), due)
        if next != link.published {
            link.published = next
            link.coordinator.publish(link.shard, next: next)
        }
    }

    /// No request of this world's can be sent before its next event, nor past its run limit
    /// (what happens between two calls of `run(until:)` starts there). Asked after every event:
    /// the queue loads its next bucket rather than scanning it (`loadingNextTime`).
    @inline(__always)
    mutating func nextEventBound() -> Int64 { min(loop.queue.loadingNextTime()?.ns ?? .max, loop.runLimit.ns) }
}

/// The shards' clocks, read by every thread: atomics where the system has them, else a lock.
protocol ShardClocks: Sendable {
    func load(_ k: Int) -> Int64
    func store(_ k: Int, _ value: Int64)
}

func makeShardClocks(_ count: Int) -> any ShardClocks {
    if #available(macOS 15.0, iOS 18.0, *) { return AtomicShardClocks(count) }
    return LockedShardClocks(count)
}

extension SimTime {
    /// An instant no event reaches: a request whose answer nobody hears.
    static let never = SimTime(ns: .max)
}

extension Int64 {
    /// self + d, held at the largest and smallest values instead of wrapping.
    @inline(__always)
    func addingSaturating(_ d: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(d)
        return overflow ? (d > 0 ? .max : .min) : sum
    }
}
