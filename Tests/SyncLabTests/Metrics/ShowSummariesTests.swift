import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The per-change show summaries and the cross-player figures, against exact cases and closed
/// forms for viewers whose show offsets are independent Uniform(0, 1 s).
@Suite struct ShowSummariesTests {
    static let ms = Nanoseconds.millisecond

    // MARK: Bins

    /// Every offset falls inside its bin; bins run in value order; a bin is at most 1 ms wide
    /// inside ±1 s and at most 1/512 of its value beyond; the extremes of Int64 have bins.
    @Test func binsContainTheirValuesInOrderWithinTheResolution() {
        var rng = RandomStream(seed: 3, purpose: StreamPurpose("test-show-bins"))
        var values: [Int64] = [0, 1, -1, 999_999, 1_000_000, -1_000_000, -1_000_001, 999_999_999, 1_000_000_000,
                               -1_000_000_000, -1_000_000_001, 1 << 40, -(1 << 40), .max, .min]
        for _ in 0..<20_000 {
            let magnitude = Int64(rng.below(1 << UInt64(rng.below(62) + 1)))
            values.append(rng.unit() < 0.5 ? magnitude : -magnitude)
        }
        for x in values {
            let i = ShowBins.index(x)
            #expect(i >= 0 && i < ShowBins.count)
            let (lower, upper) = ShowBins.bounds(i)
            #expect(Double(x) >= lower && Double(x) < upper || x == .max || x == .min, "offset \(x) outside its bin")
            let width = upper - lower
            #expect(width <= Swift.max(1e6, abs(Double(x)) / 512 + 1))
        }
        let sorted = values.sorted()
        for (a, b) in zip(sorted, sorted.dropFirst()) { #expect(ShowBins.index(a) <= ShowBins.index(b)) }
        // Bin edges fall on whole milliseconds inside ±1 s: the centred window is whole bins.
        #expect(ShowBins.bounds(ShowBins.index(-250 * Self.ms)).lower == -250e6)
        #expect(ShowBins.bounds(ShowBins.index(250 * Self.ms - 1)).upper == 250e6)
    }

    // MARK: Exact cases

    /// Six viewers at 0, 100, 200, 600, 700 and 1,200 ms, counted by hand: the best 500 ms
    /// window holds 3 (0–200 or 200–700), the centred one [−250, 250) holds 3, and 8 of the 15
    /// pairs lie within 500 ms (0–100, 0–200, 100–200, 100–600, 200–600, 200–700, 600–700,
    /// 700–1200; a pair exactly 500 ms apart counts).
    @Test func sixViewersCountedByHand() {
        let offsets = [0, 100, 200, 600, 700, 1_200].map { Int64($0) * Self.ms }
        let row = TransitionRow.measure(time: 0, position: 0, offsets: offsets.shuffledDeterministically(), window: 500 * Self.ms)
        #expect(row.viewers == 6)
        #expect(row.gap == 1_200 * Self.ms)
        #expect(row.inBestWindow == 3)
        #expect(row.inCentredWindow == 3)
        #expect(row.pairsWithin == 8)
        #expect(row.pairs == 15)
        // Nearest rank of 6 values: p1 is the 1st (0 ms), p99 the 6th (1,200 ms).
        #expect(row.spread == 1_200 * Self.ms)
    }

    /// A cell keeps its values exactly up to the limit and bins them past it; either way the
    /// earliest and latest are exact and the counts add up. Splitting the same shows across
    /// shards in any way and merging gives the same bins.
    @Test(arguments: [40, 4_096, 4_097, 9_000])
    func shardsMergeToTheSameSummary(viewers: Int) {
        var rng = RandomStream(seed: 11, purpose: StreamPurpose("test-show-merge"))
        let offsets = (0..<viewers).map { _ in Int64(rng.below(4_000_000_000)) - 1_500_000_000 }
        let players = (0..<viewers).map { $0 * 7 }
        let whole = ShowSummaries(transitions: 3)
        for (x, p) in zip(offsets, players) { whole.append(x, to: 1, playerKey: ShowSummaries.playerKey(p)) }
        let wholeRows = whole.rows(Self.schedule(3), duration: 3, window: 500 * Self.ms)
        // Two shards split anywhere, and three (the third merged into the second first, as a
        // run's merges may nest): some parts exact and some binned when the total passes the limit.
        for (split, third) in [(1, viewers), (viewers / 3, viewers), (viewers - 1, viewers), (viewers / 3, 2 * viewers / 3)] {
            let a = ShowSummaries(transitions: 3), b = ShowSummaries(transitions: 3), c = ShowSummaries(transitions: 3)
            for (k, (x, p)) in zip(offsets, players).enumerated() {
                (k < split ? a : k < third ? b : c).append(x, to: 1, playerKey: ShowSummaries.playerKey(p))
            }
            var merged = a, rest = b
            rest.merge(c)
            merged.merge(rest)
            for level in 0..<ShowSummaries.levels {
                #expect(merged.bins(1, level: level) == whole.bins(1, level: level), "split \(split)/\(third), level \(level)")
                #expect(merged.viewers(1, level: level) == whole.viewers(1, level: level))
            }
            let rows = merged.rows(Self.schedule(3), duration: 3, window: 500 * Self.ms)
            #expect(rows.rows == wholeRows.rows && rows.subsets == wholeRows.subsets && rows.unviewed == wholeRows.unviewed)
        }
        #expect(whole.viewers(1) == viewers && whole.viewers(0) == 0)
        let bins = whole.bins(1)
        #expect(bins.reduce(0) { $0 + $1.count } == viewers)
        #expect(bins.allSatisfy { $0.lower == $0.upper } == (viewers <= ShowStore.exactLimit))
        let (rows, _, _) = whole.rows([.init(time: -1, position: 0, item: 0), .init(time: 5, position: 0, item: 1), .init(time: 9, position: 1, item: 0)],
                                      duration: 100, window: 500 * Self.ms)
        #expect(rows.count == 1)
        #expect(rows[0].earliest == offsets.min()! && rows[0].latest == offsets.max()!)
    }

    /// Exact values are kept in a variable number of bytes that may run over from one chunk
    /// into the next: every width, the extremes of Int64 and values on either side of each
    /// seven-bit step come back as they went in, in several cells filled in turn, and after a
    /// cell's chunks were given back and taken again by another.
    @Test func exactValuesComeBackWhateverTheirWidth() {
        var values: [Int64] = [0, 1, -1, 63, -64, 64, -65, .max, .min, .max - 1, .min + 1]
        for bits in stride(from: 6, through: 62, by: 7) {
            let edge = Int64(1) << bits
            values += [edge - 1, edge, -edge, -edge - 1]
        }
        var rng = RandomStream(seed: 5, purpose: StreamPurpose("test-show-exact"))
        for _ in 0..<300 { values.append(Int64(bitPattern: rng.next()) >> Int64(rng.below(63))) }
        let store = ShowStore(cells: 3)
        // Cells 0 and 1 in turn, so their chains interleave in the pages.
        for x in values { store.append(x, cell: 0); store.append(~x, cell: 1) }
        #expect(store.exactSorted(0) == values.sorted())
        #expect(store.exactSorted(1) == values.map { ~$0 }.sorted())
        // Cell 0 passes the limit and gives its chunks back; cell 2 takes them.
        for _ in values.count...ShowStore.exactLimit { store.append(7, cell: 0) }
        #expect(store.exactSorted(0) == nil)
        for x in values.reversed() { store.append(x, cell: 2) }
        #expect(store.exactSorted(2) == values.sorted())
        #expect(store.exactSorted(1) == values.map { ~$0 }.sorted())
    }

    /// A binned cell's page counts in bytes until one of its bins passes 255, then in words.
    /// Counts of 255, 256 and thousands come out exact, whether they grow by shows or by a
    /// merge, and a byte page given back when its page widened comes back empty.
    @Test func binCountsPastAByteWidenTheirPage() {
        let ms = Self.ms
        let store = ShowStore(cells: 3)
        // Cell 0: 4,097 shows at 0 ms pass the exact limit; counting them in bins widens the
        // page of 0 ms (its byte page goes back), then a show at 100 ms, two pages further
        // (64 bins of 1 ms a page), takes that byte page again.
        for _ in 0...ShowStore.exactLimit { store.append(0, cell: 0) }
        #expect(store.pagesInUse == (narrow: 0, wide: 1))
        store.append(100 * ms, cell: 0)
        #expect(store.pagesInUse == (narrow: 1, wide: 1))
        #expect(store.bins(0).map(\.count) == [ShowStore.exactLimit + 1, 1])
        // Cell 1: 4,097 shows a quarter of a millisecond apart from −600 ms down, then 255 at
        // −500 ms: 255 fits a byte, the 256th widens that page.
        for k in 0...Int64(ShowStore.exactLimit) { store.append(-k * ms / 4 - 600 * ms, cell: 1) }
        for _ in 0..<255 { store.append(-500 * ms, cell: 1) }
        #expect(store.bins(1).first { $0.lower == -500e6 }?.count == 255)
        let wideBefore = store.pagesInUse.wide
        store.append(-500 * ms, cell: 1)
        #expect(store.pagesInUse.wide == wideBefore + 1)
        #expect(store.bins(1).first { $0.lower == -500e6 }?.count == 256)
        #expect(store.bins(1).reduce(0) { $0 + $1.count } == ShowStore.exactLimit + 1 + 256)
        // Cell 2 in two shards, each with 200 shows at 30 ms past 5,000 spread ones: each shard's
        // page holds 200 in a byte; read together they count 400, as one store fed all does.
        let a = ShowStore(cells: 3), b = ShowStore(cells: 3), whole = ShowStore(cells: 3)
        for (k, shard) in [a, b].enumerated() {
            for i in 0..<5_000 {
                let x = Int64(i * 2 + k) * ms / 3 + 2 * Nanoseconds.second
                shard.append(x, cell: 2)
                whole.append(x, cell: 2)
            }
            for _ in 0..<200 {
                shard.append(30 * ms, cell: 2)
                whole.append(30 * ms, cell: 2)
            }
            #expect(shard.pagesInUse.wide == 0)
        }
        #expect(whole.pagesInUse.wide == 1)
        #expect(ShowStore.bins(2, in: [a, b]) == whole.bins(2))
        #expect(ShowStore.bins(2, in: [a, b]).first { $0.lower == 30e6 }?.count == 400)
        #expect(ShowStore.count(2, in: [a, b]) == 10_400)
        #expect(ShowStore.lowest(2, in: [a, b]) == whole.lowest(2) && ShowStore.highest(2, in: [a, b]) == whole.highest(2))
    }

    /// Binned against exact, on the same 20,000 offsets (most within a second, a fifth spread
    /// over minutes to hours, some early): the earliest and latest are exact; a quantile is
    /// within half a bin (0.5 ms inside ±1 s, 1/1,024 of the value beyond), so a spread is within
    /// the sum of its two ends' errors; the centred window is exact; the best window and the
    /// pairs lie between the exact counts for a window one bin (1 ms) narrower and wider.
    @Test func binnedFiguresKeepTheirPromisedAccuracy() {
        var rng = RandomStream(seed: 21, purpose: StreamPurpose("test-binned-accuracy"))
        var offsets: [Int64] = []
        for _ in 0..<20_000 {
            let u = rng.unit()
            if u < 0.8 { offsets.append(Int64((rng.unit() - 0.3) * 1.2e9)) }
            else { offsets.append(Int64(1e9 * pow(10, 4 * rng.unit()))) }   // 1 s to about 3 h
        }
        let shows = ShowSummaries(transitions: 1)
        for (k, x) in offsets.enumerated() { shows.append(x, to: 0, playerKey: ShowSummaries.playerKey(k)) }
        let w = 500 * Self.ms
        let binned = shows.rows(Self.schedule(1), duration: 1, window: w).rows[0]
        let exact = TransitionRow.measure(time: 0, position: 0, offsets: offsets, window: w)
        #expect(binned.earliest == exact.earliest && binned.latest == exact.latest)
        let sorted = offsets.sorted()
        func quantile(_ q: Double) -> Int64 { sorted[max(0, min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.up)) - 1))] }
        func error(_ x: Int64) -> Double { Swift.max(0.5e6, abs(Double(x)) / 1_024) + 1 }
        #expect(abs(Double(binned.spread - exact.spread)) <= error(quantile(0.99)) + error(quantile(0.01)))
        #expect(abs(Double(binned.spread999 - exact.spread999)) <= error(quantile(0.999)) + error(quantile(0.001)))
        #expect(binned.inCentredWindow == exact.inCentredWindow)
        // Beyond 1 s a bin is up to 1/512 of its value wide: the far tail's pairs are counted by
        // bins of seconds, so over all pairs the count is close, not bracketed.
        #expect(abs(binned.pairsWithin - exact.pairsWithin) / exact.pairs < 0.001)
        // Inside ±1 s every bin is 1 ms wide: the best window and the pairs are bracketed by the
        // exact counts for windows 1 ms narrower and wider.
        let core = offsets.filter { abs($0) < 1_000_000_000 }
        let coreShows = ShowSummaries(transitions: 1)
        for (k, x) in core.enumerated() { coreShows.append(x, to: 0, playerKey: ShowSummaries.playerKey(k)) }
        let coreBinned = coreShows.rows(Self.schedule(1), duration: 1, window: w).rows[0]
        let narrow = TransitionRow.measure(time: 0, position: 0, offsets: core, window: w - Self.ms)
        let wide = TransitionRow.measure(time: 0, position: 0, offsets: core, window: w + Self.ms)
        #expect(coreBinned.inBestWindow >= narrow.inBestWindow && coreBinned.inBestWindow <= wide.inBestWindow)
        #expect(coreBinned.pairsWithin >= narrow.pairsWithin && coreBinned.pairsWithin <= wide.pairsWithin)
    }

    /// The subsets nest and hold about 1/10^k of the players.
    @Test func subsetsNestAndHoldAboutTheirShare() {
        let players = 1_000_000
        var held = [Int](repeating: 0, count: ShowSummaries.subsetLevels + 1)
        for p in 0..<players {
            let level = Int(ShowSummaries.subsets(ofKey: ShowSummaries.playerKey(p)))
            for k in 0...level { held[k] += 1 }
        }
        // A shard's summaries give a player the same subsets as the key does.
        let shard = ShowSummaries(transitions: 1, players: 500..<700)
        for p in 500..<700 { shard.append(Int64(p), to: 0, player: p) }
        let byKey = ShowSummaries(transitions: 1)
        for p in 500..<700 { byKey.append(Int64(p), to: 0, playerKey: ShowSummaries.playerKey(p)) }
        for level in 0..<ShowSummaries.levels { #expect(shard.bins(0, level: level) == byKey.bins(0, level: level)) }
        for k in 1...4 {
            let expected = Double(players) / pow(10, Double(k))
            // Binomial: 5 standard deviations.
            #expect(abs(Double(held[k]) - expected) < 5 * expected.squareRoot() + 1, "level \(k): \(held[k])")
        }
    }

    // MARK: Closed forms for Uniform(0, 1 s) show offsets

    static func uniformShows(changes: Int, viewers: Int, seed: UInt64) -> ShowSummaries {
        var rng = RandomStream(seed: seed, purpose: StreamPurpose("test-uniform-shows"))
        let shows = ShowSummaries(transitions: changes)
        var player = 0
        for change in 0..<changes {
            for _ in 0..<viewers {
                shows.append(Int64(rng.unit() * 1e9), to: change, playerKey: ShowSummaries.playerKey(player))
                player += 1
            }
        }
        return shows
    }

    static func schedule(_ changes: Int) -> [StoreSchedule.Transition] {
        (0..<changes).map { StoreSchedule.Transition(time: Int64($0), position: 0, item: 0) }
    }

    /// The range of n independent Uniform(0, 1) has mean (n − 1)/(n + 1) and variance
    /// 2(n − 1)/((n + 1)²(n + 2)). Over 20,000 changes of 10 viewers: 9/11 s = 818.18 ms, with a
    /// standard error of 0.79 ms; 4 of them is the tolerance.
    @Test func worstPairGrowsAsTheRangeOfTheSample() {
        for (n, changes) in [(10, 20_000), (100, 2_000)] {
            let shows = Self.uniformShows(changes: changes, viewers: n, seed: UInt64(n))
            let rows = shows.rows(Self.schedule(changes), duration: Int64(changes), window: 500 * Self.ms).rows
            let mean = rows.reduce(0.0) { $0 + Double($1.gap) } / Double(rows.count) / 1e9
            let N = Double(n)
            let sd = (2 * (N - 1) / ((N + 1) * (N + 1) * (N + 2))).squareRoot()
            #expect(abs(mean - (N - 1) / (N + 1)) < 4 * sd / Double(changes).squareRoot(), "n = \(n): \(mean)")
        }
    }

    /// One change seen by 200,000 viewers (binned): the share inside the window centred on the
    /// true instant is P(U < 0.25) = 0.25; the best 500 ms window holds 0.5 plus the maximum's
    /// small excess; pairs within 500 ms are P(|U − V| ≤ 0.5) = 1 − 0.5² = 0.75; p0.1 and p99.9
    /// are 1 ms and 999 ms. Tolerances: several standard errors at n = 200,000 (a share's is
    /// about 0.001, a quantile's 0.07 ms) plus the bins' 0.5 ms.
    @Test func windowPairAndQuantileSharesMatchTheirClosedForms() {
        let shows = Self.uniformShows(changes: 1, viewers: 200_000, seed: 5)
        let row = shows.rows(Self.schedule(1), duration: 1, window: 500 * Self.ms).rows[0]
        #expect(row.viewers == 200_000)
        #expect(abs(row.centredWindowShare - 0.25) < 0.005)
        #expect(row.bestWindowShare >= 0.5 - 0.002 && row.bestWindowShare < 0.5 + 0.01)
        #expect(abs(row.pairShare! - 0.75) < 0.005)
        #expect(abs(Double(row.spread999) / 1e6 - 998) < 1.5)
        #expect(abs(Double(row.spread) / 1e6 - 980) < 2)
        #expect(row.earliest >= 0 && row.latest < 1_000_000_000)
    }

    /// The viewer subsets show the worst pair growing while the shares stay put: every figure
    /// measured on about 1/10 and 1/100 of 2,000 viewers per change.
    @Test func subsetsShowTheWorstPairGrowAndTheSharesHold() {
        let changes = 300
        let shows = Self.uniformShows(changes: changes, viewers: 2_000, seed: 8)
        let (rows, subsets, _) = shows.rows(Self.schedule(changes), duration: Int64(changes), window: 500 * Self.ms)
        let all = RunResult.gapFigures(rows), tenth = RunResult.gapFigures(subsets[0].filter { $0.viewers >= 2 })
        let hundredth = RunResult.gapFigures(subsets[1].filter { $0.viewers >= 2 })
        func v(_ f: [String: Double?], _ k: String) -> Double { (f[k] ?? nil) ?? .nan }
        // The range of n uniforms is Beta(n − 1, 2), whose CDF is n xⁿ⁻¹ − (n − 1) xⁿ: its median
        // is 999.2, 991.6 and 917.5 ms for n = 2,000, 200 and 20. At n ≈ 20 (binomial) the
        // median over 300 changes has a standard error of about 5 ms.
        #expect(abs(v(all, "transitionGapMs.p50") - 999.2) < 1)
        #expect(abs(v(tenth, "transitionGapMs.p50") - 991.6) < 4)
        #expect(abs(v(hundredth, "transitionGapMs.p50") - 917.5) < 25)
        for f in [all, tenth, hundredth] {
            #expect(abs(v(f, "viewerPairsWithin500msShare") - 0.75) < 0.02)
            #expect(abs(v(f, "viewersInCentred500msShare") - 0.25) < 0.02)
        }
    }
}

extension Array {
    /// The same elements in another fixed order (last first, then the rest), so a test does
    /// not hand the code sorted input.
    func shuffledDeterministically() -> [Element] { isEmpty ? self : [last!] + dropLast() }
}
