import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct ImmediateTickTests {
    /// Every instant is a tick: both the next and the last tick of any instant are the instant.
    @Test func everyInstantIsATick() {
        let tick = ImmediateTick()
        let device = DeviceState(driftPPB: 12_345, wallOffset: 7, bootTime: SimTime(ns: -3_600_000_000_000), epochUnix: 0)
        let session = TickInstants(tick).session(device, start: SimTime(ns: 5), ClockContext(epochUnix: 0))
        for ns: Int64 in [5, 6, 999_999_999, 1_000_000_001, 86_400_000_000_123] {
            let t = SimTime(ns: ns)
            #expect(TickInstants(tick).firstTick(atOrAfter: t, session, device, ClockContext(epochUnix: 0)) == t)
            #expect(TickInstants(tick).lastTick(atOrBefore: t, session, device, ClockContext(epochUnix: 0)) == t)
        }
    }

    @Test func scenarioSelectsItByName() throws {
        let text = try ScenarioFixtures.variant(#"{"client": {"tick": "immediate"}}"#)
        let s = try ScenarioLoader().load(text: text)
        #expect(s.client.tick.name == "immediate")
    }
}
