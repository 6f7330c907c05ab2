import Testing
@testable import SyncLab
import SyncLabKernel

/// The link presets: their numbers stay inside the ranges docs/links.md cites, and a scenario can
/// use one by name and override any key.
@Suite struct LinkPresetsTests {
    static func median(_ d: Distribution) -> Double {
        switch d {
        case .lognormal(let median, _): return median
        case .lognormalMixture(let mixture): return mixture.median
        default: Issue.record("neither lognormal nor a lognormal mixture: \(d)"); return .nan
        }
    }

    /// Round-trip medians (uplink + downlink medians; `LinkCalibrationTests` checks the round
    /// trip's own median and spread) and bandwidth medians against the cited ranges: Wi-Fi 10–30 ms; LTE 50–65 ms (OpenSignal 57–65, Catchpoint 55); 3G 100–500 ms and
    /// 0.5–5 Mbit/s (HPBN table 7-2); EDGE 300–1000 ms and 100–400 kbit/s (HPBN), below the
    /// 236.8 kbit/s of four MCS-9 time slots.
    @Test func presetNumbersAreInsideTheCitedRanges() throws {
        let ranges: [String: (rttMs: ClosedRange<Double>, mbit: ClosedRange<Double>)] = [
            "wifi": (10...30, 5...100), "lte": (50...65, 5...50), "3g": (100...500, 0.5...5), "edge": (300...1000, 0.1...0.2368),
        ]
        #expect(LinkPresets.names == ["wifi", "lte", "3g", "edge"])
        for p in LinkPresets.all {
            let range = try #require(ranges[p.name])
            let rtt = (Self.median(p.uplink) + Self.median(p.downlink)) / 1e6
            #expect(range.rttMs.contains(rtt), "\(p.name) round trip \(rtt) ms")
            let mbit = Self.median(p.bandwidth) * 8 / 1e6
            #expect(range.mbit.contains(mbit), "\(p.name) bandwidth \(mbit) Mbit/s")
            #expect(Self.median(p.uplink) >= Self.median(p.downlink))
            #expect(p.failure > 0 && p.failure <= 0.05)
            #expect(p.timeout == 30 * .second)
        }
        // Slower links are slower in every respect.
        let all = LinkPresets.all
        for (a, b) in zip(all, all.dropFirst()) {
            #expect(Self.median(a.downlink) < Self.median(b.downlink))
            #expect(Self.median(a.bandwidth) > Self.median(b.bandwidth))
            #expect(a.failure < b.failure)
        }
    }

    /// Cellular presets correlate in time with the time constants docs/links.md derives from the
    /// Saturator traces (LTE 2 s; 3G 5 s, borrowed by EDGE); Wi-Fi, unmeasured, draws afresh. A
    /// preset keeps its correlation while its delays suit it, and loses it to a constant.
    @Test func cellularPresetsCorrelateInTime() throws {
        let taus = LinkPresets.all.map { ($0.correlation as? AR1Delays)?.tau }
        #expect(taus == [nil, 2 * .second, 5 * .second, 5 * .second])
        let text = try ScenarioFixtures.variant(#"""
            {"network": {"profiles": [
              {"preset": "3g", "share": 0.5},
              {"preset": "lte", "name": "lte-fixed", "share": 0.25, "downlink": "80ms"},
              {"preset": "lte", "name": "lte-indep", "share": 0.25, "correlation": "independent"}]}}
            """#)
        let s = try ScenarioLoader().load(text: text)
        #expect((s.links[0].correlation as? AR1Delays)?.tau == 5 * .second)
        #expect(s.links[1].hasIndependentDelays && s.links[2].hasIndependentDelays)
    }

    @Test func aPresetLoadsWithOverrides() throws {
        let text = try ScenarioFixtures.variant(#"""
            {"network": {"profiles": [
              {"preset": "edge", "share": 0.1},
              {"preset": "lte", "name": "lte-slow", "share": 0.4, "downlink": "80ms", "failure": 0.01},
              {"preset": "wifi", "share": 0.5, "timeout": "10s"}]}}
            """#)
        let s = try ScenarioLoader().load(text: text)
        #expect(s.links.map(\.name) == ["edge", "lte-slow", "wifi"])
        let edge = try #require(LinkPresets.named("edge"))
        #expect(s.links[0].uplink == edge.uplink && s.links[0].bandwidth == edge.bandwidth && s.links[0].failure == edge.failure)
        #expect(s.links[0].share == 0.1)
        let lte = try #require(LinkPresets.named("lte"))
        #expect(s.links[1].uplink == lte.uplink)
        #expect(s.links[1].downlink == .constant(80e6))
        #expect(s.links[1].failure == 0.01)
        #expect(s.links[2].timeout == 10 * .second)
    }

    @Test func presetErrorsNameTheKey() throws {
        let unknown = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"network": {"profiles": [{"preset": "5g", "share": 1}]}}"#))
        #expect(unknown?.description == "bad.json: network.profiles[0].preset: unknown link preset '5g'; expected one of 'wifi', 'lte', '3g', 'edge'")
        let twice = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(
            #"{"network": {"profiles": [{"preset": "lte", "share": 0.5}, {"preset": "lte", "share": 0.5}]}}"#))
        #expect(twice?.keyPath == "network.profiles[1]")
        #expect(twice?.message.contains("give this preset a 'name'") == true)
        let noShare = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"network": {"profiles": [{"preset": "lte"}]}}"#))
        #expect(noShare?.keyPath == "network.profiles[0].share")
        let typo = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(#"{"network": {"profiles": [{"preset": "lte", "share": 1, "uplnk": "1ms"}]}}"#))
        #expect(typo?.message == "unknown key 'uplnk'; did you mean 'uplink'?")
    }
}
