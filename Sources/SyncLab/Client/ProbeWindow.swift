import SyncLabKernel

/// The last probes a combining estimator (`MedianEstimator`, `MarzulloEstimator`) votes over:
/// each probe's RFC 5905 offset, its ± bound and the server that answered, in a ring of
/// `window` entries in the client's design memory.
///
/// Every probe is one exchange read as `NTPEstimator` reads it: offset θ (server time minus
/// the clock's reading at download complete T4) and the one-exchange half-width b (its delay's
/// half plus the server's resolution and clock terms). Entries measured earlier are carried to
/// the newest reading R: their offset is kept (the clock is assumed to run at server rate) and
/// their half-width grows by what the clock may have drifted since, `intervalError(R − T4)`.
/// Like the NTP filter it does not age entries out: after a suspending clock pauses in standby
/// the old offsets are stale by the pause (a finding, shown in the reports).
///
/// Memory: 1 + 4·window words (count; per probe: θ, T4, b, server).
struct ProbeWindow {
    static func words(_ window: Int) -> Int { 1 + 4 * window }

    /// One probe's vote, carried to the newest reading.
    struct Vote {
        var offset: Int64
        var halfWidth: Int64
        var server: Int
    }

    /// The one probe of a round a design that reads every probe does not see as a round (a sync
    /// of one exchange), as the span the window's `estimate(probes:…)` takes.
    static func one<R>(_ s: SyncSample, _ body: (Span<SyncSample>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: SyncSample.self, capacity: 1) { one in
            one.initialize(repeating: s)
            defer { one.deinitialize() }
            return body(unsafe Span(_unsafeElements: UnsafeBufferPointer(one)))
        }
    }

    /// Records the round's probes (`record`) and hands `body` the votes, in a buffer of their
    /// own (no allocation), with the newest reading.
    static func votes<R>(_ probes: Span<SyncSample>, window: Int, perServer: Bool, memory: inout MutableSpan<Int64>,
                         _ m: BoundModel, _ body: (UnsafeMutableBufferPointer<Vote>, ClockReading) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Vote.self, capacity: window) { buffer in
            let (n, reading) = record(probes, window: window, perServer: perServer, memory: &memory, m, into: buffer)
            return body(UnsafeMutableBufferPointer(rebasing: buffer[0..<n]), reading)
        }
    }

    /// Adds every probe of the round to player's window and returns the votes of the window
    /// (at most `window`, the newest last) carried to the newest probe's reading, which it
    /// also returns. With `perServer` only each server's newest probe votes.
    static func record(_ probes: Span<SyncSample>, window: Int, perServer: Bool, memory: inout MutableSpan<Int64>,
                       _ m: BoundModel, into votes: UnsafeMutableBufferPointer<Vote>) -> (count: Int, reading: ClockReading) {
        precondition(memory.count >= words(window) && votes.count >= window)
        var count = memory[0]
        for k in 0..<probes.count {
            let s = probes[k]
            let slot = 1 + 4 * Int(count % Int64(window))
            memory[slot] = NTPEstimator.offset(s)
            memory[slot + 1] = s.downloadComplete.ns
            memory[slot + 2] = NTPEstimator.bound(s, m)
            memory[slot + 3] = Int64(s.server)
            count &+= 1
        }
        memory[0] = count
        let kept = Int(min(count, Int64(window)))
        // Oldest first: the ring's next slot is its oldest entry once it is full.
        let first = count > Int64(window) ? Int(count % Int64(window)) : 0
        let newest = 1 + 4 * ((first + kept - 1) % window)
        let reading = memory[newest + 1]
        var n = 0
        for i in 0..<kept {
            let slot = 1 + 4 * ((first + i) % window)
            if perServer {
                // A newer entry from the same server replaces this one.
                var replaced = false
                for j in (i + 1)..<kept where memory[1 + 4 * ((first + j) % window) + 3] == memory[slot + 3] {
                    replaced = true
                    break
                }
                if replaced { continue }
            }
            let age = reading &- memory[slot + 1]
            let carried = age == 0 ? 0 : m.intervalError(age)
            votes[n] = Vote(offset: memory[slot], halfWidth: memory[slot + 2] &+ carried, server: Int(memory[slot + 3]))
            n += 1
        }
        return (n, ClockReading(ns: reading))
    }
}
