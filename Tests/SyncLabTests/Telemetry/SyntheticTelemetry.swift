import Foundation
@testable import SyncLab
import SyncLabKernel

/// Telemetry drawn through the lab's own link processes: each device's round trips are its
/// uplink delay (at the send) plus its downlink delay (as the request arrives), floored, from
/// the link's delay process with its correlation in time, as the world draws them.
enum SyntheticTelemetry {
    enum Sampling {
        /// Each session logs five exchanges at gaps drawn log-uniformly from 0.1 s to 60 s: the
        /// app's own timers, blind to the link.
        case spaced
        /// Each session probes back to back for 20 s, every probe sent as the last one answers.
        case bursts
    }

    /// 2026-01-01T00:00:00Z in ms.
    static let epochMs: Int64 = 1_767_225_600_000

    static func table(_ links: [(profile: LinkProfile, devices: Int)], sessions: Int, sampling: Sampling, seed: UInt64) -> TelemetryTable {
        var table = TelemetryTable(file: "synthetic")
        table.links = links.map(\.profile.name)
        var device = 0
        for (l, entry) in links.enumerated() {
            let link = entry.profile.preparingCorrelation(entry.profile.correlation)
            for _ in 0..<entry.devices {
                table.devices.append("d\(device)")
                var rng = RandomStream(seed: seed, purpose: StreamPurpose("synthetic-telemetry"), entity: UInt64(device))
                var memory = LinkMemory()
                var t = Int64(rng.unit() * 3.6e12)
                func exchange(at sent: Int64) -> Double? {
                    if rng.bernoulli(link.failure) {
                        table.append(device: device, sentNs: sent, link: l, roundTrip: nil)
                        return nil
                    }
                    let up = link.floored(Int64(link.correlation.delay(.uplink, on: link, memory: &memory, at: SimTime(ns: sent),
                                                                         player: UInt64(device), seed: seed, &rng)), .uplink)
                    let down = link.floored(Int64(link.correlation.delay(.downlink, on: link, memory: &memory, at: SimTime(ns: sent + up),
                                                                           player: UInt64(device), seed: seed, &rng)), .downlink)
                    let rt = Double(up + down)
                    table.append(device: device, sentNs: sent, link: l, roundTrip: rt)
                    return rt
                }
                for _ in 0..<sessions {
                    switch sampling {
                    case .spaced:
                        for k in 0..<5 {
                            if k > 0 { t += Int64(DeterministicMath.exp(DeterministicMath.log(0.1) + rng.unit() * DeterministicMath.log(600)) * 1e9) }
                            _ = exchange(at: t)
                        }
                    case .bursts:
                        let end = t + 20 * .second
                        while t < end {
                            let rt = exchange(at: t) ?? 1e9
                            t += Int64(rt) + .millisecond
                        }
                    }
                    // The next session: at least a minute later, ten minutes on average.
                    t += .minute + Int64(-DeterministicMath.log(1 - rng.unit()) * 6e11)
                }
                device += 1
            }
        }
        return table
    }
}

extension TelemetryTable {
    mutating func append(device: Int, sentNs: Int64, link: Int, roundTrip: Double?) {
        self.device.append(UInt32(device))
        sentMs.append(SyntheticTelemetry.epochMs + sentNs / 1_000_000)
        self.link.append(UInt16(link))
        answered.append(roundTrip != nil)
        roundTripNs.append(roundTrip ?? 0)
        bytes.append(-1)
    }
}
