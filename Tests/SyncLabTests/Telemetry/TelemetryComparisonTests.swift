import Testing
@testable import SyncLab
import SyncLabKernel

/// `TelemetryComparison`: links matched by name, never guessed; unlabelled telemetry against one
/// link or the links pooled.
@Suite struct TelemetryComparisonTests {
    /// One row per (label, round trip in ms), each on a device of its own (each starts a burst).
    static func table(_ rows: [(String, Double)]) -> TelemetryTable {
        var t = TelemetryTable(file: "t.csv")
        for (i, (label, ms)) in rows.enumerated() {
            let link = t.links.firstIndex(of: label) ?? { t.links.append(label); return t.links.count - 1 }()
            t.devices.append("d\(i)")
            t.device.append(UInt32(i))
            t.sentMs.append(1_700_000_000_000)
            t.link.append(UInt16(link))
            t.answered.append(true)
            t.roundTripNs.append(ms * 1e6)
            t.bytes.append(-1)
        }
        return t
    }

    /// A histogram holding each of `ms` (ms).
    static func histogram(_ ms: [Double]) -> Histogram {
        var h = Histogram(subBits: 10)
        for v in ms { h.record(Int64(v * 1e6)) }
        return h
    }

    static let spread = (1...400).map { 20 + Double($0) / 10 }   // 20.1 … 60 ms

    @Test func linksAreMatchedByNameAndTheRestListed() {
        let t = Self.table(Self.spread.map { ("wifi", $0) } + [("wifi-5g", 30)])
        let c = TelemetryComparison.compare(t, linkNames: ["wifi", "edge"],
                                            histograms: [Self.histogram(Self.spread), Self.histogram([500])])
        #expect(c.rows.map(\.label) == ["wifi"] && c.rows[0].runLinks == ["wifi"])
        #expect(c.rows[0].agreement.agrees)
        #expect(c.rows[0].agreement.telemetryCount == 400 && c.rows[0].agreement.modelCount == 400)
        #expect(c.unmatched == ["no telemetry for link 'edge'", "telemetry link 'wifi-5g' is not in the scenario"])
        #expect(!c.pooled && c.agrees)
    }

    /// Round trips half again as long: p50 is 1.5 times the telemetry's, beyond ×1.10.
    @Test func slowerRoundTripsDisagree() {
        let t = Self.table(Self.spread.map { ("wifi", $0) })
        let c = TelemetryComparison.compare(t, linkNames: ["wifi"], histograms: [Self.histogram(Self.spread.map { $0 * 1.5 })])
        #expect(!c.agrees && c.rows[0].agreement.quantilesAgree == [false, false, false])
    }

    @Test func unlabelledTelemetryMeetsTheOneLinkOrThePool() {
        let t = Self.table(Self.spread.map { (TelemetryTable.unlabelled, $0) })
        let one = TelemetryComparison.compare(t, linkNames: ["lte"], histograms: [Self.histogram(Self.spread)])
        #expect(one.rows.map(\.runLinks) == [["lte"]] && !one.pooled && one.agrees && one.unmatched.isEmpty)
        // Half the round trips on each link: pooled, they are the telemetry's.
        let low = Self.spread.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let high = Self.spread.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let pooled = TelemetryComparison.compare(t, linkNames: ["a", "b"], histograms: [Self.histogram(low), Self.histogram(high)])
        #expect(pooled.pooled && pooled.rows.count == 1 && pooled.rows[0].runLinks == ["a", "b"])
        #expect(pooled.rows[0].agreement.modelCount == 400 && pooled.agrees)
    }

    /// Nothing compared is not agreement: a gate on it fails.
    @Test func nothingComparedDoesNotAgree() {
        let t = Self.table([("wifi-5g", 30)])
        let c = TelemetryComparison.compare(t, linkNames: ["wifi"], histograms: [Self.histogram([30])])
        #expect(c.rows.isEmpty && !c.agrees)
        #expect(c.unmatched == ["no telemetry for link 'wifi'", "telemetry link 'wifi-5g' is not in the scenario"])
    }
}
