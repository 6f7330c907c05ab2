import Testing
import SyncLabKernel
@testable import SyncLab

/// The event kinds' declarations (WorldEvent+Execution.swift) drive the shortcuts: which
/// scenarios take them, and which of a player's pending events their checks read. The runs
/// compare the shortcuts on with every event queued (`WorldEarlyEventsTests.both`).
@Suite struct WorldEventExecutionTests {
    typealias Kind = WorldEvent.Kind

    /// v1.1.5 on a server that answers at once and links without connection set-up, so
    /// responses complete inline and players run ahead, with no device events: each test
    /// switches on its own.
    static func idealised(players: Int = 300, duration: Nanoseconds = 2 * .hour) throws -> Scenario {
        let s = try WorldEarlyEventsTests.load("v115-idealised.json", players: players, duration: duration)
        #expect(s.server.answersEachRequestAlone && !s.devices.events.any && s.links.allSatisfy { $0.connection == nil })
        return s
    }

    /// Whether two runs differ in any figure `WorldEarlyEventsTests.expectSame` compares.
    static func differ(_ a: RunResult, _ b: RunResult) -> Bool {
        DeterminismTests.fingerprint(a) != DeterminismTests.fingerprint(b) || a.responses != b.responses
            || a.requestsSent != b.requestsSent || a.requestsFailed != b.requestsFailed || a.clientError != b.clientError
            || a.estimateError != b.estimateError || a.errorByClock.map(\.1) != b.errorByClock.map(\.1) || a.timeline != b.timeline
            || a.errorAttribution != b.errorAttribution || a.bounds != b.bounds || a.roundTrip != b.roundTrip
            || a.fetchSyncError != b.fetchSyncError
    }

    /// Every kind is listed; the world's own events are no player's and never pending for one;
    /// every mark is some player event's.
    @Test func everyKindDeclares() {
        #expect(Kind.allCases.count == Int(Kind.databaseRetry.rawValue) + 1)
        #expect(Kind.allCases.enumerated().allSatisfy { Int($0.element.rawValue) == $0.offset })
        for kind in Kind.allCases where !kind.isPlayerEvent {
            #expect(kind.pending == .never, "\(kind)")
        }
        #expect(Kind.allCases.filter(\.isDatabaseEvent) == [.databaseArrival, .databaseReply, .databaseFailed, .databaseCountdown, .databaseRetry])
        #expect(Kind.allCases.filter { !$0.isPlayerEvent && !$0.isDatabaseEvent } == [.cron, .publish, .sample])
        for mark in PendingMark.allCases {
            #expect(Kind.allCases.contains { $0.isPlayerEvent && $0.pending == .kept(mark) }, "\(mark)")
        }
    }

    /// A response waits for every other event of its player's but its own request's; a display
    /// tick for every other but its own.
    @Test func checksReadEveryOtherPlayerEvent() throws {
        let executor = Executor(try Self.idealised(), players: 300)
        #expect(executor.earlyResponseMarks == [PendingMarks(.displayDue), PendingMarks(.viewEnd), PendingMarks(.wallClockSyncDue),
                                          PendingMarks(.fetchOwed)])
        #expect(executor.earlyTickMarks == [PendingMarks(.viewEnd), PendingMarks(.wallClockSyncDue), PendingMarks(.requestInFlight),
                                         PendingMarks(.fetchOwed)])
    }

    /// `nonePending` reads every mark it is given, and no other: a state with one event pending
    /// at 100 ns (an instant kept, or a flag set) passes every set without its mark, fails every
    /// set with it at 100 ns and after, and an instant after 99 ns does not count at 99 ns.
    @Test func everyMarkIsRead() {
        let all = PendingMarks(rawValue: (1 << PendingMark.allCases.count) - 1)
        for mark in PendingMark.allCases {
            var s = ClientState(device: DeviceState(driftPPB: 0, wallOffset: 0, bootTime: .zero, epochUnix: 0), link: 0, seed: 1, index: 0)
            let instant: Bool
            switch mark {
            case .displayDue: s.displayDueAt = 100; instant = true
            case .viewEnd: s.viewEndAt = 100; instant = true
            case .wallClockSyncDue: s.wallClockSyncDue = 100; instant = true
            case .requestInFlight: s.fetchInFlight = true; instant = false
            case .fetchOwed: s.needsFetch = true; instant = false
            }
            let others = all.subtracting(PendingMarks(mark))
            #expect(s.nonePending(others, atOrBefore: 1_000), "\(mark)")
            #expect(!s.nonePending(PendingMarks(mark), atOrBefore: 100), "\(mark)")
            #expect(!s.nonePending(all, atOrBefore: 1_000), "\(mark)")
            #expect(s.nonePending(PendingMarks(mark), atOrBefore: 99) == instant, "\(mark)")
        }
    }

    /// Each device event on its own: the shortcuts are off exactly where a kind the scenario may
    /// produce is declared not followed (by hand: every device event but the wall clock's
    /// corrections without a frequency wander), the results are the queued run's either way,
    /// and the kinds the run schedules are among those `mayOccur` allows, the device event's
    /// own included.
    @Test func deviceEventsSwitchEarlyHandlingOffAsDeclared() throws {
        let base = try Self.idealised()
        var cases: [(label: String, kind: Kind?, scenario: Scenario, followedByHand: Bool)] = [("none", nil, base, true)]
        func with(_ label: String, _ kind: Kind, followed: Bool, _ change: (inout DeviceEventsConfig) -> Void) {
            var s = base
            change(&s.devices.events)
            cases.append((label, kind, s, followed))
        }
        let hourly = Distribution.exponential(mean: 3_600e9)
        with("reboots", .reboot, followed: false) { $0.reboots = .init(every: hourly) }
        with("appKills", .appKill, followed: false) { $0.appKills = .init(every: .exponential(mean: 600e9)) }
        with("wallClockChanges", .wallClockChange, followed: false) {
            $0.wallClockChanges = .init(every: hourly, jump: .normal(mean: 0, sd: 30e9))
        }
        with("tampering", .tamper, followed: false) {
            $0.tampering = .init(share: 0.5, advance: .constant(600e9), at: .uniform(min: 0, max: 3_600e9))
        }
        with("wallClockSync", .wallClockSync, followed: true) { $0.wallClockSync = .init(every: .exponential(mean: 300e9)) }
        with("wander", .wallClockWander, followed: false) {
            $0.wallClockSync = .init(every: .exponential(mean: 300e9), wander: .init(step: 10 * .minute, sigmaPPB: 50))
        }
        for (label, kind, s, followedByHand) in cases {
            let declared = !Kind.allCases.contains { $0.pending == .notFollowed && $0.mayOccur(in: s) }
            let on = Executor(s, players: s.population.players).handlesResponsesEarly
            #expect(declared == followedByHand && on == declared, "\(label)")
            let (inline, queued, handled, ahead, _) = WorldEarlyEventsTests.both(s)
            WorldEarlyEventsTests.expectSame(inline, queued, label)
            #expect(queued.responses > 100, "\(label)")
            #expect(on ? handled > 0 && ahead > 0 : handled == 0 && ahead == 0, "\(label)")
            // The kinds pending every 10 minutes of a run of the scenario.
            var seen = Set<Kind>()
            var world = World(scenario: s)
            for step in 1...12 {
                world.run(until: SimTime(ns: Int64(step) * 10 * .minute))
                var pending = world.loop.queue
                while let (_, e) = pending.pop() { seen.insert(e.kind) }
            }
            for k in seen { #expect(k.mayOccur(in: s), "\(label): \(k)") }
            if let kind { #expect(seen.contains(kind), "\(label)") }
        }
    }

    /// The checks read what the sets say: with a mark taken out of a shortcut's set, a scenario
    /// whose players have that event pending gets different results from the queued run. (The
    /// display tick's own mark is read by the response's check alone, the request's by the
    /// tick's alone.)
    @Test func eachMarkIsNeeded() throws {
        let shortSessions = try WorldEarlyEventsTests.shortSessions()
        // A design on the wall clock, which its corrections move, corrected every few seconds
        // (more often than a scenario file may ask), with sample instants minutes apart: many
        // responses complete inline and some straddle a correction.
        var corrected = try Self.idealised(players: 400)
        corrected.client.clock = WallClock()
        corrected.devices.events.wallClockSync = .init(every: .exponential(mean: 5e9))
        corrected.sampleEvery = 5 * .minute
        // A cold start that restores a stored sync before its refetch is due: when its first
        // request fails, its ticks do not fetch, and only the retry does.
        var lossy = try Self.idealised(players: 400)
        lossy.client.persistSync = true
        lossy.population.sessionsPerVisit = .constant(1)
        lossy.population.visitGap = .uniform(min: 30e9, max: 90e9)
        for k in lossy.links.indices {
            lossy.links[k].failure = 0.3
            lossy.links[k].timeout = 300 * .millisecond
        }
        let cases: [(PendingMark, inline: Bool, Scenario)] = [
            (.displayDue, true, try Self.idealised(players: 400)), (.viewEnd, true, shortSessions), (.viewEnd, false, shortSessions),
            (.wallClockSyncDue, true, corrected), (.wallClockSyncDue, false, corrected),
            (.requestInFlight, false, try Self.idealised(players: 400)), (.fetchOwed, false, lossy),
        ]
        for (mark, inline, s) in cases {
            let label = "\(mark) left out of the \(inline ? "response's" : "tick's") check"
            var queued = World(scenario: s)
            queued.executor.handlesResponsesEarly = false
            queued.executor.handlesTicksEarly = false
            let reference = queued.run()
            var fast = World(scenario: s)
            if inline { fast.executor.earlyResponseMarks.remove(PendingMarks(mark)) } else { fast.executor.earlyTickMarks.remove(PendingMarks(mark)) }
            let differs = Self.differ(fast.run(), reference)
            #expect(differs, "\(label)")
        }
    }
}
